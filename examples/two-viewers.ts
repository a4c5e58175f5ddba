/**
 * Two viewers on one page, made with the package's entry as another page
 * would: each has its own scene and camera; they share the page's GPU
 * device and its compiled pipelines. The page keeps them on
 * `window.splatsortExample` for the browser tests.
 */
import { createViewer, type SplatViewer } from '../src/lib/index';

const scene = new URL('../data/default-scene.ply', import.meta.url).href;

declare global {
  interface Window {
    splatsortExample?: { viewers: SplatViewer[]; loaded: number; errors: string[] };
  }
}

const example = (window.splatsortExample = { viewers: [] as SplatViewer[], loaded: 0, errors: [] as string[] });
for (const [id, background] of [['left', '#101318'], ['right', '#182018']] as const) {
  const viewer = await createViewer(document.getElementById(id)!, { settings: { renderer: 'quads', background } });
  viewer.on('loaded', () => example.loaded++);
  viewer.on('error', ({ name, reason }) => example.errors.push(`${name}: ${reason}`));
  example.viewers.push(viewer);
  void viewer.load(scene, { name: 'default-scene.ply' });
}

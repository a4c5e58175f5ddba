/**
 * Two viewers on one page, made with the package's entry as another page
 * would: each has its own scene and camera; they share the page's GPU
 * device and its compiled pipelines. The page keeps them on
 * `window.splatsortExample` for the browser tests.
 */
import { createViewer } from 'splatsort';
import type { ViewersExample } from './example-state';

const scene = new URL('default-scene.ply', location.href).href;

const example: ViewersExample = (window.splatsortExample = { viewers: [], loaded: 0, errors: [], createViewer });
for (const [id, background] of [['left', '#101318'], ['right', '#182018']] as const) {
  const viewer = await createViewer(document.getElementById(id)!, { settings: { renderer: 'quads', background } });
  viewer.on('loaded', () => example.loaded++);
  viewer.on('error', ({ name, reason }) => example.errors.push(`${name}: ${reason}`));
  example.viewers.push(viewer);
  void viewer.load(scene, { name: 'default-scene.ply' });
}

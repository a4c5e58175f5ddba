/**
 * A page that is the viewer, with the viewer page's own panel (settings,
 * stats, help, messages, drag and drop, the view kept in the address bar):
 * `ui: true` loads it, styles and all, as a chunk of its own. The page keeps
 * the viewer on `window.splatsortExample` for the browser tests.
 */
import { createViewer } from 'splatsort';
import type { ViewersExample } from './example-state';

const example: ViewersExample = (window.splatsortExample = { viewers: [], loaded: 0, errors: [], createViewer });
const viewer = await createViewer(document.getElementById('app')!, { ui: true, src: 'default-scene.ply' });
viewer.on('loaded', () => example.loaded++);
viewer.on('error', ({ name, reason }) => example.errors.push(`${name}: ${reason}`));
example.viewers.push(viewer);

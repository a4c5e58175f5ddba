/**
 * One viewer in a page, in the five lines a page needs: a container and
 * the scene to open. The page keeps the viewer, and `createViewer` itself,
 * on `window.splatsortExample` for the browser tests (which make and free
 * more viewers with it).
 */
import { createViewer } from 'splatsort';
import type { ViewersExample } from './example-state';

const example: ViewersExample = (window.splatsortExample = { viewers: [], loaded: 0, errors: [], createViewer });
const viewer = await createViewer(document.getElementById('viewer')!, { src: 'default-scene.ply' });
viewer.on('loaded', () => example.loaded++);
viewer.on('error', ({ name, reason }) => example.errors.push(`${name}: ${reason}`));
example.viewers.push(viewer);

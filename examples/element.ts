/**
 * The `<splat-viewer>` element, as another page uses it: importing the
 * element's entry registers it; the page sets its src, and records the
 * events it hears on `window.splatsortElementEvents` for the browser tests.
 */
import 'splatsort/element';
import type {} from './example-state';

const heard: { type: string; detail: unknown }[] = (window.splatsortElementEvents = []);
const element = document.getElementById('viewer')!;
for (const type of ['loaded', 'error', 'rendererchange', 'orderchange']) element.addEventListener(type, (event) => heard.push({ type, detail: (event as CustomEvent).detail }));
element.setAttribute('src', 'default-scene.ply');

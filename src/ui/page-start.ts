/**
 * The page before its viewer exists, and when none can be made: the
 * viewer page's look from the first moment, why the viewer could not
 * start, and how to get WebGPU where the browser has none (the self-test
 * page's explanation). The panel itself loads with the viewer
 * (viewer-page.ts, `ui: true`).
 */
import { WebGpuUnavailableError, type ViewerState } from '../lib/index';
import { MessageOverlay } from './overlays';
import { SelfTestPage } from './self-test-page';
import type {} from './page-hooks';
import './style.css';

/** The page's root element: the viewer's container. */
export function viewerRoot(selector = '#app'): HTMLElement {
  const root = document.querySelector<HTMLElement>(selector);
  if (!root) throw new Error(`Splatsort: the page has no ${selector} element`);
  document.body.classList.add('viewer');
  return root;
}

/** Shows why the viewer could not start (console and page): how to get WebGPU, or the error. */
export function showStartFailure(root: HTMLElement, error: unknown): void {
  if (error instanceof WebGpuUnavailableError) {
    // The self-test page owns the "how to get WebGPU" explanation.
    document.body.classList.remove('viewer');
    SelfTestPage.mount().showWebGpuUnavailable(error.message);
    return;
  }
  console.error(error);
  const reason = error instanceof Error ? error.message : String(error);
  // Nothing else is known of a viewer that never started: its state is its error.
  window.__splatsort = { lastError: `Splatsort could not start: ${reason}` } as ViewerState;
  const messages = new MessageOverlay();
  root.replaceChildren(messages.dom);
  messages.show('Splatsort could not start', reason, { dismissible: false });
  document.body.dataset.viewer = 'failed';
}

/**
 * Browser composition root: the viewer page is a viewer made with the
 * package's public entry (src/lib/index.ts) with its panel (`ui: true`),
 * which opens the link's scene or the default one; with `?selftest` in the
 * URL, the GPU sort's self-test instead. Everything that touches the DOM
 * beyond the viewer lives in src/ui/.
 */
import { createViewer } from './lib/index';
import { showStartFailure, viewerRoot } from './ui/page-start';
import { runSelfTestPage } from './ui/self-test-page';

async function viewer(): Promise<void> {
  const root = viewerRoot();
  try {
    await createViewer(root, { ui: true });
  } catch (error) {
    showStartFailure(root, error);
  }
}

void (new URLSearchParams(location.search).has('selftest') ? runSelfTestPage() : viewer());

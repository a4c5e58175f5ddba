/**
 * Browser composition root: the viewer page is a viewer made with the
 * package's public entry (src/lib/index.ts) with its panel (`ui: true`),
 * which opens the link's scene or the page's default one (`src`); with `?selftest` in the
 * URL, the GPU sort's self-test instead. Everything that touches the DOM
 * beyond the viewer lives in src/ui/.
 */
import { createViewer } from './lib/index';
import { showStartFailure, viewerRoot } from './ui/page-start';
import { runSelfTestPage } from './ui/self-test-page';

/** The page's own scene, opened without a link (or when the link's cannot be). */
const DEFAULT_SCENE = new URL('../data/default-scene.ply', import.meta.url).href;
/** The default scene is made with +y up (tests/support/default-scene.ts); no guess needed. */
const DEFAULT_SCENE_UP = { axis: '+y', source: 'the default scene', why: 'The default scene is made with +y up.' } as const;

async function viewer(): Promise<void> {
  const root = viewerRoot();
  try {
    await createViewer(root, { ui: true, src: DEFAULT_SCENE, name: 'default-scene.ply', up: DEFAULT_SCENE_UP });
  } catch (error) {
    showStartFailure(root, error);
  }
}

void (new URLSearchParams(location.search).has('selftest') ? runSelfTestPage() : viewer());

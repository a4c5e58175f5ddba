/**
 * The scene the page opens first: the one its link names (`?url=`), else,
 * or when that one cannot be opened, the page's default scene, with the
 * link's error left up over it and the link's address kept in the address
 * bar, so a typo can be seen and fixed there.
 */
import type { CameraPose, LoadOutcome, SplatViewer } from '../lib/index';
import type { ViewSharing } from './view-sharing';

const DEFAULT_SCENE = new URL('../../data/default-scene.ply', import.meta.url).href;
/** The default scene is made with +y up (tests/support/default-scene.ts); no guess needed. */
const DEFAULT_SCENE_UP = { axis: '+y', source: 'the default scene', why: 'The default scene is made with +y up.' } as const;

/**
 * Opens the link's scene from the link's view (`camera`), or the default
 * scene; `showLoadError` shows a link refused before any load (an empty
 * url=) as a load's failure is shown.
 */
export async function openFirstScene(viewer: SplatViewer, sharing: ViewSharing, camera: CameraPose | null, showLoadError: (name: string, reason: string) => void): Promise<void> {
  const link = new URLSearchParams(location.search).get('url');
  let outcome: LoadOutcome = 'failed';
  if (link !== null) {
    // An empty url= would name the page itself.
    if (link.trim() === '') showLoadError('the link\'s scene', 'the link\'s url= is empty: it names no scene');
    else outcome = await viewer.load(link, { camera });
    if (outcome === 'opened') {
      sharing.setSceneUrl(link);
      return;
    }
  }
  // No link, the link failed, or its load was cancelled before any scene showed.
  if (outcome === 'failed' || (outcome === 'cancelled' && !viewer.state.scene)) {
    // The link's view was for its own scene.
    outcome = await viewer.load(DEFAULT_SCENE, { name: 'default-scene.ply', up: DEFAULT_SCENE_UP, keepError: true, camera: link === null ? camera : null });
    if (outcome === 'opened') sharing.setSceneUrl(link);
    if (outcome === 'failed' && !viewer.state.scene) document.body.dataset.viewer = 'load-failed';
  }
}

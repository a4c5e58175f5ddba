/**
 * The scene the page opens first: the one its link names (`?url=`), else,
 * or when that one cannot be opened, the page's own scene (the viewer's
 * `src`: the viewer page's default scene), with the link's error left up
 * over it and the link's address kept in the address bar, so a typo can
 * be seen and fixed there.
 */
import type { CameraPose, FirstScene, LoadOutcome, SplatViewer } from '../lib/index';
import type { ViewSharing } from './view-sharing';

/**
 * Opens the link's scene from the link's view (`camera`), or the default
 * scene; `showLoadError` shows a link refused before any load (an empty
 * url=) as a load's failure is shown.
 */
export async function openFirstScene(viewer: SplatViewer, sharing: ViewSharing, camera: CameraPose | null, showLoadError: (name: string, reason: string) => void, fallback: FirstScene | null): Promise<void> {
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
  if (fallback && (outcome === 'failed' || (outcome === 'cancelled' && !viewer.state.scene))) {
    // The link's view was for its own scene.
    outcome = await viewer.load(fallback.src, { name: fallback.name, up: fallback.up, keepError: true, camera: link === null ? camera : null });
    if (outcome === 'opened') sharing.setSceneUrl(link);
    if (outcome === 'failed' && !viewer.state.scene) document.body.dataset.viewer = 'load-failed';
  }
}

/**
 * The scene a page opens first: the one its link names (`?url=`), else, or
 * when that one cannot be opened, the viewer's default scene, with the
 * link's error left up over it. DOM-free: the page hands in its link and
 * address.
 */
import type { Viewer } from './viewer';
import type { LoadOutcome } from './session/scene-loads';
import type { CameraView } from './camera/orbit-camera';
import { resolveSceneUrl } from '../io/scene-url';
import { lastPathSegment } from '../io/path-name';

export interface FirstScene {
  /** The page's `url=` value (null: none). */
  link: string | null;
  /** The page's own address, which a relative link resolves against. */
  pageUrl: string;
  /** The view the page's link names (eye, target, ...), for the first scene only. */
  view: CameraView | null;
  /** The default scene's address and name. */
  defaultUrl: string;
  defaultName: string;
}

export interface FirstSceneResult {
  outcome: LoadOutcome;
  /** A link that could not be opened while the default scene stands in for it. */
  failedLink: string | null;
  /** The address the scene on screen was opened from (null: the default scene, or nothing). */
  sceneUrl: string | null;
}

/** A link's text, cut to a length that reads in a message title. */
export function shortName(text: string): string {
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

export async function openFirstScene(viewer: Viewer<string> | Viewer<File[] | string>, first: FirstScene): Promise<FirstSceneResult> {
  const open = viewer as Viewer<string>;
  const { link } = first;
  let outcome: LoadOutcome = 'failed';
  if (link !== null) {
    let url: string | undefined;
    try {
      // An empty url= would resolve to the page itself.
      if (link.trim() === '') throw new Error('the link\'s url= is empty: it names no scene');
      url = resolveSceneUrl(link, first.pageUrl);
    } catch (error) {
      open.fail(link.trim() === '' ? 'the link\'s scene' : shortName(link), error);
    }
    if (url !== undefined) {
      outcome = await open.open(url, { name: lastPathSegment(url) || url, view: first.view });
      if (outcome === 'opened') return { outcome, failedLink: null, sceneUrl: link };
    }
  }
  // No link, the link failed, or its load was cancelled before any scene showed.
  if (outcome === 'failed' || (outcome === 'cancelled' && !open.state.scene)) {
    outcome = await open.open(first.defaultUrl, {
      name: first.defaultName,
      defaultScene: true,
      keepError: true,
      // The link's view was for its own scene.
      view: link === null ? first.view : null,
    });
    return { outcome, failedLink: link !== null && outcome === 'opened' ? link : null, sceneUrl: null };
  }
  return { outcome, failedLink: null, sceneUrl: null };
}

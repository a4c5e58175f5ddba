/**
 * "Save scene as": the panel's choice (a writable format; all splats, those
 * in view or those in a box) made into a file of the scene on screen by the
 * viewer (SplatViewer.save), downloaded under the scene's name with the
 * format's extension. What went wrong (no scene, a box that is not one,
 * nothing selected) is said in a message.
 */
import { parseBox, SAVE_FORMATS, type SaveSelection, type SplatViewer } from '../lib/index';
import { downloadBlob } from './download';
import type { MessageOverlay } from './overlays';

export { boxText } from './box-text';

/** What the panel's Save folder holds. */
export interface SaveChoice {
  /** A writable format's id. */
  format: string;
  keep: SaveSelection['keep'];
  /** "minx, miny, minz, maxx, maxy, maxz" in scene coordinates. */
  box: string;
}

export function defaultSaveChoice(): SaveChoice {
  return { format: SAVE_FORMATS[0]!.id, keep: 'all', box: '' };
}

/** Saves the scene on screen as `choice` says and downloads it; says in a message what came of it. */
export async function saveSceneAs(viewer: SplatViewer, choice: SaveChoice, messages: MessageOverlay): Promise<void> {
  try {
    const selection: SaveSelection = choice.keep === 'box' ? { keep: 'box', box: parseBox(choice.box) } : { keep: choice.keep };
    const saved = await viewer.save(choice.format, selection);
    downloadBlob(saved.blob, saved.name);
    const count = (n: number) => n.toLocaleString('en-US');
    messages.notify(`Saved ${saved.name}`, `${count(saved.splats)} of ${count(saved.of)} splats, ${count(saved.blob.size)} bytes`);
  } catch (error) {
    messages.show('Could not save the scene', error instanceof Error ? error.message : String(error));
  }
}

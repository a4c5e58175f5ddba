/**
 * "Save scene as": the panel's choice (a writable format; all splats, those
 * in view or those in a box) made into a file of the scene on screen by the
 * Viewer (saveScene), downloaded under the scene's name with the format's
 * extension. What went wrong (no scene, a box that is not one, nothing
 * selected) is said in a message.
 */
import type { AnyViewer } from '../app/viewer';
import { parseBox, type SelectionKind, type ViewSelection } from '../app/session/splat-selection';
import { WRITABLE_FORMATS } from '../io/formats/save-formats';
import type { Bounds } from '../scene/splat-cloud';
import { downloadBlob } from './download';
import type { MessageOverlay } from './overlays';

/** What the panel's Save folder holds. */
export interface SaveChoice {
  /** A writable format's id. */
  format: string;
  keep: SelectionKind;
  /** "minx, miny, minz, maxx, maxy, maxz" in scene coordinates. */
  box: string;
}

export function defaultSaveChoice(): SaveChoice {
  return { format: WRITABLE_FORMATS[0]!.id, keep: 'all', box: '' };
}

/** A box as the panel writes it: four significant digits a number. */
export function boxText({ min, max }: Bounds): string {
  return [...min, ...max].map((v) => Number(v.toPrecision(4))).join(', ');
}

/** Saves the scene on screen as `choice` says and downloads it; says in a message what came of it. */
export async function saveSceneAs(viewer: AnyViewer, choice: SaveChoice, messages: MessageOverlay): Promise<void> {
  try {
    const selection: ViewSelection = choice.keep === 'box' ? { keep: 'box', box: parseBox(choice.box) } : { keep: choice.keep };
    const saved = await viewer.saveScene(choice.format, selection);
    downloadBlob(new Blob([saved.bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' }), saved.name);
    const count = (n: number) => n.toLocaleString('en-US');
    messages.notify(`Saved ${saved.name}`, `${count(saved.splats)} of ${count(saved.of)} splats, ${count(saved.bytes.length)} bytes`);
  } catch (error) {
    messages.show('Could not save the scene', error instanceof Error ? error.message : String(error));
  }
}

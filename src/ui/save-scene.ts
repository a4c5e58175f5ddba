/**
 * "Save scene as": the panel's choice (a writable format; all splats, those
 * in view or those in a box) made into a file of the scene on screen by the
 * viewer (SplatViewer.save), downloaded under the scene's name with the
 * format's extension. What the format cannot hold of the scene
 * (SplatViewer.saveLosses) is said first, and the file is made only when
 * asked again ("Save anyway"). What went wrong (no scene, a world, a box
 * that is not one, nothing selected) is said in a message.
 */
import { parseBox, SAVE_FORMATS, saveLossesText, type SaveSelection, type SplatViewer } from '../lib/index';
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

const failed = (messages: MessageOverlay, error: unknown) =>
  messages.show('Could not save the scene', error instanceof Error ? error.message : String(error));

/**
 * Saves the scene on screen as `choice` says and downloads it; says in a
 * message what came of it. Where the format would lose something of the
 * scene, a message names it and nothing is saved unless "Save anyway" is
 * pressed. Resolves once the file is made, or the message is up.
 */
export async function saveSceneAs(viewer: SplatViewer, choice: SaveChoice, messages: MessageOverlay): Promise<void> {
  let selection: SaveSelection;
  let losses: string[];
  try {
    selection = choice.keep === 'box' ? { keep: 'box', box: parseBox(choice.box) } : { keep: choice.keep };
    losses = viewer.saveLosses(choice.format);
  } catch (error) {
    failed(messages, error);
    return;
  }
  if (losses.length === 0) return save(viewer, choice.format, selection, messages);
  const label = SAVE_FORMATS.find((f) => f.id === choice.format)?.label ?? choice.format;
  const remove = messages.show(`Saving as ${label} loses something`, saveLossesText(label, losses), {
    tone: 'warn',
    actions: [{ label: 'Save anyway', run: () => {
      remove();
      void save(viewer, choice.format, selection, messages);
    } }],
  });
}

async function save(viewer: SplatViewer, format: string, selection: SaveSelection, messages: MessageOverlay): Promise<void> {
  try {
    const saved = await viewer.save(format, selection);
    downloadBlob(saved.blob, saved.name);
    const count = (n: number) => n.toLocaleString('en-US');
    messages.notify(`Saved ${saved.name}`, `${count(saved.splats)} of ${count(saved.of)} splats, ${count(saved.blob.size)} bytes`);
  } catch (error) {
    failed(messages, error);
  }
}

/**
 * The choices a page offers around a viewer, named as people read them:
 * the sorts, the renderers, the views, the formats a scene is saved as,
 * the scene files it opens. Each list is the viewer's own, so a panel
 * built on these offers exactly what the viewer takes.
 */
import { UP_BY_CONVENTION as CONVENTION } from '../app/camera/framing';
import { SORT_LABELS } from '../app/frame/order/order-policy';
import { parseBox as parseBoxText } from '../app/session/splat-selection';
import { SCENE_FILE_ACCEPT as ACCEPT, SCENE_FILES_TEXT as FILES_TEXT } from '../io/formats/scene-files';
import { WRITABLE_FORMATS } from '../io/formats/save-formats';
import { lossesText } from '../io/formats/save-losses';
import { ORDER_SETTINGS as ORDERS, RENDERER_SETTINGS as RENDERERS } from '../render/frame-renderer';
import { PER_PIXEL_MAX_COST as MAX_COST } from '../app/frame/pixel-order-policy';
import type { Bounds, FrameView, OrderSetting, RendererSetting, SaveFormat, SortMode } from './public-types';

/** Each sort mode, named: 'GPU radix', 'CPU 32-bit radix', 'CPU 16-bit counting'. */
export const SORT_MODE_LABELS: Readonly<Record<SortMode, string>> = SORT_LABELS;

/** The renderer settings, 'auto' first. */
export const RENDERER_SETTINGS: readonly RendererSetting[] = RENDERERS;

/** The order settings, 'auto' first. */
export const ORDER_SETTINGS: readonly OrderSetting[] = ORDERS;

/** The most the per-pixel frame may cost, × the centre-depth frame, for the order's auto to draw it (1.10). */
export const PER_PIXEL_MAX_COST: number = MAX_COST;

/** What the frames may show (settings.view). */
export const FRAME_VIEWS: readonly FrameView[] = ['picture', 'difference', 'pixel-order'];

/** The formats a scene can be saved as (SplatViewer.save). */
export const SAVE_FORMATS: readonly SaveFormat[] = WRITABLE_FORMATS.map((format) => ({
  id: format.id,
  label: format.label,
  extension: format.extensions[0]!,
  keeps: format.writer.keeps,
}));

/** What SplatViewer.saveLosses names, as one sentence for a message: "Saved as .splat, the scene would lose …". */
export function saveLossesText(formatLabel: string, losses: readonly string[]): string {
  return lossesText(formatLabel, losses);
}

/** A file input's accept list for the scene files a viewer opens. */
export const SCENE_FILE_ACCEPT: string = ACCEPT;

/** The scene files a viewer opens, as help text names them: "a splat file (.ply .splat …, or a SOG meta.json with its images)". */
export const SCENE_FILES_TEXT: string = FILES_TEXT;

/**
 * Where a scene's up came from (state.up.source) when neither its file nor
 * its splats said: the captured scenes' convention, −y. Such a scene may
 * be upside down (state.up.unsure; SplatViewer.flipUp turns it over).
 */
export const UP_BY_CONVENTION: string = CONVENTION;

/**
 * A box from its text, "minx, miny, minz, maxx, maxy, maxz" in scene
 * coordinates (as a panel's field or the convert command takes it);
 * throws, saying what is wrong, for anything else or a min past its max.
 */
export const parseBox: (text: string) => Bounds = parseBoxText;

/**
 * Which renderer draws a frame's splats once they are ordered: 'quads', the
 * render pipeline that blends every covered fragment back to front
 * (src/render/splat-renderer.ts), or 'tiles', the compute rasterizer that
 * blends each 16×16 tile front to back and stops opaque pixels
 * (src/render/tiles/). Both read the same projector records and the same
 * sorted order, and both leave their picture for the same resolve pass.
 */
export type FrameRenderer = 'quads' | 'tiles';

/** The renderers, for options and menus. */
export const FRAME_RENDERERS: readonly FrameRenderer[] = ['quads', 'tiles'];

/** What the user picks: a renderer, or 'auto' (both timed on this device and scene, the faster kept). */
export type RendererSetting = FrameRenderer | 'auto';

export const RENDERER_SETTINGS: readonly RendererSetting[] = ['auto', 'quads', 'tiles'];

export const DEFAULT_RENDERER_SETTING: RendererSetting = 'auto';

/**
 * How the splats covering a pixel are ordered. 'centre-depth': by each
 * splat's centre's view depth, one order for the whole frame (what every
 * renderer draws; two overlapping splats swap everywhere at once when the
 * camera turns past equal depths: a pop). 'per-pixel': each pixel blends
 * its splats by their own depth along its ray, where each one's density
 * peaks (shaders/tile_pixel_order.wgsl); only the tile renderer can, so
 * this order draws with tiles whatever the renderer setting.
 */
export type SplatOrder = 'centre-depth' | 'per-pixel';

export const SPLAT_ORDERS: readonly SplatOrder[] = ['centre-depth', 'per-pixel'];

export const DEFAULT_SPLAT_ORDER: SplatOrder = 'centre-depth';

/** The renderer setting that applies under `order`: the per-pixel order is the tile renderer's. */
export function rendererSettingFor(setting: RendererSetting, order: SplatOrder): RendererSetting {
  return order === 'per-pixel' ? 'tiles' : setting;
}

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

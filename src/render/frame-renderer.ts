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

/**
 * The order asked for: one of the two, or 'auto': the per-pixel order
 * where it costs little on this device, measured with the renderer's
 * choice (src/app/frame/pixel-order-policy.ts).
 */
export type OrderSetting = SplatOrder | 'auto';

export const ORDER_SETTINGS: readonly OrderSetting[] = ['auto', 'centre-depth', 'per-pixel'];

/**
 * The per-pixel order's depth of a splat at a pixel: where its density
 * along the pixel's ray peaks, kept within this many standard deviations
 * of its depth (σ² = Σzz in view space) of its centre's depth.
 *
 * Why bounded: a large or thin splat seen obliquely has its ray peak far
 * from its centre, where one depth stands poorly for a contribution spread
 * along the ray, and moving it there past many others is what a small
 * per-pixel queue cannot do exactly: its result then flickers as the
 * camera turns. The splats whose centre order flips (the pops) have
 * centres within a fraction of σ of each other, so a tight bound keeps
 * what removes them. Pops at 16/255 beyond the exact per-pixel sort along
 * the slow turn, 150k scene, outside and inside (level):
 *   3σ, H100, 256×144, 60 frames: a queue of 16 popped 1,292 and 142
 *       pixels, one of 32 275 and 13; the centre-depth order 285 and 42;
 *   1σ, CPU, 256×144, 8 frames: a queue of 8 69 and 14 (41.2 and 43.8 dB
 *       against the exact sort), of 16 2 and 0 (49.4, 53.0 dB);
 *   0.5σ, same: a queue of 8 6 and 2 (52.2, 51.7 dB), of 16 0 and 0
 *       (63.0, 71.0 dB); the centre-depth order 9 and 0;
 *   0.5σ, H100, 320×180, 60 frames: a queue of 16 5 and 3, the
 *       centre-depth order 248 and 45 (docs/benchmarks.md).
 */
export const PER_PIXEL_DEPTH_REACH = 0.5;

/**
 * The per-pixel order sees no splat thinner than √(this) of its size: for
 * its depth along a ray, each axis's variance gains this share of their
 * sum (τ = this · tr Σ), so an axis is at least 0.3 % of the widest.
 *
 * Why: a flatter splat's depth near edge-on, or a needle's anywhere, comes
 * from differences of its covariance's products that f32 does not hold (an
 * f32 covariance keeps variances down to about 10⁻⁷ of the largest); on
 * the GPU it flickered as the camera turned, and the splat jumped between
 * the front and the back of its neighbours in lines one pixel wide. With
 * τ, f32 loses at most its rounding times 1/this. 150k scene, inside,
 * looking down, 0.05° a frame, SwiftShader at 320×180, 8 frames, a queue
 * of 16: without it the GPU popped 58 pixels where the CPU's same queue
 * popped none (51–56 dB between the two); with it 0 pops (56.8 dB). The
 * splat-by-splat depths of that view, the GPU's f32 steps replayed on the
 * CPU against the CPU's doubles: 1 of 3,961,020 off by more than 10⁻³,
 * with this at 10⁻⁶ or 10⁻⁵ (a floor added after the adjugate instead:
 * 526 and 229, 286 and 104 of them past the reach).
 */
export const PER_PIXEL_FLATTEST = 1e-5;

/** The order of a frame whose settings name none: the render command's and the benchmarks', so a run's picture is always the same. */
export const DEFAULT_SPLAT_ORDER: SplatOrder = 'centre-depth';
/** The viewer's order until a setting or link names one: auto. */
export const DEFAULT_ORDER_SETTING: OrderSetting = 'auto';

/** The renderer setting that applies under `order`: the per-pixel order is the tile renderer's (auto's is measured only where tiles draw). */
export function rendererSettingFor(setting: RendererSetting, order: OrderSetting): RendererSetting {
  return order === 'per-pixel' ? 'tiles' : setting;
}

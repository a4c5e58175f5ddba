/**
 * The screen-space low-pass filter every splat is drawn with, and what a
 * scene file says about the one it was trained with. DOM-free.
 *
 * Every projected 2D covariance gets a variance added to both axes, so no
 * splat is thinner than about a pixel. The reference rasterizer adds 0.3 px²
 * and leaves the opacity alone: a splat far smaller than a pixel then
 * covers a whole pixel at full opacity, which is the aliasing (and the
 * "thick" look of distant detail) that anti-aliased trainers remove. They
 * add the variance too, but multiply the opacity by
 * sqrt(det Σ2D / det(Σ2D + v·I)), so that a splat keeps the integral it had
 * before the blur: a tiny splat becomes a faint pixel-sized one.
 *
 * - gsplat's "antialiased" rasterize mode (recorded by SPZ's flag bit 0 and
 *   SOG's meta.json `antialias`): v = 0.3 with the compensation.
 * - Mip-Splatting's 2D mip filter: v = 0.1 with the compensation. Its files
 *   keep the 3D smoothing filter per splat as PLY property `filter_3D` (a
 *   standard deviation in scene units), which its renderer folds into every
 *   splat before projecting (scales² + filter², opacity ×
 *   sqrt(Π scales² / Π(scales² + filter²))); the PLY decoder folds it in the
 *   same way on load, as Mip-Splatting's own export for other viewers does,
 *   so the 3D filter is part of the scene whatever the screen filter.
 */

export interface ScreenFilter {
  /** Variance, in px², added to both axes of every projected covariance. */
  variance: number;
  /** Scale the opacity by sqrt(det before / det after), keeping each splat's integral. */
  compensate: boolean;
}

/** The reference rasterizer's dilation: what a file that says nothing is drawn with. */
export const CLASSIC_FILTER: Readonly<ScreenFilter> = { variance: 0.3, compensate: false };
/** gsplat's antialiased mode: what SPZ's and SOG's anti-aliasing flags mean. */
export const ANTIALIASED_FILTER: Readonly<ScreenFilter> = { variance: 0.3, compensate: true };
/** Mip-Splatting's 2D mip filter (its training and rendering kernel size, 0.1). */
export const MIP_FILTER: Readonly<ScreenFilter> = { variance: 0.1, compensate: true };

/** What a scene file says about its training: the filter to draw it with, and where that was read. */
export interface SceneAntiAliasing {
  filter: ScreenFilter;
  /** Where the file says so, for the panel: e.g. 'SPZ flag "antialiased"'. */
  source: string;
}

/** The viewer's setting: follow the file, or force the classic or the anti-aliased filter. */
export type AntiAliasingSetting = 'auto' | 'off' | 'on';
export const ANTI_ALIASING_SETTINGS: readonly AntiAliasingSetting[] = ['auto', 'off', 'on'];

/**
 * The filter a frame uses. 'auto' follows the file (classic when it says
 * nothing); 'off' is the classic filter; 'on' is the file's anti-aliased
 * filter, or gsplat's for a file that records none.
 */
export function screenFilterFor(setting: AntiAliasingSetting, scene: SceneAntiAliasing | undefined): ScreenFilter {
  switch (setting) {
    case 'auto': return scene?.filter ?? CLASSIC_FILTER;
    case 'off': return CLASSIC_FILTER;
    case 'on': return scene?.filter ?? ANTIALIASED_FILTER;
  }
}

/** A short description for the panel: e.g. "0.3 px² + opacity compensation". */
export function describeScreenFilter(filter: ScreenFilter): string {
  return `${filter.variance} px²${filter.compensate ? ' + opacity compensation' : ''}`;
}

/**
 * Folds Mip-Splatting's 3D filter of one splat into its scales and opacity,
 * in place: `scales[at..at+2]` become sqrt(s² + f²) and the returned
 * opacity is `opacity` × sqrt(Π s² / Π(s² + f²)).
 */
export function foldFilter3D(scales: Float32Array, at: number, opacity: number, filter: number): number {
  const f2 = filter * filter;
  let before = 1;
  let after = 1;
  for (let a = 0; a < 3; a++) {
    const s2 = scales[at + a]! * scales[at + a]!;
    before *= s2;
    after *= s2 + f2;
    scales[at + a] = Math.sqrt(s2 + f2);
  }
  return after > 0 ? opacity * Math.sqrt(before / after) : opacity;
}

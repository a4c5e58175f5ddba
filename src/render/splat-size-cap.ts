/**
 * How the renderer bounds a splat's quad on screen: the one source of truth
 * for the projector, which computes each quad once (override
 * `clip_margin_px` in shaders/splat_project.wgsl). DOM-free and free of
 * shader imports.
 *
 * The cap. A splat's quad is drawn as today (the oriented quad: ellipse
 * axes, min(3, threshold) sigma along the major axis, min(threshold,
 * 3·√(λ1/λ2)) along the minor) while all its corners lie within the window
 * enlarged by CLIP_MARGIN_PX on every side. A quad that reaches further is
 * clipped first, exactly: along each of its own axes its extent is cut to
 * the window's extent along that axis (+1 px), so it stays an oriented
 * rectangle whose sigma at the corners is the true sigma there, and it
 * still contains every pixel of the window the full quad covers. So:
 * - no geometry handed to the rasterizer reaches more than the margin past
 *   the window (the clipped rectangles reach at most the window's bounding
 *   box along the splat's axes: within (W + H)/2 + 1 px of its middle), and
 *   one splat costs at most the window's pixels, as in the reference
 *   rasterizer (tile rectangle clamped to the screen);
 * - it is exact: the same pixels get the same sigma, so no picture changes
 *   (tests/gpu/splat-size-cap.test.ts, the 9k real scene on 64×36:
 *   identical to the picture before the cap at four cameras, 70.6 dB with
 *   the eye inside it, where the splats next to the eye are clipped: 38
 *   pixels differ by 1/255; huge splats, their centres up to 1e9 px off
 *   screen, within 1/255 of a CPU evaluation of the Gaussian, where the
 *   unclipped quads on SwiftShader lose the 1e9-px splat entirely);
 * - the fragment shader is untouched (no cost per fragment) and the clipped
 *   rectangle is a subset of the quad: no splat gets more fragments than
 *   before (clipping to the axis-aligned box of the quad instead would give
 *   a thin diagonal needle across the window a whole window of fragments,
 *   to be discarded). The projector does the bounding-box test (~10 ALU
 *   operations) once per splat; the clipped branch runs only for the few
 *   quads that reach past the margin. The cap also keeps every quad's
 *   edges, stored as f16 (max 65,504), within the window + 1024 px.
 *
 * What it does not bound: the rasterizer never made fragments outside the
 * window anyway, so a splat that covers the window still costs a window of
 * fragments (~2.1M at 1080p), and N of them cost N windows: 20,000 splats
 * of σ 1e6 are as slow as before. That is a property of the file, not of
 * the renderer; the load-time warning (src/scene/oversized-splats.ts) tells
 * the user. What the clip adds is that the geometry stays near the window:
 * a 1e9-px quad (σ 1e6 a few units from the eye) never reaches the
 * rasterizer, whose fixed-point setup and guard band are sized for
 * coordinates near the viewport (a triangle past the guard band must be
 * clipped into new triangles, in f32 a 1e9-px corner is 64 px coarse, and
 * the sigma varying is then interpolated from corners 1e9 px away).
 */

/**
 * How far past the window, in pixels, a splat's oriented quad may reach
 * before it is drawn clipped. Why 1024: a splat of a real scene seen from
 * outside is at most ~580 px in radius at 1080p (the 9k INRIA scene's
 * largest at the viewer's first view), so with 1024 px of margin those
 * scenes are drawn on today's path bit for bit unless the eye comes close
 * to splats; only quads that reach ~half a window past the edge take the
 * clipped path. Every vertex then lies within window + 1024 px, for a 4K
 * window ±2944 px around its middle, inside the ±8192 px range where Vulkan
 * requires every device to accept a viewport (viewportBoundsRange). The
 * clipped path is exact, so the value trades nothing visible: a smaller
 * margin only moves more edge splats off the bit-identical path.
 */
export const CLIP_MARGIN_PX = 1024;

/**
 * How far the clipped rectangle reaches past the window, pixels: 1 px so
 * the window's edge pixels (centres 0.5 px inside) are covered whatever the
 * rasterizer's fixed-point rounding. The shader adds 1e-6 of the projected
 * centre's distance (|x| + |y|, pixels) to this: that centre is computed in
 * f32 (relative error a few 1e-8) and may be 1e9 px away.
 */
export const CLIP_SLACK_PX = 1;

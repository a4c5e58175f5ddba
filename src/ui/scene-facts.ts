/**
 * What the panel's Scene folder says about the scene on screen and the
 * frame rate, and its Render folder about the renderer, as short texts.
 * DOM-free.
 */
import { PER_PIXEL_MAX_COST, type Bounds, type RendererChoice, type SplatOrder, type SplatOrderChoice } from '../lib/index';
import { formatMs } from './timing-history';

/** Bytes as "812 KB", "12.3 MB", "1.24 GB" (powers of 1000, as file managers show them); null: "—". */
export function formatBytes(bytes: number | null): string {
  if (bytes === null) return '—';
  if (bytes < 1e3) return `${bytes} B`;
  const [value, unit] = bytes < 1e6 ? [bytes / 1e3, 'KB'] : bytes < 1e9 ? [bytes / 1e6, 'MB'] : [bytes / 1e9, 'GB'];
  return `${value.toPrecision(3)} ${unit}`;
}

/** A duration as "840 ms" or "3.2 s". */
export function formatDuration(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toPrecision(ms < 10_000 ? 2 : 3)} s`;
}

/** The size of the bulk of the scene (the framing bounds), x × y × z in scene units. */
export function formatExtent(bounds: Bounds): string {
  return [0, 1, 2].map((a) => (bounds.max[a]! - bounds.min[a]!).toPrecision(3)).join(' × ');
}

/**
 * The renderer drawing and why, short for its row ("tiles (2.1 ms vs quads
 * 6.3 ms)", "measuring…", "tiles, per-pixel order"), and in a sentence for
 * its tooltip; `order`: the order the frame's pixels were blended in.
 */
export function describeRenderer(choice: Readonly<RendererChoice>, order: SplatOrder = 'centre-depth'): { text: string; why: string } {
  const described = describeChoice(choice);
  if (order === 'centre-depth') return described;
  return { text: `${described.text}, per-pixel order`, why: `${described.why}; the per-pixel order, which only tiles draw: each pixel blends its splats by their own depth along its ray` };
}

function describeChoice(choice: Readonly<RendererChoice>): { text: string; why: string } {
  const { renderer, medianMs } = choice;
  const other = renderer === 'tiles' ? 'quads' : 'tiles';
  switch (choice.state) {
    case 'set':
      return { text: renderer, why: `${renderer}, as set` };
    case 'measuring':
      return { text: 'measuring…', why: 'auto: drawing with quads and tiles in turn, timing the GPU render of each, to keep the faster' };
    case 'untimed':
      return { text: `${renderer} (not timed)`, why: `auto: no GPU times to compare the renderers by on this device (no timestamp queries), so ${renderer}, which every device draws` };
    case 'chosen': {
      const [mine, theirs] = [medianMs[renderer], medianMs[other]].map((ms) => (ms === null ? '—' : formatMs(ms)));
      return { text: `${renderer} (${mine} vs ${other} ${theirs})`, why: 'auto: the faster here, by the median GPU render time of a few frames of each at this size' };
    }
  }
}

/**
 * The order drawn and why, short for its row ("per pixel (1.06× the
 * centre-depth frame)", "centre depth (per pixel 2.1×)", "measuring…"),
 * and in a sentence for its tooltip.
 */
export function describeOrder(choice: Readonly<SplatOrderChoice>): { text: string; why: string } {
  const name = choice.order === 'per-pixel' ? 'per pixel' : 'centre depth';
  switch (choice.state) {
    case 'set':
      return { text: name, why: `${name}, as set` };
    case 'waiting':
      return { text: `${name} (auto: waiting)`, why: 'auto: centre depth until the renderer is chosen and the per-pixel order is made; then both orders are timed' };
    case 'quads':
      return { text: `${name} (auto: quads draw)`, why: 'auto: quads draw faster here, and only tiles draw the per-pixel order' };
    case 'renderer-set':
      return { text: `${name} (auto)`, why: 'auto: the renderer is set, so the orders are not timed (auto times them where auto\'s renderer chose tiles): centre depth, or pick an order' };
    case 'measuring':
      return { text: 'measuring…', why: 'auto: drawing both orders in turn, timing the GPU frame of each, to keep the per-pixel order where it costs little' };
    case 'untimed':
      return { text: `${name} (not timed)`, why: 'auto: no GPU times to compare the orders by on this device, so centre depth' };
    case 'chosen': {
      const { 'per-pixel': pixel, 'centre-depth': centre } = choice.medianMs;
      const ratio = pixel !== null && centre !== null && centre > 0 ? `${(pixel / centre).toFixed(2)}×` : '—';
      const times = `median GPU frame ${pixel === null ? '—' : formatMs(pixel)} per pixel, ${centre === null ? '—' : formatMs(centre)} centre depth`;
      return choice.order === 'per-pixel'
        ? { text: `per pixel (${ratio} the centre-depth frame)`, why: `auto: the per-pixel order costs at most ${PER_PIXEL_MAX_COST.toFixed(2)}× the centre-depth frame here (${times}): no popping` }
        : { text: `centre depth (per pixel ${ratio})`, why: `auto: the per-pixel order would cost more than ${PER_PIXEL_MAX_COST.toFixed(2)}× the centre-depth frame here (${times}); pick it to draw without popping` };
    }
  }
}

/** Frames per second over the last second or so, from the frame counter sampled now and then. */
export class FrameRate {
  /** "—" until a second has passed. */
  text = '—';
  private since = -1;
  private framesThen = 0;

  sample(now: number, frames: number): void {
    if (this.since < 0 || frames < this.framesThen) {
      this.since = now;
      this.framesThen = frames;
      return;
    }
    const elapsed = now - this.since;
    if (elapsed < 1000) return;
    const fps = ((frames - this.framesThen) * 1000) / elapsed;
    this.text = fps >= 10 ? fps.toFixed(0) : fps.toFixed(1);
    this.since = now;
    this.framesThen = frames;
  }
}

/**
 * What the panel's Scene folder says about the scene on screen and the
 * frame rate, and its Render folder about the renderer, as short texts.
 * DOM-free.
 */
import type { Bounds, RendererChoice, SplatOrder } from '../lib/index';
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

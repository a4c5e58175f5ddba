/**
 * The quad renderer as a painter (painter.ts): the splats blended back to
 * front as quads (splat-renderer.ts) into a float accumulation target,
 * then resolved to the output format (accumulation-target.ts says why);
 * 'direct' blends straight into the output, a comparison for the frame
 * benchmark. A target drawn `over` (another renderer's picture, maybe with
 * its depth buffer) gets the splats' own picture, transparent where they
 * are not, blended over it. A heat map draws its second picture into the second float
 * target and resolves the two as where they differ. Every device draws
 * quads: this painter is made with the frame and never fails. The quads
 * drawn are the nearest whose candidates fit the frame's budget
 * (tiles/quad-cut.ts), as the tile renderer's are. DOM-free.
 */
import { AccumulationTargets, type Accumulation } from './accumulation-target';
import { drawOf, reusedDraw, type OrderedSplats, type PaintJob, type Painter } from './painter';
import type { QuadCut } from './tiles/quad-cut';
import type { TilePairCounts } from './tiles/tile-pairs';
import type { SplatDraw, SplatDrawTarget, SplatRenderer } from './splat-renderer';
import type { ResolveTarget, SplatResolve } from './splat-resolve';
import { unbound } from '../gpu/unbound';

export class QuadPainter implements Painter {
  readonly renderer = 'quads';
  readonly failure = null;
  readonly canPaint = true;
  /** The float targets (null for 'direct'). */
  private readonly targets: AccumulationTargets | null;
  // Reused every frame: nothing is allocated per frame.
  private readonly draws: [SplatDraw, SplatDraw] = [reusedDraw(), reusedDraw()];
  private readonly accumulation: SplatDrawTarget = { view: unbound<GPUTextureView>(), background: [0, 0, 0] };
  private readonly output: ResolveTarget = { view: unbound<GPUTextureView>(), writable: false, width: 0, height: 0 };
  /** Loaded with the tile renderer's binning, apart from the core (null until then). */
  private cut: QuadCut | null = null;
  private readonly cutMade: Promise<void>;
  private destroyed = false;
  private drawn: SplatDraw | null = null;
  private readonly cutEntries: [SplatDraw, SplatDraw] = [reusedDraw(), reusedDraw()];

  constructor(
    device: GPUDevice,
    /** The frame's uniforms (the cut's binning reads the tile grid from them). */
    frame: GPUBuffer,
    /** Quads into the accumulation's format (the output's for 'direct'). */
    private readonly quads: SplatRenderer,
    private readonly resolve: SplatResolve,
    accumulation: Accumulation,
    /** The tile renderer's pair limit (TileRendererOptions.maxPairs), which the quads' budget follows too. */
    maxPairs?: number,
  ) {
    this.targets = accumulation === 'direct' ? null : new AccumulationTargets(device, accumulation);
    // Made now, so it is there before a hostile file's first frame (frames before it draw every
    // quad). A device that cannot make it draws every quad, as before the cut existed; the tile
    // painter, whose binning it is, says why it failed.
    // It comes with the tile renderer's chunk: one lazy chunk, so the core is split as before.
    this.cutMade = import('./tiles/tile-renderer')
      .then(async ({ QuadCut }) => {
        const cut = await QuadCut.create(device, frame, maxPairs);
        if (this.destroyed) cut.destroy();
        else this.cut = cut;
      })
      .catch(() => undefined);
  }

  get notice(): string | null {
    return this.cut?.notice ?? null;
  }

  /**
   * The draw of `ordered`'s kept quads, its cut recorded into `encoder`
   * (timed from `beginning`); null when there is nothing to draw or the
   * cut is not made yet (then: drawOf's whole draw, untouched by the cut).
   */
  private cutDraw(job: PaintJob, ordered: OrderedSplats | null, slot: 0 | 1, beginning: GPUComputePassTimestampWrites | undefined): SplatDraw | null {
    const cut = this.cut;
    const entries = cut && drawOf(this.cutEntries[slot], job.records, ordered, 'entries');
    if (!cut || !entries || !ordered) return null;
    entries.depths = job.depths ?? undefined;
    return cut.encode(job.encoder, entries, ordered.maxCount, job.parameters.width, job.parameters.height, slot, beginning);
  }

  /** The quads the last frame's picture drew (the cut's draw, or the whole order's), borrowed: the benchmark's flat floor draws the same. */
  get lastDraw(): SplatDraw | null {
    return this.drawn;
  }

  /** Whether its pictures are blended in floats (the heat map views need them). */
  get blendsInFloats(): boolean {
    return this.targets !== null;
  }

  /** Resolves once the cut is made (frames before it draw every quad). */
  prepare(perPixel = false): Promise<void> {
    return perPixel ? Promise.reject(new Error('quads draw by centre depth only: the per-pixel order needs the tile renderer')) : this.cutMade;
  }

  isReady(perPixel = false): boolean {
    return !perPixel;
  }

  /** One render span: the picture blended (straight into the target, or into the float target and resolved); with a second picture, both and their heat map as the resolve. */
  paint(job: PaintJob): void {
    const { encoder, target, records, timing } = job;
    // The cut, when made, opens the render span; the quads then start untimed.
    const cut = this.cutDraw(job, job.picture.order, 0, timing?.span.first);
    const draw = cut ?? drawOf(this.draws[0], records, job.picture.order, 'vertices');
    if (draw && target.depth) draw.depths = job.depths ?? undefined;
    const first = cut ? undefined : timing?.span.first;
    this.drawn = draw;
    const targets = this.targets;
    if (!targets) {
      this.quads.encode(encoder, target, draw, cut ? timing?.span.last : timing?.whole);
      return;
    }
    const { width, height } = job.parameters;
    if (target.over) {
      // The splats' own picture (transparent where they are not), blended over the target's.
      const layer = targets.view(0, width, height);
      this.quads.encodeLayer(encoder, layer, target.depth, draw, first);
      this.resolve.encodePicture(encoder, layer, this.outputOf(target, width, height), timing?.span.last, true);
      return;
    }
    const accumulation = this.accumulation;
    accumulation.background = target.background;
    accumulation.view = targets.view(0, width, height);
    this.quads.encode(encoder, accumulation, draw, first);
    if (!job.second) {
      this.resolve.encodePicture(encoder, accumulation.view, this.outputOf(target, width, height), timing?.span.last);
      return;
    }
    const picture = accumulation.view;
    accumulation.view = targets.view(1, width, height);
    const second = this.cutDraw(job, job.second.order, 1, undefined) ?? drawOf(this.draws[1], records, job.second.order, 'vertices');
    this.quads.encode(encoder, accumulation, second, undefined);
    this.resolve.encodeDifference(encoder, picture, accumulation.view, target.view, width * height, timing?.span.last);
  }

  /** The resolve's output (one object, refilled each frame). */
  private outputOf(target: SplatDrawTarget, width: number, height: number): ResolveTarget {
    const output = this.output;
    output.view = target.view;
    output.writable = target.writable ?? false;
    output.width = width;
    output.height = height;
    return output;
  }

  /** The cut's counts (its splats left out), as the tile painter's. */
  readStatistics(): Promise<TilePairCounts> | null {
    return this.cut?.read() ?? null;
  }

  destroy(): void {
    this.targets?.destroy();
    this.cut?.destroy();
    this.destroyed = true;
  }
}

/**
 * The quad renderer as a painter (painter.ts): the splats blended back to
 * front as quads (splat-renderer.ts) into a float accumulation target,
 * then resolved to the output format (accumulation-target.ts says why);
 * 'direct' blends straight into the output, a comparison for the frame
 * benchmark. A target drawn `over` (another renderer's picture, maybe with
 * its depth buffer) gets the splats' own picture, transparent where they
 * are not, blended over it. A heat map draws its second picture into the second float
 * target and resolves the two as where they differ. Every device draws
 * quads: this painter is made with the frame and never fails. DOM-free.
 */
import { AccumulationTargets, type Accumulation } from './accumulation-target';
import { drawOf, reusedDraw, type PaintJob, type Painter, type PaintStatistics } from './painter';
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

  constructor(
    device: GPUDevice,
    /** Quads into the accumulation's format (the output's for 'direct'). */
    private readonly quads: SplatRenderer,
    private readonly resolve: SplatResolve,
    accumulation: Accumulation,
  ) {
    this.targets = accumulation === 'direct' ? null : new AccumulationTargets(device, accumulation);
  }

  /** Whether its pictures are blended in floats (the heat map views need them). */
  get blendsInFloats(): boolean {
    return this.targets !== null;
  }

  prepare(perPixel = false): Promise<void> {
    return perPixel ? Promise.reject(new Error('quads draw by centre depth only: the per-pixel order needs the tile renderer')) : Promise.resolve();
  }

  isReady(perPixel = false): boolean {
    return !perPixel;
  }

  /** One render span: the picture blended (straight into the target, or into the float target and resolved); with a second picture, both and their heat map as the resolve. */
  paint(job: PaintJob): void {
    const { encoder, target, records, timing } = job;
    const draw = drawOf(this.draws[0], records, job.picture.order, 'vertices');
    if (draw && target.depth) draw.depths = job.depths ?? undefined;
    const targets = this.targets;
    if (!targets) {
      this.quads.encode(encoder, target, draw, timing?.whole);
      return;
    }
    const { width, height } = job.parameters;
    if (target.over) {
      // The splats' own picture (transparent where they are not), blended over the target's.
      const layer = targets.view(0, width, height);
      this.quads.encodeLayer(encoder, layer, target.depth, draw, timing?.span.first);
      this.resolve.encodePicture(encoder, layer, this.outputOf(target, width, height), timing?.span.last, true);
      return;
    }
    const accumulation = this.accumulation;
    accumulation.background = target.background;
    accumulation.view = targets.view(0, width, height);
    this.quads.encode(encoder, accumulation, draw, timing?.span.first);
    if (!job.second) {
      this.resolve.encodePicture(encoder, accumulation.view, this.outputOf(target, width, height), timing?.span.last);
      return;
    }
    const picture = accumulation.view;
    accumulation.view = targets.view(1, width, height);
    this.quads.encode(encoder, accumulation, drawOf(this.draws[1], records, job.second.order, 'vertices'), undefined);
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

  readStatistics(): Promise<PaintStatistics> | null {
    return null;
  }

  destroy(): void {
    this.targets?.destroy();
  }
}

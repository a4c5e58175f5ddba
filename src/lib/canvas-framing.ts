/**
 * A viewer's canvas as the page lays it out: its size in device pixels
 * (what the frames are drawn at) and in CSS pixels (what the camera frames
 * and picks in), and the part of it no overlay of the page covers, where
 * the scene is framed (app/camera/free-rect.ts). Measured again whenever
 * the canvas or an overlay changes size (a panel opening, a sheet growing,
 * an element hidden: a hidden one has no box and covers nothing).
 */
import { largestFreeRect, type FreeRect } from '../app/camera/free-rect';

export interface CanvasLayout {
  /** The canvas's size in device pixels changed. */
  resized(width: number, height: number): void;
  /** The canvas's size in CSS pixels, and the part of it the overlays leave free (none: the whole canvas). */
  framed(width: number, height: number, free: FreeRect | undefined): void;
}

export class CanvasFraming {
  private readonly canvasSize: ResizeObserver;
  private readonly overlaySizes = new ResizeObserver(() => this.measure());
  private overlays: readonly Element[] = [];

  constructor(private readonly canvas: HTMLCanvasElement, private readonly layout: CanvasLayout) {
    this.canvasSize = new ResizeObserver(([entry]) => {
      if (!entry) return;
      // The exact device pixels where the browser says them; else the CSS size scaled, rounded as the browser would.
      const box = entry.devicePixelContentBoxSize?.[0];
      const ratio = window.devicePixelRatio || 1;
      layout.resized(box ? box.inlineSize : Math.round(entry.contentRect.width * ratio), box ? box.blockSize : Math.round(entry.contentRect.height * ratio));
      this.measure();
    });
    this.canvasSize.observe(canvas);
    this.measure();
  }

  setOverlays(elements: readonly Element[]): void {
    this.overlaySizes.disconnect();
    this.overlays = [...elements];
    for (const element of this.overlays) this.overlaySizes.observe(element);
    this.measure();
  }

  /** Tells the layout the canvas's CSS size and the part of it the overlays leave free. */
  measure(): void {
    const width = this.canvas.clientWidth, height = this.canvas.clientHeight;
    if (this.overlays.length === 0) {
      this.layout.framed(width, height, undefined);
      return;
    }
    const canvas = this.canvas.getBoundingClientRect();
    const covered = this.overlays.map((overlay) => {
      const box = overlay.getBoundingClientRect();
      return { x: box.x - canvas.x, y: box.y - canvas.y, width: box.width, height: box.height };
    });
    this.layout.framed(width, height, largestFreeRect(width, height, covered));
  }

  disconnect(): void {
    this.canvasSize.disconnect();
    this.overlaySizes.disconnect();
  }
}

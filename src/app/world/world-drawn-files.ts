/**
 * The chunk files a world's frame draws, as the stream wants them
 * (world-stream.ts: drawn files are kept, spare ones may go first): every
 * file a drawn run comes from, and of those the spare ones, drawn only
 * finer than the choice wants (standing in for a coarser level on its
 * way), never for a level the choice wants or a fade's outgoing level.
 * Marks a file, not a Set a run: a choice draws thousands of runs from a
 * few hundred files, every frame the camera moves, and three Set
 * operations a run were a share of the 0.8 ms a frame that following a
 * choice took on the frames' thread in the H200 profile of
 * docs/benchmarks.md ("The world benchmark's path chooses in a worker
 * thread"). Pure and DOM-free; nothing allocated once the lists have grown.
 */

/** Per file, what its runs are drawn for (0: not drawn). For a level the choice wants, or an outgoing level still fading: never spare. */
const KEPT = 1;
/** Drawn finer than the choice wants. */
const FINER = 2;

export class DrawnFiles {
  private readonly marks: Uint8Array;
  private readonly drawnList: number[] = [];
  private readonly spareList: number[] = [];
  private spareKnown = true;

  /** For a world of `files` chunk files. */
  constructor(files: number) {
    this.marks = new Uint8Array(files);
  }

  /** Forgets every file (a new choice). */
  clear(): void {
    for (const file of this.drawnList) this.marks[file] = 0;
    this.drawnList.length = 0;
    this.spareList.length = 0;
    this.spareKnown = true;
  }

  /** A run of `file` is drawn: for a level the choice wants or fading out (`finer` false), or finer than it wants. */
  add(file: number, finer: boolean): void {
    const mark = this.marks[file]!;
    if (mark === 0) this.drawnList.push(file);
    this.marks[file] = mark | (finer ? FINER : KEPT);
    this.spareKnown = false;
  }

  /** Files drawn. */
  get size(): number {
    return this.drawnList.length;
  }

  /** Every file drawn, each once (the list is this object's: read it before the next change). */
  get drawn(): readonly number[] {
    return this.drawnList;
  }

  /** The files drawn only finer than the choice wants, each once (as `drawn`, read before the next change). */
  get spare(): readonly number[] {
    if (!this.spareKnown) {
      const spare = this.spareList;
      spare.length = 0;
      for (const file of this.drawnList) if ((this.marks[file]! & (KEPT | FINER)) === FINER) spare.push(file);
      this.spareKnown = true;
    }
    return this.spareList;
  }
}

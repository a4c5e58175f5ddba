/**
 * The files a world's choice asks for in one frame, each with its greatest
 * need: a tier (2: a hole's coarsest level, 1: a hole's wanted level, 0:
 * the wanted level of a leaf shown at another), then within the tier a
 * value (nearer holes first; larger errors first); and what a frame asks
 * of each file (resident, failed), asked once. Kept in typed arrays from
 * frame to frame (world-choice.ts). Pure and DOM-free.
 */
export class FileNeeds {
  /** Per file: its need's tier (−1: not needed) and value; and the files needed. */
  private readonly tier: Int8Array;
  private readonly value: Float64Array;
  private readonly needed: number[] = [];
  private readonly mostNeeded = (a: number, b: number): number => this.tier[b]! - this.tier[a]! || this.value[b]! - this.value[a]! || a - b;

  constructor(files: number) {
    this.tier = new Int8Array(files).fill(-1);
    this.value = new Float64Array(files);
  }

  /** Forgets the last frame's needs. */
  clear(): void {
    for (const f of this.needed) this.tier[f] = -1;
    this.needed.length = 0;
  }

  /** Keeps the file's greatest need this frame. */
  ask(file: number, tier: number, value: number): void {
    const had = this.tier[file]!;
    if (had < 0) this.needed.push(file);
    else if (tier < had || (tier === had && value <= this.value[file]!)) return;
    this.tier[file] = tier;
    this.value[file] = value;
  }

  /** Writes the files asked for into `out`, most needed first. */
  list(out: number[]): void {
    // Copied one by one: a spread passes each file as an argument, and a list past about 125,000 overflows the stack.
    out.length = 0;
    for (let i = 0; i < this.needed.length; i++) out.push(this.needed[i]!);
    out.sort(this.mostNeeded);
  }
}

/** `ask`'s answer for `file`, asked once a frame: kept in `state` (0 not asked yet, 1 yes, 2 no). */
export function askedOnce(state: Uint8Array, file: number, ask: (file: number) => boolean): boolean {
  let answer = state[file]!;
  if (answer === 0) state[file] = answer = ask(file) ? 1 : 2;
  return answer === 1;
}

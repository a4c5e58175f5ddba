/**
 * Which leaves of a world's tree a frustum may see, walking the tree so
 * that a subtree wholly outside one plane is dropped in one test and a
 * subtree wholly inside a plane skips that plane below it. Pure and
 * DOM-free.
 *
 * Exact: it keeps the same leaves as testing every leaf's box against every
 * plane. A node's box is the union of its leaves' boxes (computed here, not
 * read from the index, which might be loose or wrong), so a plane's value at
 * the node's farthest corner is at least its value at any leaf's farthest
 * corner, and its value at the node's nearest corner at most that of any
 * leaf's nearest; rounding is monotone, so this holds for the floating-point
 * values too.
 */
import type { LodNode } from '../../io/lod/lod-meta';

/** All six planes still to test. */
const ALL_PLANES = 0b111111;

export class BoxTree {
  /** Per node, in depth-first order: min x, y, z, max x, y, z. */
  private readonly box: Float64Array;
  /** Per node: its leaves are [first, end) (leaves are numbered depth first). */
  private readonly first: Int32Array;
  private readonly end: Int32Array;
  /** Per node: the node after its subtree (node + 1 for a leaf: it has no children). */
  private readonly next: Int32Array;
  private readonly planes = new Float64Array(24);
  private out: Int32Array = new Int32Array(0);
  private found = 0;

  /**
   * `leafBoxes`: 6 numbers a leaf (min, max), leaves numbered depth first over
   * `tree`. Without a tree, or one whose leaves do not match, every leaf is a
   * child of one root: the same result, a test a leaf.
   */
  constructor(leafBoxes: Float64Array, tree: LodNode | null) {
    const leaves = leafBoxes.length / 6;
    const shape = tree && leafCount(tree) === leaves ? tree : null;
    const nodes = leaves === 0 ? 0 : shape ? nodeCount(shape) : leaves === 1 ? 1 : leaves + 1;
    this.box = new Float64Array(6 * nodes);
    this.first = new Int32Array(nodes);
    this.end = new Int32Array(nodes);
    this.next = new Int32Array(nodes);
    if (nodes === 0) return;
    if (shape) {
      this.flatten(shape);
    } else if (nodes === 1) {
      this.end[0] = 1;
      this.next[0] = 1;
    } else {
      this.end[0] = leaves;
      this.next[0] = nodes;
      for (let i = 0; i < leaves; i++) [this.first[i + 1], this.end[i + 1], this.next[i + 1]] = [i, i + 1, i + 2];
    }
    // Leaves take their own boxes; inner nodes (last first, so children come before parents) the union of their children's.
    for (let k = nodes - 1; k >= 0; k--) {
      if (this.next[k] === k + 1) {
        this.box.set(leafBoxes.subarray(6 * this.first[k]!, 6 * this.first[k]! + 6), 6 * k);
        continue;
      }
      this.box.fill(Infinity, 6 * k, 6 * k + 3);
      this.box.fill(-Infinity, 6 * k + 3, 6 * k + 6);
      for (let c = k + 1; c < this.next[k]!; c = this.next[c]!) {
        for (let a = 0; a < 3; a++) {
          this.box[6 * k + a] = Math.min(this.box[6 * k + a]!, this.box[6 * c + a]!);
          this.box[6 * k + 3 + a] = Math.max(this.box[6 * k + 3 + a]!, this.box[6 * c + 3 + a]!);
        }
      }
    }
  }

  /**
   * Writes into `out` the leaves whose box no plane has wholly outside (a
   * plane (a, b, c, d) keeps a·x + b·y + c·z + d ≥ 0), in ascending order;
   * returns how many.
   */
  cull(planes: Float64Array, out: Int32Array): number {
    this.planes.set(planes.subarray(0, 24));
    this.out = out;
    this.found = 0;
    if (this.next.length > 0) this.visit(0, ALL_PLANES);
    return this.found;
  }

  private visit(node: number, mask: number): void {
    const { box, planes } = this;
    const b = 6 * node;
    const leaf = this.next[node] === node + 1;
    for (let p = 0; p < 6; p++) {
      if ((mask & (1 << p)) === 0) continue;
      const a = planes[4 * p]!;
      const bb = planes[4 * p + 1]!;
      const c = planes[4 * p + 2]!;
      const d = planes[4 * p + 3]!;
      // The corner farthest along the plane's normal: outside there, the whole box is.
      const far = a * (a >= 0 ? box[b + 3]! : box[b]!) + bb * (bb >= 0 ? box[b + 4]! : box[b + 1]!) + c * (c >= 0 ? box[b + 5]! : box[b + 2]!) + d;
      if (far < 0) return;
      if (leaf) continue;
      // The nearest corner: inside there, the whole box is, and no node below tests this plane again.
      const near = a * (a >= 0 ? box[b]! : box[b + 3]!) + bb * (bb >= 0 ? box[b + 1]! : box[b + 4]!) + c * (c >= 0 ? box[b + 2]! : box[b + 5]!) + d;
      if (near >= 0) mask &= ~(1 << p);
    }
    if (leaf || mask === 0) {
      for (let i = this.first[node]!; i < this.end[node]!; i++) this.out[this.found++] = i;
      return;
    }
    for (let c = node + 1; c < this.next[node]!; c = this.next[c]!) this.visit(c, mask);
  }

  /** Numbers the tree's nodes depth first, children in their order (the order worldLeaves lists leaves in). */
  private flatten(tree: LodNode): void {
    let node = 0;
    let leaf = 0;
    const pending: { at: LodNode; exit: boolean; id: number }[] = [{ at: tree, exit: false, id: 0 }];
    while (pending.length > 0) {
      const step = pending.pop()!;
      if (step.exit) {
        this.end[step.id] = leaf;
        this.next[step.id] = node;
        continue;
      }
      const id = node++;
      this.first[id] = leaf;
      if (step.at.children.length === 0) {
        this.end[id] = ++leaf;
        this.next[id] = node;
        continue;
      }
      pending.push({ at: step.at, exit: true, id });
      for (let i = step.at.children.length - 1; i >= 0; i--) pending.push({ at: step.at.children[i]!, exit: false, id: -1 });
    }
  }
}

function leafCount(tree: LodNode): number {
  let leaves = 0;
  const pending = [tree];
  while (pending.length > 0) {
    const node = pending.pop()!;
    if (node.children.length === 0) leaves++;
    else for (const child of node.children) pending.push(child);
  }
  return leaves;
}

function nodeCount(tree: LodNode): number {
  let nodes = 0;
  const pending = [tree];
  while (pending.length > 0) {
    const node = pending.pop()!;
    nodes++;
    for (const child of node.children) pending.push(child);
  }
  return nodes;
}

/**
 * The index of a Streamed SOG world (`lod-meta.json`, version 1, as
 * PlayCanvas's splat-transform writes it): read, checked and reduced to
 * what choosing and fetching chunks needs. DOM-free.
 *
 * A world is a tree of boxes over the scene. Each leaf names, per level of
 * detail (0 the finest), a run of splats in one chunk: rows
 * [offset, offset + count) of an unbundled SOG scene (a meta.json and its
 * images) listed in `filenames`, relative to the index's folder. Inner
 * nodes hold children and the union of their bounds. Optional fields:
 * `counts` (splats per level, checked against the tree), `errors` per leaf
 * (splat-transform's `--lod-errors`: a relative image error per level,
 * with no length in it), `displacements` per leaf (how far each level
 * moves the leaf's detail, in scene units: src/scene/level-displacement.ts,
 * written by bench/world-displacements.ts), `environment` (a SOG scene
 * always drawn).
 *
 * Everything a hostile index could use to cost memory or time is bounded
 * before it is walked (LOD_META_LIMITS), the walk is iterative (no stack
 * to exhaust), and a refusal names the field and the node:
 * `tree.children[1].lods["2"].file`.
 */
import { SplatFormatError } from '../format-error';
import { SOG_MAX_SPLATS } from '../sog/meta';
import { relativePathError } from '../path-name';

export interface LodMetaLimits {
  /** Bytes of the index itself. */
  maxBytes: number;
  /** Levels of detail. */
  maxLevels: number;
  /** Nodes of the tree, inner and leaves. */
  maxNodes: number;
  /** Children of one node. */
  maxChildren: number;
  /** Nodes from the root to a leaf. */
  maxDepth: number;
  /** Chunk files named. */
  maxFiles: number;
  /** Splats of the whole world, every level counted. */
  maxSplats: number;
}

/**
 * The limits of a real world, with room: splat-transform splits a chunk
 * past 512K splats (or 16 m with 8K), so a world of 250M splats at 4
 * levels has about 1,000 leaves and 2,000 nodes; its index is a few
 * hundred KB. A binary tree of 2^20 nodes is a world of 2^19 leaves: half
 * a billion splats at a thousand a leaf.
 */
export const LOD_META_LIMITS: LodMetaLimits = {
  maxBytes: 64 * 2 ** 20,
  maxLevels: 16,
  maxNodes: 2 ** 20,
  maxChildren: 64,
  maxDepth: 64,
  maxFiles: 2 ** 18,
  maxSplats: 2 ** 34,
};

/** A run of splats: rows [offset, offset + count) of chunk file `file`. */
export interface LodRun {
  file: number;
  offset: number;
  count: number;
}

export interface LodBound {
  min: [number, number, number];
  max: [number, number, number];
}

export interface LodNode {
  /** Where it is in the index, for messages: "tree.children[0]". */
  path: string;
  bound: LodBound;
  /** Empty for a leaf. */
  children: LodNode[];
  /** A leaf's run per level (index = level; null where it has none). Empty for an inner node. */
  runs: (LodRun | null)[];
  /**
   * A leaf's error per level as splat-transform measures it (`--lod-errors`:
   * the squared image difference against the finest level over the finest
   * image's energy), when the index has them: relative, not a length.
   */
  errors: number[] | null;
  /** A leaf's displacement per level in scene units (src/scene/level-displacement.ts), when the index has them. */
  displacements: number[] | null;
}

export interface LodIndex {
  levels: number;
  /** Splats per level, summed from the tree (and equal to the index's `counts` where it has them). */
  counts: number[];
  /** Chunk files, relative to the index's folder, checked by chunkPathError. */
  filenames: string[];
  environment: string | null;
  tree: LodNode;
  nodes: number;
  leaves: number;
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;

/**
 * Why `relative` cannot name a chunk beside an index (relativePathError),
 * or null: every chunk a world names lies in its index's folder or below,
 * so a link to an index never fetches from another folder or origin.
 */
export function chunkPathError(relative: string): string | null {
  return relativePathError(relative, 'the index');
}

/** Reads and checks a lod-meta.json's text; `name` heads every message. */
export function parseLodMeta(text: string, name = 'lod-meta.json', limits: LodMetaLimits = LOD_META_LIMITS): LodIndex {
  const fail = (what: string): never => {
    throw new SplatFormatError(`${name}: ${what}`);
  };
  if (text.length > limits.maxBytes) fail(`${text.length.toLocaleString('en-US')} bytes, more than a world's index holds (${limits.maxBytes.toLocaleString('en-US')})`);
  // JSON.parse recurses: text nested past the tree's limit is refused before it gets there (a node is
  // two nestings, its object and its children list, and each level has a few more of its own).
  const nesting = jsonNesting(text, 3 * limits.maxDepth + 8);
  if (nesting !== null) fail(`nested ${nesting} deep, deeper than a world's tree of ${limits.maxDepth} levels`);
  let meta: unknown;
  try {
    meta = JSON.parse(text);
  } catch (e) {
    return fail(`not JSON (${(e as Error).message})`);
  }
  if (!isObject(meta)) return fail('not a JSON object');
  if (meta.version !== undefined && meta.version !== 1) fail(`"version" is ${JSON.stringify(meta.version)}; this viewer reads version 1`);
  const levels = meta.lodLevels;
  if (!Number.isInteger(levels) || (levels as number) < 1 || (levels as number) > limits.maxLevels) fail(`"lodLevels" must be a whole number from 1 to ${limits.maxLevels}, got ${JSON.stringify(levels)}`);
  const levelCount = levels as number;

  const filenames = meta.filenames;
  if (!Array.isArray(filenames)) return fail('"filenames" must be a list of chunk paths');
  if (filenames.length > limits.maxFiles) fail(`"filenames" names ${filenames.length.toLocaleString('en-US')} chunks, more than a world has (${limits.maxFiles.toLocaleString('en-US')})`);
  filenames.forEach((f, i) => {
    if (typeof f !== 'string') fail(`"filenames"[${i}] is not a path`);
    const why = chunkPathError(f as string);
    if (why) fail(`"filenames"[${i}] ${JSON.stringify(f)} ${why}`);
  });
  let environment: string | null = null;
  // splat-transform 0.16–1.10 write `"environment": null` into a world without one (three published worlds do).
  if (meta.environment !== undefined && meta.environment !== null) {
    if (typeof meta.environment !== 'string') fail('"environment" is not a path');
    const why = chunkPathError(meta.environment as string);
    if (why) fail(`"environment" ${JSON.stringify(meta.environment)} ${why}`);
    environment = meta.environment as string;
  }

  const counts = new Array<number>(levelCount).fill(0);
  let total = 0;
  let nodes = 0;
  let leaves = 0;
  if (!isObject(meta.tree)) return fail('"tree" must be an object (the root node)');
  // Depth first without recursion: each entry is a node still to read, with the parent list it goes into.
  let root: LodNode | null = null;
  const pending: { json: unknown; path: string; depth: number; into: LodNode[] | null }[] = [{ json: meta.tree, path: 'tree', depth: 1, into: null }];
  while (pending.length > 0) {
    const { json, path, depth, into } = pending.pop()!;
    if (++nodes > limits.maxNodes) fail(`the tree has more than ${limits.maxNodes.toLocaleString('en-US')} nodes`);
    if (depth > limits.maxDepth) fail(`${path}: deeper than ${limits.maxDepth} levels`);
    if (!isObject(json)) return fail(`${path} is not a node (an object)`);
    const node: LodNode = { path, bound: readBound(json.bound, `${path}.bound`, fail), children: [], runs: [], errors: null, displacements: null };
    const hasChildren = json.children !== undefined;
    const hasRuns = json.lods !== undefined;
    if (hasChildren === hasRuns) fail(`${path} must have either "children" (an inner node) or "lods" (a leaf)`);
    if (hasChildren) {
      const children = json.children;
      if (!Array.isArray(children) || children.length === 0) return fail(`${path}.children must be a list of nodes`);
      if (children.length > limits.maxChildren) fail(`${path}.children: ${children.length} children, more than ${limits.maxChildren}`);
      // Pushed in reverse so they are read, and listed, in their order.
      for (let i = children.length - 1; i >= 0; i--) pending.push({ json: children[i], path: `${path}.children[${i}]`, depth: depth + 1, into: node.children });
    } else {
      leaves++;
      const lods = json.lods;
      if (!isObject(lods)) return fail(`${path}.lods must map levels to runs of splats`);
      node.runs = new Array<LodRun | null>(levelCount).fill(null);
      for (const [key, ref] of Object.entries(lods)) {
        const at = `${path}.lods[${JSON.stringify(key)}]`;
        const level = Number(key);
        if (!/^\d+$/.test(key) || level >= levelCount) fail(`${at}: level ${JSON.stringify(key)} is not one of 0 to ${levelCount - 1}`);
        if (!isObject(ref)) return fail(`${at} is not a run of splats ({file, offset, count})`);
        if (!Number.isInteger(ref.file) || (ref.file as number) < 0 || (ref.file as number) >= filenames.length) fail(`${at}.file: ${JSON.stringify(ref.file)} is not one of the ${filenames.length} chunk files`);
        if (!isCount(ref.offset) || !isCount(ref.count)) fail(`${at}: "offset" and "count" must be whole numbers ≥ 0`);
        const run = ref as unknown as LodRun;
        if (run.offset + run.count > SOG_MAX_SPLATS) fail(`${at}: rows ${run.offset.toLocaleString('en-US')} to ${(run.offset + run.count).toLocaleString('en-US')} are past what a chunk holds (${SOG_MAX_SPLATS.toLocaleString('en-US')})`);
        node.runs[level] = { file: run.file, offset: run.offset, count: run.count };
        counts[level]! += run.count;
        total += run.count;
        if (total > limits.maxSplats) fail(`the world has more than ${limits.maxSplats.toLocaleString('en-US')} splats`);
      }
      node.errors = readPerLevel(json.errors, levelCount, `${path}.errors`, 'errors', fail);
      node.displacements = readPerLevel(json.displacements, levelCount, `${path}.displacements`, 'displacements in scene units', fail);
    }
    if (into) into.push(node);
    else root = node;
  }

  if (meta.counts !== undefined) {
    const declared = meta.counts;
    if (!Array.isArray(declared) || declared.length !== levelCount || !declared.every(isCount)) fail(`"counts" must list ${levelCount} splat counts, one a level`);
    (declared as number[]).forEach((n, level) => {
      if (n !== counts[level]) fail(`"counts"[${level}] says ${n.toLocaleString('en-US')} splats; the tree's runs of level ${level} hold ${counts[level]!.toLocaleString('en-US')}`);
    });
  }
  return { levels: levelCount, counts, filenames: filenames as string[], environment, tree: root!, nodes, leaves };
}

/** A leaf's optional list of one number ≥ 0 a level (null where absent), refused by name where it is not one. */
function readPerLevel(value: unknown, levelCount: number, at: string, what: string, fail: (message: string) => never): number[] | null {
  if (value === undefined) return null;
  if (!Array.isArray(value) || value.length !== levelCount || value.some((e) => typeof e !== 'number' || !Number.isFinite(e) || e < 0)) {
    fail(`${at} must list ${levelCount} ${what} ≥ 0, one a level`);
  }
  return value as number[];
}

/** The nesting of [ and { in `text` (outside strings) once it passes `limit`, else null. Linear, no recursion. */
function jsonNesting(text: string, limit: number): number | null {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // a backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > limit) return depth;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return null;
}

function readBound(json: unknown, at: string, fail: (what: string) => never): LodBound {
  if (!isObject(json)) return fail(`${at} must be {min: [x, y, z], max: [x, y, z]}`);
  const corner = (v: unknown, which: string): [number, number, number] => {
    if (!Array.isArray(v) || v.length !== 3 || v.some((c) => typeof c !== 'number' || !Number.isFinite(c))) return fail(`${at}.${which} must be three finite numbers`);
    return [v[0], v[1], v[2]];
  };
  const min = corner(json.min, 'min');
  const max = corner(json.max, 'max');
  if (min.some((c, i) => c > max[i]!)) fail(`${at}: min ${JSON.stringify(min)} is past max ${JSON.stringify(max)}`);
  return { min, max };
}

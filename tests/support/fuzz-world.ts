/**
 * Streamed SOG world mutants for the fuzzer (fuzz.ts). A seed is a tiny
 * world written here (a lod-meta.json over three or four real SOG chunks
 * of a few dozen splats, made once by the tests' SOG writer), kept in
 * parts and edited there:
 * - the index: any value by its type; paths of chunk files and of the
 *   environment that lead out of its folder, to another origin, to a
 *   missing file or to an image; runs past their chunk, of huge or broken
 *   numbers, of files it does not name; a tree too deep, too wide, without
 *   children or runs, with its bounds inverted; levels and counts that
 *   disagree; its text cut, flipped or nested past the parser's bound;
 * - a chunk: its meta.json's values, its count against its runs and
 *   images, image names that lead elsewhere; its files left out, cut,
 *   flipped, swapped with another chunk's.
 * A case reads the mutant as the viewer does (world-load.ts: openWorld,
 * then every chunk) from a local server or a dropped folder, beside files
 * outside the world's folder that it must never read.
 */
import { parseSplatPly } from '../../src/io/ply/parse';
import { int, pick, type Random } from './fuzz-bytes';
import { editJsonValue, metaText } from './fuzz-sog';
import { writeSog } from './sog-writer';
import { concat, inriaPly } from './splat-files';

type Json = Record<string, any>;

/** A world in parts: its index as an object, every other file by its path beside the index. */
export interface WorldParts {
  index: Json;
  files: ReadonlyMap<string, Uint8Array>;
}

/** Where a world case's files are read from: a local server, or a dropped folder. */
export type WorldSourceKind = 'url' | 'folder';

export interface WorldMutant {
  /** Every file by its path beside the index, lod-meta.json included. */
  files: Map<string, Uint8Array>;
  source: WorldSourceKind;
  /** For a server: a file it sends with no length, followed by zeros for ever. */
  endless?: string;
}

const encode = (text: string): Uint8Array => new TextEncoder().encode(text);
const INDEX = 'lod-meta.json';

/** A chunk of the seed world: its folder, its splats and SH degree. */
const CHUNKS = [
  { folder: '0_0', count: 24, shDegree: 1 },
  { folder: '0_1', count: 16, shDegree: 0 },
  { folder: '1_0', count: 10, shDegree: 1 },
] as const;

/**
 * A world of two levels over three chunks (and, with `environment`, an
 * environment scene): three leaves, one of them with no coarse run.
 */
export async function tinyWorld(options: { environment?: boolean; seed?: number } = {}): Promise<WorldParts> {
  const files = new Map<string, Uint8Array>();
  const write = async (folder: string, count: number, shDegree: 0 | 1, seed: number): Promise<void> => {
    const written = await writeSog(parseSplatPly(inriaPly({ count, shDegree, seed })), { paletteSize: 16, iterations: 1 });
    files.set(`${folder}/meta.json`, encode(written.metaJson));
    for (const [name, bytes] of written.files) files.set(`${folder}/${name}`, bytes);
  };
  const seed = options.seed ?? 11;
  for (const [i, chunk] of CHUNKS.entries()) await write(chunk.folder, chunk.count, chunk.shDegree, seed + i);
  if (options.environment) await write('env', 8, 0, seed + 9);
  const bound = { min: [-4, -4, -4], max: [4, 4, 4] };
  const index: Json = {
    version: 1,
    count: 50,
    counts: [40, 10],
    lodLevels: 2,
    filenames: CHUNKS.map((c) => `${c.folder}/meta.json`),
    tree: {
      bound,
      children: [
        { bound, lods: { 0: { file: 0, offset: 0, count: 24 }, 1: { file: 2, offset: 0, count: 6 } } },
        {
          bound,
          children: [
            { bound, lods: { 0: { file: 1, offset: 0, count: 10 }, 1: { file: 2, offset: 6, count: 4 } }, errors: [0.5, 2] },
            { bound, lods: { 0: { file: 1, offset: 10, count: 6 } } },
          ],
        },
      ],
    },
  };
  if (options.environment) index.environment = 'env/meta.json';
  return { index, files };
}

/** The world's files as one byte string (sorted by path): what a case is compared and sized by. */
export function worldBytes(files: ReadonlyMap<string, Uint8Array>): Uint8Array {
  return concat(...[...files].sort(([a], [b]) => (a < b ? -1 : 1)).flatMap(([path, bytes]) => [encode(`${path}\0${bytes.length}\0`), bytes]));
}

/** The seed's files, the index written out. */
export function seedFiles(parts: WorldParts): Map<string, Uint8Array> {
  return new Map([[INDEX, encode(JSON.stringify(parts.index))], ...parts.files]);
}

/** A mutant being built: the index and every chunk meta.json as objects (null where a file is no longer JSON), the rest as files. */
interface Mutant {
  index: Json | null;
  metas: Map<string, Json | null>;
  files: Map<string, Uint8Array>;
}

/** Paths that must never be read: outside the folder, elsewhere, or not what they claim. */
const HOSTILE_PATHS: readonly string[] = [
  '../outside/meta.json', '../../outside/meta.json', 'a/../../outside/meta.json', '/outside/meta.json', '%2e%2e/outside/meta.json',
  '..%2foutside/meta.json', 'http://elsewhere.invalid/meta.json', 'https://127.0.0.1:1/meta.json', '//elsewhere.invalid/meta.json',
  'file:///etc/passwd', 'data:application/json,{}', 'C:/outside/meta.json', '0_0\\meta.json', './0_0/meta.json', '0_0/meta.json?x=1',
  '0_0/meta.json#x', '', ' ', '%', '0_0//meta.json', '0_0/means_l.webp', '9_9/meta.json', 'x'.repeat(1100),
];

/** The chunk meta.json files of a mutant that are still JSON. */
const metaPaths = (m: Mutant): string[] => [...m.metas].filter(([, meta]) => meta !== null).map(([path]) => path);

/** The file lists of a chunk meta.json, by where they are. */
const FILE_LISTS = ['means', 'scales', 'quats', 'sh0', 'shN'] as const;

/** A chunk path, the environment's or an image name in a chunk set to a hostile path (or one relative to its own). */
function leadOut(random: Random, m: Mutant): string {
  const target = int(random, 0, 2);
  const hostile = pick(random, HOSTILE_PATHS);
  if (target === 0 && m.index && Array.isArray(m.index.filenames) && m.index.filenames.length > 0) {
    const i = int(random, 0, m.index.filenames.length - 1);
    m.index.filenames[i] = hostile;
    return `index filenames[${i}] → ${JSON.stringify(hostile.slice(0, 40))}`;
  }
  if (target === 1 && m.index) {
    m.index.environment = hostile;
    return `index environment → ${JSON.stringify(hostile.slice(0, 40))}`;
  }
  const paths = metaPaths(m);
  if (paths.length === 0) return 'no chunk meta.json left to lead out';
  const path = pick(random, paths);
  const meta = m.metas.get(path)!;
  const list = pick(random, FILE_LISTS.filter((k) => Array.isArray(meta[k]?.files)));
  if (!list) return `${path} has no file lists`;
  const files = meta[list].files as unknown[];
  const at = int(random, 0, files.length - 1);
  // Another chunk's image, or a copy outside the world, reached by steps up: real files, to be refused, not read.
  files[at] = pick(random, [`../1_0/${String(files[at])}`, `../../outside/${String(files[at])}`, `%2e%2e/%2e%2e/outside/${String(files[at])}`, hostile, hostile]);
  return `${path} ${list}.files[${at}] → ${JSON.stringify(String(files[at]).slice(0, 40))}`;
}

/** Every run of the index's leaves that is still an object. */
function runsOf(index: Json): Json[] {
  const runs: Json[] = [];
  const pending: unknown[] = [index.tree];
  while (pending.length > 0) {
    const node = pending.pop() as Json | null;
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node.children)) pending.push(...node.children);
    if (typeof node.lods === 'object' && node.lods !== null) runs.push(...Object.values(node.lods as Json).filter((r) => typeof r === 'object' && r !== null));
  }
  return runs;
}

/** A run's offset, count or file: past its chunk, huge, negative, fractional, of another type, or a file not named. */
function editRun(random: Random, m: Mutant): string {
  const runs = m.index ? runsOf(m.index) : [];
  if (runs.length === 0) return 'no run to edit';
  const run = pick(random, runs);
  const key = pick(random, ['offset', 'count', 'file'] as const);
  const old = run[key];
  const files = Array.isArray(m.index!.filenames) ? m.index!.filenames.length : 0;
  const value = pick(random, [
    -1, 0, 1.5, Number(old) + 1, Number(old) + 100, 2 ** 28, 2 ** 28 + 1, 2 ** 32, 2 ** 53, 1e308, '1', null, files, files - 1, 16383 ** 2,
  ]);
  run[key] = value;
  // The declared counts would refuse most edits of a count on their own: some cases leave them out.
  if (key === 'count' && random() < 0.5) delete m.index!.counts;
  return `index run ${key} ${JSON.stringify(old)}→${JSON.stringify(value)}`;
}

/** The tree's shape, the levels, the counts, the chunk list. */
function editTree(random: Random, m: Mutant): string {
  if (!m.index) return 'index is not JSON';
  const index = m.index;
  const tree = index.tree as Json;
  const bound = { min: [-4, -4, -4], max: [4, 4, 4] };
  switch (int(random, 0, 8)) {
    case 0: {
      const depth = pick(random, [10, 62, 63, 64, 65, 200, 3000]);
      if (depth > 100) {
        // Written as text: an object this deep is past what JSON.stringify's recursion takes in a worker.
        const open = `{"bound":${JSON.stringify(bound)},"children":[`;
        const { tree: _, ...rest } = index;
        const head = metaText(rest).slice(0, -1);
        m.files.set(INDEX, encode(`${head}${head === '{' ? '' : ','}"tree":${open.repeat(depth)}${metaText(tree)}${']}'.repeat(depth)}}`));
        m.index = null;
      } else {
        let node: Json = tree;
        for (let d = 0; d < depth; d++) node = { bound, children: [node] };
        index.tree = node;
      }
      return `tree under ${depth} more levels`;
    }
    case 1: {
      // Copies of copies grow as width^k: kept to the widths around the parser's bound.
      const width = pick(random, [2, 63, 64, 65]);
      if (Array.isArray(tree.children) && tree.children.length > 2) return 'tree already widened';
      index.tree = { bound, children: Array.from({ length: width }, () => structuredClone(tree)) };
      if (random() < 0.7) delete index.counts;
      return `tree copied ${width} times under a new root`;
    }
    case 2: {
      const key = pick(random, ['children', 'lods', 'bound']);
      const target = typeof tree.children?.[1] === 'object' ? tree.children[1] : tree;
      delete target[key];
      return `a node's ${key} removed`;
    }
    case 3: {
      const leaf = tree.children?.[0];
      if (leaf && typeof leaf === 'object') leaf.children = [structuredClone(leaf)];
      return 'a leaf given children too';
    }
    case 4:
      tree.bound = pick(random, [{ min: [4, 4, 4], max: [-4, -4, -4] }, { min: [0, 0], max: [1, 1, 1] }, { min: ['0', 0, 0], max: [1, 1, 1] }, null]);
      return `root bound → ${JSON.stringify(tree.bound)}`;
    case 5: {
      const value = pick(random, [0, 1, 3, 16, 17, 1.5, '2', null]);
      index.lodLevels = value;
      return `lodLevels → ${JSON.stringify(value)}`;
    }
    case 6: {
      const value = pick(random, [[40], [40, 11], [-1, 10], [2 ** 53, 10], 'x', [40, 10, 0]]);
      index.counts = value;
      return `counts → ${JSON.stringify(value)}`;
    }
    case 7: {
      // A chunk the tree names that is not there.
      if (!Array.isArray(index.filenames)) return 'filenames is not a list';
      index.filenames.push(pick(random, ['9_9/meta.json', 'missing/meta.json', '0_0/quats.webp', '0_0']));
      const runs = runsOf(index);
      if (runs.length > 0) pick(random, runs).file = index.filenames.length - 1;
      delete index.counts;
      return `a run in chunk ${JSON.stringify(index.filenames.at(-1))}, which is not a chunk`;
    }
    default: {
      const length = pick(random, [0, 2 ** 18, 2 ** 18 + 1]);
      index.filenames = Array.from({ length }, (_, i) => `c${i}/meta.json`);
      return `filenames → ${length} chunk paths`;
    }
  }
}

/** A chunk meta.json: any value, or its count against its runs, its images and the load limits. */
function editChunkMeta(random: Random, m: Mutant): string {
  const paths = metaPaths(m);
  if (paths.length === 0) return 'no chunk meta.json left';
  const path = pick(random, paths);
  const meta = m.metas.get(path)!;
  if (random() < 0.5) return editJsonValue(random, meta, path);
  const count = Number(meta.count);
  const value = pick(random, [0, 1, count - 1, count - 10, count + 1, 2 * count, 4 * count + 2 ** 20 + 1, 2 ** 22, 2 ** 24, 16383 ** 2 + 1, -1, '24']);
  meta.count = value;
  return `${path} count ${count}→${JSON.stringify(value)}`;
}

/** A chunk's file: left out, cut short, bits flipped, another file's bytes in its place. */
function editChunkFile(random: Random, m: Mutant): string {
  const paths = [...m.files.keys()].filter((p) => p !== INDEX);
  const path = pick(random, paths);
  const meta = m.metas.get(path);
  const bytes = meta ? encode(metaText(meta)) : m.files.get(path);
  // A meta.json edited here is bytes from now on.
  if (m.metas.has(path)) m.metas.set(path, null);
  switch (int(random, 0, 3)) {
    case 0:
      m.metas.delete(path);
      m.files.delete(path);
      return `${path} left out`;
    case 1: {
      const cut = int(random, 0, Math.max(0, (bytes?.length ?? 1) - 1));
      m.files.set(path, (bytes ?? new Uint8Array(0)).slice(0, cut));
      return `${path} cut to ${cut} bytes`;
    }
    case 2: {
      const flipped = (bytes ?? new Uint8Array(1)).slice();
      for (let k = int(random, 1, 8); k > 0; k--) flipped[int(random, 0, flipped.length - 1)]! ^= 1 << int(random, 0, 7);
      m.files.set(path, flipped);
      return `${path} bits flipped`;
    }
    default: {
      const other = pick(random, paths);
      m.files.set(path, m.files.get(other) ?? new Uint8Array(0));
      return `${path} holds ${other}'s bytes`;
    }
  }
}

/** The index's text: cut, a byte flipped, nested past the parser's bound, or not UTF-8. */
function editIndexText(random: Random, m: Mutant): string {
  const text = m.index ? metaText(m.index) : new TextDecoder().decode(m.files.get(INDEX));
  m.index = null;
  const choice = int(random, 0, 3);
  let bytes: Uint8Array;
  if (choice === 0) bytes = encode(text.slice(0, int(random, 0, text.length - 1)));
  else if (choice === 1) {
    bytes = encode(text);
    bytes[int(random, 0, bytes.length - 1)]! ^= 1 << int(random, 0, 7);
  } else if (choice === 2) bytes = encode(`${'['.repeat(int(random, 100, 200_000))}${text}`);
  else bytes = concat(new Uint8Array([0xef, 0xbb, 0xbf, 0xff]), encode(text));
  m.files.set(INDEX, bytes);
  return `index text ${['cut', 'a bit flipped', 'nested', 'not UTF-8'][choice]}`;
}

type WorldMutation = (random: Random, m: Mutant) => string;

const WORLD_MUTATIONS: readonly [WorldMutation, number][] = [
  [(random, m) => (m.index ? editJsonValue(random, m.index, 'index') : 'index is not JSON'), 14],
  [leadOut, 14], [editRun, 12], [editTree, 12], [editChunkMeta, 14], [editChunkFile, 12], [editIndexText, 5],
];
const WORLD_WEIGHT_TOTAL = WORLD_MUTATIONS.reduce((n, [, w]) => n + w, 0);

/** One to three edits of a world, read from a server or a folder; `endless`: a server sends one chunk's file for ever. */
export function mutateWorld(random: Random, parts: WorldParts, endless: boolean): WorldMutant & { ops: string[] } {
  const m: Mutant = { index: structuredClone(parts.index), metas: new Map(), files: new Map(parts.files) };
  for (const [path, bytes] of parts.files) if (path.endsWith('meta.json')) m.metas.set(path, JSON.parse(new TextDecoder().decode(bytes)) as Json);
  const ops: string[] = [];
  for (let n = random() < 0.7 ? 1 : int(random, 2, 3); n > 0; n--) {
    let r = random() * WORLD_WEIGHT_TOTAL;
    const mutation = WORLD_MUTATIONS.find(([, w]) => (r -= w) < 0)?.[0] ?? WORLD_MUTATIONS[0]![0];
    ops.push(mutation(random, m));
  }
  const files = new Map(m.files);
  if (m.index) files.set(INDEX, encode(metaText(m.index)));
  for (const [path, meta] of m.metas) if (meta) files.set(path, encode(metaText(meta)));
  const source: WorldSourceKind = endless || random() < 0.5 ? 'url' : 'folder';
  ops.push(`read from ${source === 'url' ? 'a server' : 'a dropped folder'}`);
  let endlessFile: string | undefined;
  if (endless) {
    endlessFile = pick(random, [...files.keys()].filter((p) => p !== INDEX).sort());
    ops.push(`${endlessFile} sent with no length, then zeros for ever`);
  }
  return { files, source, endless: endlessFile, ops };
}

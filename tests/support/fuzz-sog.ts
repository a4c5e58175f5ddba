/**
 * SOG mutants the decoder sees (fuzz.ts): byte mutations of a .sog bundle
 * rarely get past its zip directory and meta.json's JSON, so a SOG seed is
 * kept in parts (meta.json as an object, the images as files and pixels),
 * edited there and zipped again into a valid archive:
 * - meta.json: numbers (0, −1, huge, fractional, Infinity, strings),
 *   counts against the image sizes, versions, SH bands and palette sizes,
 *   min/max ranges swapped, codebooks cut short or too long, arrays of the
 *   wrong length, keys missing or added, values of the wrong type, file
 *   names pointing at missing, other, duplicate or differently spelt entries;
 * - images: pixels changed, resized (fewer or more pixels than the count
 *   needs), re-encoded lossy, truncated, bits flipped, header sizes forged,
 *   one image's file given as another's;
 * - entries: left out, duplicated (same name or another spelling), a second
 *   meta.json in a folder.
 * sogStage() tells how far a mutant gets: the zip layer, JSON, meta.json's
 * checks, or the decoder.
 */
import { crc32, deflateRawSync } from 'node:zlib';
import { openSogBundle } from '../../src/io/sog/bundle';
import { parseSogMeta } from '../../src/io/sog/meta';
import { decodeWebp, type DecodedWebp } from '../../src/io/webp-decode';
import { zipArchive, type ZipInput } from './bombs';
import { int, pick, type Random } from './fuzz-bytes';
import type { WrittenSog } from './sog-writer';
import { editImage, editImageBytes, pickImage } from './fuzz-sog-images';

type Json = Record<string, unknown>;

/** A SOG scene in parts, to be edited inside and zipped again. */
export interface SogParts {
  meta: Json;
  /** The images by the names meta.json gives them, as files and decoded. */
  files: ReadonlyMap<string, Uint8Array>;
  images: ReadonlyMap<string, DecodedWebp>;
  /** '' or a folder ending in '/' that holds every entry. */
  folder: string;
  deflate: boolean;
}

export async function sogParts(written: WrittenSog, options: { folder?: string; deflate?: boolean } = {}): Promise<SogParts> {
  const images = new Map<string, DecodedWebp>();
  for (const [name, bytes] of written.files) images.set(name, await decodeWebp(bytes));
  return {
    meta: JSON.parse(written.metaJson) as Json, files: written.files, images,
    folder: options.folder ? `${options.folder}/` : '', deflate: options.deflate ?? false,
  };
}

/** A mutant being built: meta.json's object and the archive's entries (null bytes: meta.json's text). */
export interface Mutant {
  parts: SogParts;
  meta: Json;
  entries: { name: string; bytes: Uint8Array | null }[];
  deflate: boolean;
}

/**
 * A number JSON cannot spell as a value but its text can (1e999 parses as
 * Infinity): written as this marker, put in place after JSON.stringify.
 */
const RAW = '\u0001raw:';
const raw = (text: string): string => `${RAW}${text}`;

/** The text of an edited JSON object, its raw numbers put in place. */
export function metaText(meta: Json): string {
  return JSON.stringify(meta).replace(/"\\u0001raw:([^"]*)"/g, '$1');
}

/** The archive of a mutant: every entry under the seed's folder, stored or deflated. */
function zipMutant(m: Mutant): Uint8Array {
  const text = new TextEncoder().encode(metaText(m.meta));
  return zipArchive(m.entries.map(({ name, bytes }): ZipInput => {
    const data = bytes ?? text;
    const full = `${m.parts.folder}${name}`;
    if (!m.deflate) return { name: full, stored: data };
    return { name: full, deflated: { data: deflateRawSync(data), size: data.length, crc: crc32(data) >>> 0 } };
  }));
}

// ---------------------------------------------------------------------------
// meta.json.

interface Leaf {
  path: (string | number)[];
  value: unknown;
  parent: Json | unknown[];
  key: string | number;
}

/** Every value in meta.json with where it is (the root object excluded). */
function leaves(meta: Json): Leaf[] {
  const out: Leaf[] = [];
  const walk = (parent: Json | unknown[], path: (string | number)[]): void => {
    const keys = Array.isArray(parent) ? parent.map((_, i) => i) : Object.keys(parent);
    for (const key of keys) {
      const value = (parent as Record<string | number, unknown>)[key];
      out.push({ path: [...path, key], value, parent, key });
      if (typeof value === 'object' && value !== null) walk(value as Json, [...path, key]);
    }
  };
  walk(meta, []);
  return out;
}

const setAt = (leaf: Leaf, value: unknown): void => {
  (leaf.parent as Record<string | number, unknown>)[leaf.key] = value;
};
const describe = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v).replace(/\\u0001raw:/, 'raw ') : JSON.stringify(v) ?? 'undefined');
const pathText = (path: (string | number)[]): string => path.map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`)).join('').slice(1);

const NUMBER_EDITS: readonly ((n: number, r: Random) => unknown)[] = [
  () => 0, () => -1, () => 1, (n) => n + 1, (n) => n - 1, (n) => -n, (n) => n + 0.5,
  (n, r) => n * 2 ** int(r, 1, 40), (n, r) => n / 2 ** int(r, 1, 20),
  () => 1e308, () => -1e308, () => 88.8, () => 709, () => 2 ** 32, () => 2 ** 53,
  () => raw('1e999'), () => raw('-1e999'), () => 'NaN', (n) => String(n), () => null, () => true, () => [], () => ({}),
];

/** Any value of meta.json, edited by its type. */
function editValue(random: Random, m: Mutant): string {
  return editJsonValue(random, m.meta, 'meta');
}

/** Any value of a JSON object (a SOG meta.json, a world's index), edited by its type; says what was done, headed by `label`. */
export function editJsonValue(random: Random, json: Json, label: string): string {
  const all = leaves(json);
  const numbers = all.filter((l) => typeof l.value === 'number');
  const leaf = numbers.length > 0 && random() < 0.6 ? pick(random, numbers) : pick(random, all);
  const old = leaf.value;
  let value: unknown;
  if (typeof old === 'number') value = pick(random, NUMBER_EDITS)(old, random);
  else if (typeof old === 'string') value = pick(random, ['', 'x', 7, null, [old], `${old}\u0000`, old.toUpperCase()]);
  else if (Array.isArray(old)) {
    value = pick(random, [
      () => old.slice(0, -1), () => [...old, old[0] ?? 1], () => [], () => old.slice(0, 1), () => 3, () => 'x', () => [...old].reverse(),
    ])();
  } else value = pick(random, [null, [], 0, 'x', {}]);
  setAt(leaf, value);
  return `${label} ${pathText(leaf.path)} ${describe(old).slice(0, 30)}→${describe(value).slice(0, 30)}`;
}

/** The count (version 1: means.shape[0]) against the image sizes and the load limits. */
function editCount(random: Random, m: Mutant): string {
  const means = m.meta['means'] as Json | undefined;
  const v1 = m.meta['version'] === undefined && Array.isArray(means?.['shape']);
  const count = Number(v1 ? (means!['shape'] as unknown[])[0] : m.meta['count']);
  const image = m.parts.images.get('means_l.webp')!;
  const pixels = image.width * image.height;
  const value = pick(random, [
    0, 1, count - 1, count + 1, pixels, pixels + 1, pixels - image.width, 2 * count, 4 * count + 2 ** 20 + 1,
    2 ** 22, 2 ** 24, 16383 ** 2 + 1, -count, count + 0.5, String(count), null,
  ]);
  if (v1) (means!['shape'] as unknown[])[0] = value;
  else m.meta['count'] = value;
  return `meta ${v1 ? 'means.shape[0]' : 'count'} ${count}→${describe(value)}`;
}

/** The version, the SH bands or the palette size. */
function editShape(random: Random, m: Mutant): string {
  const shN = m.meta['shN'] as Json | undefined;
  const choice = shN && m.meta['version'] === 2 ? int(random, 0, 2) : 0;
  if (choice === 0) {
    const value = pick(random, [undefined, 1, 3, '2', 2.5, null, 0]);
    if (value === undefined) delete m.meta['version'];
    else m.meta['version'] = value;
    return `meta version → ${describe(value)}`;
  }
  const key = choice === 1 ? 'bands' : 'count';
  const old = shN![key];
  const value = key === 'bands'
    ? pick(random, [undefined, 0, 1, 2, 3, 4, 1.5, -1])
    : pick(random, [undefined, 0, 1, Number(old) - 1, Number(old) + 1, 64, 65, 65536, 65537, 0.5]);
  if (value === undefined) delete shN![key];
  else shN![key] = value;
  return `meta shN.${key} ${describe(old)}→${describe(value)}`;
}

/** Ranges and codebooks: mins above maxs, a codebook cut short, too long or with huge values. */
function editRanges(random: Random, m: Mutant): string {
  const objects = ['means', 'scales', 'sh0', 'shN'].filter((k) => typeof m.meta[k] === 'object' && m.meta[k] !== null);
  const name = pick(random, objects);
  const o = m.meta[name] as Json;
  if (Array.isArray(o['codebook']) && random() < 0.6) {
    const book = o['codebook'] as number[];
    const edit = int(random, 0, 3);
    if (edit === 0) book.length = int(random, 1, book.length - 1);
    else if (edit === 1) book.push(...book.slice(0, int(random, 1, 8)));
    else if (edit === 2) book.fill(pick(random, [1e30, -1e30, 89, 1e38, 0]));
    else book.reverse();
    return `meta ${name}.codebook: ${['cut to ' + book.length, 'grown to ' + book.length, 'filled with ' + book[0], 'reversed'][edit]}`;
  }
  if ('mins' in o && 'maxs' in o) {
    if (random() < 0.5) {
      [o['mins'], o['maxs']] = [o['maxs'], o['mins']];
      return `meta ${name}: mins and maxs swapped`;
    }
    const big = pick(random, [1e30, 710, 89, 30, -1e30]);
    o['maxs'] = Array.isArray(o['maxs']) ? (o['maxs'] as number[]).map(() => big) : big;
    return `meta ${name}.maxs all ${big}`;
  }
  return editValue(random, m);
}

/** A file name meta.json gives: another entry's, a missing one, one spelt another way, or not a name. */
function editFileName(random: Random, m: Mutant): string {
  const lists = leaves(m.meta).filter((l) => l.key === 'files' && Array.isArray(l.value));
  const leaf = pick(random, lists);
  const files = leaf.value as unknown[];
  const at = int(random, 0, Math.max(0, files.length - 1));
  const old = String(files[at]);
  const names = [...m.parts.files.keys()];
  const value = pick(random, [
    pick(random, names), pick(random, names), 'missing.webp', `./${old}`, old.toUpperCase(), `x/../${old}`, `../${old}`,
    `/${old}`, `${old}/`, '', 'meta.json', 7, null,
  ]);
  files[at] = value;
  return `meta ${pathText(leaf.path)}[${at}] "${old}"→${describe(value)}`;
}

/** A key of meta.json or of one of its objects left out, added, or given a value of another type. */
function editKeys(random: Random, m: Mutant): string {
  const objects = [{ path: 'meta', o: m.meta }, ...leaves(m.meta)
    .filter((l) => typeof l.value === 'object' && l.value !== null && !Array.isArray(l.value))
    .map((l) => ({ path: pathText(l.path), o: l.value as Json }))];
  const { path, o } = pick(random, objects);
  const keys = Object.keys(o);
  const edit = int(random, 0, 2);
  if (edit === 0 && keys.length > 0) {
    const key = pick(random, keys);
    delete o[key];
    return `meta ${path}.${key} deleted`;
  }
  if (edit === 1 && keys.length > 0) {
    const key = pick(random, keys);
    o[key] = pick(random, [null, [], 0, 'x', {}, true]);
    return `meta ${path}.${key} → ${describe(o[key])}`;
  }
  const key = pick(random, ['extra', 'shN', 'count', 'version', 'antialias', 'encoding', 'constructor']);
  o[key] = key === 'shN' ? { count: 4, bands: 1, codebook: [0, 1], files: ['quats.webp', 'sh0.webp'] } : pick(random, [1, 'x', true, [], {}]);
  return `meta ${path}.${key} added: ${describe(o[key]).slice(0, 40)}`;
}

// ---------------------------------------------------------------------------
// Entries (the images' edits: fuzz-sog-images.ts).

/** An entry left out, a second one of the same file (its name, or spelt another way), or a second meta.json. */
function editEntries(random: Random, m: Mutant): string {
  const edit = int(random, 0, 3);
  const victim = pick(random, m.entries);
  if (edit === 0) {
    m.entries.splice(m.entries.indexOf(victim), 1);
    return `entry ${victim.name} left out`;
  }
  if (edit === 1) {
    const name = pick(random, [victim.name, `./${victim.name}`, victim.name.toUpperCase(), `a/../${victim.name}`]);
    const other = pickImage(random, m);
    m.entries.splice(int(random, 0, m.entries.length), 0, { name, bytes: m.entries[other.index]!.bytes });
    return `a second entry '${name}' (${other.name}'s bytes)`;
  }
  if (edit === 2) {
    const name = pick(random, [`./${victim.name}`, `sub\\${victim.name}`, victim.name.toUpperCase()]);
    victim.name = name;
    return `entry renamed ${name}`;
  }
  m.entries.push({ name: pick(random, ['other/meta.json', 'meta.json/']), bytes: new TextEncoder().encode('{}') });
  return `a second meta.json (${m.entries.at(-1)!.name})`;
}

type SogMutation = (random: Random, m: Mutant) => string | Promise<string>;

const SOG_MUTATIONS: readonly [SogMutation, number][] = [
  [editValue, 16], [editCount, 10], [editShape, 8], [editRanges, 10], [editFileName, 8], [editKeys, 8],
  [editImage, 20], [editImageBytes, 12], [editEntries, 8],
];
const SOG_WEIGHT_TOTAL = SOG_MUTATIONS.reduce((n, [, w]) => n + w, 0);

function pickSogMutation(random: Random): SogMutation {
  let r = random() * SOG_WEIGHT_TOTAL;
  for (const [mutation, w] of SOG_MUTATIONS) {
    r -= w;
    if (r < 0) return mutation;
  }
  return SOG_MUTATIONS[0]![0];
}

/** One to three edits inside a SOG scene, zipped again (stored or deflated, as the seed, or one time in ten the other). */
export async function mutateSog(random: Random, parts: SogParts): Promise<{ bytes: Uint8Array; ops: string[] }> {
  const m: Mutant = {
    parts,
    meta: structuredClone(parts.meta),
    entries: [{ name: 'meta.json', bytes: null }, ...[...parts.files].map(([name, bytes]) => ({ name, bytes }))],
    deflate: random() < 0.1 ? !parts.deflate : parts.deflate,
  };
  const n = random() < 0.7 ? 1 : int(random, 2, 3);
  const ops: string[] = [];
  for (let k = 0; k < n; k++) ops.push(await pickSogMutation(random)(random, m));
  ops.push(`zipped again, ${m.deflate ? 'deflated' : 'stored'}`);
  return { bytes: zipMutant(m), ops };
}

// ---------------------------------------------------------------------------
// How far a mutant gets.

export type SogStage = 'zip' | 'json' | 'meta' | 'decoder';

export const SOG_STAGE_NAMES: Record<SogStage, string> = {
  zip: 'refused by the zip layer', json: "refused as meta.json's JSON", meta: "refused by meta.json's checks", decoder: 'reached the decoder',
};

/**
 * How far a .sog bundle gets: refused by the zip layer (directory, entries,
 * meta.json found and unpacked), by JSON parsing, by meta.json's checks, or
 * past them all into the decoder (images read, decoded and turned into splats).
 */
export function sogStage(bytes: Uint8Array): SogStage {
  let meta: Uint8Array;
  try {
    meta = openSogBundle(bytes).meta;
  } catch {
    return 'zip';
  }
  try {
    JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(meta));
  } catch {
    return 'json';
  }
  try {
    parseSogMeta(meta);
  } catch {
    return 'meta';
  }
  return 'decoder';
}

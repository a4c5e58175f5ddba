/**
 * The fuzzer's byte-level mutations (fuzz.ts): bit flips, byte sets, chunk
 * deletes and duplications, truncations at section boundaries, header number
 * and token edits of ply and spz, special floats, splices between files.
 * They test the format detection and the first layer of each parser; a SOG
 * bundle's meta.json and images are mutated inside (fuzz-sog.ts).
 */
import type { FuzzSeed } from './fuzz';
import { concat, gzip, plyDataStart, spzV4Streams } from './splat-files';


export type Random = () => number;

export const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
export const int = (random: Random, lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));

/** Offsets where the sections of a file begin: header fields, elements, streams. */
function boundaries(seed: FuzzSeed, bytes: Uint8Array): number[] {
  const out = [0, bytes.length];
  try {
    if (seed.format === 'ply' || seed.format === 'compressed-ply') {
      const start = plyDataStart(bytes);
      out.push(start);
      if (seed.format === 'compressed-ply') {
        const text = new TextDecoder('latin1').decode(bytes.subarray(0, start));
        const chunks = Number(/element chunk (\d+)/.exec(text)?.[1] ?? 0);
        const vertices = Number(/element vertex (\d+)/.exec(text)?.[1] ?? 0);
        out.push(start + chunks * 72, start + chunks * 72 + vertices * 16);
      }
    } else if (seed.format === 'spz' && bytes[0] === 0x4e && bytes[4] === 4) {
      out.push(16, 32);
      for (const s of spzV4Streams(bytes)) out.push(s.start, s.end);
    } else if (seed.format === 'spz') {
      out.push(16);
    }
  } catch {
    // a mutant whose sections cannot be found: the ends will do
  }
  return out.filter((b) => b >= 0 && b <= bytes.length);
}

const SPECIAL_FLOATS = [NaN, Infinity, -Infinity, 1e30, -1e30, 1000, -1000, 88.8, 3.4e38, 1e-45, -0, 2 ** 33];

/** Writes special float32s at 4-byte steps of the data section (where floats live in ply and .splat). */
function pokeFloats(random: Random, seed: FuzzSeed, bytes: Uint8Array): string {
  let start = 0;
  if (seed.format === 'ply' || seed.format === 'compressed-ply') {
    try {
      start = plyDataStart(bytes);
    } catch {
      start = 0;
    }
  }
  if (bytes.length - start < 4) return 'floats: no room';
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = int(random, 1, 4);
  const notes: string[] = [];
  for (let k = 0; k < n; k++) {
    const at = start + 4 * Math.floor(random() * Math.floor((bytes.length - start) / 4));
    const v = pick(random, SPECIAL_FLOATS);
    view.setFloat32(at, v, true);
    notes.push(`${v}@${at}`);
  }
  return `floats ${notes.join(' ')}`;
}

const NUMBER_EDITS: readonly ((n: number, random: Random) => string)[] = [
  (n, r) => String(n * 2 ** int(r, 1, 40)),
  (n, r) => String(Math.floor(n / 2 ** int(r, 1, 20))),
  (n) => String(n + 1),
  (n) => String(n - 1),
  () => '0',
  () => '-1',
  () => String(2 ** 32),
  () => String(2 ** 53),
  () => '1e3',
  () => '0x10',
  () => 'NaN',
  () => '',
  () => '1.5',
  (n) => `${n}0`,
];

/** Edits one number of a ply header (element counts, the format version). */
function plyNumberEdit(random: Random, bytes: Uint8Array): { bytes: Uint8Array; note: string } {
  let start: number;
  try {
    start = plyDataStart(bytes);
  } catch {
    start = Math.min(bytes.length, 4096);
  }
  const header = new TextDecoder('latin1').decode(bytes.subarray(0, start));
  const numbers = [...header.matchAll(/(?<=element \S+ )\d+|\d+\.\d+/g)];
  if (numbers.length === 0) return { bytes, note: 'numbers: none' };
  const m = pick(random, numbers);
  const replacement = pick(random, NUMBER_EDITS)(Number(m[0]), random);
  const edited = header.slice(0, m.index) + replacement + header.slice(m.index! + m[0].length);
  return {
    bytes: concat(new Uint8Array([...edited].map((c) => c.charCodeAt(0) & 0xff)), bytes.subarray(start)),
    note: `number ${m[0]}→"${replacement}"@${m.index}`,
  };
}

const U32_EDITS: readonly ((v: number, random: Random) => number)[] = [
  (v, r) => v * 2 ** int(r, 1, 12),
  (v, r) => Math.floor(v / 2 ** int(r, 1, 12)),
  (v) => v + 1,
  (v) => v - 1,
  () => 0,
  () => 0xffffffff,
  () => 10_000_001,
  (_, r) => Math.floor(r() * 2 ** 32),
];

/** Edits one header / table field of an spz payload (count, version, SH degree, bits, streams, table sizes, zstd frame header). */
function spzFieldEdit(random: Random, data: Uint8Array): string {
  if (data.length < 16) return 'spz field: too short';
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const u32 = (at: number, label: string): string => {
    const old = view.getUint32(at, true);
    const v = pick(random, U32_EDITS)(old, random);
    view.setUint32(at, ((v % 2 ** 32) + 2 ** 32) % 2 ** 32, true);
    return `${label} ${old}→${view.getUint32(at, true)}`;
  };
  const byte = (at: number, label: string, values: number[]): string => {
    const old = data[at]!;
    data[at] = pick(random, values);
    return `${label} ${old}→${data[at]}`;
  };
  const fields: (() => string)[] = [
    () => u32(8, 'count'),
    () => u32(8, 'count'),
    () => byte(4, 'version', [0, 1, 2, 3, 4, 5, 255]),
    () => byte(12, 'SH degree', [0, 1, 2, 3, 4, 255]),
    () => byte(13, 'fractional bits', [0, 8, 12, 23, 24, 31, 255]),
  ];
  if (view.getUint32(4, true) === 4 && data.length >= 32) {
    const streams = data[15]!;
    const toc = view.getUint32(16, true);
    fields.push(() => byte(15, 'streams', [0, 1, 4, 5, 6, 7, 255]));
    fields.push(() => u32(16, 'toc offset'));
    if (toc + streams * 16 <= data.length) {
      const u64 = (at: number, label: string): string => {
        const old = view.getBigUint64(at, true);
        const edits = [old * 2n, old / 2n, old + 1n, old - 1n, 0n, 2n ** 53n, 2n ** 63n, old * 1024n];
        const v = pick(random, edits);
        view.setBigUint64(at, BigInt.asUintN(64, v), true);
        return `${label} ${old}→${view.getBigUint64(at, true)}`;
      };
      const s = int(random, 0, Math.max(0, streams - 1));
      fields.push(() => u64(toc + s * 16, `stream ${s} compressed size`));
      fields.push(() => u64(toc + s * 16 + 8, `stream ${s} raw size`));
      // The zstd frame header of a stream: its flags byte and content size.
      const frame = spzV4Streams(data)[s];
      if (frame && frame.start + 9 <= data.length) {
        fields.push(() => byte(frame.start + 4, `stream ${s} zstd flags`, [0x00, 0x20, 0x40, 0x60, 0x80, 0xa0, 0xc0, 0xe0, 0x24]));
        fields.push(() => u32(frame.start + 5, `stream ${s} zstd content size`));
      }
    }
  }
  return pick(random, fields)();
}

const PLY_TOKENS = [
  'float', 'double', 'uchar', 'char', 'int', 'uint', 'short', 'list', 'float32', 'int8', 'toString', '__proto__', 'constructor',
  'element', 'property', 'end_header', 'comment', 'format', 'ascii', 'binary_big_endian', 'binary_little_endian',
  'vertex', 'chunk', 'sh', 'x', 'opacity', 'scale_0', 'rot_0', 'f_dc_0', 'f_rest_0', 'f_rest_44', 'f_rest_45', 'packed_position',
  '0', '1', '-1', '1e3', '4294967296', '9007199254740992', '',
];

/** Replaces, deletes, duplicates or swaps words and lines of a ply header. */
function plyTokenEdit(random: Random, bytes: Uint8Array): { bytes: Uint8Array; note: string } {
  let start: number;
  try {
    start = plyDataStart(bytes);
  } catch {
    start = Math.min(bytes.length, 4096);
  }
  const lines = new TextDecoder('latin1').decode(bytes.subarray(0, start)).split('\n');
  const last = lines.length - 2; // the line before the final ""
  const i = int(random, 1, Math.max(1, last));
  let note: string;
  switch (int(random, 0, 3)) {
    case 0: {
      const words = (lines[i] ?? '').split(' ');
      // Half the time on a property line, its type: where a reader looks a name up in a table.
      const w = words[0] === 'property' && words.length > 2 && random() < 0.5 ? words.length - 2 : int(random, 0, words.length - 1);
      const token = pick(random, PLY_TOKENS);
      note = `token ${words[w]}→${token} in line ${i}`;
      words[w] = token;
      lines[i] = words.join(' ');
      break;
    }
    case 1:
      note = `delete line ${i} "${lines[i]}"`;
      lines.splice(i, 1);
      break;
    case 2:
      note = `duplicate line ${i} "${lines[i]}"`;
      lines.splice(i, 0, lines[i] ?? '');
      break;
    default: {
      const j = int(random, 1, Math.max(1, last));
      note = `swap lines ${i} and ${j}`;
      [lines[i], lines[j]] = [lines[j] ?? '', lines[i] ?? ''];
    }
  }
  const text = lines.join('\n');
  return { bytes: concat(new Uint8Array([...text].map((c) => c.charCodeAt(0) & 0xff)), bytes.subarray(start)), note };
}

type Mutation = (random: Random, seed: FuzzSeed, bytes: Uint8Array, corpus: FuzzSeed[]) => { bytes: Uint8Array; note: string };

/** A position, half the time inside the first 512 bytes (headers, tables), else anywhere. */
function position(random: Random, length: number): number {
  const span = random() < 0.5 ? Math.min(length, 512) : length;
  return Math.floor(random() * span);
}

const MUTATIONS: Record<string, Mutation> = {
  flip(random, _seed, bytes) {
    const n = int(random, 1, 8);
    const at: number[] = [];
    for (let k = 0; k < n && bytes.length > 0; k++) {
      const p = position(random, bytes.length);
      bytes[p] = bytes[p]! ^ (1 << int(random, 0, 7));
      at.push(p);
    }
    return { bytes, note: `flip bits @${at.join(',')}` };
  },
  set(random, _seed, bytes) {
    const n = int(random, 1, 16);
    const value = pick(random, [0, 0xff, -1]);
    const at: number[] = [];
    for (let k = 0; k < n && bytes.length > 0; k++) {
      const p = position(random, bytes.length);
      bytes[p] = value < 0 ? int(random, 0, 255) : value;
      at.push(p);
    }
    return { bytes, note: `set bytes to ${value < 0 ? 'random' : value} @${at.join(',')}` };
  },
  delete(random, _seed, bytes) {
    if (bytes.length < 2) return { bytes, note: 'delete: too short' };
    const at = position(random, bytes.length);
    const len = int(random, 1, Math.max(1, Math.min(4096, (bytes.length - at) >> 1)));
    return { bytes: concat(bytes.subarray(0, at), bytes.subarray(at + len)), note: `delete ${len} bytes @${at}` };
  },
  duplicate(random, _seed, bytes) {
    if (bytes.length < 2) return { bytes, note: 'duplicate: too short' };
    const from = position(random, bytes.length);
    const len = int(random, 1, Math.max(1, Math.min(4096, bytes.length - from)));
    const to = position(random, bytes.length);
    const chunk = bytes.slice(from, from + len);
    return { bytes: concat(bytes.subarray(0, to), chunk, bytes.subarray(to)), note: `duplicate ${len} bytes @${from} to @${to}` };
  },
  truncate(random, seed, bytes) {
    const marks = boundaries(seed, bytes);
    const r = random();
    const cut = r < 0.4 ? Math.floor(random() * bytes.length)
      : r < 0.7 ? Math.floor(random() * Math.min(bytes.length, 1024))
      : Math.max(0, Math.min(bytes.length - 1, pick(random, marks) + int(random, -3, 3)));
    return { bytes: bytes.subarray(0, cut), note: `truncate to ${cut} of ${bytes.length}` };
  },
  numbers(random, seed, bytes) {
    if (seed.format === 'ply' || seed.format === 'compressed-ply') return plyNumberEdit(random, bytes);
    if (seed.format === 'spz') return { bytes, note: spzFieldEdit(random, bytes) };
    return { bytes, note: pokeFloats(random, seed, bytes) };
  },
  tokens(random, seed, bytes) {
    if (seed.format === 'ply' || seed.format === 'compressed-ply') return plyTokenEdit(random, bytes);
    return MUTATIONS.set!(random, seed, bytes, []);
  },
  floats(random, seed, bytes) {
    return { bytes, note: pokeFloats(random, seed, bytes) };
  },
  splice(random, seed, bytes, corpus) {
    const other = pick(random, corpus);
    const cut = position(random, bytes.length);
    const from = position(random, other.bytes.length);
    return {
      bytes: concat(bytes.subarray(0, cut), other.bytes.subarray(from)),
      note: `splice ${seed.id}[0, ${cut}) + ${other.id}[${from}, end)`,
    };
  },
};

const WEIGHTS: readonly [string, number][] = [
  ['flip', 14], ['set', 12], ['delete', 8], ['duplicate', 6], ['truncate', 14],
  ['numbers', 16], ['tokens', 10], ['floats', 10], ['splice', 4], ['stack', 6],
];
const WEIGHT_TOTAL = WEIGHTS.reduce((n, [, w]) => n + w, 0);

function pickMutation(random: Random, allowStack: boolean): string {
  for (;;) {
    let r = random() * WEIGHT_TOTAL;
    for (const [name, w] of WEIGHTS) {
      r -= w;
      if (r < 0) {
        if (name === 'stack' && !allowStack) break;
        return name;
      }
    }
  }
}

/**
 * One to three byte mutations of a seed, in order. A gzip-wrapped spz
 * usually has its payload edited and wrapped again, so that the edit
 * reaches the spz parser rather than only breaking the gzip stream.
 */
export function mutateBytes(random: Random, source: FuzzSeed, corpus: FuzzSeed[]): { bytes: Uint8Array; ops: string[] } {
  const first = pickMutation(random, true);
  const names = first === 'stack'
    ? Array.from({ length: int(random, 2, 3) }, () => pickMutation(random, false))
    : [first];
  const inner = source.gzipPayload !== undefined && random() < 0.75;
  let bytes: Uint8Array = (inner ? source.gzipPayload! : source.bytes).slice();
  const ops: string[] = [];
  for (const name of names) {
    const result = MUTATIONS[name]!(random, source, bytes, corpus);
    bytes = result.bytes;
    ops.push(result.note);
  }
  if (inner) {
    bytes = gzip(bytes);
    ops.push('gzip the edited payload');
  }
  return { bytes, ops };
}

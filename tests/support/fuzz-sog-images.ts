/**
 * The image edits of the SOG mutants (fuzz-sog.ts): an image decoded, its
 * pixels or size changed and encoded again, or its file's bytes cut short,
 * flipped, its header forged or swapped for another image's.
 */
import { decodeWebp, type DecodedWebp } from '../../src/io/webp-decode';
import { int, pick, type Random } from './fuzz-bytes';
import type { Mutant } from './fuzz-sog';
import { encodeWebp } from './sog-writer';

/** An image entry of the mutant (the last of its name). */
export function pickImage(random: Random, m: Mutant): { name: string; index: number } {
  const images = m.entries.map((e, index) => ({ name: e.name, index })).filter((e) => m.entries[e.index]!.bytes !== null);
  return pick(random, images);
}

async function decoded(m: Mutant, name: string, bytes: Uint8Array): Promise<DecodedWebp | undefined> {
  if (bytes === m.parts.files.get(name)) return m.parts.images.get(name);
  try {
    return await decodeWebp(bytes);
  } catch {
    return undefined;
  }
}

/** The most pixels a re-encoded image gets: encoding stays a few ms. */
const MAX_ENCODED_PIXELS = 2 ** 16;

/** An image decoded, its pixels or size changed, and encoded again (lossless, or lossy). */
export async function editImage(random: Random, m: Mutant): Promise<string> {
  const { name, index } = pickImage(random, m);
  const image = await decoded(m, name, m.entries[index]!.bytes!);
  if (!image) return `image ${name}: not decodable, left as it is`;
  let { width, height } = image;
  let data = image.data.slice();
  let note: string;
  const edit = int(random, 0, 5);
  if (edit <= 1) {
    const n = int(random, 1, 8);
    for (let k = 0; k < n; k++) data[int(random, 0, data.length - 1)] = int(random, 0, 255);
    note = `${n} random bytes`;
  } else if (edit === 2) {
    const channel = int(random, 0, 3);
    const value = pick(random, [0, 255, 251, 128, -1]);
    for (let p = channel; p < data.length; p += 4) data[p] = value < 0 ? int(random, 0, 255) : value;
    note = `channel ${channel} all ${value < 0 ? 'random' : value}`;
  } else if (edit <= 4) {
    const count = Number(m.meta['count'] ?? width * height);
    const sizes: [number, number][] = [
      [width + 1, height], [width - 1, height], [width, height + 1], [width, height - 1], [height, width],
      [1, width * height], [width * height, 1], [width, Math.ceil(count / width) - 1], [width * 2, height * 2],
      [width, height * 4 + 1], [int(random, 1, 300), int(random, 1, 300)],
    ];
    const [w, h] = pick(random, sizes).map((v) => Math.max(1, Math.min(16383, v))) as [number, number];
    if (w * h > MAX_ENCODED_PIXELS) return `image ${name}: ${w}×${h} is too large to encode here, left as it is`;
    const resized = new Uint8Array(w * h * 4);
    for (let y = 0; y < Math.min(h, height); y++) {
      resized.set(data.subarray(y * width * 4, (y * width + Math.min(w, width)) * 4), y * w * 4);
    }
    note = `resized ${width}×${height}→${w}×${h}`;
    [width, height, data] = [w, h, resized];
  } else {
    note = 'unchanged';
  }
  const lossy = edit === 5 || random() < 0.1 ? int(random, 0, 100) : undefined;
  m.entries[index]!.bytes = await encodeWebp(data, width, height, lossy);
  return `image ${name}: ${note}, encoded ${lossy === undefined ? 'lossless' : `lossy at quality ${lossy}`}`;
}

/** An image file cut short, its bits flipped, its header's size or RIFF size forged, or another image's file. */
export function editImageBytes(random: Random, m: Mutant): string {
  const { name, index } = pickImage(random, m);
  const bytes = m.entries[index]!.bytes!.slice();
  const edit = int(random, 0, 4);
  let out: Uint8Array = bytes;
  let note: string;
  if (edit === 0) {
    const cut = random() < 0.5 ? int(random, 0, Math.min(40, bytes.length)) : int(random, 0, bytes.length - 1);
    out = bytes.subarray(0, cut);
    note = `truncated to ${cut} of ${bytes.length}`;
  } else if (edit === 1) {
    const n = int(random, 1, 6);
    for (let k = 0; k < n; k++) { const p = int(random, 12, bytes.length - 1); bytes[p] ^= 1 << int(random, 0, 7); }
    note = `${n} bits flipped`;
  } else if (edit === 2 && bytes.length >= 25) {
    // VP8L: width − 1 and height − 1 in 14 bits each after the 0x2f signature at byte 20.
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const bits = view.getUint32(21, true);
    const w = pick(random, [(bits & 0x3fff) + 1, (bits & 0x3fff) - 1, 0x3fff, 0, int(random, 0, 0x3fff)]) & 0x3fff;
    const h = pick(random, [((bits >>> 14) & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) - 1, 0x3fff, 0]) & 0x3fff;
    view.setUint32(21, ((bits & 0xf0000000) | w | (h << 14)) >>> 0, true);
    note = `header size forged to ${w + 1}×${h + 1}`;
  } else if (edit === 3 && bytes.length >= 8) {
    const size = pick(random, [0, bytes.length, bytes.length * 2, 0xffffffff, bytes.length - 9]);
    new DataView(bytes.buffer, bytes.byteOffset).setUint32(4, size >>> 0, true);
    note = `RIFF size → ${size}`;
  } else {
    const other = pickImage(random, m);
    out = m.entries[other.index]!.bytes!;
    note = `replaced by ${other.name}`;
  }
  m.entries[index]!.bytes = out;
  return `image ${name} bytes: ${note}`;
}

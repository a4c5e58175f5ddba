/**
 * The axes an SPZ file's splats are stored in. The format's default is RUB
 * (x right, y up, z back); a file may say otherwise with the
 * SPZ_ADOBE_coordinate_system extension (type 0xADBE0003, a uint32 naming
 * one of 16 frames; nianticlabs/spz, extensions/README.md), recorded in the
 * header zone of a version 4 file ([32, table offset)) or after the planes
 * of a gzip-wrapped one, when the header's flags have bit 0x2. Records are
 * [u32 type][u32 byte length][payload]; unknown ones are skipped. Each
 * frame maps to the viewer's RDF (PLY's: x right, y down, z forward) by a
 * signed permutation: a turn, a mirror, or for the z-up frames a quarter
 * turn about x. DOM-free.
 */
import { SplatFormatError } from '../format-error';

/** The frames in the order of the format's enum (1 to 16): each letter the direction of x, y and z. */
const FRAMES = ['LDB', 'RDB', 'LUB', 'RUB', 'LDF', 'RDF', 'LUF', 'RUF', 'LFD', 'RFD', 'LFU', 'RFU', 'LBD', 'RBD', 'LBU', 'RBU'] as const;
export type SpzFrame = (typeof FRAMES)[number];

/** The format's default, where a file says nothing. */
export const DEFAULT_SPZ_FRAME: SpzFrame = 'RUB';
const COORDINATE_SYSTEM_EXTENSION = 0xadbe0003;
/** The most bytes of extension records a gzip-wrapped file's data may carry after its planes (the recorded ones are a few words each). */
export const SPZ_EXTENSIONS_MAX_BYTES = 64 * 1024;

/** Each letter as a direction in RDF: [axis, sign]. */
const DIRECTIONS: Record<string, readonly [number, number]> = { R: [0, 1], L: [0, -1], D: [1, 1], U: [1, -1], F: [2, 1], B: [2, -1] };

/**
 * The matrix (row-major 3×3) taking coordinates stored in `frame` to RDF:
 * its column i is the direction of the stored axis i.
 */
export function frameToRdf(frame: SpzFrame): number[] {
  const m = new Array<number>(9).fill(0);
  [...frame].forEach((letter, column) => {
    const [row, sign] = DIRECTIONS[letter]!;
    m[row * 3 + column] = sign;
  });
  return m;
}

/**
 * The frame the extension records in `records` say the splats are stored
 * in, or null when none does. A record that runs past the block, or a
 * frame number outside 1..16, is refused by name.
 */
export function recordedFrame(records: Uint8Array): SpzFrame | null {
  const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
  let frame: SpzFrame | null = null;
  for (let at = 0; at < records.length;) {
    if (at + 8 > records.length) throw new SplatFormatError(`SPZ extension record at byte ${at} of ${records.length} is cut short: its type and length need 8 bytes`);
    const type = view.getUint32(at, true);
    const length = view.getUint32(at + 4, true);
    if (length > records.length - at - 8) {
      throw new SplatFormatError(`SPZ extension 0x${type.toString(16)} says it holds ${length} bytes, but only ${records.length - at - 8} follow`);
    }
    if (type === COORDINATE_SYSTEM_EXTENSION) {
      if (length < 4) throw new SplatFormatError(`SPZ coordinate system extension holds ${length} bytes, not the 4 of its frame number`);
      const id = view.getUint32(at + 8, true);
      if (id > FRAMES.length) throw new SplatFormatError(`SPZ coordinate system extension names frame ${id}: the format has frames 1 to ${FRAMES.length}`);
      // 0 is "unspecified": the file records no frame, as if the record were absent.
      frame = id === 0 ? null : FRAMES[id - 1]!;
    }
    at += 8 + length;
  }
  return frame;
}

/** The frame number the extension writes for `frame` (for tests and writers). */
export function frameNumber(frame: SpzFrame): number {
  return FRAMES.indexOf(frame) + 1;
}

/** An extension record saying the splats are stored in `frame`. */
export function coordinateSystemRecord(frame: SpzFrame): Uint8Array {
  const record = new Uint8Array(12);
  const view = new DataView(record.buffer);
  view.setUint32(0, COORDINATE_SYSTEM_EXTENSION, true);
  view.setUint32(4, 4, true);
  view.setUint32(8, frameNumber(frame), true);
  return record;
}

/**
 * The formats' list drives detection, the file picker's accept list and the
 * help text; one helper answers each question of a file's name or magic, so
 * the loaders cannot disagree about the same bytes. Each format's reader is
 * paired with its description in the list's order (readers.ts).
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { detectFormat, sniffFormat } from '../../src/io/formats/detect';
import { SPLAT_FORMATS, type SplatFormatId } from '../../src/io/formats/index';
import { READABLE_FORMATS } from '../../src/io/formats/readers';
import { OPEN_TOGETHER_TEXT, SCENE_FILE_ACCEPT, SCENE_FILES_TEXT } from '../../src/io/formats/scene-files';
import { detectSplatFormat, loadSplatFile } from '../../src/io/parse-splat-file';
import { lastPathSegment } from '../../src/io/path-name';
import { parsePlyHeader, parseSplatPly } from '../../src/io/ply/parse';
import { chunksOf } from '../../src/io/source-bytes';
import { loadSplatStream } from '../../src/io/splat-stream';
import { scenePath } from '../shared-scenes';
import { writeKsplat } from '../support/ksplat-writer';
import { bundleSog, writeSog } from '../support/sog-writer';
import { writeGlb } from '../../src/io/writers/glb';
import { glbAsGltf } from '../support/gltf-files';
import { ascii, concat, inriaPly, plyDataStart } from '../support/splat-files';

const read = (name: string): Uint8Array => new Uint8Array(readFileSync(scenePath(name)));

/** A real file of each format, under a name that says nothing of it unless the format is known by name. */
const samples = new Map<SplatFormatId, { bytes: Uint8Array; name: string }>();

beforeAll(async () => {
  const ply = read('inria_kacytran_iter7000_9k_sh3.ply');
  const cloud = parseSplatPly(ply);
  const sog = await writeSog(cloud, { shDegree: 0 });
  samples.set('ply', { bytes: ply, name: 'scene.bin' });
  samples.set('compressed-ply', { bytes: read('playcanvas_biker.compressed.ply'), name: 'scene.bin' });
  samples.set('splat', { bytes: read('justdealman_model.splat'), name: 'model.splat' });
  samples.set('spz', { bytes: read('playcanvas_biker_v4.spz'), name: 'scene.bin' });
  samples.set('ksplat', { bytes: writeKsplat(cloud, { level: 1 }).bytes, name: 'scene.bin' });
  samples.set('sog', { bytes: bundleSog(sog), name: 'scene.bin' });
  samples.set('sog-meta', { bytes: ascii(sog.metaJson), name: 'scenes/garden/meta.json' });
  samples.set('glb', { bytes: writeGlb(cloud), name: 'scene.bin' });
  samples.set('gltf', { bytes: glbAsGltf(writeGlb(cloud)), name: 'scenes/garden.gltf' });
}, 120_000);

describe('the formats list', () => {
  it('describes each format completely: an id of its own, a way to be recognised, a way to be read', () => {
    expect(new Set(SPLAT_FORMATS.map((f) => f.id)).size).toBe(SPLAT_FORMATS.length);
    // Each description with its reader, in the list's order.
    expect(READABLE_FORMATS.map((f) => f.id)).toEqual(SPLAT_FORMATS.map((f) => f.id));
    for (const format of READABLE_FORMATS) {
      expect(format.sniff !== undefined || format.byName === true, `${format.id} can be recognised`).toBe(true);
      expect(format.signature !== undefined, `${format.id} names its signature when it has a sniff`).toBe(format.sniff !== undefined);
      // Read from its bytes (streamed or whole), or from them and the files beside it, or either way (a .gltf).
      expect(format.read !== undefined || format.withCompanions !== undefined, `${format.id} can be read`).toBe(true);
      expect(format.withCompanions !== undefined, `${format.id} reads the files it names`).toBe(format.companions !== undefined);
      expect(format.read !== undefined, `${format.id} is read from its bytes alone`).toBe(format.companions === undefined || format.companions.alone === true);
      if (format.stream) expect(format.read, `${format.id} streams and reads whole`).toBeDefined();
      expect(format.extensions.length).toBeGreaterThan(0);
      for (const extension of [...format.extensions, ...(format.companions?.extensions ?? [])]) expect(extension).toMatch(/^\.[a-z0-9]+$/);
    }
  });

  it('gives every format a real sample here, so that the tests below cover the list', () => {
    expect([...samples.keys()].sort()).toEqual(SPLAT_FORMATS.map((f) => f.id).sort());
  });

  it('sniffs each real file to its own format and no other', () => {
    for (const [id, { bytes }] of samples) {
      const said = READABLE_FORMATS.filter((f) => f.sniff?.(bytes, { partial: false }) === 'yes').map((f) => f.id);
      const byContent = READABLE_FORMATS.find((f) => f.id === id)!.sniff !== undefined;
      expect(said, id).toEqual(byContent ? [id] : []);
    }
  });

  it('detects each real file as its format, whole and from its first bytes as a stream does', () => {
    for (const [id, { bytes, name }] of samples) {
      expect(detectSplatFormat(bytes, name), name).toBe(id);
      const start = bytes.subarray(0, 4096);
      const sniffed = sniffFormat(start, name);
      // A partial ksplat shows only its version bytes, which is enough to gather it.
      expect(sniffed === 'more' ? 'more' : sniffed.id, id).toBe(id);
    }
  });

  it('recognises the formats without a header only by name, and says what else it looked for', () => {
    const splat = samples.get('splat')!.bytes;
    expect(() => detectSplatFormat(splat, 'model.bin')).toThrow(/Unrecognised/);
    expect(detectSplatFormat(splat, 'C:\\scenes\\Model.SPLAT')).toBe('splat');
    const meta = samples.get('sog-meta')!.bytes;
    expect(detectFormat(meta, 'https://example.com/garden/meta.json?v=1').id).toBe('sog-meta');
    expect(() => detectFormat(meta, 'garden-meta.json')).toThrow(/Unrecognised/);
    let message = '';
    try {
      detectFormat(ascii('no splats here at all'), 'notes.txt');
    } catch (error) {
      message = (error as Error).message;
    }
    for (const format of READABLE_FORMATS) {
      if (format.signature) expect(message).toContain(format.signature);
      if (format.byName) expect(message).toContain(format.fileName ?? format.extensions[0]!);
    }
  });

  it('needs the files beside a main file that names them, and says so', async () => {
    await expect(loadSplatFile(samples.get('sog-meta')!.bytes, 'meta.json')).rejects.toThrow(/SOG meta.json is read together with its \.webp images/);
  });

  it('gives the file picker every format\'s extensions and those of the files they need, and nothing else', () => {
    const wanted = new Set(SPLAT_FORMATS.flatMap((f) => [...f.extensions, ...(f.companions?.extensions ?? [])]));
    expect(new Set(SCENE_FILE_ACCEPT.split(','))).toEqual(wanted);
    expect(SCENE_FILE_ACCEPT).toBe('.ply,.splat,.spz,.ksplat,.sog,.glb,.gltf,.bin,.json,.webp');
  });

  it('names every format in the help text', () => {
    for (const format of SPLAT_FORMATS) {
      if (format.companions) expect(SCENE_FILES_TEXT).toContain(`${format.label} with its ${format.companions.what}`);
      if (!format.companions || format.companions.alone) for (const extension of format.extensions) expect(SCENE_FILES_TEXT).toContain(extension);
    }
    expect(SCENE_FILES_TEXT).toBe('a splat file (.ply .splat .spz .ksplat .sog .glb .gltf, or a glTF with its buffers or a SOG meta.json with its images)');
    expect(OPEN_TOGETHER_TEXT).toBe('one splat file at a time, or a glTF with its buffers, or a SOG meta.json with its images');
  });
});

describe('the PLY magic line', () => {
  /** A small INRIA PLY whose header lines end in `lineEnd`, or whose magic line is replaced by `magic`. */
  function plyWith(lineEnd: string, magic = 'ply'): Uint8Array {
    const bytes = inriaPly({ count: 64 });
    const start = plyDataStart(bytes);
    const header = new TextDecoder('latin1').decode(bytes.subarray(0, start)).replace(/^ply/, magic).replaceAll('\n', lineEnd);
    return concat(ascii(header), bytes.subarray(start));
  }

  /** What each reader makes of the bytes, named "x.splat" so that a reader that does not see a PLY reads a .splat. */
  async function verdicts(bytes: Uint8Array, chunkSize: number): Promise<Record<string, string>> {
    const plyOr = (message: string): string => (/PLY/.test(message) && !/Not a PLY file/.test(message) ? 'PLY' : 'not PLY');
    const detection = (() => {
      try {
        return detectSplatFormat(bytes, 'x.splat') === 'ply' ? 'PLY' : 'not PLY';
      } catch (error) {
        return plyOr((error as Error).message);
      }
    })();
    const parser = (() => {
      try {
        parsePlyHeader(bytes);
        return 'PLY';
      } catch (error) {
        return plyOr((error as Error).message);
      }
    })();
    const stream = await loadSplatStream(chunksOf(bytes, chunkSize), { name: 'x.splat', totalBytes: bytes.length }).then(
      (cloud) => (cloud.count === 64 ? 'PLY' : 'not PLY'),
      (error: Error) => plyOr(error.message),
    );
    return { detection, parser, stream };
  }

  it.each([
    ['\\n line ends', plyWith('\n'), 'PLY'],
    ['\\r\\n line ends', plyWith('\r\n'), 'PLY'],
    // Refused, but as a PLY, by all three: they used to disagree.
    ['old-Mac \\r line ends', plyWith('\r'), 'PLY'],
    ['"ply" then a space', plyWith('\n', 'ply '), 'not PLY'],
    ['"PLY" in capitals', plyWith('\n', 'PLY'), 'not PLY'],
  ])('is read the same by detection, the stream and the header parser: %s', async (_, bytes, expected) => {
    for (const chunkSize of [1, 7, bytes.length]) {
      expect(await verdicts(bytes, chunkSize), `in chunks of ${chunkSize}`).toEqual({ detection: expected, parser: expected, stream: expected });
    }
  });

  it('refuses old-Mac line ends with a message that says so', async () => {
    const bytes = plyWith('\r');
    const message = /lone carriage return/;
    expect(() => parsePlyHeader(bytes)).toThrow(message);
    await expect(loadSplatFile(bytes, 'scene.ply')).rejects.toThrow(message);
    await expect(loadSplatStream(chunksOf(bytes, 3), { name: 'scene.ply' })).rejects.toThrow(message);
  });
});

describe('lastPathSegment', () => {
  it.each([
    ['scene.ply', 'scene.ply'],
    ['scenes/garden/meta.json', 'meta.json'],
    ['C:\\scenes\\Model.SPLAT', 'Model.SPLAT'],
    ['https://example.com/a/my%20scene.splat?v=2#top', 'my scene.splat'],
    ['https://example.com/a/', ''],
    ['blob:https://example.com/5f2c-41', '5f2c-41'],
    ['https://example.com/bad%E0%A4escape.ply', 'bad%E0%A4escape.ply'],
    // In a file name, "#" and "?" are ordinary characters.
    ['takes/scene #2?.ply', 'scene #2?.ply'],
  ])('%s → %s', (name, segment) => {
    expect(lastPathSegment(name)).toBe(segment);
  });
});

/**
 * Broken SOG input, bundled or loose: every fault (zip entries missing,
 * doubled or misnamed, meta.json fields wrong, counts the images cannot
 * hold or the load limits refuse, images damaged, forged or indexed past
 * their codebooks, a failing reader) ends in a SplatFormatError whose
 * message names the problem, before anything large is read or allocated.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { parseSplatPly } from '../../src/io/ply/parse';
import { parseSogBundle } from '../../src/io/sog/bundle';
import { parseSog } from '../../src/io/sog/decode';
import { decodeWebp } from '../../src/io/webp-decode';
import { readWebpSize } from '../../src/io/webp-header';
import { SplatLimitError, type LoadLimits } from '../../src/io/load-limits';
import { ANTIALIASED_FILTER } from '../../src/scene/anti-aliasing';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { scenePath } from '../shared-scenes';
import { zipArchive, type ZipInput } from '../support/bombs';
import { sameValues } from '../support/clouds';
import { formatError } from '../support/format-errors';
import { readerOf } from '../support/sog-checks';
import { bundleSog, encodeLosslessWebp, writeSog, type WrittenSog } from '../support/sog-writer';

const SCENE = 'inria_kacytran_iter7000_9k_sh3.ply';

let scene: SplatCloud;

beforeAll(() => {
  scene = parseSplatPly(readFileSync(scenePath(SCENE)));
});

describe('broken SOG input: SplatFormatError with a message that names the problem', () => {
  let written: WrittenSog;
  let bundle: Uint8Array;
  beforeAll(async () => {
    written = await writeSog(scene, { shDegree: 1 });
    bundle = bundleSog(written);
  });

  const withMeta = (edit: (meta: Record<string, unknown>) => void): string => {
    const meta = JSON.parse(written.metaJson) as Record<string, unknown>;
    edit(meta);
    return JSON.stringify(meta);
  };

  it('an antialias flag that is not true or false; true is recorded as the scene\'s filter', async () => {
    const err = await formatError(parseSogBundle(bundleSog(written, { metaJson: withMeta((m) => (m['antialias'] = 'yes')) })));
    expect(err.message).toMatch(/meta\.json's antialias must be true or false, found "yes"/);
    expect((await parseSogBundle(bundle)).antiAliasing).toBeUndefined();
    const flagged = await parseSogBundle(bundleSog(written, { metaJson: withMeta((m) => (m['antialias'] = true)) }));
    expect(flagged.antiAliasing).toEqual({ filter: ANTIALIASED_FILTER, source: 'SOG meta.json "antialias"' });
  });

  it('a zip without meta.json', async () => {
    const err = await formatError(parseSogBundle(bundleSog(written, { omit: ['meta.json'] })));
    expect(err.message).toMatch(/\.sog bundle has no meta\.json/);
  });

  /** The written scene as stored zip entries, renamed by `rename` (to '' to leave one out), with `extra` after them. */
  const entriesOf = (rename: (name: string) => string = (n) => n, extra: ZipInput[] = []): ZipInput[] => [
    { name: 'meta.json' as string, stored: new TextEncoder().encode(written.metaJson) },
    ...[...written.files].map(([name, stored]) => ({ name, stored })),
  ].map((e): ZipInput => ({ ...e, name: rename(e.name) })).filter((e) => e.name !== '').concat(extra);

  /** The archive with every name flagged as UTF-8 (general purpose bit 11), as writers flag names that are not ASCII. */
  const utf8Names = (zip: Uint8Array): Uint8Array => {
    const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
    for (let at = 0; at + 4 <= zip.length; at++) {
      const signature = view.getUint32(at, true);
      // Flags at +6 of a local header (PK\x03\x04), +8 of a central one (PK\x01\x02).
      if (signature === 0x04034b50) view.setUint16(at + 6, view.getUint16(at + 6, true) | 0x800, true);
      if (signature === 0x02014b50) view.setUint16(at + 8, view.getUint16(at + 8, true) | 0x800, true);
    }
    return zip;
  };

  it('two entries of one name, or of names that differ only by "./", folders, case or accent composition, are refused by name', async () => {
    // Another valid image under a name already there: a reader that took the last one would load it.
    const scales = written.files.get('scales.webp')!;
    const cases: [ZipInput[], RegExp][] = [
      [entriesOf(undefined, [{ name: 'quats.webp', stored: scales }]), /holds two entries named 'quats\.webp'/],
      [entriesOf(undefined, [{ name: './quats.webp', stored: scales }]), /holds both 'quats\.webp' and '\.\/quats\.webp', names of the same file/],
      [entriesOf(undefined, [{ name: 'Quats.webp', stored: scales }]), /holds both 'quats\.webp' and 'Quats\.webp'/],
      [entriesOf(undefined, [{ name: 'x/../meta.json', stored: new TextEncoder().encode('{}') }]), /holds both 'meta\.json' and 'x\/\.\.\/meta\.json'/],
      [entriesOf((n) => `scene/${n}`, [{ name: 'scene//sh0.webp', stored: scales }]), /holds both 'scene\/sh0\.webp' and 'scene\/\/sh0\.webp'/],
      // 'é' composed (NFC) and decomposed (NFD, as macOS writes it).
      [entriesOf((n) => (n === 'meta.json' ? n : `caf\u00e9/${n}`), [{ name: 'cafe\u0301/sh0.webp', stored: scales }]), /holds both 'caf\u00e9\/sh0\.webp' and 'cafe\u0301\/sh0\.webp'/],
    ];
    for (const [entries, pattern] of cases) {
      const err = await formatError(parseSogBundle(utf8Names(zipArchive(entries))));
      expect(err.message).toMatch(pattern);
      expect(err.message).toMatch(/zip readers differ on which one to take/);
    }
  });

  it('entries named with "./" or "\\" are found, folder entries are no files, and meta.json in two folders is refused', async () => {
    const reference = await parseSogBundle(bundle);
    for (const rename of [(n: string) => `./${n}`, (n: string) => `scene\\${n}`, (n: string) => `scene/./${n}`]) {
      const entries = entriesOf(rename, [{ name: 'scene/', stored: new Uint8Array(0) }, { name: 'scene/', stored: new Uint8Array(0) }]);
      const cloud = await parseSogBundle(zipArchive(entries));
      expect(sameValues(cloud.positions, reference.positions)).toBe(true);
    }
    const twice = [...entriesOf((n) => `a/${n}`), ...entriesOf((n) => `b/${n}`)];
    const err = await formatError(parseSogBundle(zipArchive(twice)));
    expect(err.message).toMatch(/has no meta\.json at its root but 2 in folders \('a\/meta\.json', 'b\/meta\.json'\)/);
  });

  it('an entry whose local header gives another name than the directory', async () => {
    const zip = zipArchive(entriesOf()).slice();
    const view = new DataView(zip.buffer);
    // Local headers (PK\x03\x04): name length at +26, name at +30.
    let patched = 0;
    for (let at = 0; at + 30 < zip.length; at++) {
      if (view.getUint32(at, true) !== 0x04034b50) continue;
      const name = new TextDecoder().decode(zip.subarray(at + 30, at + 30 + view.getUint16(at + 26, true)));
      if (name === 'quats.webp') { zip[at + 30] = 'Q'.charCodeAt(0); patched++; }
    }
    expect(patched).toBe(1);
    const err = await formatError(parseSogBundle(zip));
    expect(err.message).toMatch(/entry 'quats\.webp' could not be unpacked.*the local header of 'quats\.webp' names it 'Quats\.webp'/);
  });

  it('a zip missing an image meta.json names', async () => {
    const err = await formatError(parseSogBundle(bundleSog(written, { omit: ['quats.webp'] })));
    expect(err.message).toMatch(/\.sog bundle has no entry 'quats\.webp' that meta\.json names/);
  });

  it('meta.json that is not JSON', async () => {
    const err = await formatError(parseSogBundle(bundleSog(written, { metaJson: '{"version": 2, "count": ' })));
    expect(err.message).toMatch(/meta\.json is not valid JSON/);
    expect((await formatError(parseSog(new Uint8Array([0xff, 0xfe, 0x00]), readerOf({})))).message).toMatch(/not valid UTF-8|not valid JSON/);
    expect((await formatError(parseSog('[1, 2]', readerOf({})))).message).toMatch(/must hold a JSON object/);
  });

  it('a truncated zip', async () => {
    for (const fraction of [0.6, 0.95, 0.999]) {
      const err = await formatError(parseSogBundle(bundle.subarray(0, Math.floor(bundle.length * fraction))));
      expect(err.message).toMatch(/not a readable zip archive/);
    }
  });

  it('bytes that are not a zip at all', async () => {
    const err = await formatError(parseSogBundle(new TextEncoder().encode('{"version": 2}')));
    expect(err.message).toMatch(/Not a \.sog bundle/);
  });

  it('a webp replaced by garbage', async () => {
    const garbage = new Map(written.files);
    garbage.set('quats.webp', new TextEncoder().encode('this is not an image at all'));
    const err = await formatError(parseSogBundle(bundleSog({ ...written, files: garbage })));
    expect(err.message).toMatch(/'quats\.webp' is not a WebP image/);

    const damaged = new Map(written.files);
    const sh0 = written.files.get('sh0.webp')!.slice();
    sh0.fill(0x5a, 40);
    damaged.set('sh0.webp', sh0);
    const err2 = await formatError(parseSog(written.metaJson, readerOf(damaged)));
    expect(err2.message).toMatch(/'sh0\.webp': WebP image could not be decoded by libwebp/);
  });

  it('a count larger than the images', async () => {
    const meta = withMeta((m) => { m['count'] = scene.count * 2; });
    const err = await formatError(parseSogBundle(bundleSog(written, { metaJson: meta })));
    expect(err.message).toMatch(/'means_l\.webp' is \d+×\d+ = \d+ pixels, too small for meta\.json's count of 18160 splats/);
  });

  it('a count that is negative, fractional, a string, or 2^40', async () => {
    const cases: [unknown, RegExp][] = [
      [-1, /count must be a whole number of splats, found -1/],
      [1.5, /count must be a whole number of splats, found 1\.5/],
      ['9080', /count must be a whole number of splats, found "9080"/],
      [2 ** 40, /count of 1099511627776 splats is more than SOG images can hold/],
    ];
    for (const [count, pattern] of cases) {
      let reads = 0;
      const reader = (name: string): Promise<Uint8Array> => { reads++; return readerOf(written.files)(name); };
      const err = await formatError(parseSog(withMeta((m) => { m['count'] = count; }), reader));
      expect(err.message).toMatch(pattern);
      expect(reads).toBe(0); // refused from meta.json alone
    }
    const missing = await formatError(parseSog(withMeta((m) => { delete m['count']; }), readerOf(written.files)));
    expect(missing.message).toMatch(/meta\.json has no count/);
  });

  it('a large count is checked against the load limits before any image is read', async () => {
    let reads = 0;
    const reader = (name: string): Promise<Uint8Array> => { reads++; return readerOf(written.files)(name); };
    const err = await formatError(parseSog(withMeta((m) => { m['count'] = 200_000_000; }), reader));
    expect(err).toBeInstanceOf(SplatLimitError);
    expect(err.message).toMatch(/meta\.json's count declares 200,000,000 splats of SH degree 1: more than the [\d,]+ this GPU can draw/);
    expect(reads).toBe(0);
  });

  it('a large count within the limits is checked against the image headers before anything is decoded or allocated', async () => {
    const limits: LoadLimits = { maxSplats: [3e8, 3e8, 3e8, 3e8], maxBytes: 2 ** 40 };
    const err = await formatError(parseSog(withMeta((m) => { m['count'] = 200_000_000; }), readerOf(written.files), { limits }));
    expect(err.message).toMatch(/too small for meta\.json's count of 200000000 splats/);
  });

  it('an image whose header claims a huge size is refused before decoding', async () => {
    const forged = written.files.get('quats.webp')!.slice();
    // VP8L size bits (after the 0x2f signature at byte 20): width − 1 and height − 1 = 16382.
    const bits = (0x3ffe | (0x3ffe << 14) | ((forged[24]! & 0xf0) << 24)) >>> 0;
    for (let b = 0; b < 4; b++) forged[21 + b] = (bits >>> (8 * b)) & 0xff;
    expect(readWebpSize(forged)).toMatchObject({ width: 16383, height: 16383 });
    const files = new Map(written.files).set('quats.webp', forged);
    const err = await formatError(parseSog(written.metaJson, readerOf(files)));
    expect(err.message).toMatch(/'quats\.webp' is 16383×16383 = 268402689 pixels, far more than meta\.json's count of 9080 splats needs/);
  });

  it('a zip entry whose stated size could not come from its compressed size', async () => {
    const deflated = bundleSog(written, { deflate: true }).slice();
    const view = new DataView(deflated.buffer);
    // Central directory headers (PK\x01\x02): uncompressed size at +24, name length at +28, name at +46.
    let patched = 0;
    for (let at = 0; at + 46 < deflated.length; at++) {
      if (view.getUint32(at, true) !== 0x02014b50) continue;
      const name = new TextDecoder().decode(deflated.subarray(at + 46, at + 46 + view.getUint16(at + 28, true)));
      if (name === 'quats.webp') { view.setUint32(at + 24, 0xfffffff0, true); patched++; }
    }
    expect(patched).toBe(1);
    const err = await formatError(parseSogBundle(deflated));
    expect(err.message).toMatch(/entry 'quats\.webp' claims 4294967280 bytes from \d+ compressed/);
  });

  it('an unsupported version', async () => {
    const err = await formatError(parseSog(withMeta((m) => { m['version'] = 3; }), readerOf(written.files)));
    expect(err.message).toMatch(/Unsupported SOG version 3/);
  });

  it('missing or malformed fields', async () => {
    const cases: [(m: Record<string, unknown>) => void, RegExp][] = [
      [(m) => { delete (m['means'] as Record<string, unknown>)['mins']; }, /meta\.json has no means\.mins/],
      [(m) => { (m['means'] as Record<string, unknown>)['maxs'] = [1, 2]; }, /means\.maxs must be an array of 3 finite numbers/],
      [(m) => { delete m['quats']; }, /meta\.json has no quats/],
      [(m) => { (m['scales'] as Record<string, unknown>)['codebook'] = 'x'; }, /scales\.codebook must be an array of 1 to 256 finite numbers/],
      [(m) => { (m['sh0'] as Record<string, unknown>)['files'] = []; }, /sh0\.files must list one file name/],
      [(m) => { (m['shN'] as Record<string, unknown>)['bands'] = 5; }, /shN\.bands must be 1, 2 or 3/],
      // An array of the right length: the element that is wrong is named.
      [(m) => { (m['scales'] as { codebook: unknown[] }).codebook[235] = true; }, /scales\.codebook must be an array of 1 to 256 finite numbers, found an array of 256 whose element 235 is true$/],
      [(m) => { (m['sh0'] as { codebook: unknown[] }).codebook[4] = '-0.88'; }, /sh0\.codebook .* whose element 4 is "-0\.88"$/],
      [(m) => { (m['means'] as { files: unknown[] }).files[1] = ''; }, /means\.files must list 2 file names, found an array of 2 whose element 1 is ""$/],
      [(m) => { (m['quats'] as { files: unknown[] }).files[0] = null; }, /quats\.files must list one file name, found an array of 1 whose element 0 is null$/],
    ];
    for (const [edit, pattern] of cases) {
      const err = await formatError(parseSog(withMeta(edit), readerOf(written.files)));
      expect(err.message).toMatch(pattern);
    }
    // JSON's 1e999 reads as Infinity, which no range may hold.
    const infinite = written.metaJson.replace(/"mins":\[[^\],]*/, '"mins":[1e999');
    expect((await formatError(parseSog(infinite, readerOf(written.files)))).message)
      .toMatch(/means\.mins must be an array of 3 finite numbers, found an array of 3 whose element 0 is Infinity$/);
  });

  it('a short codebook that the image indexes past', async () => {
    const meta = withMeta((m) => { (m['scales'] as { codebook: number[] }).codebook.length = 10; });
    const err = await formatError(parseSog(meta, readerOf(written.files)));
    expect(err.message).toMatch(/'scales\.webp' gives splat \d+ index \d+, past the end of the 10-entry scales codebook/);
  });

  it('labels past the palette, and quaternion modes out of range', async () => {
    const meta = withMeta((m) => { (m['shN'] as { count: number }).count = 10; });
    expect((await formatError(parseSog(meta, readerOf(written.files)))).message)
      .toMatch(/'shN_labels\.webp' gives splat 10 palette entry 10, but the palette has 10 entries/);

    const quats = await decodeWebp(written.files.get('quats.webp')!);
    const data = quats.data.slice();
    data[5 * 4 + 3] = 17;
    const files = new Map(written.files);
    files.set('quats.webp', await encodeLosslessWebp(data, quats.width, quats.height));
    expect((await formatError(parseSog(written.metaJson, readerOf(files)))).message)
      .toMatch(/'quats\.webp' gives splat 5 the alpha 17, but quaternion alphas are 252\.\.255/);
  });

  it('a file reader that fails', async () => {
    const failing = (): Promise<Uint8Array> => Promise.reject(new Error('HTTP 404'));
    const err = await formatError(parseSog(written.metaJson, failing));
    expect(err.message).toMatch(/Could not read 'means_l\.webp', which meta\.json names: HTTP 404/);
  });

  it('a centroids image of the wrong width', async () => {
    const files = new Map(written.files);
    files.set('shN_centroids.webp', await encodeLosslessWebp(new Uint8Array(100 * 4 * 4), 100, 4));
    const err = await formatError(parseSog(written.metaJson, readerOf(files)));
    expect(err.message).toMatch(/'shN_centroids\.webp' is 100 pixels wide, but an SH palette of 1 bands is 192/);
  });
});

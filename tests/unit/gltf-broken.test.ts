/**
 * Broken and hostile glTF files, loaded in the loader harness (its worker
 * meters every allocation): each is refused with a SplatFormatError that
 * names what is wrong, before anything larger than SMALL_ALLOCATION is
 * allocated: a truncated GLB, chunk lengths past the end, accessors past
 * their buffer views and views past their buffers, counts past the load
 * limits, meshopt views that would decode past them, sparse accessors
 * whose indices or values lie outside their views or whose indices do not
 * rise inside the accessor, a .gltf given alone
 * whose buffers are in separate files, and malformed documents.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { IT_MS, show, SMALL_ALLOCATION, useLoaderHarness, withU32 } from '../support/broken-files';
import { buildGltf, glb, gltfText, KHR, SPLAT_EXTENSION, splatAttributes, type Built } from '../support/gltf-files';

const { load, expectRejected, expectAccepted } = useLoaderHarness();

let plain: Built;
let packed: Built;
/** 100 splats whose positions are sparse: three replaced, at `indices`. */
const sparseAt = (indices: number[]) => buildGltf([{
  attributes: splatAttributes(100, 0).map((a) => (a.name === 'POSITION' ? { ...a, sparse: { indices: Uint16Array.from(indices), values: new Float32Array(9) } } : a)),
  splat: SPLAT_EXTENSION,
}]);
let sparse: Built;
beforeAll(async () => {
  plain = await buildGltf([{ attributes: splatAttributes(100, 1), splat: SPLAT_EXTENSION }]);
  packed = await buildGltf([{ attributes: splatAttributes(100, 0).map((a) => ({ ...a, meshopt: true })), splat: SPLAT_EXTENSION }]);
  sparse = await sparseAt([3, 7, 50]);
});

/** The plain file's GLB with its JSON changed by `edit`. */
function edited(edit: (json: Record<string, any>) => void, built = () => plain): Uint8Array {
  const json = structuredClone(built().json);
  edit(json);
  return glb(json, built().bin);
}

/** Expects `bytes` refused with a message matching `pattern`, having allocated little. */
async function refused(bytes: Uint8Array, name: string, pattern: RegExp): Promise<void> {
  const o = await expectRejected(bytes, name, pattern);
  expect(o.largestAlloc).toBeLessThan(SMALL_ALLOCATION);
}

/** Expects `bytes` refused at a load limit (a SplatLimitError, a kind of SplatFormatError), having allocated little. */
async function pastLimits(bytes: Uint8Array, pattern: RegExp): Promise<void> {
  const o = await load(bytes, 'scene.glb');
  expect(show(o)).toMatch(/^rejected \(SplatLimitError\): /);
  expect(o.message).toMatch(pattern);
  expect(o.largestAlloc).toBeLessThan(SMALL_ALLOCATION);
}

describe('the GLB framing', () => {
  it('loads the intact file (so each case below fails for its own fault)', async () => {
    await expectAccepted(glb(plain.json, plain.bin), 'scene.glb');
    await expectAccepted(glb(packed.json, packed.bin), 'scene.glb');
  }, IT_MS);

  it('refuses a truncated GLB', async () => {
    const bytes = glb(plain.json, plain.bin);
    await refused(bytes.subarray(0, bytes.length >> 1), 'scene.glb', /GLB file is truncated: its header declares \d+ bytes, but the file has \d+/);
    await refused(bytes.subarray(0, 14), 'scene.glb', /GLB file is truncated: 14 bytes/);
  }, IT_MS);

  it('refuses chunk lengths past the end of the file', async () => {
    const bytes = glb(plain.json, plain.bin);
    await refused(withU32(bytes, 12, 0xfffffff0), 'scene.glb', /GLB chunk 0 declares 4294967280 bytes at byte 20, past the end/);
    const binHeader = 20 + new DataView(bytes.buffer).getUint32(12, true);
    await refused(withU32(bytes, binHeader, 0x7fffffff), 'scene.glb', /GLB chunk 1 declares 2147483647 bytes/);
  }, IT_MS);

  it('refuses another GLB version and a JSON chunk that is not JSON', async () => {
    const bytes = glb(plain.json, plain.bin);
    await refused(withU32(bytes, 4, 1), 'scene.glb', /GLB version 1 is not read/);
    const broken = bytes.slice();
    broken[20] = 0x5b; // '[' where '{' was: the text no longer parses
    await refused(broken, 'scene.glb', /GLB JSON chunk is not valid JSON/);
  }, IT_MS);
});

describe('ranges checked against the bytes present', () => {
  it('refuses an accessor that runs past its buffer view', async () => {
    await refused(edited((json) => { json.accessors[0].byteOffset = 8; }), 'scene.glb', /accessors\[0\] \(100 elements from byte 8\) ends at byte 1208 of bufferViews\[0\], which has 1200/);
  }, IT_MS);

  it('refuses a buffer view that runs past its buffer, and a buffer longer than the BIN chunk', async () => {
    await refused(edited((json) => { json.bufferViews[1].byteLength = 1e9; }), 'scene.glb', /bufferViews\[1\] takes bytes \d+ to \d+ of buffers\[0\], which has \d+/);
    await refused(edited((json) => { json.buffers[0].byteLength += 4; }), 'scene.glb', /buffers\[0\] declares \d+ bytes, but the file holds \d+ of it/);
  }, IT_MS);

  it('refuses counts that differ between attributes, and counts past the load limits before allocating', async () => {
    await refused(edited((json) => { json.accessors[2].count = 99; }), 'scene.glb', /KHR_gaussian_splatting:SCALE has 99 elements, its POSITION 100/);
    const huge = edited((json) => { for (const accessor of json.accessors) accessor.count = 50_000_000; });
    await pastLimits(huge, /The glTF file's splat primitives hold 50,000,000 splats of SH degree 1: more than the 4,194,304/);
  }, IT_MS);

  it('refuses a meshopt view that would decode past the load limits, and one whose data is not meshopt\'s', async () => {
    const bomb = edited((json) => {
      json.bufferViews[0].extensions.EXT_meshopt_compression.count = 2 ** 30;
      json.bufferViews[0].extensions.EXT_meshopt_compression.byteStride = 256;
    }, () => packed);
    await pastLimits(bomb, /bufferViews\[0\] decompressed \(with the bytes decoded before it\) is 262144 MiB/);
    const garbled = packed.bin.slice();
    const at = packed.json.bufferViews[0].extensions.EXT_meshopt_compression.byteOffset;
    garbled.fill(0xff, at, at + 16);
    await refused(glb(packed.json, garbled), 'scene.glb', /bufferViews\[0\]'s EXT_meshopt_compression data could not be decoded/);
  }, IT_MS);
});

describe('sparse accessors', () => {
  it('loads the intact file, and refuses indices past the count or not rising', async () => {
    await expectAccepted(glb(sparse.json, sparse.bin), 'scene.glb');
    const past = await sparseAt([3, 7, 100]);
    await refused(glb(past.json, past.bin), 'scene.glb', /accessors\[0\]\.sparse\.indices\[2\] is 100, past the accessor's 100 elements/);
    const falling = await sparseAt([3, 50, 7]);
    await refused(glb(falling.json, falling.bin), 'scene.glb', /accessors\[0\]\.sparse\.indices\[2\] is 7, not above the index before it \(50\): sparse indices rise strictly/);
    const twice = await sparseAt([3, 3, 7]);
    await refused(glb(twice.json, twice.bin), 'scene.glb', /accessors\[0\]\.sparse\.indices\[1\] is 3, not above the index before it \(3\)/);
  }, IT_MS);

  it.each([
    ['more replaced elements than the accessor has', (json: any) => { json.accessors[0].sparse.count = 101; }, /accessors\[0\]\.sparse\.count is 101: expected a whole number from 1 to 100/],
    ['a count past its index list', (json: any) => { json.accessors[0].sparse.count = 90; }, /accessors\[0\]\.sparse\.indices \(90 from byte 0\) ends at byte 180 of bufferViews\[\d+\], which has 6/],
    ['a value list past its view', (json: any) => { json.accessors[0].sparse.values.byteOffset = 4; }, /accessors\[0\]\.sparse\.values \(3 from byte 4\) ends at byte 40 of bufferViews\[\d+\], which has 36/],
    ['indices that are floats', (json: any) => { json.accessors[0].sparse.indices.componentType = 5126; }, /sparse\.indices\.componentType is 5126: expected a whole number from 5121 to 5125/],
    ['indices that are signed shorts', (json: any) => { json.accessors[0].sparse.indices.componentType = 5122; }, /sparse\.indices\.componentType is 5122: sparse indices are unsigned bytes, shorts or ints/],
    ['an index list in no view', (json: any) => { json.accessors[0].sparse.indices.bufferView = 999; }, /refers to bufferViews\[999\]/],
  ] as const)('refuses %s', async (_label, edit, pattern) => {
    await refused(edited(edit, () => sparse), 'scene.glb', pattern);
  }, IT_MS);
});

describe('buffers in other files, and malformed documents', () => {
  it('refuses a .gltf given alone whose buffer is a separate file, naming it', async () => {
    const json = structuredClone(plain.json);
    json.buffers[0].uri = 'scene.bin';
    await refused(glb(json), 'scene.glb', /buffers\[0\] is the separate file "scene\.bin", but only the glTF file's own bytes were given/);
    await refused(new TextEncoder().encode(JSON.stringify(json)), 'scene.gltf', /buffers\[0\] is the separate file "scene\.bin", but only the glTF file's own bytes were given: open a \.gltf together with the files its buffers name/);
    await expectAccepted(gltfText(plain.json, plain.bin), 'scene.gltf');
  }, IT_MS);

  it('refuses a .gltf that is not JSON, and a data: URI that is not base64', async () => {
    await refused(new TextEncoder().encode('{"asset": '), 'scene.gltf', /\.gltf file is not valid JSON/);
    const json = structuredClone(plain.json);
    json.buffers[0].uri = 'data:application/octet-stream;base64,@@@@';
    await refused(new TextEncoder().encode(JSON.stringify(json)), 'scene.gltf', /not base64 at 0/);
  }, IT_MS);

  it.each([
    ['a glTF 1.0 asset', (json: any) => { json.asset.version = '1.0'; }, /asset version "1.0" is not read/],
    ['a required extension not read', (json: any) => { json.extensionsRequired = ['KHR_gaussian_splatting_compression_spz_2']; }, /requires the extension KHR_gaussian_splatting_compression_spz_2/],
    ['a splat primitive without scales', (json: any) => { delete json.meshes[0].primitives[0].attributes[`${KHR}:SCALE`]; }, /has no KHR_gaussian_splatting:SCALE attribute/],
    ['a rotation that is VEC3', (json: any) => { json.accessors[1].type = 'VEC3'; }, /ROTATION is a float VEC3: expected VEC4/],
    ['SH degree 1 partly there', (json: any) => { delete json.meshes[0].primitives[0].attributes[`${KHR}:SH_DEGREE_1_COEF_2`]; }, /has 2 of SH degree 1's 3 coefficients/],
    ['a node that is its own child', (json: any) => { json.nodes[0].children = [0]; }, /nodes\[0\] is reached twice/],
    ['an accessor index past the list', (json: any) => { json.meshes[0].primitives[0].attributes.POSITION = 99; }, /refers to accessors\[99\], but the file has \d+ accessors/],
    ['a negative count', (json: any) => { json.accessors[0].count = -1; }, /accessors\[0\]\.count is -1: expected a whole number/],
    ['a sparse accessor without its indices', (json: any) => { json.accessors[0].sparse = { count: 1 }; }, /accessors\[0\]\.sparse\.indices is not an object/],
    ['a stride shorter than the element', (json: any) => { json.bufferViews[1].byteStride = 4; }, /elements are 16 bytes, wider than bufferViews\[1\]'s stride of 4/],
    ['a shearing node matrix', (json: any) => { json.nodes[0].matrix = [1, 0, 0, 0, 0.5, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]; }, /nodes\[0\]'s global transform shears \(its axes, made unit, span 0\.894, not 1\)/],
    ['a node scale of zero', (json: any) => { json.nodes[0].scale = [1, 0, 1]; }, /nodes\[0\]'s global transform scales an axis to 1, 0, 1: splats need every axis kept/],
  ] as const)('refuses %s', async (_label, edit, pattern) => {
    await refused(edited(edit), 'scene.glb', pattern);
  }, IT_MS);
});

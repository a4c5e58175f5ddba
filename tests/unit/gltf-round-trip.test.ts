/**
 * glTF with KHR_gaussian_splatting: a scene saved as .glb reads back bit
 * for bit, and a file built from the extension's text alone (by
 * tests/support/gltf-files.ts, not by the writer) reads as the text says:
 * glTF's axes turned to the PLY scenes', x y z w quaternions to w x y z,
 * linear scales and opacities kept, SH coefficients in order with the
 * turn's signs.
 */
import { describe, expect, it } from 'vitest';
import { detectSplatFormat, loadSplatFile } from '../../src/io/parse-splat-file';
import { parseGltf } from '../../src/io/gltf/parse';
import { RUB_RDF_SH_SIGNS } from '../../src/io/spz/axes';
import { writeGlb } from '../../src/io/writers/glb';
import { allocateSplatCloud, computeBounds, SH_C0, type ShDegree, type SplatCloud } from '../../src/scene/splat-cloud';
import { linearToSrgb } from '../../src/io/gltf/colour-space';
import { expectSameCloud } from '../support/clouds';
import { buildGltf, glb, gltfText, KHR, SPLAT_EXTENSION, splatAttributes } from '../support/gltf-files';
import { realScene } from '../support/real-scenes';
import { rng } from '../support/splat-files';

/** A cloud of `count` random splats of SH degree `shDegree`, unit quaternions and activated values as the loaders make them. */
function randomCloud(count: number, shDegree: ShDegree, seed: number): SplatCloud {
  const random = rng(seed);
  const cloud = allocateSplatCloud(count, shDegree);
  for (let i = 0; i < cloud.positions.length; i++) cloud.positions[i] = random() * 20 - 10;
  for (let i = 0; i < cloud.scales.length; i++) cloud.scales[i] = Math.exp(random() * 6 - 7);
  for (let i = 0; i < count; i++) {
    const q = [random() - 0.5, random() - 0.5, random() - 0.5, random() - 0.5];
    const n = Math.hypot(...q);
    for (let c = 0; c < 4; c++) cloud.rotations[4 * i + c] = q[c]! / n;
    cloud.opacities[i] = random();
  }
  for (let i = 0; i < cloud.dc.length; i++) cloud.dc[i] = random() * 4 - 2;
  for (let i = 0; i < cloud.sh.length; i++) cloud.sh[i] = random() - 0.5;
  cloud.bounds = computeBounds(cloud.positions, count);
  return cloud;
}

describe('a scene saved as .glb', () => {
  it('reads back bit for bit: a real SH-3 scene of 9k splats', async () => {
    const cloud = await realScene('inria_kacytran_iter7000_9k_sh3.ply');
    const bytes = writeGlb(cloud);
    expect(detectSplatFormat(bytes, 'scene.bin')).toBe('glb');
    expectSameCloud(await loadSplatFile(bytes, 'saved.glb'), cloud);
  });

  it.each([0, 1, 2, 3] as const)('reads back bit for bit at SH degree %i', async (degree) => {
    const cloud = randomCloud(257, degree, 40 + degree);
    expectSameCloud(await parseGltf(writeGlb(cloud)), cloud);
  });

  it('is a glTF 2.0 document with one POINTS primitive carrying the extension, and a COLOR_0 for viewers without it', () => {
    const bytes = writeGlb(randomCloud(10, 1, 7));
    const view = new DataView(bytes.buffer, bytes.byteOffset);
    expect(new TextDecoder().decode(bytes.subarray(0, 4))).toBe('glTF');
    expect(view.getUint32(8, true)).toBe(bytes.length);
    const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + view.getUint32(12, true))));
    expect(json.asset.version).toBe('2.0');
    expect(json.extensionsUsed).toEqual([KHR]);
    const primitive = json.meshes[0].primitives[0];
    expect(primitive.mode).toBe(0);
    expect(primitive.extensions[KHR]).toEqual(SPLAT_EXTENSION);
    expect(Object.keys(primitive.attributes).sort()).toEqual([
      'COLOR_0', 'POSITION', `${KHR}:OPACITY`, `${KHR}:ROTATION`, `${KHR}:SCALE`, `${KHR}:SH_DEGREE_0_COEF_0`,
      `${KHR}:SH_DEGREE_1_COEF_0`, `${KHR}:SH_DEGREE_1_COEF_1`, `${KHR}:SH_DEGREE_1_COEF_2`,
    ].sort());
    const position = json.accessors[primitive.attributes.POSITION];
    expect(position.min).toHaveLength(3);
    expect(position.max).toHaveLength(3);
  });

  it('refuses a scene with no splats: a glTF accessor holds at least one', () => {
    expect(() => writeGlb(allocateSplatCloud(0, 0))).toThrow(/at least one element/);
  });
});

describe('a file built from the extension text', () => {
  const count = 5;

  /** What the reader must make of splatAttributes(count, degree): the text's values in SplatCloud's conventions. */
  function expectAsTheTextSays(cloud: SplatCloud, degree: number): void {
    const attributes = splatAttributes(count, degree);
    const data = (name: string) => attributes.find((a) => a.name === name)!.data as Float32Array;
    const position = data('POSITION'), rotation = data(`${KHR}:ROTATION`);
    expect(cloud.count).toBe(count);
    expect(cloud.shDegree).toBe(degree);
    for (let i = 0; i < count; i++) {
      expect([...cloud.positions.subarray(3 * i, 3 * i + 3)]).toEqual([position[3 * i]!, -position[3 * i + 1]!, -position[3 * i + 2]!]);
      const [x, y, z, w] = rotation.subarray(4 * i, 4 * i + 4);
      expect([...cloud.rotations.subarray(4 * i, 4 * i + 4)]).toEqual([w, x, -y!, -z!]);
    }
    expect(cloud.scales).toEqual(data(`${KHR}:SCALE`));
    expect(cloud.opacities).toEqual(data(`${KHR}:OPACITY`));
    expect(cloud.dc).toEqual(data(`${KHR}:SH_DEGREE_0_COEF_0`));
    const K = (degree + 1) ** 2 - 1;
    for (let k = 0; k < K; k++) {
      const l = Math.floor(Math.sqrt(k + 1));
      const coefficient = data(`${KHR}:SH_DEGREE_${l}_COEF_${k + 1 - l * l}`);
      for (let i = 0; i < count; i++) {
        for (let c = 0; c < 3; c++) expect(cloud.sh[(i * K + k) * 3 + c]).toBe(Math.fround(coefficient[3 * i + c]! * RUB_RDF_SH_SIGNS[k]!));
      }
    }
  }

  it.each([0, 1, 2, 3])('reads SH degree %i from a .glb', async (degree) => {
    const { json, bin } = await buildGltf([{ attributes: splatAttributes(count, degree), splat: SPLAT_EXTENSION }]);
    expectAsTheTextSays(await loadSplatFile(glb(json, bin), 'made.glb'), degree);
  });

  it('reads a .gltf whose buffer is a data: URI, known by its name', async () => {
    const { json, bin } = await buildGltf([{ attributes: splatAttributes(count, 2), splat: SPLAT_EXTENSION }]);
    const text = gltfText(json, bin);
    expect(detectSplatFormat(text, 'made.gltf')).toBe('gltf');
    expectAsTheTextSays(await loadSplatFile(text, 'made.gltf'), 2);
  });

  it('places the splats with their node: translation, rotation and one scale', async () => {
    const { json, bin } = await buildGltf([{ attributes: splatAttributes(count, 0), splat: SPLAT_EXTENSION }]);
    // A quarter turn about y, doubled, moved by (1, 2, 3).
    const half = Math.SQRT1_2;
    json.nodes[0] = { mesh: 0, translation: [1, 2, 3], rotation: [0, half, 0, half], scale: [2, 2, 2] };
    const cloud = await parseGltf(glb(json, bin));
    const plain = await parseGltf(glb({ ...json, nodes: [{ mesh: 0 }] }, bin));
    for (let i = 0; i < count; i++) {
      // In glTF's axes the turn takes (x, y, z) to (z, y, -x); the PLY axes negate y and z.
      const [x, y, z] = [plain.positions[3 * i]!, -plain.positions[3 * i + 1]!, -plain.positions[3 * i + 2]!];
      const expected = [2 * z + 1, -(2 * y + 2), -(-2 * x + 3)];
      for (let c = 0; c < 3; c++) expect(cloud.positions[3 * i + c]).toBeCloseTo(expected[c]!, 5);
      for (let c = 0; c < 3; c++) expect(cloud.scales[3 * i + c]).toBeCloseTo(2 * plain.scales[3 * i + c]!, 6);
    }
  });
});

describe('the extension object', () => {
  const count = 5;

  async function read(splat: Record<string, unknown>, degree = 1): Promise<{ cloud: SplatCloud; warnings: string[] }> {
    const { json, bin } = await buildGltf([{ attributes: splatAttributes(count, degree), splat }]);
    const warnings: string[] = [];
    const cloud = await parseGltf(glb(json, bin), { onWarning: (w) => warnings.push(w) });
    return { cloud, warnings };
  }

  it('reads the defaults and the values the text defines without a word', async () => {
    const { warnings } = await read({ ...SPLAT_EXTENSION, projection: 'perspective', sortingMethod: 'cameraDistance' });
    expect(warnings).toEqual([]);
  });

  it('warns of a kernel, colour space, projection or sorting method it does not know, naming each', async () => {
    const { cloud, warnings } = await read({ kernel: 'cube', colorSpace: 'acescg', projection: 'orthographic', sortingMethod: 'hilbert' });
    const plain = (await read(SPLAT_EXTENSION)).cloud;
    expect(warnings).toEqual([
      'meshes[0].primitives[0]\'s kernel is "cube": drawn as the "ellipse" kernel',
      'meshes[0].primitives[0]\'s colour space is "acescg": its colours are shown as srgb_rec709_display',
      'meshes[0].primitives[0]\'s projection is "orthographic": drawn with the "perspective" one',
      'meshes[0].primitives[0]\'s sorting method is "hilbert": sorted by depth along the view, as every scene is here',
    ]);
    expectSameCloud(cloud, plain);
  });

  it('encodes linear colours (lin_rec709_display) to sRGB: the base colour exactly, the view-dependent part by the slope there', async () => {
    const { cloud, warnings } = await read({ ...SPLAT_EXTENSION, colorSpace: 'lin_rec709_display' });
    const plain = (await read(SPLAT_EXTENSION)).cloud;
    expect(warnings).toEqual([
      'meshes[0].primitives[0]\'s colours are linear (lin_rec709_display): each splat\'s colour is encoded to sRGB before blending, where the extension encodes the blended pixel',
    ]);
    for (let i = 0; i < count * 3; i++) {
      const linear = 0.5 + SH_C0 * plain.dc[i]!;
      expect(0.5 + SH_C0 * cloud.dc[i]!).toBeCloseTo(linearToSrgb(linear), 6);
      // A small change of the linear colour moves the encoded one by the slope times it.
      const h = 1e-4;
      const slope = (linearToSrgb(linear + h) - linearToSrgb(linear - h)) / (2 * h);
      for (let k = 0; k < 3; k++) {
        const at = (Math.floor(i / 3) * 3 + k) * 3 + (i % 3);
        expect(cloud.sh[at]! / plain.sh[at]!).toBeCloseTo(slope, 3);
      }
    }
  });
});

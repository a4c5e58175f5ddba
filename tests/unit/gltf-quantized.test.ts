/**
 * glTF splats stored smaller: KHR_mesh_quantization's normalized bytes and
 * shorts (read with glTF's normalization), interleaved buffer views,
 * EXT_meshopt_compression views encoded here by meshoptimizer's own
 * encoder, and sparse accessors (with a base view and without); and files
 * whose meshes hold other primitives, whose splats are read and the rest
 * named in a warning (once each, the first five of them).
 */
import { describe, expect, it } from 'vitest';
import { parseGltf } from '../../src/io/gltf/parse';
import { RUB_RDF_SH_SIGNS } from '../../src/io/spz/axes';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { loadScene } from '../../src/io/scene-source';
import { bufferSource } from '../../src/io/web-scene-sources';
import {
  BYTE, buildGltf, FLOAT, glb, KHR, SHORT, SPLAT_EXTENSION, splatAttributes, UNSIGNED_BYTE, UNSIGNED_SHORT, type AttributeSpec,
} from '../support/gltf-files';
import { expectSameCloud } from '../support/clouds';

const count = 6;

/** splatAttributes with the attribute `name` replaced by `replacement`. */
function replacing(name: string, replacement: AttributeSpec, degree = 0): AttributeSpec[] {
  return splatAttributes(count, degree).map((a) => (a.name === name ? replacement : a));
}

describe('quantized attributes (KHR_mesh_quantization)', () => {
  it('reads normalized signed shorts as rotations, normalized unsigned bytes as opacities, unsigned shorts as scales', async () => {
    const rotation = Int16Array.from({ length: 4 * count }, (_, k) => [0, 0, 32767, 32767, -32768, 0, 0, 0][k % 8]!);
    const opacity = Uint8Array.from({ length: count }, (_, i) => i * 51);
    const scale = Uint16Array.from({ length: 3 * count }, (_, k) => k * 1000);
    const attributes = splatAttributes(count, 0).map((a) => {
      if (a.name === `${KHR}:ROTATION`) return { ...a, componentType: SHORT, normalized: true, data: rotation };
      if (a.name === `${KHR}:OPACITY`) return { ...a, componentType: UNSIGNED_BYTE, normalized: true, data: opacity };
      if (a.name === `${KHR}:SCALE`) return { ...a, componentType: UNSIGNED_SHORT, data: scale };
      return a;
    });
    const { json, bin } = await buildGltf([{ attributes, splat: SPLAT_EXTENSION }]);
    const cloud = await parseGltf(glb(json, bin));
    // (0, 0, 1, 1)/√2 is a quarter turn about z: w x y z, z negated by the turn to the PLY axes.
    expect(cloud.rotations[0]).toBeCloseTo(Math.SQRT1_2, 6);
    expect(cloud.rotations[3]).toBeCloseTo(-Math.SQRT1_2, 6);
    // -32768 normalizes to -1 (glTF clamps it), then the quaternion is unit: -x.
    expect([...cloud.rotations.subarray(4, 8)].map((v) => v + 0)).toEqual([0, -1, 0, 0]); // + 0: -0 is 0
    expect([...cloud.opacities]).toEqual([...opacity].map((v) => Math.fround(v / 255)));
    expect([...cloud.scales]).toEqual([...scale]);
  });

  it('reads normalized signed bytes, interleaved in one buffer view with a stride', async () => {
    const { json, bin } = await buildGltf([{ attributes: splatAttributes(count, 0), splat: SPLAT_EXTENSION }]);
    // The rotations again, as normalized bytes interleaved with padding: 4 bytes of quaternion, 4 of nothing.
    const interleaved = new Int8Array(8 * count);
    for (let i = 0; i < count; i++) interleaved.set([127, 0, 0, 127], 8 * i);
    const at = bin.length;
    const grown = new Uint8Array(at + interleaved.length);
    grown.set(bin);
    grown.set(new Uint8Array(interleaved.buffer), at);
    json.buffers[0].byteLength = grown.length;
    json.bufferViews.push({ buffer: 0, byteOffset: at, byteLength: interleaved.length, byteStride: 8 });
    json.accessors.push({ bufferView: json.bufferViews.length - 1, componentType: BYTE, normalized: true, count, type: 'VEC4' });
    json.meshes[0].primitives[0].attributes[`${KHR}:ROTATION`] = json.accessors.length - 1;
    const cloud = await parseGltf(glb(json, grown));
    for (let i = 0; i < count; i++) {
      expect(cloud.rotations[4 * i]).toBeCloseTo(Math.SQRT1_2, 6);
      expect(cloud.rotations[4 * i + 1]).toBeCloseTo(Math.SQRT1_2, 6);
    }
  });

  it('reads quantized positions (normalized shorts) as glTF normalizes them', async () => {
    const position = Int16Array.from({ length: 3 * count }, (_, k) => k * 1000 - 8000);
    const { json, bin } = await buildGltf([{
      attributes: replacing('POSITION', { name: 'POSITION', type: 'VEC3', componentType: SHORT, normalized: true, data: position }),
      splat: SPLAT_EXTENSION,
    }]);
    const cloud = await parseGltf(glb(json, bin));
    for (let k = 0; k < 3 * count; k++) expect(cloud.positions[k]).toBe(Math.fround((k % 3 === 0 ? 1 : -1) * Math.max(position[k]! / 32767, -1)));
  });
});

describe('meshopt-compressed buffer views (EXT_meshopt_compression)', () => {
  it('decodes every attribute compressed by meshoptimizer into the same splats as the plain file', async () => {
    const plain = await buildGltf([{ attributes: splatAttributes(count * 50, 3), splat: SPLAT_EXTENSION }]);
    const compressed = await buildGltf([{ attributes: splatAttributes(count * 50, 3).map((a) => ({ ...a, meshopt: true })), splat: SPLAT_EXTENSION }]);
    expect(compressed.json.extensionsRequired).toEqual(['EXT_meshopt_compression']);
    expect(compressed.bin.length).toBeLessThan(plain.bin.length);
    expectSameCloud(await loadSplatFile(glb(compressed.json, compressed.bin), 'packed.glb'), await parseGltf(glb(plain.json, plain.bin)));
  });

  it('decodes compressed normalized bytes (1-byte opacities padded to 4) with quantized rotations', async () => {
    const opacity = Uint8Array.from({ length: count }, (_, i) => 40 * i);
    const rotation = Int16Array.from({ length: 4 * count }, (_, k) => (k % 4 === 3 ? 32767 : 0));
    const attributes = splatAttributes(count, 0).map((a) => {
      if (a.name === `${KHR}:OPACITY`) return { ...a, componentType: UNSIGNED_BYTE, normalized: true, data: opacity, meshopt: true };
      if (a.name === `${KHR}:ROTATION`) return { ...a, componentType: SHORT, normalized: true, data: rotation, meshopt: true };
      return a;
    });
    const { json, bin } = await buildGltf([{ attributes, splat: SPLAT_EXTENSION }]);
    const cloud = await parseGltf(glb(json, bin));
    expect([...cloud.opacities]).toEqual([...opacity].map((v) => Math.fround(v / 255)));
    for (let i = 0; i < count; i++) expect([...cloud.rotations.subarray(4 * i, 4 * i + 4)].map((v) => v + 0)).toEqual([1, 0, 0, 0]);
  });
});

describe('sparse accessors', () => {
  /** `data` with the elements at `indices` (of `components` each) replaced by `values`, as glTF reads a sparse accessor. */
  function applied(data: Float32Array, components: number, indices: ArrayLike<number>, values: Float32Array): Float32Array {
    const out = data.slice();
    for (let k = 0; k < indices.length; k++) out.set(values.subarray(k * components, (k + 1) * components), indices[k]! * components);
    return out;
  }

  it('replaces the listed elements of a base view: positions by byte indices, SH by int indices', async () => {
    const positions = new Float32Array([7, 8, 9, -1, -2, -3]);
    const sh = new Float32Array([0.5, -0.25, 0.125]);
    const attributes = splatAttributes(count, 1).map((a): AttributeSpec => {
      if (a.name === 'POSITION') return { ...a, sparse: { indices: Uint8Array.of(1, 4), values: positions } };
      if (a.name === `${KHR}:SH_DEGREE_1_COEF_2`) return { ...a, sparse: { indices: Uint32Array.of(5), values: sh } };
      return a;
    });
    const { json, bin } = await buildGltf([{ attributes, splat: SPLAT_EXTENSION }]);
    const dense = splatAttributes(count, 1).map((a) => {
      if (a.name === 'POSITION') return { ...a, data: applied(a.data as Float32Array, 3, [1, 4], positions) };
      if (a.name === `${KHR}:SH_DEGREE_1_COEF_2`) return { ...a, data: applied(a.data as Float32Array, 3, [5], sh) };
      return a;
    });
    const plain = await buildGltf([{ attributes: dense, splat: SPLAT_EXTENSION }]);
    expectSameCloud(await loadSplatFile(glb(json, bin), 'sparse.glb'), await parseGltf(glb(plain.json, plain.bin)));
  });

  it('reads zeros where there is no base view, and the listed elements, normalized as the accessor says', async () => {
    const opacity = Uint8Array.of(255, 51);
    const attributes = splatAttributes(count, 2).map((a): AttributeSpec => {
      if (a.name === `${KHR}:OPACITY`) {
        return { ...a, componentType: UNSIGNED_BYTE, normalized: true, data: new Uint8Array(count), sparse: { indices: Uint16Array.of(0, 3), values: opacity, base: false } };
      }
      if (a.name.includes('SH_DEGREE_2')) return { ...a, data: new Float32Array(3 * count), sparse: { indices: Uint16Array.of(2), values: Float32Array.of(1, 2, 3), base: false } };
      return a;
    });
    const { json, bin } = await buildGltf([{ attributes, splat: SPLAT_EXTENSION }]);
    expect(json.accessors[3].bufferView).toBeUndefined();
    const cloud = await parseGltf(glb(json, bin));
    expect([...cloud.opacities]).toEqual([1, 0, 0, 0.2, 0, 0].map(Math.fround));
    const K = 8;
    for (let i = 0; i < count; i++) {
      for (let k = 3; k < K; k++) {
        // Degree 2's coefficients carry the axis turn's signs (RUB to RDF), as every SH coefficient read.
        const expected = i === 2 ? [1, 2, 3].map((v) => v * RUB_RDF_SH_SIGNS[k]!) : [0, 0, 0];
        expect([...cloud.sh.subarray((i * K + k) * 3, (i * K + k + 1) * 3)].map((v) => v + 0)).toEqual(expected);
      }
    }
  });
});

describe('meshes with other primitives', () => {
  it('reads the splat primitives and names the others in a warning', async () => {
    const triangle = { name: 'POSITION', type: 'VEC3' as const, componentType: FLOAT, data: new Float32Array(9) };
    const { json, bin } = await buildGltf([
      { attributes: [triangle], mode: 4 },
      { attributes: splatAttributes(count, 1), splat: SPLAT_EXTENSION },
      { attributes: [triangle] },
      { attributes: splatAttributes(count, 0), splat: SPLAT_EXTENSION },
    ]);
    const warnings: string[] = [];
    const cloud = await parseGltf(glb(json, bin), { onWarning: (w) => warnings.push(w) });
    expect(cloud.count).toBe(2 * count);
    expect(cloud.shDegree).toBe(1);
    // The degree-0 primitive's splats have no higher bands: zeros.
    expect(cloud.sh.subarray(count * 9).every((v) => v === 0)).toBe(true);
    expect(cloud.sh.subarray(0, count * 9).some((v) => v !== 0)).toBe(true);
    expect(warnings).toEqual([
      'Not Gaussian splats, so not shown: meshes[0].primitives[0] (triangles), meshes[0].primitives[2] (points without KHR_gaussian_splatting)',
    ]);
  });

  it('hands the warning to the loaded scene, as the viewer shows it', async () => {
    const triangle = { name: 'POSITION', type: 'VEC3' as const, componentType: FLOAT, data: new Float32Array(9) };
    const { json, bin } = await buildGltf([{ attributes: [triangle], mode: 4 }, { attributes: splatAttributes(count, 0), splat: SPLAT_EXTENSION }]);
    const loaded = await loadScene(bufferSource(glb(json, bin), 'mixed.glb'));
    expect(loaded.cloud.count).toBe(count);
    expect(loaded.warnings).toContain('Not Gaussian splats, so not shown: meshes[0].primitives[0] (triangles)');
  });

  it('names a mesh two nodes place once, and lists at most five primitives with how many more', async () => {
    const triangle = { name: 'POSITION', type: 'VEC3' as const, componentType: FLOAT, data: new Float32Array(9) };
    const { json, bin } = await buildGltf([
      { attributes: splatAttributes(count, 0), splat: SPLAT_EXTENSION },
      ...Array.from({ length: 8 }, () => ({ attributes: [triangle], mode: 4 })),
    ]);
    json.nodes = [{ mesh: 0 }, { mesh: 0, translation: [1, 0, 0] }];
    json.scenes = [{ nodes: [0, 1] }];
    const warnings: string[] = [];
    const cloud = await parseGltf(glb(json, bin), { onWarning: (w) => warnings.push(w) });
    expect(cloud.count).toBe(2 * count);
    expect(warnings).toEqual([
      `Not Gaussian splats, so not shown: ${[1, 2, 3, 4, 5].map((p) => `meshes[0].primitives[${p}] (triangles)`).join(', ')} and 3 more`,
    ]);
  });

  it('says so when no primitive is a splat primitive', async () => {
    const { json, bin } = await buildGltf([{ attributes: [{ name: 'POSITION', type: 'VEC3', componentType: FLOAT, data: new Float32Array(9) }], mode: 4 }]);
    await expect(parseGltf(glb(json, bin))).rejects.toThrow(/no KHR_gaussian_splatting primitive in its scene; it has meshes\[0\]\.primitives\[0\] \(triangles\)/);
  });
});

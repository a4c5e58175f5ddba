/**
 * Writes a SplatCloud as a binary glTF (.glb): one node, one mesh, one
 * POINTS primitive carrying KHR_gaussian_splatting (attributes.ts names the
 * version followed), every attribute a float accessor of its own tightly
 * packed buffer view, so the reader gives back every value bit for bit.
 * The axes go from the PLY scenes' RDF to glTF's RUB with the reader's
 * signs (spz/axes.ts: the turn is its own inverse). A COLOR_0 of
 * normalized bytes (the linear base colour and the opacity, as the
 * extension's fallback asks) lets glTF viewers without the extension
 * show the points. An antialiased scene (gsplat's filter: an SPZ's or
 * SOG's flag) says so in the extension's extras (ANTIALIASED_EXTRA), which
 * the glTF reader reads back. DOM-free.
 */
import { shCoefficients, SH_C0, type SplatCloud } from '../../scene/splat-cloud';
import { CHUNK_BIN, CHUNK_HEADER_BYTES, CHUNK_JSON, GLB_HEADER_BYTES, GLB_MAGIC, GLB_VERSION } from '../gltf/container';
import { ANTIALIASED_EXTRA, ELLIPSE, EXTENSION, OPACITY, POINTS, POSITION, ROTATION, SCALE, shAttribute, SRGB_DISPLAY } from '../gltf/attributes';
import { srgbToLinear } from '../gltf/colour-space';
import { RUB_RDF_AXIS_SIGNS, RUB_RDF_SH_SIGNS } from '../spz/axes';
import { checkWritable } from './writable';
import { ANTIALIASED_FILTER } from '../../scene/anti-aliasing';

const FLOAT = 5126;
const UNSIGNED_BYTE = 5121;

interface Column {
  name: string;
  type: 'SCALAR' | 'VEC3' | 'VEC4';
  componentType: number;
  normalized?: boolean;
  data: Float32Array | Uint8Array;
  bounds?: { min: number[]; max: number[] };
}

export function writeGlb(cloud: SplatCloud): Uint8Array {
  const n = cloud.count;
  if (n === 0) throw new RangeError('A glTF accessor holds at least one element: a scene with no splats cannot be saved as .glb');
  checkWritable(cloud, 'GLB');
  const [ax, ay, az] = RUB_RDF_AXIS_SIGNS;

  const positions = new Float32Array(3 * n);
  const rotations = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    positions[3 * i] = cloud.positions[3 * i]! * ax;
    positions[3 * i + 1] = cloud.positions[3 * i + 1]! * ay;
    positions[3 * i + 2] = cloud.positions[3 * i + 2]! * az;
    // SplatCloud's w x y z to glTF's x y z w.
    rotations[4 * i] = cloud.rotations[4 * i + 1]! * ax;
    rotations[4 * i + 1] = cloud.rotations[4 * i + 2]! * ay;
    rotations[4 * i + 2] = cloud.rotations[4 * i + 3]! * az;
    rotations[4 * i + 3] = cloud.rotations[4 * i]!;
  }
  const colours = new Uint8Array(4 * n);
  for (let i = 0; i < n; i++) {
    for (let c = 0; c < 3; c++) {
      const srgb = Math.min(1, Math.max(0, 0.5 + SH_C0 * cloud.dc[3 * i + c]!));
      colours[4 * i + c] = Math.round(srgbToLinear(srgb) * 255);
    }
    colours[4 * i + 3] = Math.round(Math.min(1, Math.max(0, cloud.opacities[i]!)) * 255);
  }

  const columns: Column[] = [
    { name: POSITION, type: 'VEC3', componentType: FLOAT, data: positions, bounds: boundsOf(positions) },
    { name: 'COLOR_0', type: 'VEC4', componentType: UNSIGNED_BYTE, normalized: true, data: colours },
    { name: ROTATION, type: 'VEC4', componentType: FLOAT, data: rotations },
    { name: SCALE, type: 'VEC3', componentType: FLOAT, data: cloud.scales },
    { name: OPACITY, type: 'SCALAR', componentType: FLOAT, data: cloud.opacities },
    { name: shAttribute(0, 0), type: 'VEC3', componentType: FLOAT, data: cloud.dc },
  ];
  const K = shCoefficients(cloud.shDegree);
  for (let k = 0; k < K; k++) {
    const degree = Math.floor(Math.sqrt(k + 1));
    const coefficient = k + 1 - degree * degree;
    const data = new Float32Array(3 * n);
    const sign = RUB_RDF_SH_SIGNS[k]!;
    for (let i = 0; i < n; i++) {
      for (let c = 0; c < 3; c++) data[3 * i + c] = cloud.sh[(i * K + k) * 3 + c]! * sign;
    }
    columns.push({ name: shAttribute(degree, coefficient), type: 'VEC3', componentType: FLOAT, data });
  }
  const filter = cloud.antiAliasing?.filter;
  const antialiased = filter?.variance === ANTIALIASED_FILTER.variance && filter.compensate === ANTIALIASED_FILTER.compensate;
  return glb(cloud.count, columns, antialiased);
}

function boundsOf(xyz: Float32Array): { min: number[]; max: number[] } {
  const min = [Infinity, Infinity, Infinity];
  const max = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < xyz.length; i++) {
    min[i % 3] = Math.min(min[i % 3]!, xyz[i]!);
    max[i % 3] = Math.max(max[i % 3]!, xyz[i]!);
  }
  return { min, max };
}

/** The GLB of one splat primitive of `count` splats whose attributes are `columns`. */
function glb(count: number, columns: Column[], antialiased: boolean): Uint8Array {
  const attributes: Record<string, number> = {};
  const bufferViews: object[] = [];
  const accessors: object[] = [];
  let binLength = 0;
  columns.forEach((column, index) => {
    attributes[column.name] = index;
    // Every column's length is a multiple of 4 (floats, or 4 bytes a splat): views stay aligned.
    bufferViews.push({ buffer: 0, byteOffset: binLength, byteLength: column.data.byteLength });
    accessors.push({
      bufferView: index, componentType: column.componentType, count, type: column.type,
      ...(column.normalized ? { normalized: true } : {}), ...column.bounds,
    });
    binLength += column.data.byteLength;
  });
  const document = {
    asset: { version: '2.0', generator: 'Splatsort' },
    extensionsUsed: [EXTENSION],
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0 }],
    meshes: [{
      primitives: [{
        mode: POINTS, attributes,
        extensions: { [EXTENSION]: { kernel: ELLIPSE, colorSpace: SRGB_DISPLAY, ...(antialiased ? { extras: { [ANTIALIASED_EXTRA]: true } } : {}) } },
      }],
    }],
    buffers: [{ byteLength: binLength }],
    bufferViews,
    accessors,
  };
  const jsonBytes = new TextEncoder().encode(JSON.stringify(document));
  const jsonLength = (jsonBytes.length + 3) & ~3;
  const total = GLB_HEADER_BYTES + CHUNK_HEADER_BYTES + jsonLength + CHUNK_HEADER_BYTES + binLength;
  if (total > 0xffffffff) throw new RangeError(`A .glb holds at most 4 GiB; this scene needs ${total.toLocaleString('en-US')} bytes`);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, GLB_MAGIC, true);
  view.setUint32(4, GLB_VERSION, true);
  view.setUint32(8, total, true);
  view.setUint32(12, jsonLength, true);
  view.setUint32(16, CHUNK_JSON, true);
  out.set(jsonBytes, 20);
  out.fill(0x20, 20 + jsonBytes.length, 20 + jsonLength); // the JSON chunk is padded with spaces
  let at = 20 + jsonLength;
  view.setUint32(at, binLength, true);
  view.setUint32(at + 4, CHUNK_BIN, true);
  at += CHUNK_HEADER_BYTES;
  for (const column of columns) {
    out.set(new Uint8Array(column.data.buffer, column.data.byteOffset, column.data.byteLength), at);
    at += column.data.byteLength;
  }
  return out;
}

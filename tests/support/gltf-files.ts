/**
 * glTF files with KHR_gaussian_splatting built from the extension's text
 * alone, for the reader's tests: independent of writers/glb.ts (its own
 * GLB framing, JSON and buffer layout), so that reader and writer cannot
 * share a mistake. Attributes may be any component type, interleaved or
 * not, or compressed with meshoptimizer's own encoder
 * (EXT_meshopt_compression).
 */
import { MeshoptEncoder } from 'meshoptimizer/encoder';

export const FLOAT = 5126, BYTE = 5120, UNSIGNED_BYTE = 5121, SHORT = 5122, UNSIGNED_SHORT = 5123;
export const KHR = 'KHR_gaussian_splatting';

export interface AttributeSpec {
  name: string;
  type: 'SCALAR' | 'VEC3' | 'VEC4';
  componentType: number;
  normalized?: boolean;
  /** The elements' components, tightly packed, of the component type's array. */
  data: Float32Array | Int8Array | Uint8Array | Int16Array | Uint16Array;
  /** Compress its buffer view with EXT_meshopt_compression (elements padded to 4 bytes). */
  meshopt?: boolean;
  /**
   * A sparse accessor: `values` (elements of the component type) replace the
   * elements at `indices`; without a base (`base: false`) the others are
   * zeros and `data`, all zeros, is not stored.
   */
  sparse?: { indices: Uint8Array | Uint16Array | Uint32Array; values: AttributeSpec['data']; base?: boolean };
}

const INDEX_COMPONENT = new Map<Function, number>([[Uint8Array, UNSIGNED_BYTE], [Uint16Array, UNSIGNED_SHORT], [Uint32Array, 5125]]);

export interface PrimitiveSpec {
  attributes: AttributeSpec[];
  /** 0 (points) when absent. */
  mode?: number;
  /** The KHR_gaussian_splatting object; absent: a plain primitive. */
  splat?: Record<string, unknown>;
}

export const SPLAT_EXTENSION = { kernel: 'ellipse', colorSpace: 'srgb_rec709_display' };

export interface Built {
  json: Record<string, any>;
  bin: Uint8Array;
}

const COMPONENTS = { SCALAR: 1, VEC3: 3, VEC4: 4 } as const;

/** One mesh of `primitives` placed by one node, its buffer 0 holding every attribute. */
export async function buildGltf(primitives: PrimitiveSpec[]): Promise<Built> {
  await MeshoptEncoder.ready;
  const parts: Uint8Array[] = [];
  let length = 0;
  const place = (bytes: Uint8Array): number => {
    const at = length;
    parts.push(bytes);
    length += bytes.length;
    const pad = (4 - (length % 4)) % 4;
    if (pad) parts.push(new Uint8Array(pad));
    length += pad;
    return at;
  };
  const json: Record<string, any> = {
    asset: { version: '2.0' },
    extensionsUsed: [KHR],
    scene: 0,
    scenes: [{ nodes: [0] }],
    nodes: [{ mesh: 0 }],
    meshes: [{ primitives: [] }],
    buffers: [],
    bufferViews: [],
    accessors: [],
  };
  let fallbackBytes = 0;
  const bytesOf = (data: ArrayBufferView): Uint8Array => new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  /** A buffer view of its own holding `data`, tightly packed; its index. */
  const plainView = (data: ArrayBufferView): number => {
    json.bufferViews.push({ buffer: 0, byteOffset: place(bytesOf(data)), byteLength: data.byteLength });
    return json.bufferViews.length - 1;
  };
  for (const primitive of primitives) {
    const attributes: Record<string, number> = {};
    for (const attribute of primitive.attributes) {
      const components = COMPONENTS[attribute.type];
      const count = attribute.data.length / components;
      const raw = bytesOf(attribute.data);
      if (attribute.sparse?.base === false) {
        // No base view: the accessor's elements are zeros but for its sparse ones.
      } else if (attribute.meshopt) {
        const elementBytes = attribute.data.BYTES_PER_ELEMENT * components;
        const stride = (elementBytes + 3) & ~3;
        const padded = new Uint8Array(count * stride);
        for (let i = 0; i < count; i++) padded.set(raw.subarray(i * elementBytes, (i + 1) * elementBytes), i * stride);
        const encoded = MeshoptEncoder.encodeGltfBuffer(padded, count, stride, 'ATTRIBUTES');
        const at = place(encoded);
        json.bufferViews.push({
          buffer: 1, byteOffset: fallbackBytes, byteLength: padded.length, byteStride: stride,
          extensions: { EXT_meshopt_compression: { buffer: 0, byteOffset: at, byteLength: encoded.length, byteStride: stride, mode: 'ATTRIBUTES', count } },
        });
        fallbackBytes += padded.length;
      } else {
        plainView(attribute.data);
      }
      const base = attribute.sparse?.base === false ? {} : { bufferView: json.bufferViews.length - 1 };
      const sparse = attribute.sparse && {
        count: attribute.sparse.indices.length,
        indices: { bufferView: plainView(attribute.sparse.indices), componentType: INDEX_COMPONENT.get(attribute.sparse.indices.constructor)! },
        values: { bufferView: plainView(attribute.sparse.values) },
      };
      json.accessors.push({
        ...base, componentType: attribute.componentType, count, type: attribute.type,
        ...(attribute.normalized ? { normalized: true } : {}), ...(sparse ? { sparse } : {}),
      });
      attributes[attribute.name] = json.accessors.length - 1;
    }
    json.meshes[0].primitives.push({
      attributes, mode: primitive.mode ?? 0, ...(primitive.splat ? { extensions: { [KHR]: primitive.splat } } : {}),
    });
  }
  json.buffers.push({ byteLength: length });
  if (fallbackBytes > 0) {
    json.buffers.push({ byteLength: fallbackBytes, extensions: { EXT_meshopt_compression: { fallback: true } } });
    json.extensionsUsed.push('EXT_meshopt_compression');
    json.extensionsRequired = ['EXT_meshopt_compression'];
  }
  const bin = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    bin.set(part, at);
    at += part.length;
  }
  return { json, bin };
}

/** The GLB of a document and its BIN chunk (absent: none), framed as the glTF specification says. */
export function glb(json: object, bin?: Uint8Array): Uint8Array {
  const text = new TextEncoder().encode(JSON.stringify(json));
  const jsonLength = Math.ceil(text.length / 4) * 4;
  const binLength = bin ? Math.ceil(bin.length / 4) * 4 : 0;
  const total = 12 + 8 + jsonLength + (bin ? 8 + binLength : 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  out.set(new TextEncoder().encode('glTF'), 0);
  view.setUint32(4, 2, true);
  view.setUint32(8, total, true);
  view.setUint32(12, jsonLength, true);
  out.set(new TextEncoder().encode('JSON'), 16);
  out.set(text, 20);
  out.fill(0x20, 20 + text.length, 20 + jsonLength);
  if (bin) {
    const at = 20 + jsonLength;
    view.setUint32(at, binLength, true);
    out.set(new TextEncoder().encode('BIN\0'), at + 4);
    out.set(bin, at + 8);
  }
  return out;
}

/** A .gltf text whose buffer 0 is embedded as a base64 data: URI. */
export function gltfText(json: Record<string, any>, bin: Uint8Array): Uint8Array {
  return gltfNaming(json, `data:application/octet-stream;base64,${Buffer.from(bin).toString('base64')}`);
}

/** A .gltf text whose buffer 0 has the uri `uri` (a file to lay beside it, holding the built bin). */
export function gltfNaming(json: Record<string, any>, uri: string): Uint8Array {
  const copy = structuredClone(json);
  copy.buffers[0].uri = uri;
  return new TextEncoder().encode(JSON.stringify(copy, null, 1));
}

/**
 * `count` splats as the extension stores them (glTF axes, x y z w
 * quaternions, linear scales and opacities, SH as raw coefficients), with
 * SH up to `shDegree`: each value a function of the splat and the component,
 * so that a test can say what the reader must make of it.
 */
export function splatAttributes(count: number, shDegree: number): AttributeSpec[] {
  const values = (components: number, f: (i: number, c: number) => number): Float32Array =>
    Float32Array.from({ length: count * components }, (_, k) => f(Math.floor(k / components), k % components));
  const quaternion = values(4, (i, c) => [0.1 * i, -0.2, 0.3, 1][c]!);
  for (let i = 0; i < count; i++) {
    const q = quaternion.subarray(4 * i, 4 * i + 4);
    const n = Math.hypot(...q);
    for (let c = 0; c < 4; c++) q[c] = q[c]! / n;
  }
  const list: AttributeSpec[] = [
    { name: 'POSITION', type: 'VEC3', componentType: FLOAT, data: values(3, (i, c) => i + 0.25 * c - 1) },
    { name: `${KHR}:ROTATION`, type: 'VEC4', componentType: FLOAT, data: quaternion },
    { name: `${KHR}:SCALE`, type: 'VEC3', componentType: FLOAT, data: values(3, (i, c) => 0.01 * (i + 1) * (c + 1)) },
    { name: `${KHR}:OPACITY`, type: 'SCALAR', componentType: FLOAT, data: values(1, (i) => (i + 1) / (count + 1)) },
    { name: `${KHR}:SH_DEGREE_0_COEF_0`, type: 'VEC3', componentType: FLOAT, data: values(3, (i, c) => 0.5 - 0.1 * i + c) },
  ];
  for (let l = 1; l <= shDegree; l++) {
    for (let m = 0; m < 2 * l + 1; m++) {
      list.push({ name: `${KHR}:SH_DEGREE_${l}_COEF_${m}`, type: 'VEC3', componentType: FLOAT, data: values(3, (i, c) => 0.01 * (l * 10 + m) + 0.001 * i + 0.0001 * c) });
    }
  }
  return list;
}

/** The .gltf text of a .glb: its JSON with the BIN chunk as buffer 0's data: URI. */
export function glbAsGltf(bytes: Uint8Array): Uint8Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = view.getUint32(12, true);
  const json = JSON.parse(new TextDecoder().decode(bytes.subarray(20, 20 + jsonLength)));
  const binStart = 20 + jsonLength + 8;
  return gltfText(json, bytes.subarray(binStart, binStart + view.getUint32(20 + jsonLength, true)));
}

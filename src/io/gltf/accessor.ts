/**
 * Reading a glTF accessor's elements as numbers: any component type, with
 * the glTF normalization of normalized integers (KHR_mesh_quantization
 * stores splat attributes as normalized bytes and shorts), interleaved or
 * tightly packed, sparse or not (a sparse accessor's listed elements
 * replace those of its base view, or of zeros where it has none). The
 * accessor's last element, and a sparse one's index and value lists, are
 * checked to lie inside their buffer views, and its indices to rise and
 * stay below its count, before anything is read. DOM-free.
 */
import { SplatFormatError } from '../format-error';
import type { GltfBuffers } from './buffers';
import { entry, integer, objectAt, optionalString, type JsonObject } from './json';

const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const COMPONENT_NAMES: Record<number, string> = {
  5120: 'byte', 5121: 'unsigned byte', 5122: 'short', 5123: 'unsigned short', 5125: 'unsigned int', 5126: 'float',
};
/** The component types a sparse accessor's indices may have: unsigned byte, short and int. */
const INDEX_TYPES = new Set([5121, 5123, 5125]);
export const TYPE_COMPONENTS: Record<string, number> = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4 };

/** What an accessor declares, checked: enough to count splats and plan the load before reading anything. */
export interface AccessorInfo {
  index: number;
  count: number;
  type: string;
  componentType: number;
  normalized: boolean;
  bufferView?: number;
  byteOffset: number;
  sparse?: SparseInfo;
}

/** What a sparse accessor declares: `count` elements, their indices and values each in a view of their own. */
export interface SparseInfo {
  count: number;
  indices: { bufferView: number; byteOffset: number; componentType: number };
  values: { bufferView: number; byteOffset: number };
}

/** Accessor `index`'s declaration; throws when its fields are malformed. */
export function accessorInfo(root: Record<string, unknown>, index: number): AccessorInfo {
  const where = `accessors[${index}]`;
  const json = entry(root, 'accessors', index);
  const type = optionalString(json, 'type', where) ?? '';
  if (TYPE_COMPONENTS[type] === undefined) throw new SplatFormatError(`glTF ${where}.type is "${type}": a splat attribute is SCALAR, VEC2, VEC3 or VEC4`);
  const componentType = integer(json, 'componentType', where, 5120, 5126);
  if (COMPONENT_BYTES[componentType] === undefined) throw new SplatFormatError(`glTF ${where}.componentType ${componentType} is not a glTF component type`);
  const normalized = json.normalized === true;
  if (normalized && (componentType === 5125 || componentType === 5126)) {
    throw new SplatFormatError(`glTF ${where} is normalized ${COMPONENT_NAMES[componentType]}: only byte and short components may be`);
  }
  const count = integer(json, 'count', where, 1);
  return {
    index, type, componentType, normalized, count,
    bufferView: json.bufferView === undefined ? undefined : integer(json, 'bufferView', where),
    byteOffset: integer(json, 'byteOffset', where, 0, Number.MAX_SAFE_INTEGER, 0),
    sparse: json.sparse === undefined ? undefined : sparseInfo(objectAt(json.sparse, `${where}.sparse`), count, `${where}.sparse`),
  };
}

function sparseInfo(json: JsonObject, accessorCount: number, where: string): SparseInfo {
  const indices = objectAt(json.indices, `${where}.indices`);
  const values = objectAt(json.values, `${where}.values`);
  const componentType = integer(indices, 'componentType', `${where}.indices`, 5121, 5125);
  if (!INDEX_TYPES.has(componentType)) {
    throw new SplatFormatError(`glTF ${where}.indices.componentType is ${componentType}: sparse indices are unsigned bytes, shorts or ints`);
  }
  return {
    // More replaced elements than the accessor has cannot all have indices of their own.
    count: integer(json, 'count', where, 1, accessorCount),
    indices: {
      bufferView: integer(indices, 'bufferView', `${where}.indices`),
      byteOffset: integer(indices, 'byteOffset', `${where}.indices`, 0, Number.MAX_SAFE_INTEGER, 0),
      componentType,
    },
    values: {
      bufferView: integer(values, 'bufferView', `${where}.values`),
      byteOffset: integer(values, 'byteOffset', `${where}.values`, 0, Number.MAX_SAFE_INTEGER, 0),
    },
  };
}

/** "normalized unsigned byte VEC4", for messages. */
export function describeAccessor(info: AccessorInfo): string {
  return `${info.normalized ? 'normalized ' : ''}${COMPONENT_NAMES[info.componentType]} ${info.type}`;
}

/** An accessor whose elements are known to lie inside the bytes present. */
export interface LocatedAccessor {
  info: AccessorInfo;
  /** Its buffer view's bytes; undefined: no buffer view, all zeros. */
  bytes?: Uint8Array;
  stride: number;
  /** A sparse accessor's elements replaced: their indices, rising, and their values' bytes, tightly packed. */
  sparse?: { indices: Uint32Array; values: Uint8Array; valuesOffset: number };
}

/**
 * The accessor's buffer view, resolved (decoded when compressed), with its
 * last element checked to end inside it: done for every accessor before the
 * scene is allocated, so a file whose counts outrun its bytes is refused first.
 */
export async function locateAccessor(info: AccessorInfo, buffers: GltfBuffers): Promise<LocatedAccessor> {
  const elementBytes = TYPE_COMPONENTS[info.type]! * COMPONENT_BYTES[info.componentType]!;
  const sparse = info.sparse && await locateSparse(info, info.sparse, elementBytes, buffers);
  if (info.bufferView === undefined) return { info, stride: elementBytes, sparse };
  const where = `accessors[${info.index}]`;
  const { bytes, stride: viewStride } = await buffers.view(info.bufferView);
  const stride = viewStride ?? elementBytes;
  if (stride < elementBytes) {
    throw new SplatFormatError(`glTF ${where}'s elements are ${elementBytes} bytes, wider than bufferViews[${info.bufferView}]'s stride of ${stride}`);
  }
  const end = info.byteOffset + (info.count - 1) * stride + elementBytes;
  if (end > bytes.length) {
    throw new SplatFormatError(
      `glTF ${where} (${info.count} elements from byte ${info.byteOffset}) ends at byte ${end} of bufferViews[${info.bufferView}], which has ${bytes.length}`,
    );
  }
  return { info, bytes, stride, sparse };
}

/**
 * A sparse accessor's index and value lists, checked to lie inside their
 * views, and its indices read and checked to rise strictly and stay below
 * the accessor's count, as glTF asks: so that each replaces one element.
 */
async function locateSparse(info: AccessorInfo, sparse: SparseInfo, elementBytes: number, buffers: GltfBuffers): Promise<NonNullable<LocatedAccessor['sparse']>> {
  const where = `accessors[${info.index}].sparse`;
  const indexBytes = COMPONENT_BYTES[sparse.indices.componentType]!;
  const list = async (view: number, byteOffset: number, size: number, what: string): Promise<Uint8Array> => {
    const { bytes } = await buffers.view(view);
    const end = byteOffset + sparse.count * size;
    if (end > bytes.length) {
      throw new SplatFormatError(`glTF ${where}.${what} (${sparse.count} from byte ${byteOffset}) ends at byte ${end} of bufferViews[${view}], which has ${bytes.length}`);
    }
    return bytes;
  };
  const indexBytesView = await list(sparse.indices.bufferView, sparse.indices.byteOffset, indexBytes, 'indices');
  const values = await list(sparse.values.bufferView, sparse.values.byteOffset, elementBytes, 'values');
  const read = componentReader(new DataView(indexBytesView.buffer, indexBytesView.byteOffset, indexBytesView.byteLength), sparse.indices.componentType, false);
  const indices = new Uint32Array(sparse.count);
  for (let k = 0, previous = -1; k < sparse.count; k++) {
    const index = read(sparse.indices.byteOffset + k * indexBytes);
    if (index >= info.count) throw new SplatFormatError(`glTF ${where}.indices[${k}] is ${index}, past the accessor's ${info.count} elements`);
    if (index <= previous) throw new SplatFormatError(`glTF ${where}.indices[${k}] is ${index}, not above the index before it (${previous}): sparse indices rise strictly`);
    indices[k] = previous = index;
  }
  return { indices, values, valuesOffset: sparse.values.byteOffset };
}

/**
 * Calls `visit(i, values)` for each element of a located accessor, `values`
 * holding its components as numbers (normalized ones in [0, 1] or [-1, 1]).
 */
export function readAccessor(located: LocatedAccessor, visit: (i: number, values: Float64Array) => void): void {
  const { info, bytes, stride, sparse } = located;
  const components = TYPE_COMPONENTS[info.type]!;
  const size = COMPONENT_BYTES[info.componentType]!;
  const values = new Float64Array(components);
  const reader = (from: Uint8Array) => componentReader(new DataView(from.buffer, from.byteOffset, from.byteLength), info.componentType, info.normalized);
  const base = bytes && reader(bytes);
  const replaced = sparse && reader(sparse.values);
  let next = 0; // the next sparse element, in index order
  for (let i = 0, at = info.byteOffset; i < info.count; i++, at += stride) {
    if (replaced && next < sparse.indices.length && sparse.indices[next] === i) {
      const from = sparse.valuesOffset + next * components * size;
      for (let c = 0; c < components; c++) values[c] = replaced(from + c * size);
      next++;
    } else if (base) {
      for (let c = 0; c < components; c++) values[c] = base(at + c * size);
    } else {
      values.fill(0);
    }
    visit(i, values);
  }
}

/** Reads one component at a byte offset, normalized as glTF says: max(c / 127, -1) for bytes, c / 255 for unsigned ones, and so on. */
function componentReader(view: DataView, componentType: number, normalized: boolean): (at: number) => number {
  switch (componentType) {
    case 5120: return normalized ? (at) => Math.max(view.getInt8(at) / 127, -1) : (at) => view.getInt8(at);
    case 5121: return normalized ? (at) => view.getUint8(at) / 255 : (at) => view.getUint8(at);
    case 5122: return normalized ? (at) => Math.max(view.getInt16(at, true) / 32767, -1) : (at) => view.getInt16(at, true);
    case 5123: return normalized ? (at) => view.getUint16(at, true) / 65535 : (at) => view.getUint16(at, true);
    case 5125: return (at) => view.getUint32(at, true);
    default: return (at) => view.getFloat32(at, true);
  }
}

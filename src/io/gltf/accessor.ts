/**
 * Reading a glTF accessor's elements as numbers: any component type, with
 * the glTF normalization of normalized integers (KHR_mesh_quantization
 * stores splat attributes as normalized bytes and shorts), interleaved or
 * tightly packed. The accessor's last element is checked to lie inside its
 * buffer view before anything is read. DOM-free.
 */
import { SplatFormatError } from '../format-error';
import type { GltfBuffers } from './buffers';
import { entry, integer, optionalString } from './json';

const COMPONENT_BYTES: Record<number, number> = { 5120: 1, 5121: 1, 5122: 2, 5123: 2, 5125: 4, 5126: 4 };
const COMPONENT_NAMES: Record<number, string> = {
  5120: 'byte', 5121: 'unsigned byte', 5122: 'short', 5123: 'unsigned short', 5125: 'unsigned int', 5126: 'float',
};
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
}

/** Accessor `index`'s declaration; throws when its fields are malformed. */
export function accessorInfo(root: Record<string, unknown>, index: number): AccessorInfo {
  const where = `accessors[${index}]`;
  const json = entry(root, 'accessors', index);
  const type = optionalString(json, 'type', where) ?? '';
  if (TYPE_COMPONENTS[type] === undefined) throw new SplatFormatError(`glTF ${where}.type is "${type}": a splat attribute is SCALAR, VEC2, VEC3 or VEC4`);
  const componentType = integer(json, 'componentType', where, 5120, 5126);
  if (COMPONENT_BYTES[componentType] === undefined) throw new SplatFormatError(`glTF ${where}.componentType ${componentType} is not a glTF component type`);
  if (json.sparse !== undefined) throw new SplatFormatError(`glTF ${where} is sparse: sparse accessors are not read for splats`);
  const normalized = json.normalized === true;
  if (normalized && (componentType === 5125 || componentType === 5126)) {
    throw new SplatFormatError(`glTF ${where} is normalized ${COMPONENT_NAMES[componentType]}: only byte and short components may be`);
  }
  return {
    index, type, componentType, normalized,
    count: integer(json, 'count', where, 1),
    bufferView: json.bufferView === undefined ? undefined : integer(json, 'bufferView', where),
    byteOffset: integer(json, 'byteOffset', where, 0, Number.MAX_SAFE_INTEGER, 0),
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
}

/**
 * The accessor's buffer view, resolved (decoded when compressed), with its
 * last element checked to end inside it: done for every accessor before the
 * scene is allocated, so a file whose counts outrun its bytes is refused first.
 */
export async function locateAccessor(info: AccessorInfo, buffers: GltfBuffers): Promise<LocatedAccessor> {
  const elementBytes = TYPE_COMPONENTS[info.type]! * COMPONENT_BYTES[info.componentType]!;
  if (info.bufferView === undefined) return { info, stride: elementBytes };
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
  return { info, bytes, stride };
}

/**
 * Calls `visit(i, values)` for each element of a located accessor, `values`
 * holding its components as numbers (normalized ones in [0, 1] or [-1, 1]).
 */
export function readAccessor(located: LocatedAccessor, visit: (i: number, values: Float64Array) => void): void {
  const { info, bytes, stride } = located;
  const components = TYPE_COMPONENTS[info.type]!;
  const values = new Float64Array(components);
  if (!bytes) {
    for (let i = 0; i < info.count; i++) visit(i, values);
    return;
  }
  const size = COMPONENT_BYTES[info.componentType]!;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const get = componentReader(view, info.componentType, info.normalized);
  for (let i = 0, at = info.byteOffset; i < info.count; i++, at += stride) {
    for (let c = 0; c < components; c++) values[c] = get(at + c * size);
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

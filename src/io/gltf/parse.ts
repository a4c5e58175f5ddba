/**
 * Reads a glTF asset (.glb, or .gltf with its buffers embedded or in files
 * beside it) whose meshes
 * carry KHR_gaussian_splatting primitives into a SplatCloud (the
 * extension's version and its conventions: attributes.ts). Every splat
 * primitive the scene places is read, under its node's transform; other
 * primitives are skipped with a warning that names them. The splat count
 * is checked against the load limits, and every accessor against the bytes
 * present, before the scene is allocated. DOM-free.
 */
import { allocateSplatCloud, computeBounds, shCoefficients, type ShDegree, type SplatCloud } from '../../scene/splat-cloud';
import type { CompanionReader, ReadOptions } from '../formats/format';
import { SplatFormatError } from '../format-error';
import { checkSplatCount, DEFAULT_LOAD_LIMITS } from '../load-limits';
import { rotateSh, shRotation } from '../sh-rotation';
import { RUB_RDF_AXIS_SIGNS, RUB_RDF_SH_SIGNS } from '../spz/axes';
import { locateAccessor, readAccessor, type AccessorInfo, type LocatedAccessor } from './accessor';
import { ANTIALIASED_EXTRA, EXTENSION } from './attributes';
import { ANTIALIASED_FILTER } from '../../scene/anti-aliasing';
import { encodeLinearSplats } from './colour-space';
import { GltfBuffers, MESHOPT } from './buffers';
import { readContainer } from './container';
import { arrayOf, isObject, objectAt } from './json';
import { meshInstances } from './nodes';
import { placeShapes } from './placed-shapes';
import { placementOf, type Placement } from './placement';
import { scenePrimitives, type SplatPrimitive } from './primitives';

/** Extensions a file may require that change nothing of its splats, or that this reader reads. */
const READ_EXTENSIONS = new Set([EXTENSION, 'KHR_mesh_quantization', MESHOPT]);
const HARMLESS = /^(KHR_materials_|KHR_texture_|EXT_texture_|KHR_lights_|KHR_draco_mesh_compression$)/;

/** `companion` reads the files the document names beside it; without it, only its own bytes are read. */
export async function parseGltf(bytes: Uint8Array, options: ReadOptions = {}, companion?: CompanionReader): Promise<SplatCloud> {
  const limits = options.limits ?? DEFAULT_LOAD_LIMITS;
  const container = readContainer(bytes);
  const root = objectAt(container.json, 'document');
  const version = isObject(root.asset) ? root.asset.version : undefined;
  if (typeof version !== 'string' || !version.startsWith('2.')) {
    throw new SplatFormatError(`glTF asset version ${JSON.stringify(version ?? null)} is not read: only glTF 2.0 is`);
  }
  const required = new Set(arrayOf(root, 'extensionsRequired', '').filter((name): name is string => typeof name === 'string'));
  for (const name of required) {
    if (!READ_EXTENSIONS.has(name) && !HARMLESS.test(name)) throw new SplatFormatError(`glTF file requires the extension ${name}, which is not read`);
  }

  const { splats, skipped, notes } = scenePrimitives(root, meshInstances(root), required);
  if (splats.length === 0) {
    const had = skipped.length > 0 ? `; it has ${listed(skipped)}` : '';
    throw new SplatFormatError(`glTF file has no ${EXTENSION} primitive in its scene${had}`);
  }
  if (skipped.length > 0) options.onWarning?.(`Not Gaussian splats, so not shown: ${listed(skipped)}`);
  for (const note of notes) options.onWarning?.(note);

  const shDegree = Math.max(...splats.map((s) => s.shDegree)) as ShDegree;
  const total = splats.reduce((sum, s) => sum + s.count, 0);
  checkSplatCount(total, shDegree, limits, "The glTF file's splat primitives hold");

  const buffers = new GltfBuffers(root, container, limits, companion);
  const located = new Map<AccessorInfo, LocatedAccessor>();
  for (const splat of splats) {
    for (const info of [splat.position, splat.rotation, splat.scale, splat.opacity, ...splat.sh]) {
      located.set(info, await locateAccessor(info, buffers));
    }
  }

  const cloud = allocateSplatCloud(total, shDegree);
  let base = 0;
  for (const splat of splats) {
    const placement = placementOf(splat.instance.matrix, splat.instance.node);
    if (placement.mirrored) {
      options.onWarning?.(`${splat.where} is mirrored by its node (a negative scale): read as its mirror image, view-dependent colour included, which the extension leaves undefined`);
    }
    fill(cloud, splat, base, placement, (info) => located.get(info)!);
    base += splat.count;
    options.onProgress?.(base / total);
  }
  cloud.bounds = computeBounds(cloud.positions, total);
  // One filter draws the whole scene: the flag holds only when every primitive has it.
  const antialiased = splats.filter((s) => s.antialiased).length;
  if (antialiased === splats.length) cloud.antiAliasing = { filter: { ...ANTIALIASED_FILTER }, source: `glTF extras "${ANTIALIASED_EXTRA}"` };
  else if (antialiased > 0) options.onWarning?.(`${antialiased} of the ${splats.length} splat primitives say they are antialiased (extras "${ANTIALIASED_EXTRA}"): all are drawn with the classic filter`);
  return cloud;
}

/** Primitives named in a message: the first few, and how many more (a mesh of a thousand parts is not listed whole). */
function listed(primitives: string[], most = 5): string {
  const more = primitives.length - most;
  return more > 1 ? `${primitives.slice(0, most).join(', ')} and ${more} more` : primitives.join(', ');
}

/** Writes one primitive's splats at `base`, in SplatCloud's conventions (attributes.ts). */
function fill(cloud: SplatCloud, splat: SplatPrimitive, base: number, placement: Placement, located: (info: AccessorInfo) => LocatedAccessor): void {
  const { positions, rotations, scales, opacities, dc, sh } = cloud;
  const [sx, sy, sz] = RUB_RDF_AXIS_SIGNS;
  const m = placement.matrix;
  readAccessor(located(splat.position), (i, [x, y, z]) => {
    const at = 3 * (base + i);
    if (!placement.identity) {
      [x, y, z] = [
        m[0]! * x! + m[4]! * y! + m[8]! * z! + m[12]!,
        m[1]! * x! + m[5]! * y! + m[9]! * z! + m[13]!,
        m[2]! * x! + m[6]! * y! + m[10]! * z! + m[14]!,
      ];
    }
    positions[at] = x! * sx;
    positions[at + 1] = y! * sy;
    positions[at + 2] = z! * sz;
  });
  // One scale and a rotation: quaternions composed with the node's, scales multiplied; otherwise placeShapes below.
  const [rw, rx, ry, rz] = placement.uniform?.rotation ?? [1, 0, 0, 0];
  const turn = !placement.identity && placement.uniform !== undefined;
  readAccessor(located(splat.rotation), (i, [x, y, z, w]) => {
    const norm2 = w! * w! + x! * x! + y! * y! + z! * z!;
    // Unit quaternions (the extension stores them so) are kept bit for bit;
    // others (8-bit ones, hostile ones) are made unit, a zero one the identity.
    const n = Math.abs(norm2 - 1) < 1e-6 ? 1 : Math.sqrt(norm2);
    if (n === 0) [w, x, y, z] = [1, 0, 0, 0];
    else if (n !== 1) [w, x, y, z] = [w! / n, x! / n, y! / n, z! / n];
    if (turn) {
      [w, x, y, z] = [
        rw * w! - rx * x! - ry * y! - rz * z!,
        rw * x! + rx * w! + ry * z! - rz * y!,
        rw * y! - rx * z! + ry * w! + rz * x!,
        rw * z! + rx * y! - ry * x! + rz * w!,
      ];
    }
    const at = 4 * (base + i);
    rotations[at] = w!;
    rotations[at + 1] = x! * sx;
    rotations[at + 2] = y! * sy;
    rotations[at + 3] = z! * sz;
  });
  const s = placement.uniform?.scale ?? 1;
  readAccessor(located(splat.scale), (i, [x, y, z]) => {
    const at = 3 * (base + i);
    scales[at] = x! * s;
    scales[at + 1] = y! * s;
    scales[at + 2] = z! * s;
  });
  readAccessor(located(splat.opacity), (i, [a]) => {
    opacities[base + i] = Math.min(1, Math.max(0, a!));
  });
  readAccessor(located(splat.sh[0]!), (i, [r, g, b]) => {
    const at = 3 * (base + i);
    dc[at] = r!;
    dc[at + 1] = g!;
    dc[at + 2] = b!;
  });
  const K = shCoefficients(cloud.shDegree);
  splat.sh.slice(1).forEach((info, k) => {
    const sign = RUB_RDF_SH_SIGNS[k]!;
    readAccessor(located(info), (i, [r, g, b]) => {
      const at = ((base + i) * K + k) * 3;
      sh[at] = r! * sign;
      sh[at + 1] = g! * sign;
      sh[at + 2] = b! * sign;
    });
  });
  if (!placement.uniform) placeShapes(rotations, scales, base, splat.count, inPlyAxes(placement.linear));
  // The extension turns SH with the node's rotation; a mirror mirrors them (SH of odd degree change sign).
  if (!placement.identity && splat.shDegree > 0) rotateSh(sh, K, base, splat.count, shRotation(inPlyAxes(placement.axes), splat.shDegree));
  if (splat.linear) encodeLinearSplats(dc, sh, K, base, splat.count);
}

/** A 3×3 map of glTF's axes (row-major) as the same map of the PLY scenes' axes: F m F, F the turn between them. */
function inPlyAxes(m: Float64Array): Float64Array {
  return m.map((v, i) => v * RUB_RDF_AXIS_SIGNS[Math.floor(i / 3)]! * RUB_RDF_AXIS_SIGNS[i % 3]!);
}

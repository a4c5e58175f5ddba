/**
 * The splat primitives of a glTF scene: each mesh primitive that carries
 * KHR_gaussian_splatting, with its attributes' accessors checked (present,
 * of the right type, one count) and its SH degree. Other primitives
 * (triangles, lines, plain points) are listed for a warning and not read.
 * DOM-free.
 */
import type { ShDegree } from '../../scene/splat-cloud';
import { SplatFormatError } from '../format-error';
import { accessorInfo, describeAccessor, type AccessorInfo } from './accessor';
import {
  ANTIALIASED_EXTRA, CAMERA_DISTANCE, ELLIPSE, EXTENSION, LINEAR_DISPLAY, OPACITY, PERSPECTIVE, POINTS, POSITION, ROTATION, SCALE, shAttribute, SRGB_DISPLAY,
} from './attributes';
import { arrayOf, entry, indexAt, integer, isObject, objectAt, optionalString, type JsonObject } from './json';
import type { MeshInstance } from './nodes';

/** A splat primitive to read: where the scene puts it, its accessors by role, and their one count. */
export interface SplatPrimitive {
  where: string;
  instance: MeshInstance;
  count: number;
  shDegree: ShDegree;
  /** Its colours are linear (lin_rec709_display): encoded to sRGB when read. */
  linear: boolean;
  /** Its extension's extras say it was trained antialiased (ANTIALIASED_EXTRA). */
  antialiased: boolean;
  position: AccessorInfo;
  rotation: AccessorInfo;
  scale: AccessorInfo;
  opacity: AccessorInfo;
  /** SH coefficients in SplatCloud's order: degree 0's, then degree 1's from m = -1 up, and so on. */
  sh: AccessorInfo[];
}

export interface ScenePrimitives {
  splats: SplatPrimitive[];
  /** "meshes[0].primitives[1] (triangles)" for each primitive not read. */
  skipped: string[];
  /** Things read but not as the file meant them (a linear colour space), for warnings. */
  notes: string[];
}

const MODE_NAMES = ['points', 'lines', 'line loop', 'line strip', 'triangles', 'triangle strip', 'triangle fan'];

/** The scene's primitives, split into splats and the rest. `required` is the document's extensionsRequired. */
export function scenePrimitives(root: JsonObject, instances: MeshInstance[], required: ReadonlySet<string>): ScenePrimitives {
  const found: ScenePrimitives = { splats: [], skipped: [], notes: [] };
  for (const instance of instances) {
    const mesh = entry(root, 'meshes', instance.mesh);
    arrayOf(mesh, 'primitives', `meshes[${instance.mesh}].`).forEach((value, p) => {
      const where = `meshes[${instance.mesh}].primitives[${p}]`;
      const primitive = objectAt(value, where);
      const mode = integer(primitive, 'mode', where, 0, 6, 4);
      const extension = isObject(primitive.extensions) ? primitive.extensions[EXTENSION] : undefined;
      if (extension === undefined) {
        const points = mode === POINTS ? 'points without KHR_gaussian_splatting' : MODE_NAMES[mode]!;
        // A mesh two nodes place is named once.
        if (!found.skipped.includes(`${where} (${points})`)) found.skipped.push(`${where} (${points})`);
        return;
      }
      found.splats.push(splatPrimitive(root, primitive, objectAt(extension, `${where}.extensions.${EXTENSION}`), where, instance, required, found.notes));
      if (mode !== POINTS) found.notes.push(`${where} carries ${EXTENSION} but its mode is ${MODE_NAMES[mode]}, not points: read as splats`);
    });
  }
  return found;
}

function splatPrimitive(
  root: JsonObject, primitive: JsonObject, extension: JsonObject, where: string,
  instance: MeshInstance, required: ReadonlySet<string>, notes: string[],
): SplatPrimitive {
  const inner = `${where}.extensions.${EXTENSION}`;
  const kernel = optionalString(extension, 'kernel', inner);
  if (kernel !== ELLIPSE) notes.push(`${where}'s kernel is ${JSON.stringify(kernel ?? null)}: drawn as the "ellipse" kernel`);
  const colorSpace = optionalString(extension, 'colorSpace', inner);
  const linear = colorSpace === LINEAR_DISPLAY;
  if (linear) {
    notes.push(`${where}'s colours are linear (${LINEAR_DISPLAY}): each splat's colour is encoded to sRGB before blending, where the extension encodes the blended pixel`);
  } else if (colorSpace !== SRGB_DISPLAY) {
    notes.push(`${where}'s colour space is ${JSON.stringify(colorSpace ?? null)}: its colours are shown as ${SRGB_DISPLAY}`);
  }
  const projection = optionalString(extension, 'projection', inner) ?? PERSPECTIVE;
  if (projection !== PERSPECTIVE) notes.push(`${where}'s projection is ${JSON.stringify(projection)}: drawn with the "${PERSPECTIVE}" one`);
  const sortingMethod = optionalString(extension, 'sortingMethod', inner) ?? CAMERA_DISTANCE;
  if (sortingMethod !== CAMERA_DISTANCE) notes.push(`${where}'s sorting method is ${JSON.stringify(sortingMethod)}: sorted by depth along the view, as every scene is here`);
  for (const name of Object.keys(isObject(extension.extensions) ? extension.extensions : {})) {
    if (required.has(name)) throw new SplatFormatError(`glTF ${where}'s splats need the extension ${name}, which is not read`);
    notes.push(`${where}'s extension ${name} is not read: its base splat attributes are`);
  }
  if (isObject(primitive.extensions)) {
    for (const name of Object.keys(primitive.extensions)) {
      if (name !== EXTENSION && required.has(name)) throw new SplatFormatError(`glTF ${where} needs the extension ${name}, which is not read`);
    }
  }
  const attributes = objectAt(primitive.attributes, `${where}.attributes`);
  const accessor = (name: string, type: string): AccessorInfo | undefined => {
    if (attributes[name] === undefined) return undefined;
    const info = accessorInfo(root, indexAt(attributes[name], `${where}.attributes["${name}"]`));
    if (info.type !== type) throw new SplatFormatError(`glTF ${where}'s ${name} is a ${describeAccessor(info)}: expected ${type}`);
    return info;
  };
  const needed = (name: string, type: string): AccessorInfo => {
    const info = accessor(name, type);
    if (!info) throw new SplatFormatError(`glTF ${where} carries ${EXTENSION} but has no ${name} attribute`);
    return info;
  };
  const position = needed(POSITION, 'VEC3');
  const rotation = needed(ROTATION, 'VEC4');
  const scale = needed(SCALE, 'VEC3');
  const opacity = needed(OPACITY, 'SCALAR');
  const sh = [needed(shAttribute(0, 0), 'VEC3')];
  let shDegree: ShDegree = 0;
  for (const degree of [1, 2, 3] as const) {
    const coefficients = Array.from({ length: 2 * degree + 1 }, (_, n) => accessor(shAttribute(degree, n), 'VEC3'));
    const present = coefficients.filter((c) => c !== undefined).length;
    if (present === 0) break;
    if (present < coefficients.length) {
      throw new SplatFormatError(`glTF ${where} has ${present} of SH degree ${degree}'s ${coefficients.length} coefficients: a degree is all or none`);
    }
    sh.push(...(coefficients as AccessorInfo[]));
    shDegree = degree;
  }
  if (Object.keys(attributes).some((name) => higherDegree(name, shDegree))) {
    throw new SplatFormatError(`glTF ${where} has SH coefficients of a degree above ${shDegree} without all of degree ${shDegree + 1}`);
  }
  const count = position.count;
  const others: [string, AccessorInfo][] = [[ROTATION, rotation], [SCALE, scale], [OPACITY, opacity], ...sh.map((info, k): [string, AccessorInfo] => [`SH coefficient ${k}`, info])];
  for (const [name, info] of others) {
    if (info.count !== count) throw new SplatFormatError(`glTF ${where}'s ${name} has ${info.count} elements, its POSITION ${count}`);
  }
  const antialiased = isObject(extension.extras) && extension.extras[ANTIALIASED_EXTRA] === true;
  return { where, instance, count, shDegree, linear, antialiased, position, rotation, scale, opacity, sh };
}

/** True when `name` is an SH attribute of a degree above `degree`. */
function higherDegree(name: string, degree: number): boolean {
  const match = /^KHR_gaussian_splatting:SH_DEGREE_(\d+)_COEF_\d+$/.exec(name);
  return match !== null && Number(match[1]) > degree;
}

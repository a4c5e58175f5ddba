/**
 * Where a glTF document places its meshes: the nodes of its scene, each
 * with its global transform (the product of its ancestors' matrices or
 * translation/rotation/scale). A mesh placed by two nodes is drawn twice.
 * The node graph comes from the file, so a node reached twice (a cycle, or
 * one node under two parents) is refused. DOM-free.
 */
import { SplatFormatError } from '../format-error';
import { arrayOf, entry, indexAt, integer, isObject, numbers, type JsonObject } from './json';

/** Deeper node chains than this are refused: no real scene nests so far, and the walk recurses. */
const MAX_DEPTH = 256;

/** A 4×4 matrix, column-major as glTF writes it. */
export type Matrix = Float64Array;

/** A mesh as the scene places it. */
export interface MeshInstance {
  mesh: number;
  /** Index of the node that places it, for messages (-1: no node; the document has none). */
  node: number;
  matrix: Matrix;
}

export const IDENTITY: Matrix = Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1);

export function multiply(a: Matrix, b: Matrix): Matrix {
  const out = new Float64Array(16);
  for (let col = 0; col < 4; col++) {
    for (let row = 0; row < 4; row++) {
      let sum = 0;
      for (let k = 0; k < 4; k++) sum += a[k * 4 + row]! * b[col * 4 + k]!;
      out[col * 4 + row] = sum;
    }
  }
  return out;
}

/** The node's own matrix: `matrix`, or translation × rotation × scale. */
function localMatrix(node: JsonObject, where: string): Matrix {
  const matrix = numbers(node, 'matrix', where, 16);
  if (matrix) return Float64Array.from(matrix);
  const [tx, ty, tz] = numbers(node, 'translation', where, 3) ?? [0, 0, 0];
  const [x, y, z, w] = numbers(node, 'rotation', where, 4) ?? [0, 0, 0, 1];
  const [sx, sy, sz] = numbers(node, 'scale', where, 3) ?? [1, 1, 1];
  return Float64Array.of(
    (1 - 2 * (y! * y! + z! * z!)) * sx!, 2 * (x! * y! + w! * z!) * sx!, 2 * (x! * z! - w! * y!) * sx!, 0,
    2 * (x! * y! - w! * z!) * sy!, (1 - 2 * (x! * x! + z! * z!)) * sy!, 2 * (y! * z! + w! * x!) * sy!, 0,
    2 * (x! * z! + w! * y!) * sz!, 2 * (y! * z! - w! * x!) * sz!, (1 - 2 * (x! * x! + y! * y!)) * sz!, 0,
    tx!, ty!, tz!, 1,
  );
}

/** The meshes the document's scene draws, each with its global transform, in scene order. */
export function meshInstances(root: JsonObject): MeshInstance[] {
  const nodes = arrayOf(root, 'nodes', '');
  const scenes = arrayOf(root, 'scenes', '');
  let roots: number[];
  if (scenes.length > 0) {
    const chosen = integer(root, 'scene', 'document', 0, scenes.length - 1, 0);
    const scene = entry(root, 'scenes', chosen);
    roots = arrayOf(scene, 'nodes', `scenes[${chosen}].`).map((value, i) => indexAt(value, `scenes[${chosen}].nodes[${i}]`));
  } else if (nodes.length > 0) {
    // No scene: every node that is no other node's child is a root.
    const children = new Set<number>();
    nodes.forEach((node) => { if (isObject(node) && Array.isArray(node.children)) for (const c of node.children) children.add(c as number); });
    roots = nodes.map((_, i) => i).filter((i) => !children.has(i));
  } else {
    return arrayOf(root, 'meshes', '').map((_, mesh) => ({ mesh, node: -1, matrix: IDENTITY }));
  }
  const instances: MeshInstance[] = [];
  const seen = new Set<number>();
  const visit = (index: number, parent: Matrix, depth: number): void => {
    if (depth > MAX_DEPTH) throw new SplatFormatError(`glTF nodes nest deeper than ${MAX_DEPTH} levels at nodes[${index}]`);
    if (seen.has(index)) throw new SplatFormatError(`glTF nodes[${index}] is reached twice in the scene: the node graph is not a tree`);
    seen.add(index);
    const where = `nodes[${index}]`;
    const node = entry(root, 'nodes', index);
    const matrix = multiply(parent, localMatrix(node, where));
    if (node.mesh !== undefined) instances.push({ mesh: integer(node, 'mesh', where), node: index, matrix });
    const children = arrayOf(node, 'children', `${where}.`);
    children.forEach((value, i) => visit(indexAt(value, `${where}.children[${i}]`), matrix, depth + 1));
  };
  for (const index of roots) visit(index, IDENTITY, 0);
  return instances;
}

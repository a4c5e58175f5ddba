/**
 * PlayCanvas / SuperSplat compressed PLY: the PLY container (the same
 * magic as INRIA PLY), told apart by its header's `chunk` element and
 * packed vertex properties. Small for its splat count, so it is gathered
 * whole and then read (compressed-ply.ts). DOM-free.
 */
import type { PlyHeader } from '../ply/header';
import type { SplatFormat } from './format';

/**
 * True when the header describes a compressed PLY: a `chunk` element and a
 * vertex element with packed_* properties (any of them: one that lacks
 * packed_position is a broken compressed PLY, to be reported as such).
 */
export function isCompressedPly(header: PlyHeader): boolean {
  const chunk = header.elements.find((e) => e.name === 'chunk');
  const vertex = header.elements.find((e) => e.name === 'vertex');
  return chunk !== undefined && vertex !== undefined &&
    vertex.properties.some((p) => p.name.startsWith('packed_'));
}

export const COMPRESSED_PLY: SplatFormat<'compressed-ply'> = {
  id: 'compressed-ply',
  label: 'compressed PLY',
  extensions: ['.ply'],
};

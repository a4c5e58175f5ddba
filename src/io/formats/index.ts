/**
 * Every splat file format the loaders read, each described in a module of
 * its own (format.ts says what a description holds, and why its reader is
 * apart: readers.ts). This list is the one place the formats are ordered:
 * detection asks their sniffs in this order, and the file picker and the
 * help text list their files in it. DOM-free.
 */
import { COMPRESSED_PLY } from './compressed-ply';
import { GLB, GLTF } from './gltf';
import { INRIA_PLY } from './inria-ply';
import { KSPLAT } from './ksplat';
import { SOG_BUNDLE } from './sog-bundle';
import { SOG_META } from './sog-meta';
import { SPLAT } from './splat';
import { SPZ } from './spz';

export const SPLAT_FORMATS = [INRIA_PLY, COMPRESSED_PLY, SPLAT, SPZ, KSPLAT, SOG_BUNDLE, GLB, GLTF, SOG_META] as const;

export type SplatFormatId = (typeof SPLAT_FORMATS)[number]['id'];

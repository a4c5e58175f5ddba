/**
 * glTF 2.0 with KHR_gaussian_splatting, in its two files: a binary .glb,
 * known by its 'glTF' magic, and a .gltf JSON text, known by its name (JSON
 * alone says too little), opened with the .bin files its buffers name
 * (from beside its URL, or among the files opened with it), or alone when
 * its buffers are embedded. Both are read by gltf/; scenes are saved as
 * .glb (writers/glb.ts), the one file that holds its buffers without
 * base64. DOM-free.
 */
import { isGlb } from '../gltf/container';
import type { CompanionReader, ReadOptions, SplatFormat } from './format';

const read = async (bytes: Uint8Array, options: ReadOptions, companion?: CompanionReader) => {
  const cloud = await (await import('../gltf/parse')).parseGltf(bytes, options, companion);
  options.onProgress?.(1);
  return cloud;
};

export const GLB: SplatFormat<'glb'> = {
  id: 'glb',
  label: 'GLB',
  extensions: ['.glb'],
  signature: "a GLB magic 'glTF'",
  sniff: (bytes, { partial }) => (isGlb(bytes) ? 'yes' : partial && bytes.length < 4 ? 'more' : 'no'),
  read,
  writer: {
    write: async (cloud) => (await import('../writers/glb')).writeGlb(cloud),
    keeps: 'every value, exactly, SH included, but not an anti-aliasing flag; points in glTF viewers without the extension',
  },
};

export const GLTF: SplatFormat<'gltf'> = {
  id: 'gltf',
  label: 'glTF',
  extensions: ['.gltf'],
  byName: true,
  read,
  companions: {
    extensions: ['.bin'],
    what: 'buffers',
    read: (main, companion, options) => read(main, options, companion),
  },
};

/**
 * glTF 2.0 with KHR_gaussian_splatting, in its two files: a binary .glb,
 * known by its 'glTF' magic, and a .gltf JSON text, known by its name (JSON
 * alone says too little), opened with the .bin files its buffers name
 * (from beside its URL, or among the files opened with it), or alone when
 * its buffers are embedded. Both are read by gltf/; scenes are saved as
 * .glb (writers/glb.ts), the one file that holds its buffers without
 * base64. DOM-free.
 */
import type { SplatFormat } from './format';

export const GLB: SplatFormat<'glb'> = {
  id: 'glb',
  label: 'GLB',
  extensions: ['.glb'],
  writer: {
    write: async (cloud) => (await import('../writers/glb')).writeGlb(cloud),
    keeps: 'every value, exactly, SH included, and gsplat\'s anti-aliasing flag (in the extension\'s extras); points in glTF viewers without the extension',
  },
};

export const GLTF: SplatFormat<'gltf'> = {
  id: 'gltf',
  label: 'glTF',
  extensions: ['.gltf'],
  companions: { extensions: ['.bin'], what: 'buffers', alone: true },
};

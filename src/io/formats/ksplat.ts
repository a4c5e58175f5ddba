/**
 * GaussianSplats3D .ksplat: no magic, so it is known by a header whose
 * counts agree with each other and the file's length (a file still arriving
 * shows only its version bytes), or by its name. DOM-free.
 */
import type { SplatFormat } from './format';

export const KSPLAT: SplatFormat<'ksplat'> = {
  id: 'ksplat',
  label: '.ksplat',
  extensions: ['.ksplat'],
};

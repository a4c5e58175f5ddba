/**
 * The byte layouts of the radix sort's small buffers (shaders/radix_structs.wgsl),
 * described once: src/sort/gpu-radix-sort.ts sizes and fills its buffers
 * from these, and tests/unit/wgsl-layouts.test.ts checks the WGSL against them.
 */
import { defineStruct } from '../gpu/struct-layout';

export const COUNT_SOURCE = defineStruct('CountSource', [
  ['count', 'u32'],
  ['capacity', 'u32'],
]);

export const CONTROL = defineStruct('Control', [
  ['n', 'u32'],
  ['num_tiles', 'u32'],
  ['tiles_x', 'u32'],
  ['block_tiles', 'u32'],
]);

export const DISPATCH_ARGS = defineStruct('DispatchArgs', [
  ['x', 'u32'],
  ['y', 'u32'],
  ['z', 'u32'],
  ['scan_x', 'u32'],
  ['scan_y', 'u32'],
  ['scan_z', 'u32'],
]);

export const PASS = defineStruct('Pass', [
  ['shift', 'u32'],
  ['mask', 'u32'],
  ['index', 'u32'],
]);

/**
 * The byte layouts of the radix sort's small buffers (shaders/radix_structs.wgsl)
 * and the slots of its bind groups, described once: src/sort/radix-buffers.ts
 * sizes, fills and binds its buffers from these, src/sort/radix-pipelines.ts
 * lays out its bind groups from them, and tests/unit/wgsl-layouts.test.ts
 * checks the WGSL against them.
 */
import { defineStruct } from '../gpu/struct-layout';
import { defineBindSlots } from '../gpu/bind-slots';

export const COUNT_SOURCE = defineStruct('CountSource', [
  ['offset', 'u32'],
  ['capacity', 'u32'],
  ['bound', 'u32'],
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

/**
 * The prepare step's group (its module: radix_structs.wgsl, then
 * radix_prepare.wgsl; src/sort/radix-shaders.ts).
 */
export const RADIX_PREPARE_SLOTS = defineBindSlots('GpuRadixSort.prepare', ['radix_structs.wgsl', 'radix_prepare.wgsl'], {
  source: 0,
  control: 1,
  dispatch: 2,
  count_words: 3,
  block_sums: 4,
});

/**
 * The group every phase of a radix pass binds (one layout, one bind group
 * per ping-pong direction), as the count and scatter modules declare it:
 * radix_common.wgsl's variables, then the phase's own file.
 */
export const RADIX_PASS_SLOTS = defineBindSlots(
  'GpuRadixSort.pass',
  ['radix_structs.wgsl', 'radix_common.wgsl', 'radix_count.wgsl', 'radix_scatter.wgsl', 'radix_scatter_subgroup.wgsl'],
  { keys_in: 0, values_in: 1, keys_out: 2, values_out: 3, counts: 4, block_sums: 5, control: 6, pass_info: 7 },
);

/**
 * The same group as the scan module sees it: radix_scan.wgsl reads the
 * counts and block sums four words at a time through variables of its own
 * at their bindings, so its slots are the pass's with those two renamed.
 */
const { counts, block_sums, ...passShared } = RADIX_PASS_SLOTS.slots;
export const RADIX_SCAN_SLOTS = defineBindSlots('GpuRadixSort.scan', ['radix_structs.wgsl', 'radix_common.wgsl', 'radix_scan.wgsl'], {
  ...passShared,
  counts4: counts,
  block_sums4: block_sums,
});

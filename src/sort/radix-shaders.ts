/** WGSL sources of the radix sort, assembled with the layout's prelude. */
import structsSource from '../../shaders/radix_structs.wgsl?raw';
import prepareSource from '../../shaders/radix_prepare.wgsl?raw';
import dispatchSource from '../../shaders/dispatch.wgsl?raw';
import commonSource from '../../shaders/radix_common.wgsl?raw';
import countSource from '../../shaders/radix_count.wgsl?raw';
import scanSource from '../../shaders/radix_scan.wgsl?raw';
import scatterSource from '../../shaders/radix_scatter.wgsl?raw';
import subgroupScatterSource from '../../shaders/radix_scatter_subgroup.wgsl?raw';
import { radixPrelude, type RadixLayout } from './radix-layout';
import { unrollConstantLoops } from '../gpu/wgsl-unroll';

export interface RadixShaderSources {
  prepare: string;
  count: string;
  scan: string;
  scatter: string;
}

export function radixShaderSources(layout: RadixLayout): RadixShaderSources {
  const prelude = `${radixPrelude(layout)}\n${structsSource}`;
  const phase = (body: string) => `${prelude}\n${dispatchSource}\n${commonSource}\n${body}`;
  // Unrolled in the source (wgsl-unroll.ts) where that measured faster on an H100.
  const unrolled = (body: string) => unrollConstantLoops(phase(body));
  return {
    prepare: `${prelude}\n${prepareSource}`,
    count: phase(countSource),
    scan: unrolled(scanSource),
    scatter: layout.ranking === 'subgroup' ? unrolled(subgroupScatterSource) : phase(scatterSource),
  };
}

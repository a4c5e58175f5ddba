/** WGSL sources of the radix sort, assembled with the layout's prelude. */
import structsSource from '../../shaders/radix_structs.wgsl?raw';
import prepareSource from '../../shaders/radix_prepare.wgsl?raw';
import commonSource from '../../shaders/radix_common.wgsl?raw';
import histogramSource from '../../shaders/radix_histogram.wgsl?raw';
import countSource from '../../shaders/radix_count.wgsl?raw';
import scanSource from '../../shaders/radix_scan.wgsl?raw';
import shortScanSource from '../../shaders/radix_scan_short.wgsl?raw';
import scatterSource from '../../shaders/radix_scatter.wgsl?raw';
import subgroupScatterSource from '../../shaders/radix_scatter_subgroup.wgsl?raw';
import { radixPrelude, type RadixLayout } from './radix-layout';
import { unrollConstantLoops } from '../gpu/wgsl-unroll';

export interface RadixShaderSources {
  prepare: string;
  histogram: string;
  count: string;
  scan: string;
  shortScan: string;
  scatter: string;
}

export function radixShaderSources(layout: RadixLayout): RadixShaderSources {
  const prelude = `${radixPrelude(layout)}\n${structsSource}`;
  const phase = (body: string) => `${prelude}\n${commonSource}\n${body}`;
  // Unrolled in the source (wgsl-unroll.ts) where that measured faster on an H100.
  const unrolled = (body: string) => unrollConstantLoops(phase(body));
  return {
    prepare: `${prelude}\n${prepareSource}`,
    histogram: unrolled(histogramSource),
    count: phase(countSource),
    scan: phase(scanSource),
    shortScan: phase(shortScanSource),
    scatter: layout.ranking === 'subgroup' ? unrolled(subgroupScatterSource) : phase(scatterSource),
  };
}

/**
 * The check a device's subgroup ranking must pass before a sorter uses it:
 * subgroup behaviour varies more across drivers than the rest of WebGPU
 * (subgroup sizes, how lanes map to invocations, whether subgroups are
 * full), so the sort is run on inputs that exercise what the ranking relies
 * on and compared pair by pair with the CPU sort. DOM-free.
 */
import { CpuRadixSort } from './cpu-sort';
import type { RadixLayout } from './radix-layout';
import type { SortedBuffers } from './radix-buffers';
import type { SortEncodeOptions } from './radix-encode';
import { identityValues, makeKeys, type KeyPattern } from './test-keys';
import { readBufferU32 } from '../gpu/readback';

/**
 * What the check needs of a sorter: GpuRadixSort, described here so that
 * the sorter can call the check without the two files importing each other.
 */
export interface SorterUnderCheck {
  readonly layout: Pick<RadixLayout, 'tile'>;
  readonly keys: GPUBuffer;
  readonly values: GPUBuffer;
  ensureCapacity(capacity: number): boolean;
  encode(encoder: GPUCommandEncoder, options: SortEncodeOptions): SortedBuffers;
  destroy(): void;
}

/**
 * Several tiles and a partial one (ranks across subgroups and tiles), random
 * 32-bit keys (every digit), keys whose high digits are all equal (every
 * lane of a subgroup round matches) and a short last digit.
 */
function checkCases(tile: number): { n: number; keyBits: number; pattern: KeyPattern }[] {
  return [
    { n: 3 * tile + 37, keyBits: 32, pattern: 'random' },
    { n: 2 * tile + 5, keyBits: 16, pattern: 'low-bits' },
    { n: tile - 3, keyBits: 13, pattern: 'random' },
  ];
}

/**
 * Whether a sorter made by `makeSorter` (with the subgroup ranking) sorts the
 * check cases exactly as the CPU does. Never throws: a shader the device
 * refuses or a wrong order is a "no", with the reason logged.
 */
export async function checkSubgroupRanking(device: GPUDevice, makeSorter: () => Promise<SorterUnderCheck>): Promise<boolean> {
  let sorter: SorterUnderCheck | undefined;
  try {
    sorter = await makeSorter();
    for (const { n, keyBits, pattern } of checkCases(sorter.layout.tile)) {
      const keys = makeKeys(pattern, n, n);
      const values = identityValues(n);
      sorter.ensureCapacity(n);
      device.queue.writeBuffer(sorter.keys, 0, keys);
      device.queue.writeBuffer(sorter.values, 0, values);
      const encoder = device.createCommandEncoder({ label: 'subgroupCheck.encoder' });
      const out = sorter.encode(encoder, { count: n, keyBits });
      device.queue.submit([encoder.finish()]);
      const [gotKeys, gotValues] = [await readBufferU32(device, out.keys, n), await readBufferU32(device, out.values, n)];
      new CpuRadixSort(n).sort(keys, values, n, keyBits);
      for (let i = 0; i < n; i++) {
        if (gotKeys[i] !== keys[i] || gotValues[i] !== values[i]) {
          console.warn(`GPU sort: the subgroup ranking sorted ${n} ${pattern} ${keyBits}-bit keys wrongly (first at ${i}); using the portable ranking`);
          return false;
        }
      }
    }
    return true;
  } catch (error) {
    console.warn(`GPU sort: the subgroup ranking is unavailable (${error instanceof Error ? error.message : String(error)}); using the portable ranking`);
    return false;
  } finally {
    sorter?.destroy();
  }
}

/** One verdict per device on the subgroup ranking. */
const verdicts = new WeakMap<GPUDevice, Promise<boolean>>();

/**
 * Whether this device has subgroups and the subgroup ranking passes
 * checkSubgroupRanking; decided once per device (the first call's
 * `makeSorter` builds the sorter checked).
 */
export function subgroupRankingVerdict(device: GPUDevice, makeSorter: () => Promise<SorterUnderCheck>): Promise<boolean> {
  let verdict = verdicts.get(device);
  if (!verdict) {
    verdict = device.features.has('subgroups') ? checkSubgroupRanking(device, makeSorter) : Promise.resolve(false);
    verdicts.set(device, verdict);
  }
  return verdict;
}

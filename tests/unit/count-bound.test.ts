/** Which devices sort GPU counts under a bound (src/sort/count-bound.ts): hardware adapters do, software ones not. */
import { describe, expect, it } from 'vitest';
import { boundsGpuCounts } from '../../src/sort/count-bound';
import { isSoftwareAdapterInfo } from '../../src/gpu/software-adapter';

const info = (fields: Partial<GPUAdapterInfo> & { isFallbackAdapter?: boolean }) => ({ vendor: '', architecture: '', device: '', description: '', ...fields }) as GPUAdapterInfo;
const deviceOf = (adapterInfo: GPUAdapterInfo | undefined) => ({ adapterInfo }) as unknown as GPUDevice;

describe('software adapters', () => {
  it('are told by the fallback flag or by name', () => {
    expect(isSoftwareAdapterInfo(info({ isFallbackAdapter: true, vendor: 'nvidia' }))).toBe(true);
    expect(isSoftwareAdapterInfo(info({ vendor: 'google', architecture: 'swiftshader' }))).toBe(true);
    expect(isSoftwareAdapterInfo(info({ description: 'llvmpipe (LLVM 15.0.6, 256 bits)' }))).toBe(true);
    expect(isSoftwareAdapterInfo(info({ vendor: 'nvidia', description: 'NVIDIA: 580.159.04' }))).toBe(false);
    expect(isSoftwareAdapterInfo(undefined)).toBe(false);
  });
});

describe('sorts of GPU counts', () => {
  it('are dispatched for their bound on a GPU, and from their count on a software adapter, decided once per device', () => {
    expect(boundsGpuCounts(deviceOf(info({ vendor: 'nvidia', architecture: 'hopper' })))).toBe(true);
    expect(boundsGpuCounts(deviceOf(info({ isFallbackAdapter: true })))).toBe(false);
    const changing = deviceOf(info({ vendor: 'apple' }));
    expect(boundsGpuCounts(changing)).toBe(true);
    (changing as unknown as { adapterInfo: GPUAdapterInfo }).adapterInfo = info({ architecture: 'swiftshader' });
    expect(boundsGpuCounts(changing)).toBe(true);
  });
});

/**
 * What to do when Node finds no GPU adapter (the render and convert
 * commands, the benchmarks, the GPU tests): Dawn reaches the GPU through a
 * Vulkan driver, and a machine without a GPU can use SwiftShader's, which
 * Debian's chromium package ships. Says which case this is: no driver
 * named, a named driver file that is not there, or one that gave no
 * adapter. No GPU, no Node APIs: the caller passes what it found.
 */

/** Where Debian's chromium package puts SwiftShader's Vulkan driver manifest. */
export const SWIFTSHADER_ICD = '/usr/lib/chromium/vk_swiftshader_icd.json';

export interface VulkanSetting {
  /** The VK_ICD_FILENAMES the process was started with, if any. */
  icdFilenames: string | undefined;
  /** Whether a file exists at a path. */
  exists: (path: string) => boolean;
}

/** The message for a process that found no GPU adapter. */
export function noAdapterAdvice({ icdFilenames, exists }: VulkanSetting): string {
  const named = icdFilenames?.split(':').filter((path) => path !== '') ?? [];
  const missing = named.filter((path) => !exists(path));
  const base = 'no GPU adapter was found: WebGPU in Node (Dawn) reaches the GPU through a Vulkan driver';
  if (missing.length > 0) return `${base}, and VK_ICD_FILENAMES names ${missing.join(', ')}, which ${missing.length === 1 ? 'is' : 'are'} not there`;
  if (named.length > 0) return `${base}, and the driver VK_ICD_FILENAMES names (${named.join(', ')}) gave none: check that it is a Vulkan driver for this machine`;
  const swiftShader = exists(SWIFTSHADER_ICD)
    ? `on a machine without a GPU, run with SwiftShader's: VK_ICD_FILENAMES=${SWIFTSHADER_ICD}`
    : `on a machine without a GPU, install Debian's chromium package (apt install chromium libvulkan1) and run with VK_ICD_FILENAMES=${SWIFTSHADER_ICD}`;
  return `${base}; install the GPU's Vulkan driver, or ${swiftShader}`;
}

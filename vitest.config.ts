import { defineConfig } from 'vitest/config';

// The GPU tests run on Dawn (the `webgpu` package) over SwiftShader's Vulkan
// driver, which Debian's chromium package ships. The variable must be set
// before the test workers start, so it is set here rather than in a test.
const swiftShaderIcd = '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.VK_ICD_FILENAMES ??= swiftShaderIcd;

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    // Native addon (Dawn) + long GPU tests: separate processes, generous timeouts.
    pool: 'forks',
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});

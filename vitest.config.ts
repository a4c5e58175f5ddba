import { configDefaults, defineConfig } from 'vitest/config';

// The GPU tests run on Dawn (the `webgpu` package) over SwiftShader's Vulkan
// driver, which Debian's chromium package ships. The variable must be set
// before the test workers start, so it is set here rather than in a test.
const swiftShaderIcd = '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.VK_ICD_FILENAMES ??= swiftShaderIcd;

const BROWSER_TESTS = 'tests/e2e/**/*.test.ts';

export default defineConfig({
  test: {
    // Native addon (Dawn) + long GPU tests: separate processes, generous timeouts.
    pool: 'forks',
    testTimeout: 300_000,
    hookTimeout: 300_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['tests/**/*.test.ts'],
          exclude: [...configDefaults.exclude, BROWSER_TESTS],
        },
      },
      {
        // The browser tests run after the others, one file at a time: a page
        // that draws keeps Chromium's GPU process (SwiftShader) busy on every
        // core, so a browser test beside a Dawn/SwiftShader test or another
        // browser test slows both, on a machine with few cores past their
        // limits. (On 2 cores vitest runs one file at a time anyway.)
        extends: true,
        test: {
          name: 'browser',
          include: [BROWSER_TESTS],
          // The page built and served once for every browser test file.
          globalSetup: ['tests/e2e/global-setup.ts'],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});

import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

// The GPU tests run on Dawn (the `webgpu` package) over SwiftShader's Vulkan
// driver, which Debian's chromium package ships. The variable must be set
// before the test workers start, so it is set here rather than in a test.
const swiftShaderIcd = '/usr/lib/chromium/vk_swiftshader_icd.json';
process.env.VK_ICD_FILENAMES ??= swiftShaderIcd;

// Dawn polled every 1 ms instead of in a busy loop (src/gpu/dawn-polling.mjs:
// about half of a GPU process's CPU went to the loop), in every Node process
// the test workers start, the commands tests run included (`node
// render.mjs ...`, tests/support/node-tools.ts). (The node project's setup file
// also imports it; importing it twice installs it once.)
const dawnPolling = new URL('./src/gpu/dawn-polling.mjs', import.meta.url).href;
if (!process.env.NODE_OPTIONS?.includes(dawnPolling)) {
  process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, `--import=${dawnPolling}`].filter(Boolean).join(' ');
}

const BROWSER_TESTS = 'tests/e2e/**/*.test.ts';

/**
 * The node files that take longest, longest first. They start before the
 * rest so that neither worker is left running one of them alone at the
 * end: a fresh clone has no timings of an earlier run for vitest to order
 * by, and would order by file size. (Measured on 2 busy cores in a fresh
 * clone: the render command 288 s, the GPU sort 175 s, the per-pixel
 * order 110–180 s, the 152k-splat frame 29 s.)
 */
const LONGEST_FIRST = ['tests/gpu/render-command.test.ts', 'tests/gpu/gpu-radix-sort.test.ts', 'tests/gpu/pixel-order.test.ts', 'tests/gpu/splat-frame.test.ts'];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification) => {
      const known = LONGEST_FIRST.findIndex((path) => file.moduleId.endsWith(path));
      return known < 0 ? LONGEST_FIRST.length : known;
    };
    const sorted = await super.sort(files);
    return sorted.map((file, at) => ({ file, at })).sort((a, b) => rank(a.file) - rank(b.file) || a.at - b.at).map(({ file }) => file);
  }
}

export default defineConfig({
  test: {
    // Native addon (Dawn) + long GPU tests: separate processes, generous timeouts.
    pool: 'forks',
    testTimeout: 300_000,
    hookTimeout: 300_000,
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['tests/**/*.test.ts'],
          exclude: [...configDefaults.exclude, BROWSER_TESTS],
          setupFiles: ['src/gpu/dawn-polling.mjs', 'tests/support/no-uncaptured-gpu-errors.ts'],
          // Two files at a time, one a core: most of a file's time is one
          // thread (JavaScript, or Dawn feeding SwiftShader), and vitest's
          // default on 2 cores is one file at a time.
          maxWorkers: 2,
        },
      },
      {
        // The browser tests run after the others, one file at a time: a page
        // that draws keeps Chromium's GPU process (SwiftShader) busy on every
        // core, so a browser test beside a Dawn/SwiftShader test or another
        // browser test slows both, on a machine with few cores past their
        // limits.
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

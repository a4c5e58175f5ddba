/**
 * Builds the loader harness's worker bundle (tests/support/fuzz.ts with the
 * loaders it drives), or another worker thread's module, with vite, for
 * tests: worker threads cannot load TypeScript. Kept apart from the
 * harness so that the bundle never pulls in vite itself.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
/**
 * Inside the repository, so that the bundle finds node_modules from where it
 * lies (the WebP codecs read their wasm files from there).
 */
const cacheDir = resolve(repoRoot, 'node_modules/.cache');

/**
 * Builds the bundle into a fresh temporary folder; returns its path. A few
 * seconds. `entry` builds another module for a worker thread instead (a
 * path from the project root), named as its file is with .mjs.
 */
export async function buildHarness(entry = 'tests/support/fuzz.ts'): Promise<string> {
  const name = basename(entry, '.ts');
  mkdirSync(cacheDir, { recursive: true });
  const outDir = mkdtempSync(join(cacheDir, 'splatsort-harness-'));
  await build({
    configFile: false,
    root: repoRoot,
    logLevel: 'warn',
    build: {
      ssr: true,
      outDir,
      emptyOutDir: false,
      target: 'node20',
      minify: false,
      rollupOptions: {
        input: { [name]: resolve(repoRoot, entry) },
        external: [...builtinModules, ...builtinModules.map((m) => `node:${m}`)],
        output: { format: 'es', entryFileNames: '[name].mjs' },
      },
    },
    ssr: { noExternal: true },
  });
  return join(outDir, `${name}.mjs`);
}

/** Removes a bundle that buildHarness made (its whole temporary folder). */
export function removeHarness(bundle: string): void {
  const dir = dirname(bundle);
  if (dir.startsWith(cacheDir)) rmSync(dir, { recursive: true, force: true });
}

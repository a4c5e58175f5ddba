/**
 * Builds the loader harness's worker bundle (tests/support/fuzz.ts with the
 * loaders it drives) with vite, for tests: worker threads cannot load
 * TypeScript. Kept apart from the harness so that the bundle never pulls in
 * vite itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

/** Builds the bundle into a fresh temporary folder; returns its path. A few seconds. */
export async function buildHarness(): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), 'splatsort-harness-'));
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
        input: { fuzz: resolve(repoRoot, 'tests/support/fuzz.ts') },
        external: [...builtinModules, ...builtinModules.map((m) => `node:${m}`)],
        output: { format: 'es', entryFileNames: '[name].mjs' },
      },
    },
    ssr: { noExternal: true },
  });
  return join(outDir, 'fuzz.mjs');
}

/** Removes a bundle that buildHarness made (its whole temporary folder). */
export function removeHarness(bundle: string): void {
  const dir = dirname(bundle);
  if (dir.startsWith(tmpdir())) rmSync(dir, { recursive: true, force: true });
}

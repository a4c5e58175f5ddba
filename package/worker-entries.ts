import { dirname, resolve } from 'node:path';
import type { Plugin } from 'vite';

/**
 * The package's workers as entries of its own build, beside index.js and
 * element.js, where vite's worker plugin would bundle each whole, apart:
 * a worker then shares the package's chunks (the format decoders, the
 * splat arrays' code) instead of holding copies of them, and imports the
 * package's dependencies instead of inlining them (the WebP decoder's wasm
 * among them, base64 in the JavaScript).
 *
 * The page that installs the package bundles it, and its bundler bundles
 * the workers too: it finds each one by the form that vite and webpack
 * both know, `new Worker(new URL('./load-worker.js', import.meta.url),
 * { type: 'module' })`, which is what the package's modules hold. So the
 * source's `new URL('./load-worker.ts', import.meta.url)` in a
 * `new Worker(…)` becomes a reference to the emitted entry (which vite's
 * worker plugin does not take for a worker of its own), and that
 * reference is written back in this form, with the entry's path from the
 * chunk it ends in.
 */
export function workerEntries(): Plugin {
  const workerUrl = /\bnew\s+Worker\s*\(\s*(new\s+URL\s*\(\s*(['"])(\.[^'"]+)\2\s*,\s*import\.meta\.url\s*\))/dg;
  const emitted = new Set<string>();
  return {
    name: 'splatsort-worker-entries',
    enforce: 'pre',
    apply: 'build',
    transform(code, id) {
      if (!code.includes('new Worker')) return null;
      let result = '';
      let at = 0;
      for (const match of code.matchAll(workerUrl)) {
        const [start, end] = match.indices![1]!;
        const file = resolve(dirname(id), match[3]!);
        // The entry is an ES module: a classic worker could not run it.
        if (!/^\s*,\s*\{[^}]*\btype\s*:\s*['"]module['"]/.test(code.slice(end))) {
          this.error(`${id}: the worker ${match[3]} must be made with { type: 'module' }, as the package's workers are ES modules`);
        }
        const name = file.replace(/^.*\//, '').replace(/\.ts$/, '');
        const referenceId = this.emitFile({ type: 'chunk', id: file, name });
        emitted.add(referenceId);
        // Padded to the length it replaces: the rest of the line keeps its columns, so no source map is needed.
        result += code.slice(at, start) + `import.meta.ROLLUP_FILE_URL_${referenceId}`.padEnd(end - start);
        at = end;
      }
      return at === 0 ? null : { code: result + code.slice(at), map: null };
    },
    resolveFileUrl({ referenceId, relativePath }) {
      if (!emitted.has(referenceId)) return null;
      const path = relativePath.startsWith('.') ? relativePath : `./${relativePath}`;
      return `new URL(${JSON.stringify(path)}, import.meta.url)`;
    },
  };
}

/**
 * The package other pages install (npm run build:lib, package/): every
 * entry package.json's `exports` names is built, with its declarations;
 * the built modules import nothing but their own chunks and the package's
 * dependencies; the core entry (the viewer, before any scene) stays
 * within its size budget; a page built with vite from the package bundles
 * every worker the package makes, and all of the package it holds stays
 * within the whole package's budget; and the API reference (TypeDoc, from
 * the entries' types: npm run docs:api) builds with no warning, a page for
 * each public name.
 */
import { beforeAll, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const DIST = join(ROOT, 'lib-dist');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; import: string }>; dependencies: Record<string, string> };
/** What a page downloads for the viewer before its first scene, gzipped, at most. */
const CORE_BUDGET_BYTES = 100 * 1024;
/** All the JavaScript of the package in a page (every entry, format, chunk and worker, its dependencies once each), gzipped, at most; the WebP decoder's wasm aside. */
const WHOLE_BUDGET_BYTES = 300 * 1024;

beforeAll(() => {
  const require = createRequire(join(ROOT, 'package.json'));
  const vite = join(dirname(require.resolve('vite/package.json')), 'bin/vite.js');
  execFileSync(process.execPath, [vite, 'build', '--config', 'package/vite.config.ts', '--logLevel', 'error'], { cwd: ROOT, stdio: 'pipe' });
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'package/tsconfig.json'], { cwd: ROOT, stdio: 'pipe' });
}, 120_000);

/** The static imports of a built module (import … from "x", export … from "x", import "x"). */
function staticImports(code: string): string[] {
  return [...code.matchAll(/(?:^|[;\s])(?:import|export)\s*(?:[^'";]*?\sfrom\s*)?["']([^"']+)["']/g)].map((m) => m[1]!);
}

test("every entry of package.json's exports is built, with its declarations", () => {
  expect(Object.keys(pkg.exports).sort()).toEqual(['.', './element', './engine']);
  for (const [entry, { types, import: module }] of Object.entries(pkg.exports)) {
    expect(existsSync(join(ROOT, module)), `${entry}: ${module}`).toBe(true);
    expect(existsSync(join(ROOT, types)), `${entry}: ${types}`).toBe(true);
  }
  const index = readFileSync(join(ROOT, pkg.exports['.']!.types), 'utf8');
  expect(index).toMatch(/export \{ createViewer \}/);
  const viewer = readFileSync(join(DIST, 'types/lib/create-viewer.d.ts'), 'utf8');
  expect(viewer).toMatch(/export declare function createViewer\(container: HTMLElement, options\?: CreateViewerOptions\): Promise<SplatViewer>;/);
  expect(readFileSync(join(ROOT, pkg.exports['./element']!.types), 'utf8')).toMatch(/export declare class SplatViewerElement extends HTMLElement/);
  const engine = readFileSync(join(ROOT, pkg.exports['./engine']!.types), 'utf8');
  expect(engine).toMatch(/export declare function createSplatRenderer\(device: GPUDevice, options: SplatRendererOptions\): Promise<SplatRenderer>;/);
  // The engine entry's types name no class of the viewer's own.
  expect(engine).not.toMatch(/FrameEngine|SplatFrame|GpuSplats/);
});

test("the declarations a page sees (the entries' and those they import) are plain data and the public names: no class of the viewer's insides", () => {
  const seen = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/from ['"](\.[^'"]+)['"]/g)) {
      const path = resolve(dirname(file), specifier!.replace(/\.js$/, ''));
      visit(existsSync(`${path}.d.ts`) ? `${path}.d.ts` : join(path, 'index.d.ts'));
    }
  };
  for (const { types } of Object.values(pkg.exports)) visit(join(ROOT, types));
  expect(seen.size).toBeGreaterThan(3);
  const classes: string[] = [];
  for (const file of seen) {
    const text = readFileSync(file, 'utf8');
    classes.push(...[...text.matchAll(/declare class (\w+)/g)].map((m) => m[1]!));
    // The viewer's inner classes, and the internal modules that hold them, are named nowhere a page looks.
    expect(text, file).not.toMatch(/\b(Viewer|FrameEngine|OrbitCamera|CameraRig|SplatLoader|SplatCloud|GpuSplats|WorldSession)\b|\/app\/|\/render\//);
  }
  expect(classes.sort()).toEqual(['SplatViewerElement', 'WebGpuUnavailableError']);
});

test('the API reference builds from the types with no warning (a broken link fails it), a page for each public name', () => {
  const require = createRequire(join(ROOT, 'package.json'));
  const typedoc = join(dirname(require.resolve('typedoc/package.json')), 'bin/typedoc');
  execFileSync(process.execPath, [typedoc, '--options', 'package/typedoc.json', '--logLevel', 'Warn'], { cwd: ROOT, stdio: 'pipe' });
  const docs = join(DIST, 'docs');
  for (const page of ['functions/index.createViewer.html', 'interfaces/index.SplatViewer.html', 'interfaces/index.SplatViewerEvents.html', 'interfaces/index.CreateViewerOptions.html', 'classes/element.SplatViewerElement.html', 'functions/engine.createSplatRenderer.html', 'interfaces/engine.SplatRenderer.html']) {
    expect(existsSync(join(docs, page)), page).toBe(true);
  }
  expect(readFileSync(join(docs, 'interfaces/index.SplatViewer.html'), 'utf8')).toMatch(/Frees everything the viewer made/);
}, 120_000);

test("the core entry imports only its own chunks and the package's dependencies, and stays within its size budget gzipped", () => {
  const seen = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string): void => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of staticImports(readFileSync(file, 'utf8'))) {
      if (specifier.startsWith('.')) visit(resolve(dirname(file), specifier));
      else bare.add(specifier);
    }
  };
  visit(join(ROOT, pkg.exports['.']!.import));
  for (const specifier of bare) expect(Object.keys(pkg.dependencies).some((dep) => specifier === dep || specifier.startsWith(`${dep}/`)), specifier).toBe(true);
  for (const file of seen) expect(file.startsWith(DIST), file).toBe(true);
  const gzipped = [...seen].reduce((total, file) => total + gzipSync(readFileSync(file), { level: 9 }).length, 0);
  console.log(`the core entry before its first scene: ${seen.size} modules, ${(gzipped / 1024).toFixed(1)} KB gzipped (budget ${CORE_BUDGET_BYTES / 1024} KB; its dependencies are the page's to bundle: ${[...bare].join(', ')})`);
  expect(seen.size).toBeGreaterThan(1);
  expect(gzipped).toBeLessThan(CORE_BUDGET_BYTES);
});

/** What scripts/package-sizes.mjs says of a page built from the package. */
interface PackageSizes {
  rows: { group: 'entry' | 'lazy' | 'worker'; name: string; files: number; raw: number; gzip: number }[];
  total: { files: number; raw: number; gzip: number };
  wasm: { files: number; raw: number; gzip: number };
}

/** The workers the source makes, by the module each runs (`new Worker(new URL('./load-worker.ts', import.meta.url), …)`). */
function sourceWorkers(dir = join(ROOT, 'src')): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .flatMap((entry) => [...readFileSync(join(entry.parentPath, entry.name), 'utf8').matchAll(/new Worker\(new URL\('\.\/([\w-]+)\.ts', import\.meta\.url\)/g)].map((m) => m[1]!));
}

test("a page built with vite from the package bundles each of its workers, and all the package's JavaScript there stays within the whole package's budget gzipped", () => {
  const out = execFileSync(process.execPath, [join(ROOT, 'scripts/bundle-sizes.mjs'), '--json'], { cwd: ROOT, encoding: 'utf8' });
  const sizes = JSON.parse(out) as PackageSizes;
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  for (const row of sizes.rows) console.log(`${row.group} ${row.name}: ${row.files} files, ${kb(row.gzip)} gzipped`);
  console.log(`the whole package in a page: ${sizes.total.files} files, ${kb(sizes.total.gzip)} gzipped (budget ${WHOLE_BUDGET_BYTES / 1024} KB); the WebP decoder's wasm apart: ${kb(sizes.wasm.gzip)}`);
  // A worker whose URL the page's bundler cannot follow is left out of the page, to fail when the viewer starts it.
  const workers = sizes.rows.filter((row) => row.group === 'worker' && row.files > 0).map((row) => row.name);
  expect(workers.sort()).toEqual([...new Set(sourceWorkers())].sort());
  expect(sizes.rows.find((row) => row.group === 'entry' && row.name === 'index')!.gzip).toBeLessThan(CORE_BUDGET_BYTES);
  // The wasm is a file of its own, loaded by its URL: not base64 in the JavaScript.
  expect(sizes.wasm.files).toBe(1);
  expect(sizes.total.gzip).toBeGreaterThan(sizes.rows.find((row) => row.name === 'index')!.gzip);
  expect(sizes.total.gzip).toBeLessThan(WHOLE_BUDGET_BYTES);
}, 120_000);

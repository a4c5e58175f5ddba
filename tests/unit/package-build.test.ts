/**
 * The package other pages install (npm run build:lib, package/): every
 * entry package.json's `exports` names is built, with its declarations;
 * the built modules import nothing but their own chunks and the package's
 * dependencies; the core entry (the viewer, before any scene) stays
 * within its size budget; and the API reference (TypeDoc, from the
 * entries' types: npm run docs:api) builds with no warning, a page for
 * each public name.
 */
import { beforeAll, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const ROOT = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
const DIST = join(ROOT, 'lib-dist');
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; import: string }>; dependencies: Record<string, string> };
/** What a page downloads for the viewer before its first scene, gzipped, at most. */
const CORE_BUDGET_BYTES = 100 * 1024;

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
  expect(Object.keys(pkg.exports).sort()).toEqual(['.', './element']);
  for (const [entry, { types, import: module }] of Object.entries(pkg.exports)) {
    expect(existsSync(join(ROOT, module)), `${entry}: ${module}`).toBe(true);
    expect(existsSync(join(ROOT, types)), `${entry}: ${types}`).toBe(true);
  }
  const index = readFileSync(join(ROOT, pkg.exports['.']!.types), 'utf8');
  expect(index).toMatch(/export \{ createViewer \}/);
  const viewer = readFileSync(join(DIST, 'types/lib/create-viewer.d.ts'), 'utf8');
  expect(viewer).toMatch(/export declare function createViewer\(container: HTMLElement, options\?: CreateViewerOptions\): Promise<SplatViewer>;/);
  expect(readFileSync(join(ROOT, pkg.exports['./element']!.types), 'utf8')).toMatch(/export declare class SplatViewerElement extends HTMLElement/);
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
  for (const page of ['functions/index.createViewer.html', 'interfaces/index.SplatViewer.html', 'interfaces/index.SplatViewerEvents.html', 'interfaces/index.CreateViewerOptions.html', 'classes/element.SplatViewerElement.html']) {
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

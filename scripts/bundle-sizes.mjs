#!/usr/bin/env node
/**
 * What the page costs to download: builds it (vite, into a temporary
 * folder) and prints, gzipped (level 9, as a server would send it), what
 * the page loads before its first scene (the entry chunk and every chunk
 * it imports statically), what loads when first used (dynamic imports:
 * the format decoders, the tile renderer, the world streamer), the
 * workers and the wasm, and all the JavaScript together. The data files
 * (the default scene) are left out.
 *
 *   node scripts/bundle-sizes.mjs [--json]
 */
import { build } from 'vite';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outDir = mkdtempSync(join(tmpdir(), 'splatsort-sizes-'));
try {
  await build({ root, logLevel: 'warn', build: { outDir, emptyOutDir: true, manifest: true } });
  const manifest = JSON.parse(readFileSync(join(outDir, '.vite/manifest.json'), 'utf8'));
  const bytes = (file) => readFileSync(join(outDir, file));
  const gz = (file) => gzipSync(bytes(file), { level: 9 }).length;
  // The viewer page's entry (the build also makes the examples' pages).
  const entry = 'index.html';
  if (!manifest[entry]?.isEntry) throw new Error('the build has no index.html entry');
  // The entry's static imports, transitively: what loads before the first scene.
  const first = new Set();
  const visit = (key) => {
    if (first.has(key)) return;
    first.add(key);
    for (const next of manifest[key].imports ?? []) visit(next);
  };
  visit(entry);
  // Every file the build wrote for the page (workers are built apart and are not in the manifest); the examples' own entries left out.
  const examples = new Set(Object.entries(manifest).filter(([key, chunk]) => chunk.isEntry && key !== entry).map(([, chunk]) => chunk.file));
  const files = readdirSync(join(outDir, 'assets')).map((name) => `assets/${name}`).filter((file) => !examples.has(file));
  const firstFiles = new Set([...first].map((key) => manifest[key].file));
  const js = files.filter((file) => file.endsWith('.js'));
  const later = js.filter((file) => !firstFiles.has(file));
  const css = [...first].flatMap((key) => manifest[key].css ?? []);
  const wasm = files.filter((file) => file.endsWith('.wasm'));
  const row = (what, list) => [what, list.reduce((t, f) => t + bytes(f).length, 0), list.reduce((t, f) => t + gz(f), 0)];
  const rows = [
    row('before the first scene (the entry and its static imports)', [...firstFiles]),
    row('its CSS', css),
    row('loaded when first used (dynamic imports, workers)', later),
    row('of which the workers', later.filter((file) => /worker/i.test(file))),
    row('all JavaScript', js),
    row('wasm (the WebP decoder)', wasm),
  ];
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(Object.fromEntries(rows.map(([what, raw, zipped]) => [what, { raw, gzip: zipped }]))));
  } else {
    const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
    console.log('| the page | raw | gzipped |\n|---|---:|---:|');
    for (const [what, raw, zipped] of rows) console.log(`| ${what} | ${kb(raw)} | ${kb(zipped)} |`);
  }
} finally {
  rmSync(outDir, { recursive: true, force: true });
}

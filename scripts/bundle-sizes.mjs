#!/usr/bin/env node
/**
 * What a page pays for the package, gzipped (level 9, as a server would
 * send it): scripts/package-sizes.mjs builds the package and a page that
 * imports every entry of it, with vite, and this prints what that page's
 * build holds: each entry before its first scene, each group of chunks
 * loaded when first used, each worker, all the JavaScript together (the
 * package's dependencies included, once each) and, apart, the WebP
 * decoder's wasm. tests/unit/package-build.test.ts holds the budgets.
 *
 *   node scripts/bundle-sizes.mjs [--json]
 */
import { measurePackage } from './package-sizes.mjs';

const sizes = await measurePackage();
if (process.argv.includes('--json')) {
  console.log(JSON.stringify(sizes));
} else {
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  const what = {
    entry: (name) => (name === 'index' ? 'core entry (splatsort), before the first scene' : `${name} entry (splatsort/${name}), beyond the entries above`),
    lazy: (name) => `when first used: ${name}`,
    worker: (name) => `worker: ${name}`,
  };
  const lines = ['| the package in a page | files | raw | gzipped |', '|---|---:|---:|---:|'];
  for (const row of sizes.rows) {
    const cells = row.files === 0 ? ['0', '—', 'none of its own'] : [String(row.files), kb(row.raw), kb(row.gzip)];
    lines.push(`| ${what[row.group](row.name)} | ${cells.join(' | ')} |`);
  }
  lines.push(`| **the whole package: all its JavaScript** | ${sizes.total.files} | ${kb(sizes.total.raw)} | **${kb(sizes.total.gzip)}** |`);
  lines.push(`| the WebP decoder's wasm, apart | ${sizes.wasm.files} | ${kb(sizes.wasm.raw)} | ${kb(sizes.wasm.gzip)} |`);
  console.log(lines.join('\n'));
}

/**
 * What a page pays for the package, measured as a page gets it: the
 * package is built (package/vite.config.ts) into a throwaway project's
 * node_modules/splatsort, beside links to this project's copies of its
 * dependencies, and that project's page, which imports every entry of the
 * package, is built by vite with its defaults. The package's dependencies
 * are external in lib-dist; here they are bundled, once, as in any page.
 *
 * The page's JavaScript is sorted into what loads before the first scene
 * (each entry and its static imports), what loads when first used (the
 * dynamic imports, grouped by what they hold: formats, panel, tile
 * renderer, world streamer) and the workers (which the page's vite bundles
 * apart, each on its own), all gzipped at level 9 as a server would send
 * them. The WebP decoder's wasm is counted apart.
 */
import { build } from 'vite';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

/**
 * What each lazy chunk is, by the module it was made for (the module
 * dynamically imported): a source path of this project, or a dependency's
 * path. The first rule that matches names the group.
 */
const LAZY_GROUPS = [
  ['tile renderer', /^src\/render\/tiles\//],
  ['panel', /^src\/ui\/|\/node_modules\/(lil-gui|stats\.js)\//],
  ['world streamer', /^src\/(app\/world|io\/lod)\//],
  ['formats', /^src\/io\/|\/node_modules\/(fflate|fzstd|meshoptimizer|@jsquash)\//],
];

const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const sizes = (files) => ({ files: files.length, raw: files.reduce((t, f) => t + f.raw, 0), gzip: files.reduce((t, f) => t + f.gzip, 0) });

/** Records each chunk a build writes: its file, the module it was made for and its links to others. */
function recorder(into) {
  return {
    name: 'splatsort-chunk-recorder',
    generateBundle(_, bundle) {
      for (const out of Object.values(bundle)) into.set(out.fileName, out);
    },
  };
}

/** The throwaway project: package.json, node_modules with the package (to be built) and links to its dependencies. */
function makeConsumer(dir) {
  const packageDir = join(dir, 'node_modules/splatsort');
  mkdirSync(packageDir, { recursive: true });
  copyFileSync(join(root, 'package.json'), join(packageDir, 'package.json'));
  for (const dep of Object.keys(pkg.dependencies)) {
    mkdirSync(dirname(join(dir, 'node_modules', dep)), { recursive: true });
    symlinkSync(join(root, 'node_modules', dep), join(dir, 'node_modules', dep), 'dir');
  }
  // One page module per entry of the package, each kept by a side effect.
  const entries = {};
  for (const entry of Object.keys(pkg.exports)) {
    const name = entry === '.' ? 'index' : entry.slice(2);
    const specifier = entry === '.' ? 'splatsort' : `splatsort/${entry.slice(2)}`;
    writeFileSync(join(dir, `${name}.js`), `import * as entry from '${specifier}';\nglobalThis[${JSON.stringify(specifier)}] = entry;\n`);
    entries[name] = join(dir, `${name}.js`);
  }
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'splatsort-consumer', private: true, type: 'module' }));
  return { packageDir, entries };
}

/**
 * Builds the package and a page of every entry of it; returns the page's
 * files, sorted, with their sizes (bytes raw and gzipped).
 */
export async function measurePackage() {
  const dir = mkdtempSync(join(tmpdir(), 'splatsort-consumer-'));
  try {
    const { packageDir, entries } = makeConsumer(dir);
    const libChunks = new Map();
    await build({
      configFile: join(root, 'package/vite.config.ts'),
      logLevel: 'error',
      build: { outDir: join(packageDir, 'lib-dist'), sourcemap: false },
      plugins: [recorder(libChunks)],
    });
    const out = new Map();
    await build({
      root: dir,
      configFile: false,
      logLevel: 'error',
      build: { outDir: join(dir, 'dist'), emptyOutDir: true, rollupOptions: { input: entries } },
      plugins: [recorder(out)],
    });
    return sortFiles(out, libChunks, packageDir, Object.keys(entries));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function sortFiles(out, libChunks, packageDir, entryNames) {
  const file = (name) => {
    const o = out.get(name);
    const bytes = typeof o.code === 'string' ? Buffer.from(o.code) : Buffer.from(o.source);
    return { name, raw: bytes.length, gzip: gz(bytes) };
  };
  const chunks = [...out.values()].filter((o) => o.type === 'chunk');
  const closure = (start, seen = new Set()) => {
    const visit = (name) => {
      if (seen.has(name)) return;
      seen.add(name);
      for (const next of out.get(name).imports) visit(next);
    };
    visit(start);
    return seen;
  };
  // The modules a page chunk was made for: the module it was made for (through the package's chunk
  // it came from), or, for a chunk of the package that several imports share, every module it holds.
  const madeFor = (chunk) => {
    const id = chunk.facadeModuleId ?? '';
    const inPackage = relative(join(packageDir, 'lib-dist'), id);
    if (inPackage.startsWith('..')) return [id];
    const lib = libChunks.get(inPackage);
    if (!lib) return [inPackage];
    return (lib.facadeModuleId ? [lib.facadeModuleId] : lib.moduleIds).map((m) => relative(root, m));
  };

  const rows = [];
  const initial = new Set();
  // In the order of package.json's exports: an entry's row holds what the ones before it do not.
  for (const chunk of entryNames.map((name) => chunks.find((c) => c.isEntry && c.name === name))) {
    const own = [...closure(chunk.fileName)].filter((name) => !initial.has(name));
    for (const name of own) initial.add(name);
    rows.push({ group: 'entry', name: chunk.name, files: own.map(file) });
  }
  const lazyGroups = new Map(LAZY_GROUPS.map(([group]) => [group, new Set()]));
  const shared = new Map();
  for (const chunk of chunks.filter((c) => c.isDynamicEntry && !initial.has(c.fileName))) {
    const modules = madeFor(chunk);
    const group = LAZY_GROUPS.find(([, test]) => modules.some((m) => test.test(m)))?.[0];
    if (!group) throw new Error(`a lazy chunk of the package (${chunk.fileName}, for ${modules.join(', ')}) belongs to no group of scripts/package-sizes.mjs: give its module a group there`);
    for (const name of closure(chunk.fileName)) {
      if (initial.has(name)) continue;
      shared.set(name, (shared.get(name) ?? new Set()).add(group));
    }
  }
  for (const [name, groups] of shared) {
    if (groups.size === 1) lazyGroups.get([...groups][0]).add(name);
  }
  for (const [group, names] of lazyGroups) rows.push({ group: 'lazy', name: group, files: [...names].map(file) });
  const sharedLazy = [...shared].filter(([, groups]) => groups.size > 1).map(([name]) => name);
  if (sharedLazy.length) rows.push({ group: 'lazy', name: 'shared by several of these', files: sharedLazy.map(file) });

  // Workers: the page's vite bundles each apart and writes it as a file of its own (the JavaScript
  // that no chunk is), named after the package's module it was made from ("load-worker-…").
  const assets = [...out.values()].filter((o) => o.type === 'asset');
  const workerFiles = assets.filter((a) => a.fileName.endsWith('.js'));
  const workerEntries = [...libChunks.values()].filter((c) => c.type === 'chunk' && c.isEntry && c.name.endsWith('worker'));
  const workers = new Map();
  for (const a of workerFiles) {
    const base = a.fileName.replace(/^.*\//, '');
    const name = workerEntries.find((c) => base.startsWith(`${c.fileName.replace(/\.js$/, '')}-`))?.name ?? 'chunks of the workers';
    workers.set(name, [...(workers.get(name) ?? []), file(a.fileName)]);
  }
  for (const [name, files] of [...workers].sort()) rows.push({ group: 'worker', name, files });

  const js = [...chunks.map((c) => c.fileName), ...workerFiles.map((a) => a.fileName)].map(file);
  const wasm = assets.filter((a) => a.fileName.endsWith('.wasm')).map((a) => file(a.fileName));
  const accounted = rows.reduce((t, r) => t + r.files.length, 0);
  if (accounted !== js.length) throw new Error(`${js.length - accounted} of the page's JavaScript files were not sorted into a row`);
  return {
    rows: rows.map(({ group, name, files }) => ({ group, name, ...sizes(files), fileNames: files.map((f) => f.name) })),
    total: sizes(js),
    wasm: sizes(wasm),
  };
}

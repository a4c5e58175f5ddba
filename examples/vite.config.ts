import { defineConfig } from 'vite';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const src = join(here, '../src/lib');

/** The example pages of this folder, each a page of its own. */
export const EXAMPLE_PAGES = ['index', 'one-viewer', 'two-viewers', 'element', 'engine', 'with-panel'] as const;

// The examples of Splatsort in other pages, importing the package by its
// name (`splatsort`, `splatsort/element`, `splatsort/engine`) as another
// page does. Here the names lead to the package's source, to work on the
// examples with `npx vite --config examples/vite.config.ts` (open
// /one-viewer.html, /two-viewers.html, /element.html or /engine.html); the
// browser tests build the same pages against the packed package instead,
// installed in a project of their own (tests/e2e/package-consumer.ts).
// The scene they open is the project's default scene, served beside them.
export default defineConfig({
  root: here,
  base: './',
  publicDir: join(here, '../data'),
  resolve: {
    alias: [
      { find: /^splatsort$/, replacement: join(src, 'index.ts') },
      { find: /^splatsort\/(element|engine)$/, replacement: join(src, '$1.ts') },
    ],
  },
  build: {
    target: 'es2022',
    outDir: join(here, '../dist/examples'),
    rollupOptions: { input: Object.fromEntries(EXAMPLE_PAGES.map((page) => [page, join(here, `${page}.html`)])) },
  },
  worker: { format: 'es' },
});

import { defineConfig } from 'vite';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

// The examples of Splatsort in other pages, each page of this folder built
// as a page of its own (the viewer's page is built apart: vite.config.ts).
// Run with `npx vite --config examples/vite.config.ts` and open
// /two-viewers.html or /element.html.
export default defineConfig({
  root: here,
  base: './',
  build: {
    target: 'es2022',
    outDir: join(here, '../dist/examples'),
    rollupOptions: { input: { 'two-viewers': join(here, 'two-viewers.html'), element: join(here, 'element.html') } },
  },
  worker: { format: 'es' },
});

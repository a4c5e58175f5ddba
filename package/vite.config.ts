import { defineConfig } from 'vite';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { workerEntries } from './worker-entries.js';
import { wgslWithoutComments } from './wgsl-without-comments.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dependencies = Object.keys((JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies);

// The package other pages install (npm run build:lib): its entries as ES
// modules in lib-dist/ (package.json `exports` names them), each format
// decoder, the tile renderer and the world's readers a chunk loaded when
// first used, the workers entries sharing those chunks (worker-entries.ts), the
// shaders without their comments (wgsl-without-comments.ts). Its dependencies stay imports, for
// the page's bundler to resolve once; the declarations come from
// package/tsconfig.json.
export default defineConfig({
  root,
  build: {
    outDir: join(root, 'lib-dist'),
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: true,
    lib: {
      entry: { index: join(root, 'src/lib/index.ts'), element: join(root, 'src/lib/element.ts'), engine: join(root, 'src/lib/engine.ts') },
      formats: ['es'],
    },
    rollupOptions: {
      external: (id) => dependencies.some((dep) => id === dep || id.startsWith(`${dep}/`)),
    },
  },
  plugins: [workerEntries(), wgslWithoutComments()],
});

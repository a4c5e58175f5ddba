import { defineConfig } from 'vite';
import { builtinModules } from 'node:module';

// Builds the Node tools (benchmarks, the render command) into self-contained ES modules in bench-dist/
// (WGSL inlined through `?raw`), so a machine with only Node and the
// `webgpu` package can run them.
export default defineConfig({
  build: {
    ssr: true,
    outDir: 'bench-dist',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    rollupOptions: {
      input: { 'bench-sort': 'bench/bench-sort.ts', 'bench-frame': 'bench/bench-frame.ts', render: 'cli/render.ts' },
      external: ['webgpu', ...builtinModules, ...builtinModules.map((m) => `node:${m}`)],
      output: { format: 'es', entryFileNames: '[name].mjs' },
    },
  },
  ssr: { noExternal: true, external: ['webgpu'] },
});

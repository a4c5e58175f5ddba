import { defineConfig } from 'vite';
import { builtinModules } from 'node:module';

// Builds the Node tools (benchmarks, the render and convert commands) into self-contained ES modules in bench-dist/
// (WGSL inlined through `?raw`), so a machine with only Node and the
// `webgpu` package can run them. (splat-transform stays external: only the
// parse benchmark uses it, on a machine with the project's node_modules.)
export default defineConfig({
  build: {
    ssr: true,
    outDir: 'bench-dist',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    rollupOptions: {
      input: { 'bench-world': 'bench/bench-world.ts', 'bench-sort': 'bench/bench-sort.ts', 'bench-frame': 'bench/bench-frame.ts', 'bench-popping': 'bench/bench-popping.ts', 'bench-parse': 'bench/bench-parse.ts', 'big-scene': 'bench/big-scene.ts', 'make-world': 'bench/make-world.ts', 'world-choice': 'bench/world-choice.ts', render: 'cli/render.ts', convert: 'cli/convert.ts', fuzz: 'tests/support/fuzz.ts' },
      external: ['webgpu', '@playcanvas/splat-transform', ...builtinModules, ...builtinModules.map((m) => `node:${m}`)],
      output: { format: 'es', entryFileNames: '[name].mjs' },
    },
  },
  ssr: { noExternal: true, external: ['webgpu', '@playcanvas/splat-transform'] },
});

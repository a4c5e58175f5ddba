import { defineConfig, type Plugin } from 'vite';
import { builtinModules } from 'node:module';
import { readFileSync } from 'node:fs';

/**
 * `import help from './command.ts?help'`: the file's leading doc comment as
 * text, its ` * ` margins taken off. A command's --help is what its file
 * says it does, written once (bench/command-line.ts prints it).
 */
function helpFromDocComment(): Plugin {
  return {
    name: 'help-from-doc-comment',
    enforce: 'pre',
    load(id) {
      if (!id.endsWith('?help')) return null;
      const source = readFileSync(id.slice(0, -'?help'.length), 'utf8');
      const doc = /^\s*\/\*\*([\s\S]*?)\*\//.exec(source)?.[1] ?? '';
      const help = doc.split('\n').map((line) => line.replace(/^\s*\* ?/, '')).join('\n').trim();
      return `export default ${JSON.stringify(help)};`;
    },
  };
}

// Builds the Node tools (benchmarks, the render and convert commands) into self-contained ES modules in bench-dist/
// (WGSL inlined through `?raw`), so a machine with only Node and the
// `webgpu` package can run them. (splat-transform stays external: only the
// parse benchmark uses it, on a machine with the project's node_modules.)
export default defineConfig({
  plugins: [helpFromDocComment()],
  build: {
    ssr: true,
    outDir: 'bench-dist',
    emptyOutDir: true,
    target: 'node20',
    minify: false,
    rollupOptions: {
      input: { 'bench-world': 'bench/bench-world.ts', 'world-displacements': 'bench/world-displacements.ts', 'world-displacements-worker': 'bench/world-displacements-worker.ts', 'world-worker-node': 'src/io/world-worker-node.ts', 'world-choice-worker-node': 'src/app/world/world-choice-worker-node.ts', 'world-popping': 'bench/world-popping.ts', 'bench-sort': 'bench/bench-sort.ts', 'bench-frame': 'bench/bench-frame.ts', 'bench-popping': 'bench/bench-popping.ts', 'order-study': 'bench/order-study.ts', 'depth-overlap': 'bench/depth-overlap.ts', 'bench-parse': 'bench/bench-parse.ts', 'big-scene': 'bench/big-scene.ts', 'hostile-scene': 'bench/hostile-scene.ts', 'make-world': 'bench/make-world.ts', 'world-choice': 'bench/world-choice.ts', 'world-fades': 'bench/world-fades.ts', 'world-run-layout': 'bench/world-run-layout.ts', 'dispatch-cost': 'bench/dispatch-cost.ts', 'pool-frames': 'bench/pool-frames.ts', render: 'cli/render.ts', convert: 'cli/convert.ts', fuzz: 'tests/support/fuzz.ts' },
      external: ['webgpu', '@playcanvas/splat-transform', ...builtinModules, ...builtinModules.map((m) => `node:${m}`)],
      // Chunks beside the entries: a module finds a worker thread's entry beside itself (world-worker-node-client.ts).
      output: { format: 'es', entryFileNames: '[name].mjs', chunkFileNames: '[name]-[hash].mjs' },
    },
  },
  ssr: { noExternal: true, external: ['webgpu', '@playcanvas/splat-transform'] },
});

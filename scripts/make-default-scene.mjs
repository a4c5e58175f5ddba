#!/usr/bin/env node
/**
 * Regenerates data/default-scene.ply from tests/support/default-scene.ts
 * (`npm run scene:default`). Node cannot import TypeScript, so the modules
 * go through vite's SSR loader, the same transform the dev server uses.
 */

import { writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer } from 'vite';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outPath = join(root, 'data', 'default-scene.ply');

// It takes no options: any argument is a question (--help) or a mistake, answered before anything is written.
const asked = process.argv.slice(2);
if (asked.length > 0) {
  const help = asked.every((a) => a === '--help' || a === '-h');
  (help ? console.log : console.error)(
    `${help ? '' : `scene:default takes no options (given: ${asked.join(' ')}).\n`}npm run scene:default writes data/default-scene.ply anew from tests/support/default-scene.ts (the same splats every run).`,
  );
  process.exit(help ? 0 : 2);
}

const server = await createServer({
  root,
  configFile: false,
  logLevel: 'warn',
  server: { middlewareMode: true, hmr: false, watch: null },
  appType: 'custom',
  optimizeDeps: { noDiscovery: true, include: [] },
});
try {
  const { makeDefaultScene } = await server.ssrLoadModule('/tests/support/default-scene.ts');
  const { writeSplatPly } = await server.ssrLoadModule('/tests/support/ply-writer.ts');
  const started = performance.now();
  const cloud = makeDefaultScene();
  const bytes = writeSplatPly(cloud);
  writeFileSync(outPath, bytes);
  const { min, max } = cloud.bounds;
  const fmt = (v) => v.map((x) => x.toFixed(3)).join(', ');
  console.log(
    `${relative(root, outPath)}: ${cloud.count} splats, SH degree ${cloud.shDegree}, ` +
      `${bytes.length} bytes, bounds [${fmt(min)}]..[${fmt(max)}], ` +
      `${(performance.now() - started).toFixed(0)} ms`,
  );
} finally {
  await server.close();
}

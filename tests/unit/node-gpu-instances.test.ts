/**
 * A Dawn instance (the `webgpu` package's `create`) collected while a
 * device of its lives crashes the process: `node --expose-gc`, a device
 * made, its instance dropped, `gc()`, then any call on the device: a
 * segmentation fault. In a vitest worker that left a GPU test forever
 * unfinished in CI. So every instance is made by src/gpu/node-gpu.ts,
 * which keeps them for the process (createNodeGpu): no other file of the
 * project calls `create` itself.
 */
import { expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROJECT_ROOT as ROOT, projectCodeFiles } from '../support/project-files';

const KEEPER = 'src/gpu/node-gpu.ts';
/**
 * The files that may call `create` all the same: this test (its examples),
 * and a standalone script that cannot import the TypeScript keeper, whose
 * instance is a module constant and lives as long as the process.
 */
const ALLOWED = new Set(['tests/unit/node-gpu-instances.test.ts', 'bench/resolve-passes.mjs']);

/** Whether `source` imports the `webgpu` package's `create`. */
function importsCreate(source: string): boolean {
  for (const match of source.matchAll(/import\s*\{([^}]*)\}\s*from\s*['"]webgpu['"]/g)) {
    if (match[1]!.split(',').some((name) => name.trim().split(/\s+as\s+/)[0] === 'create')) return true;
  }
  return /import\s*\*\s*as\s+\w+\s+from\s*['"]webgpu['"]/.test(source) || /require\(\s*['"]webgpu['"]\s*\)/.test(source);
}

test("only node-gpu.ts makes Dawn instances: no other file imports the webgpu package's create", () => {
  const offenders: string[] = [];
  let read = 0;
  for (const path of projectCodeFiles()) {
    read++;
    if (path !== KEEPER && !ALLOWED.has(path) && importsCreate(readFileSync(join(ROOT, path), 'utf8'))) offenders.push(path);
  }
  expect(read).toBeGreaterThan(200);
  expect(importsCreate(readFileSync(join(ROOT, KEEPER), 'utf8'))).toBe(true);
  expect(offenders).toEqual([]);
});

test('the check sees create imported, renamed or through the whole package, and nothing else', () => {
  expect(importsCreate("import { create } from 'webgpu';")).toBe(true);
  expect(importsCreate("import { globals, create as make } from \"webgpu\";")).toBe(true);
  expect(importsCreate("import * as webgpu from 'webgpu';")).toBe(true);
  expect(importsCreate("import { globals } from 'webgpu';")).toBe(false);
  expect(importsCreate("import { createNodeGpu } from '../../src/gpu/node-gpu';")).toBe(false);
});

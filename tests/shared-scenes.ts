/**
 * Where the tests find the real splat scenes: `../shared/scenes/` beside the
 * repository (as CI lays it out), or SPLATSORT_SCENES. A missing folder is
 * an error, never a skip: these tests must run.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { resolve } from 'node:path';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
export const SCENES_DIR = process.env.SPLATSORT_SCENES ?? resolve(repoRoot, '../shared/scenes');

/** The absolute path of a real scene file. */
export function scenePath(name: string): string {
  const path = resolve(SCENES_DIR, name);
  if (!existsSync(path)) {
    throw new Error(`real scene ${name} not found in ${SCENES_DIR} (the tests expect ../shared/scenes beside the repository, or set SPLATSORT_SCENES)`);
  }
  return path;
}

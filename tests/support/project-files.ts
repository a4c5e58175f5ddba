/**
 * The project's own code, for the tests that hold a rule over all of it
 * (one file makes Dawn instances, one starts Node worker threads): every
 * .ts, .mts, .mjs and .js file (not .d.ts) under the folders, as paths
 * from the project's root with '/' between names.
 */
import { readdirSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Every code file under `folders` (by default all the project's code). */
export function projectCodeFiles(folders: readonly string[] = ['src', 'tests', 'bench', 'cli', 'scripts']): string[] {
  const files: string[] = [];
  for (const folder of folders) {
    for (const entry of readdirSync(join(PROJECT_ROOT, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.(ts|mts|mjs|js)$/.test(entry.name) || entry.name.endsWith('.d.ts')) continue;
      files.push(relative(PROJECT_ROOT, join(entry.parentPath, entry.name)).split(sep).join('/'));
    }
  }
  return files;
}

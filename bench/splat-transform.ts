/**
 * Where @playcanvas/splat-transform's command line is. The package exports
 * its library and no path to its CLI; the CLI lies two folders above the
 * library's entry (dist/index.mjs → bin/cli.mjs).
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export const SPLAT_TRANSFORM_CLI = join(dirname(dirname(createRequire(import.meta.url).resolve('@playcanvas/splat-transform'))), 'bin/cli.mjs');

/**
 * A small Streamed SOG world made the way published ones are: each level
 * of detail written as a PLY, then splat-transform (a dev dependency)
 * tags them with their levels and writes lod-meta.json with its SOG
 * chunks. For tests; the benchmark's large world has a script of its own.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SPLAT_TRANSFORM_CLI } from '../../bench/splat-transform';
import { COMMAND_TIMEOUT_MS } from './node-tools';
import { writeInriaPly } from '../../src/io/writers/inria-ply';
import type { SplatCloud } from '../../src/scene/splat-cloud';


export interface WorldOptions {
  /** Splats a chunk holds before it is split (splat-transform's --lod-chunk-count, in thousands; a whole number). */
  chunkThousands?: number;
  /** The widest a chunk grows before it is split, in scene units (--lod-chunk-extent; a whole number). */
  chunkExtent?: number;
  /** splat-transform's own chunking (512K splats, 16 units, 8K below which none is split): no --lod-chunk option is given. */
  writerChunks?: boolean;
  /** Splats tagged as the environment (level -1): splat-transform writes them to env/ and names them in the index's `environment`. */
  environment?: SplatCloud;
}

/** Writes `levels` (finest first) as a world in `dir`; returns the path of its lod-meta.json. */
export function makeWorld(dir: string, levels: readonly SplatCloud[], options: WorldOptions = {}): string {
  mkdirSync(dir, { recursive: true });
  const inputs: string[] = [];
  levels.forEach((cloud, level) => {
    const ply = join(dir, `level-${level}.ply`);
    writeFileSync(ply, writeInriaPly(cloud));
    inputs.push(ply, '--tag-lod', String(level));
  });
  if (options.environment) {
    const ply = join(dir, 'environment.ply');
    writeFileSync(ply, writeInriaPly(options.environment));
    inputs.push(ply, '--tag-lod', '-1');
  }
  const index = join(dir, 'world', 'lod-meta.json');
  const chunk = options.chunkThousands ?? 1;
  // splat-transform takes whole numbers: thousands of splats, and scene units.
  const chunking = options.writerChunks ? [] : ['--lod-chunk-count', String(chunk), '--lod-chunk-min', '1', '--lod-chunk-extent', String(options.chunkExtent ?? 1)];
  execFileSync(process.execPath, [SPLAT_TRANSFORM_CLI, '--no-tty', ...inputs, index, ...chunking, '--sh-iterations', '1', '--max-workers', '0'], { stdio: 'pipe', timeout: COMMAND_TIMEOUT_MS });
  return index;
}

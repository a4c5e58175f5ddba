/**
 * Reads a world mutant (fuzz-world.ts) as the viewer does, in a harness
 * worker (loader-harness.ts): openWorld over a local server or a dropped
 * folder, then every chunk it names and its environment, under the
 * allocation meter; the outcome is classified as a file load's is, and
 * more strictly:
 * - a refusal must say where: the index's name for the index, "chunk
 *   PATH" for a chunk ('crash', UnclearRefusal, where it does not); a
 *   chunk the source cannot give (a missing file) may fail with the
 *   source's own error, as long as it names the chunk;
 * - nothing outside the world's folder is read: the server and the folder
 *   hold a copy of the world beside it (and a file above it), and any
 *   request for those is a 'crash' (WorldEscape), whatever the outcome.
 */
import { AbsurdAllocation, startMeter, stopMeter } from './alloc-meter';
import { allocationLimit, findNonFinite, type Outcome } from './loader-harness';
import { sendBytes, serveLocally, type LocalServer } from './local-server';
import { worldBytes, type WorldMutant } from './fuzz-world';
import type { ServerResponse } from 'node:http';

/** Chunks read a case: the seeds name three, and a mutant naming thousands is refused at the first that fails. */
const MAX_CHUNKS_READ = 8;

interface Served {
  tag: string;
  /** Every file by its path under the case's folder: "world/…" the world's, the rest outside it. */
  files: Map<string, Uint8Array>;
  endless?: string;
  escaped: string[];
}

let served: Served | undefined;
let server: Promise<LocalServer> | undefined;

/** The file, then zeros for ever, with no length: a server that never ends the body. Stops when the client hangs up. */
function sendForever(response: ServerResponse, bytes: Uint8Array): void {
  response.writeHead(200, { 'Content-Type': 'application/octet-stream' });
  response.write(bytes);
  const zeros = new Uint8Array(65536);
  const more = (): void => {
    while (!response.destroyed && !response.writableEnded) {
      if (!response.write(zeros)) {
        response.once('drain', more);
        return;
      }
    }
  };
  more();
}

/** The worker's server, started on first use: it serves the case in hand under /TAG/. */
function worldServer(): Promise<LocalServer> {
  server ??= serveLocally((path, response) => {
    const s = served;
    if (!s || !path.startsWith(`/${s.tag}/`)) {
      sendBytes(response, undefined);
      return;
    }
    const relative = path.slice(s.tag.length + 2);
    if (!relative.startsWith('world/')) s.escaped.push(path);
    const bytes = s.files.get(relative);
    if (bytes && s.endless !== undefined && relative === `world/${s.endless}`) sendForever(response, bytes);
    else sendBytes(response, bytes);
  });
  return server;
}

/**
 * The world in its folder, beside a copy of its chunks outside it and one
 * chunk's files above it: real files a path leading out could reach,
 * which a case must never read. No lod-meta.json outside: the world's is
 * the only one in the folder.
 */
function withOutside(files: ReadonlyMap<string, Uint8Array>): Map<string, Uint8Array> {
  const all = new Map<string, Uint8Array>();
  for (const [path, bytes] of files) {
    all.set(`world/${path}`, bytes);
    if (path === 'lod-meta.json') continue;
    all.set(`outside/${path}`, bytes);
    if (path.startsWith('0_0/')) {
      all.set(`outside/${path.slice(4)}`, bytes);
      all.set(path.slice(4), bytes);
    }
  }
  return all;
}

/** How far a world case got: its index refused, or opened and its chunks read (or refused). */
export type WorldStage = 'index' | 'chunks';

/** Reads `mutant` (case `tag`: a name for its folder on the server) and classifies what happened. */
export async function runWorldLoad(mutant: WorldMutant, tag: string): Promise<{ outcome: Outcome; stage: WorldStage }> {
  const [{ openWorld }, { folderSource, urlSource }, { SplatFormatError }] = await Promise.all([
    import('../../src/io/lod/world-files'), import('../../src/io/web-scene-sources'), import('../../src/io/format-error'),
  ]);
  const all = withOutside(mutant.files);
  const escaped: string[] = [];
  let url: string | undefined;
  if (mutant.source === 'url') {
    served = { tag, files: all, endless: mutant.endless, escaped };
    url = `${(await worldServer()).base}/${tag}/world/lod-meta.json`;
  }
  // A folder's files outside the world tell when they are read.
  class WatchedFile extends File {
    override arrayBuffer(): Promise<ArrayBuffer> {
      escaped.push(this.name);
      return super.arrayBuffer();
    }

    override stream(): ReturnType<File['stream']> {
      escaped.push(this.name);
      return super.stream();
    }
  }
  const entries = [...all].map(([path, bytes]) => {
    const parts = [bytes as Uint8Array<ArrayBuffer>];
    return { path, file: path.startsWith('world/') ? new File(parts, path) : new WatchedFile(parts, path) };
  });

  const t0 = performance.now();
  startMeter(allocationLimit(worldBytes(mutant.files).length));
  let outcome: Omit<Outcome, 'ms' | 'largestAlloc'>;
  // What is being read, as a refusal must name it.
  let reading = 'lod-meta.json';
  let stage: WorldStage = 'index';
  try {
    const world = await openWorld(url !== undefined ? urlSource(url) : folderSource(entries));
    stage = 'chunks';
    const reads = world.index.filenames.slice(0, MAX_CHUNKS_READ).map((path, file) => ({ path, read: () => world.readChunk(file) }));
    if (world.index.environment !== null) reads.push({ path: world.index.environment, read: async () => (await world.readEnvironment())! });
    let count = 0;
    let bad: string | undefined;
    for (const { path, read } of reads) {
      reading = `chunk ${path}`;
      const { cloud } = await read();
      bad ??= findNonFinite(cloud);
      count += cloud.count;
    }
    outcome = bad === undefined ? { kind: 'accepted', count } : { kind: 'non-finite', message: `${reading}: a cloud with ${bad}`, count };
  } catch (error) {
    const e = error instanceof Error ? error : new Error(String(error));
    // A source's own failure (a missing file) is a plain Error; a TypeError, RangeError … is a bug.
    const refusal = e instanceof SplatFormatError || e.constructor === Error;
    const says = reading === 'lod-meta.json' ? e.message.includes(reading) : e.message.startsWith(`${reading}:`);
    if (e instanceof AbsurdAllocation) outcome = { kind: 'absurd-alloc', errorName: e.name, message: e.message, stack: e.stack };
    else if (refusal && says) outcome = { kind: 'rejected', errorName: e.name, message: e.message };
    else if (refusal) outcome = { kind: 'crash', errorName: 'UnclearRefusal', message: `reading ${reading}: ${e.message}` };
    else outcome = { kind: 'crash', errorName: e.name, message: e.message, stack: e.stack };
  }
  const meter = stopMeter();
  if (served?.tag === tag) served = undefined;
  if (escaped.length > 0) outcome = { kind: 'crash', errorName: 'WorldEscape', message: `read outside the world's folder: ${escaped.join(', ')}` };
  return { outcome: { ...outcome, ms: performance.now() - t0, largestAlloc: meter.largest, largestAllocWhat: meter.what }, stage };
}

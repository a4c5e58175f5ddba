import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chunkPathError, LOD_META_LIMITS, parseLodMeta, type LodIndex, type LodNode } from '../../src/io/lod/lod-meta';
import { SOG_MAX_SPLATS } from '../../src/io/sog/meta';
import { makeDefaultScene } from '../support/default-scene';
import { thinnedScene } from '../support/thinned-scene';
import { makeWorld } from '../support/made-world';
import { rng } from '../support/splat-files';
import { SplatFormatError } from '../../src/io/format-error';

const leavesOf = (node: LodNode): LodNode[] => (node.children.length === 0 ? [node] : node.children.flatMap(leavesOf));

describe('a world splat-transform writes', () => {
  const fine = thinnedScene(makeDefaultScene(), 8);
  const coarse = thinnedScene(fine, 4);
  let path: string;
  let index: LodIndex;
  beforeAll(() => {
    path = makeWorld(mkdtempSync(join(tmpdir(), 'splatsort-world-')), [fine, coarse], { chunkThousands: 1, chunkExtent: 1 });
    index = parseLodMeta(readFileSync(path, 'utf8'));
  }, 120_000);
  // The world's folder goes with the tests: each run made one more in the temporary folder.
  afterAll(() => rmSync(dirname(path), { recursive: true, force: true }));

  it('reads its levels, its counts and its tree', () => {
    expect(index.levels).toBe(2);
    expect(index.counts).toEqual([fine.count, coarse.count]);
    expect(index.leaves).toBeGreaterThan(2);
    expect(index.nodes).toBeGreaterThan(index.leaves);
    expect(index.environment).toBeNull();
  });

  it('names chunk files that are there, beside the index, each run within its bound and its file', () => {
    for (const file of index.filenames) {
      expect(chunkPathError(file)).toBeNull();
      expect(existsSync(join(dirname(path), file))).toBe(true);
    }
    const rowsOf = new Map<number, number>();
    for (const leaf of leavesOf(index.tree)) {
      expect(leaf.runs).toHaveLength(2);
      for (const run of leaf.runs) if (run) rowsOf.set(run.file, Math.max(rowsOf.get(run.file) ?? 0, run.offset + run.count));
    }
    // Each chunk's meta.json holds as many splats as its runs reach.
    for (const [file, rows] of rowsOf) {
      const meta = JSON.parse(readFileSync(join(dirname(path), index.filenames[file]!), 'utf8')) as { count: number };
      expect(meta.count).toBe(rows);
    }
  });

  it('gives every node a bound holding its children\'s, and a path for messages', () => {
    const check = (node: LodNode) => {
      for (const child of node.children) {
        for (let a = 0; a < 3; a++) {
          expect(child.bound.min[a]).toBeGreaterThanOrEqual(node.bound.min[a]!);
          expect(child.bound.max[a]).toBeLessThanOrEqual(node.bound.max[a]!);
        }
        check(child);
      }
    };
    check(index.tree);
    expect(index.tree.path).toBe('tree');
    expect(index.tree.children[1]!.path).toBe('tree.children[1]');
  });
});

/** A valid index of two levels: a root over two leaves. */
function world(): Record<string, any> {
  const bound = { min: [0, 0, 0], max: [1, 1, 1] };
  return {
    version: 1,
    count: 60,
    counts: [40, 20],
    lodLevels: 2,
    filenames: ['0_0/meta.json', '1_0/meta.json'],
    tree: {
      bound,
      children: [
        { bound, lods: { 0: { file: 0, offset: 0, count: 25 }, 1: { file: 1, offset: 0, count: 12 } } },
        { bound, lods: { 0: { file: 0, offset: 25, count: 15 }, 1: { file: 1, offset: 12, count: 8 } }, errors: [0.5, 3], displacements: [0, 0.25] },
      ],
    },
  };
}
const read = (meta: unknown) => parseLodMeta(JSON.stringify(meta), 'world/lod-meta.json');
const refused = (meta: unknown) => expect(() => read(meta));
/** An index naming `path` as its second chunk file is refused, saying `why` of that entry; so is the path alone. */
const refusesChunkPath = (path: string, why: string): void => {
  const meta = world();
  meta.filenames[1] = path;
  refused(meta).toThrow(`world/lod-meta.json: "filenames"[1] ${JSON.stringify(path)} ${why}`);
  expect(chunkPathError(path), JSON.stringify(path)).toContain(why);
};

describe('parseLodMeta', () => {
  it('reads a small index, runs by level and errors per leaf', () => {
    const index = read(world());
    expect(index.counts).toEqual([40, 20]);
    expect(index.tree.children[0]!.runs).toEqual([{ file: 0, offset: 0, count: 25 }, { file: 1, offset: 0, count: 12 }]);
    expect(index.tree.children[1]!.errors).toEqual([0.5, 3]);
    expect(index.tree.children[1]!.displacements).toEqual([0, 0.25]);
    expect([index.nodes, index.leaves]).toEqual([3, 2]);
  });

  it('reads an index without version or counts (written before them)', () => {
    const { version: _v, counts: _c, ...old } = world();
    expect(read(old).counts).toEqual([40, 20]);
  });

  it('reads "environment": null as no environment (splat-transform 0.16 to 1.10 write it so), and refuses any other value that is not a path', () => {
    expect(read({ ...world(), environment: null }).environment).toBeNull();
    for (const environment of [0, false, {}, ['env.sog']]) refused({ ...world(), environment }).toThrow('"environment" is not a path');
  });

  it('refuses what is not an index, naming the file', () => {
    expect(() => parseLodMeta('{"lodLevels": 2,', 'w/lod-meta.json')).toThrow(/^w\/lod-meta.json: not JSON/);
    refused([1, 2]).toThrow('world/lod-meta.json: not a JSON object');
    refused({ ...world(), version: 2 }).toThrow('"version" is 2; this viewer reads version 1');
    for (const levels of [0, 17, 1.5, '2']) refused({ ...world(), lodLevels: levels }).toThrow('"lodLevels" must be a whole number from 1 to 16');
    refused({ ...world(), tree: [] }).toThrow('"tree" must be an object (the root node)');
  });

  it('refuses chunk paths outside the index\'s folder or on another origin', () => {
    const bad: [string, string][] = [
      ['../other/meta.json', 'steps out of the index\'s folder'],
      ['0_0/../../meta.json', 'steps out of the index\'s folder'],
      ['0_0/%2e%2e/%2E%2E/meta.json', 'steps out of the index\'s folder'],
      ['/srv/meta.json', 'is an absolute path'],
      ['https://elsewhere.example/meta.json', 'is a URL of its own'],
      ['//elsewhere.example/meta.json', 'is a URL of its own'],
      ['0_0\\meta.json', 'has a backslash'],
      ['0_0/meta.json?x=1', 'has a query or fragment'],
      ['', 'is empty'],
    ];
    for (const [path, why] of bad) refusesChunkPath(path, why);
    refused({ ...world(), environment: '../env/meta.json' }).toThrow('"environment" "../env/meta.json" steps out');
    refused({ ...world(), filenames: [3] }).toThrow('"filenames"[0] is not a path');
  });

  it('checks each name whole when the index is read: white space at a segment\'s end, control characters and empty segments, written plainly or percent-encoded, are refused naming the index and the entry', () => {
    const bad: [string, string][] = [
      [' 0_0/meta.json', 'has white space at an end of " 0_0"'],
      ['\t../x/meta.json', 'has a control character (U+0009)'],
      ['0_0/meta.json ', 'has white space at an end of "meta.json "'],
      ['0_0 /meta.json', 'has white space at an end of "0_0 "'],
      ['0_0/.\t./meta.json', 'has a control character (U+0009)'],
      ['0_0/meta.json\n', 'has a control character (U+000A)'],
      ['0_0/meta\u0000.json', 'has a control character (U+0000)'],
      ['0_0/meta\u0085.json', 'has a control character (U+0085)'],
      ['0_0//meta.json', 'has an empty segment'],
      ['0_0/', 'has an empty segment'],
      ['%200_0/meta.json', 'has white space at an end of " 0_0", percent-encoded'],
      ['0_0/meta.json%09', 'has a control character (U+0009), percent-encoded'],
      ['0_0%2F%2Fmeta.json', 'has an empty segment ("//", or a "/" at an end), percent-encoded'],
    ];
    for (const [path, why] of bad) refusesChunkPath(path, why);
    refused({ ...world(), environment: 'env/ meta.json' }).toThrow('world/lod-meta.json: "environment" "env/ meta.json" has white space at an end of " meta.json"');
    // Spaces inside a name, and names splat-transform writes, are names.
    for (const path of ['0_0/my scene.json', '0_0/my%20scene.json', 'env/meta.json', 'a/b/c_1/meta.json']) expect(chunkPathError(path), path).toBeNull();
  });

  it('refuses a tree that refers to chunks or levels it does not have, naming the node', () => {
    const meta = world();
    meta.tree.children[1].lods[1].file = 2;
    refused(meta).toThrow('tree.children[1].lods["1"].file: 2 is not one of the 2 chunk files');
    const level = world();
    level.tree.children[0].lods[2] = { file: 0, offset: 0, count: 1 };
    refused(level).toThrow('tree.children[0].lods["2"]: level "2" is not one of 0 to 1');
    const negative = world();
    negative.tree.children[0].lods[0].offset = -1;
    refused(negative).toThrow('tree.children[0].lods["0"]: "offset" and "count" must be whole numbers ≥ 0');
    const huge = world();
    huge.tree.children[0].lods[0].count = SOG_MAX_SPLATS;
    huge.tree.children[0].lods[0].offset = 1;
    refused(huge).toThrow('are past what a chunk holds');
  });

  it('refuses counts the tree does not hold, bad bounds and bad errors', () => {
    refused({ ...world(), counts: [40, 21] }).toThrow('"counts"[1] says 21 splats; the tree\'s runs of level 1 hold 20');
    refused({ ...world(), counts: [60] }).toThrow('"counts" must list 2 splat counts');
    const inverted = world();
    inverted.tree.children[0].bound = { min: [0, 2, 0], max: [1, 1, 1] };
    refused(inverted).toThrow('tree.children[0].bound: min [0,2,0] is past max [1,1,1]');
    const flat = world();
    flat.tree.bound = { min: [0, 0], max: [1, 1, 1] };
    refused(flat).toThrow('tree.bound.min must be three finite numbers');
    const errors = world();
    errors.tree.children[1].errors = [1];
    refused(errors).toThrow('tree.children[1].errors must list 2 errors ≥ 0, one a level');
    const moved = world();
    moved.tree.children[1].displacements = [0, -1];
    refused(moved).toThrow('tree.children[1].displacements must list 2 displacements in scene units ≥ 0, one a level');
    const both = world();
    both.tree.children[0].children = [];
    refused(both).toThrow('tree.children[0] must have either "children" (an inner node) or "lods" (a leaf)');
  });

  it('stops a hostile tree at its limits before walking it all: depth, nodes, children, splats, bytes', () => {
    // A chain 100,000 deep (past what JSON.parse's recursion survives): refused before it is parsed.
    const bound = '"bound":{"min":[0,0,0],"max":[1,1,1]}';
    const deep = `{"lodLevels":1,"filenames":[],"tree":${`{${bound},"children":[`.repeat(100_000)}{${bound},"lods":{}}${']}'.repeat(100_000)}}`;
    expect(() => parseLodMeta(deep, 'w')).toThrow(`deeper than a world's tree of ${LOD_META_LIMITS.maxDepth} levels`);
    // A chain just past the depth limit, shallow enough to parse: refused by the walk.
    const chain = (n: number) => `{"lodLevels":1,"filenames":[],"tree":${`{${bound},"children":[`.repeat(n)}{${bound},"lods":{}}${']}'.repeat(n)}}`;
    expect(() => parseLodMeta(chain(LOD_META_LIMITS.maxDepth), 'w')).toThrow(`deeper than ${LOD_META_LIMITS.maxDepth} levels`);
    expect(parseLodMeta(chain(LOD_META_LIMITS.maxDepth - 1), 'w').nodes).toBe(LOD_META_LIMITS.maxDepth);
    const tight = { ...LOD_META_LIMITS, maxNodes: 2, maxChildren: 1, maxSplats: 50, maxBytes: 100 };
    const text = JSON.stringify(world());
    expect(() => parseLodMeta(text, 'w', { ...LOD_META_LIMITS, maxNodes: 2 })).toThrow('the tree has more than 2 nodes');
    expect(() => parseLodMeta(text, 'w', { ...LOD_META_LIMITS, maxChildren: 1 })).toThrow('tree.children: 2 children, more than 1');
    expect(() => parseLodMeta(text, 'w', { ...LOD_META_LIMITS, maxSplats: 50 })).toThrow('the world has more than 50 splats');
    expect(() => parseLodMeta(text, 'w', tight)).toThrow(`w: ${text.length} bytes, more than a world's index holds (100)`);
    expect(() => parseLodMeta(JSON.stringify({ ...world(), filenames: new Array(3).fill('a/meta.json') }), 'w', { ...LOD_META_LIMITS, maxFiles: 2 })).toThrow('"filenames" names 3 chunks');
  });
});

describe('mutated indexes', () => {
  /** Every place in a JSON value: a parent and a key in it. */
  function places(value: unknown, out: [Record<string, unknown> | unknown[], string | number][] = []): typeof out {
    if (Array.isArray(value)) value.forEach((v, i) => (out.push([value, i]), places(v, out)));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) (out.push([value as Record<string, unknown>, k]), places(v, out));
    return out;
  }
  const JUNK: unknown[] = [null, -1, 0.5, 2 ** 53, 1e308, -1e308, '', '../x', 'https://x.example/a', {}, [], [1, 2], { file: 0 }, true, '%2e%2e/a'];

  it('2,000 edits of a valid index (values swapped for junk, keys dropped, text cut or changed): each read, or refused with a SplatFormatError', () => {
    const random = rng(20261127);
    const text = JSON.stringify(world());
    let read = 0;
    let refusedCount = 0;
    for (let n = 0; n < 2000; n++) {
      let mutant: string;
      if (n % 4 === 3) {
        // The text itself: cut, or a character changed.
        const at = Math.floor(random() * text.length);
        mutant = random() < 0.5 ? text.slice(0, at) : text.slice(0, at) + String.fromCharCode(32 + Math.floor(random() * 95)) + text.slice(at + 1);
      } else {
        const meta = world();
        for (let edits = 1 + Math.floor(random() * 3); edits > 0; edits--) {
          const all = places(meta);
          const [parent, key] = all[Math.floor(random() * all.length)]!;
          if (random() < 0.2 && !Array.isArray(parent)) delete (parent as Record<string, unknown>)[key as string];
          else (parent as Record<string | number, unknown>)[key] = structuredClone(JUNK[Math.floor(random() * JUNK.length)]);
        }
        mutant = JSON.stringify(meta);
      }
      try {
        const index = parseLodMeta(mutant, 'm');
        expect(index.counts.every((c) => Number.isSafeInteger(c) && c >= 0)).toBe(true);
        read++;
      } catch (e) {
        if (!(e instanceof SplatFormatError)) throw new Error(`case ${n}: ${String(e)} for ${mutant}`);
        expect((e as Error).message.startsWith('m: ')).toBe(true);
        refusedCount++;
      }
    }
    // Both outcomes happen: the edits reach valid and invalid indexes alike.
    expect(read).toBeGreaterThan(50);
    expect(refusedCount).toBeGreaterThan(1000);
  });
});

/**
 * One source of truth for byte layouts and bind slots: every struct the
 * shaders share with TypeScript, and every bind group's slots, are
 * described once (src/scene/splat-layouts.ts, src/render/frame-layouts.ts,
 * src/sort/radix-structs.ts) and the WGSL declarations must match those
 * descriptions field for field and slot for slot; a struct or a slot added
 * or changed on one side only fails here. Also the layout rules
 * themselves, against offsets worked out by hand from the WGSL
 * specification.
 */
import { describe, expect, test } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, resolve } from 'node:path';
import { checkWgslStructs, defineStruct, parseWgslStructs, type StructLayout } from '../../src/gpu/struct-layout';
import { checkWgslBindings, defineBindSlots, parseWgslBindings, type BindSlots } from '../../src/gpu/bind-slots';
import * as sceneLayouts from '../../src/scene/splat-layouts';
import * as frameLayouts from '../../src/render/frame-layouts';
import * as radixStructs from '../../src/sort/radix-structs';
import { SCAN_BLOCK } from '../../src/render/splat-projector';
import { PROJECT_TILE } from '../../src/scene/drawn-tiles';
import { BIN_GROUP, NO_TILE } from '../../src/render/tiles/tile-binning';
import { TILE_SIZE } from '../../src/render/tiles/tile-side';
import { CHUNK_HEADER, ITEM_WORDS, SPLIT_WORDS } from '../../src/render/tiles/tile-chunks';

const SHADERS = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../shaders');
const sources = Object.fromEntries(readdirSync(SHADERS).filter((f) => f.endsWith('.wgsl')).map((f) => [f, readFileSync(join(SHADERS, f), 'utf8')]));
const described: unknown[] = [...Object.values(sceneLayouts), ...Object.values(frameLayouts), ...Object.values(radixStructs)];
const isBindSlots = (x: unknown): x is BindSlots<string> => typeof x === 'object' && x !== null && 'slots' in x;
const isStructLayout = (x: unknown): x is StructLayout => typeof x === 'object' && x !== null && 'fields' in x;
const layouts = described.filter(isStructLayout);
const bindSlots = described.filter(isBindSlots);
/** Structs that live only inside a shader (function results, stage interfaces): no buffer holds them. */
const SHADER_ONLY = ['ShCursor', 'Projection', 'VertexOut', 'ScanResult', 'Footprint', 'TileRect', 'TileSpan', 'PixelBox', 'Binned', 'Candidate', 'Found', 'Run', 'Pixel', 'Work'];

test('every WGSL struct a buffer holds matches its one description in TypeScript', () => {
  expect(checkWgslStructs(sources, layouts, SHADER_ONLY)).toEqual([]);
});

test('the check finds a field changed, added or reordered on one side, a struct declared twice, a layout nobody declares', () => {
  const frame = sources['splat_common.wgsl']!;
  const broken = (edit: (s: string) => string) => checkWgslStructs({ ...sources, 'splat_common.wgsl': edit(frame) }, layouts, SHADER_ONLY);
  expect(broken((s) => s.replace('splat_scale: f32,', 'splat_scale: u32,'))).toEqual([expect.stringMatching(/struct Frame .*splat_scale: u32.*layout says.*splat_scale: f32/)]);
  expect(broken((s) => s.replace('key_shift: u32,', 'key_shift: u32,\n  extra: f32,'))).toHaveLength(1);
  expect(broken((s) => s.replace(/count: u32,( *\/\/[^\n]*)?\n(\s*)key_shift: u32,/, 'key_shift: u32,\n$2count: u32,'))).toHaveLength(1);
  expect(checkWgslStructs({ ...sources, 'copy.wgsl': 'struct Frame { a: f32 }' }, layouts, SHADER_ONLY)).toEqual([expect.stringMatching(/struct Frame is declared in both/)]);
  expect(checkWgslStructs(sources, [...layouts, defineStruct('Orphan', [['a', 'f32']])], SHADER_ONLY)).toEqual(['layout Orphan is declared in no shader']);
  expect(checkWgslStructs(sources, layouts)).toEqual(expect.arrayContaining([expect.stringMatching(/struct VertexOut .* has no layout/)]));
});

test('every variable a WGSL file declares with @binding is bound, at that slot, by a table naming its file', () => {
  expect(bindSlots.length).toBeGreaterThan(0);
  expect(checkWgslBindings(sources, bindSlots)).toEqual([]);
});

test('the projector\'s own slots start after the scene\'s, so the two tables fill one group', () => {
  const scene = Object.values<number>(sceneLayouts.SCENE_SLOTS.slots);
  const project = Object.values<number>(frameLayouts.PROJECT_SLOTS.slots);
  expect(sceneLayouts.SCENE_SLOTS.group).toBe(frameLayouts.PROJECT_SLOTS.group);
  expect(project.filter((binding) => scene.includes(binding))).toEqual([]);
  expect(Object.keys(sceneLayouts.SCENE_SLOTS.slots)).toHaveLength(1 + sceneLayouts.MAX_CHUNKS);
});

describe('bind-slot tables', () => {
  const wgsl = {
    'a.wgsl': '@group(0) @binding(0) var<uniform> frame: Frame;\n// @group(0) @binding(9) var<storage> gone: u32;\n@group(0) @binding(1)\nvar<storage, read_write> state: array<u32>;',
    'b.wgsl': '@group(0) @binding(2) var picture: texture_2d<f32>;\n@group(1) @binding(0) var<storage, read> extra: array<f32>;',
  };

  test('the parser reads each variable\'s group and binding, past comments and line breaks', () => {
    expect([...parseWgslBindings(wgsl['a.wgsl'])]).toEqual([['frame', { group: 0, binding: 0 }], ['state', { group: 0, binding: 1 }]]);
    expect(parseWgslBindings(wgsl['b.wgsl']).get('extra')).toEqual({ group: 1, binding: 0 });
    expect(() => parseWgslBindings('@binding(0) var<uniform> x: u32;')).toThrow(/without @group/);
  });

  test('a table builds its entries by name, and refuses a slot it does not have or a number given twice', () => {
    const slots = defineBindSlots('Test', ['a.wgsl'], { state: 1, frame: 0 });
    const frame = { buffer: {} as GPUBuffer };
    const state = { buffer: {} as GPUBuffer };
    expect(slots.entries({ state, frame })).toEqual([{ binding: 0, resource: frame }, { binding: 1, resource: state }]);
    expect(() => slots.entries({ other: frame } as never)).toThrow(/has no slot other/);
    expect(() => defineBindSlots('Twice', ['a.wgsl'], { a: 1, b: 1 })).toThrow(/share binding 1/);
  });

  test('the check finds a slot renumbered on either side, a variable no table binds, a file that is not there', () => {
    const good = [defineBindSlots('A', ['a.wgsl'], { frame: 0, state: 1 }), defineBindSlots('B', ['b.wgsl'], { picture: 2 }), defineBindSlots('B1', ['b.wgsl'], { extra: 0 }, 1)];
    expect(checkWgslBindings(wgsl, good)).toEqual([]);
    expect(checkWgslBindings(wgsl, [defineBindSlots('A', ['a.wgsl'], { frame: 0, state: 2 }), ...good.slice(1)]))
      .toEqual([expect.stringMatching(/A binds state at @group\(0\) @binding\(2\), but a.wgsl declares it at @group\(0\) @binding\(1\)/)]);
    expect(checkWgslBindings({ ...wgsl, 'a.wgsl': wgsl['a.wgsl'].replace('@binding(1)', '@binding(3)') }, good)).toHaveLength(1);
    expect(checkWgslBindings(wgsl, good.slice(0, 2))).toEqual(['b.wgsl declares var extra, which no bind-slot table binds']);
    expect(checkWgslBindings(wgsl, [...good, defineBindSlots('C', ['c.wgsl'], { x: 0 })])).toEqual([expect.stringMatching(/C names c.wgsl, which is not a shader/)]);
    expect(checkWgslBindings(wgsl, [...good, defineBindSlots('D', ['a.wgsl'], { missing: 4 })])).toEqual(['D binds missing at 4, but a.wgsl declares no var missing']);
  });
});

test('the projector\'s and the tile renderer\'s sizes are the same numbers in TypeScript and WGSL', () => {
  const constant = (file: string, name: string): number => {
    const match = new RegExp(`(?:const|override) ${name}: u32 = (0x[0-9a-f]+|\\d+|[A-Z_]+)u?;`).exec(sources[file]!);
    if (!match) throw new Error(`${file} declares no const ${name}`);
    return match[1] === 'PROJECT_TILE' ? constant('splat_records.wgsl', 'PROJECT_TILE') : Number(match[1]);
  };
  expect(constant('splat_records.wgsl', 'PROJECT_TILE')).toBe(PROJECT_TILE);
  expect(constant('tile_scan.wgsl', 'SCAN_BLOCK')).toBe(SCAN_BLOCK);
  expect(constant('workgroup_sum.wgsl', 'SUM_WIDTH')).toBe(PROJECT_TILE);
  expect(constant('tile_state.wgsl', 'BIN_GROUP')).toBe(BIN_GROUP);
  expect(constant('tile_state.wgsl', 'NO_TILE')).toBe(NO_TILE);
  expect(constant('tile_state.wgsl', 'TILE_SIZE')).toBe(TILE_SIZE);
  expect(constant('tile_chunk.wgsl', 'CHUNK_HEADER')).toBe(CHUNK_HEADER);
  expect(constant('tile_chunk.wgsl', 'SPLIT_WORDS')).toBe(SPLIT_WORDS);
  expect(constant('tile_chunk.wgsl', 'ITEM_WORDS')).toBe(ITEM_WORDS);
});

test('a workgroup\'s place in a flat 2-D dispatch is worked out in dispatch.wgsl alone, which every other shader calls', () => {
  const spelled = (source: string) => /wid\.y \* /.test(source);
  expect(spelled(sources['dispatch.wgsl']!)).toBe(true);
  expect(Object.keys(sources).filter((file) => file !== 'dispatch.wgsl' && spelled(sources[file]!))).toEqual([]);
  expect(Object.keys(sources).filter((file) => /\bflat_group\(/.test(sources[file]!)).length).toBeGreaterThanOrEqual(7);
});

describe('layout rules (WGSL alignment and size)', () => {
  test('vec3 aligns to 16 and a scalar packs into its tail; matrices are columns of 16 bytes', () => {
    const s = defineStruct('S', [['view', 'mat4x4<f32>'], ['eye', 'vec3<f32>'], ['degree', 'u32'], ['size', 'vec2<f32>'], ['scale', 'f32']]);
    expect(s.fields.map((f) => f.offset)).toEqual([0, 64, 76, 80, 88]);
    expect(s.size).toBe(96);
    expect(defineStruct('M', [['a', 'f32'], ['m', 'mat3x3<f32>']]).fields[1]).toMatchObject({ offset: 16, size: 48 });
  });

  test('arrays stride by their element, a runtime-sized array ends the struct at its offset', () => {
    const s = defineStruct('A', [['n', 'u32'], ['v', 'array<vec3<f32>, 2>'], ['tail', 'array<u32>']]);
    expect(s.fields.map((f) => [f.offset, f.size])).toEqual([[0, 4], [16, 32], [48, 0]]);
    expect(s.size).toBe(48);
    expect(() => defineStruct('B', [['tail', 'array<u32>'], ['n', 'u32']])).toThrow(/last field/);
    expect(() => defineStruct('C', [['x', 'f64']])).toThrow(/unknown WGSL type/);
  });

  test('the parser reads fields past comments, nested commas and attributes it refuses', () => {
    const parsed = parseWgslStructs('// struct Fake { a: f32 }\nstruct T {\n  a: array<u32, 4>, // four\n  /* b */ b: vec2<f32>\n}');
    expect(parsed.get('T')).toEqual([{ name: 'a', type: 'array<u32, 4>' }, { name: 'b', type: 'vec2<f32>' }]);
    expect(parsed.has('Fake')).toBe(false);
    expect(() => parseWgslStructs('struct U { @align(16) a: f32 }')).toThrow(/attributes/);
  });

  test('the frame uniform and the projected record have the sizes the shaders expect', () => {
    expect(frameLayouts.FRAME.size).toBe(192);
    expect(sceneLayouts.SPLAT.size).toBe(64);
    expect(frameLayouts.PROJECTED_SPLAT.size).toBe(32);
  });
});

/** Parts of one WGSL file put into the marks of another (src/gpu/wgsl-splice.ts), as the tile raster's orders are. */
import { expect, test } from 'vitest';
import { spliceWgsl, wgslParts, wgslWithoutComments } from '../../src/gpu/wgsl-splice';
import rasterSource from '../../shaders/tile_raster.wgsl?raw';
import centreDepthSource from '../../shaders/tile_raster_centre_depth.wgsl?raw';
import perPixelSource from '../../shaders/tile_raster_per_pixel.wgsl?raw';

const BODY = ['fn main() {', '  var x = 1;', '  // {{start}}', '  loop {', '    // {{each}}', '  }', '}'].join('\n');

test('puts each part at its mark, indented as the mark, and the declarations after the body', () => {
  const parts = ['// what the parts share', 'fn helper() {}', '', '// {{start}}', 'var held = 0;', 'if (x > 0) {', '  held = x;', '}', '// {{each}}', 'held += 1;'].join('\n');
  expect(spliceWgsl(BODY, parts)).toBe(
    ['fn main() {', '  var x = 1;', '  var held = 0;', '  if (x > 0) {', '    held = x;', '  }', '  loop {', '    held += 1;', '  }', '}', '// what the parts share', 'fn helper() {}', ''].join('\n'),
  );
});

test('an empty part leaves its mark empty; a part the body has no mark for, or a mark without its part, is an error', () => {
  expect(spliceWgsl(BODY, '// {{start}}\n// {{each}}\nx += 1;')).toBe(['fn main() {', '  var x = 1;', '', '  loop {', '    x += 1;', '  }', '}', '', ''].join('\n'));
  expect(() => spliceWgsl(BODY, '// {{start}}\n// {{each}}\n// {{after}}\nx = 2;')).toThrow('the body has no mark for the part {{after}}');
  expect(() => spliceWgsl(BODY, '// {{start}}')).toThrow('no part {{each}} for the mark in the body');
  expect(() => wgslParts('// {{start}}\n// {{start}}')).toThrow('the part {{start}} is given twice');
});

test("the raster's two orders fill the same marks of its one loop, and only the per-pixel order holds a queue and reads ray shapes", () => {
  const centre = spliceWgsl(rasterSource, centreDepthSource);
  const perPixel = spliceWgsl(rasterSource, perPixelSource);
  for (const source of [centre, perPixel]) expect(source).not.toMatch(/^\s*\/\/ \{\{\w+\}\}\s*$/m);
  expect(centre).not.toMatch(/queue_key|slot_look|ray_shapes\[|ray_slots\[/);
  expect(perPixel).toMatch(/var queue_key: array<u32, PIXEL_QUEUE>;/);
  expect(perPixel).toMatch(/let shape = 4u \* ray_slots\[id\];\s+batch_axis_0\[lid\] = ray_shapes\[shape\];/);
  expect(perPixel.match(/@compute/g)).toHaveLength(1);
});

test("a built shader has no comment and no blank line but the marks, and its parts splice as the commented file's do", () => {
  const source = ['// A header', 'fn f() -> u32 {', '  let a = 1u; // why', '', '  /* a block', '     comment */ return a;', '  // {{start}}', '}', ''].join('\n');
  expect(wgslWithoutComments(source)).toBe(['fn f() -> u32 {', '  let a = 1u;', '   return a;', '  // {{start}}', '}', ''].join('\n'));
  const strip = (text: string) => text.split('\n').filter((line) => line.trim() !== '' && !line.trim().startsWith('//')).map((line) => line.replace(/\s*\/\/.*$/, '')).join('\n');
  for (const parts of [centreDepthSource, perPixelSource]) {
    const built = spliceWgsl(wgslWithoutComments(rasterSource), wgslWithoutComments(parts));
    expect(strip(built)).toBe(strip(spliceWgsl(rasterSource, parts)));
    expect(built.length).toBeLessThan(0.8 * spliceWgsl(rasterSource, parts).length);
  }
});

/** What the <splat-viewer> element's budget and camera attributes mean (src/lib/element-attributes.ts). */
import { expect, test } from 'vitest';
import { parseBudget, poseOf } from '../../src/lib/element-attributes';

test('a budget is auto, or a count with an optional k or M; anything else names none', () => {
  expect(parseBudget('auto')).toBe('auto');
  expect(parseBudget(' Auto ')).toBe('auto');
  expect(parseBudget('4M')).toBe(4_000_000);
  expect(parseBudget('1.5m')).toBe(1_500_000);
  expect(parseBudget('500k')).toBe(500_000);
  expect(parseBudget('250000')).toBe(250_000);
  for (const none of ['', '0', '-4M', '4 G', 'lots', '4MM', 'NaN']) expect(parseBudget(none), none).toBeNull();
});

test('a camera is a JSON pose with a finite eye and target; up and the field of view have defaults; anything else names none', () => {
  expect(poseOf('{"eye":[1,2,3],"target":[0,0,0],"up":[0,-1,0],"fovyDeg":40}')).toEqual({ eye: [1, 2, 3], target: [0, 0, 0], up: [0, -1, 0], fovyDeg: 40 });
  expect(poseOf('{"eye":[1,2,3],"target":[0,0,0]}')).toEqual({ eye: [1, 2, 3], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 60 });
  for (const none of [null, '', 'not json', '{"eye":[1,2],"target":[0,0,0]}', '{"eye":[1,2,"3"],"target":[0,0,0]}', '{"eye":[1,2,3]}', '[1,2,3]']) expect(poseOf(none), String(none)).toBeNull();
});

/**
 * The views file and the list of named views (src/app/views/): files
 * written read back the same, hostile files are refused naming what is
 * wrong, the list's operations keep its rules, a tour's timing, and a pin
 * projected where the camera shows it.
 */
import { mat4 } from 'gl-matrix';
import { describe, expect, it } from 'vitest';
import { MAX_VIEWS, MAX_VIEWS_FILE_CHARS, parseViewsFile, writeViewsFile, ViewsFileError, type NamedView } from '../../src/app/views/views-file';
import { addView, moveView, removeView, steppedIndex } from '../../src/app/views/view-list';
import { abortableWait, playTour } from '../../src/app/views/tour';
import { projectPoint } from '../../src/app/views/pin-projection';

const view = (name: string, pin: NamedView['pin'] = null): NamedView => ({ name, eye: [0, 0, 5], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 60, pin });
const fileOf = (views: unknown, extra: Record<string, unknown> = {}) => JSON.stringify({ splatsort_views: 1, views, ...extra });
const refused = (text: string) => {
  try {
    parseViewsFile(text);
  } catch (error) {
    expect(error).toBeInstanceOf(ViewsFileError);
    return (error as Error).message;
  }
  throw new Error('the file was read');
};

describe('the views file', () => {
  it('reads back what it wrote: names, poses, pins and the tour', () => {
    const file = { views: [view('Front'), { ...view('Door «1»', [1.5, -2, 0.25]), eye: [0.1 + 0.2, 3, 4] as [number, number, number] }], tour: { flightSeconds: 1.5, pauseSeconds: 0 } };
    for (const compact of [false, true]) {
      const read = parseViewsFile(writeViewsFile(file, compact));
      expect(read.tour).toEqual(file.tour);
      expect(read.views.map((v) => v.name)).toEqual(['Front', 'Door «1»']);
      expect(read.views[1]!.pin).toEqual([1.5, -2, 0.25]);
      expect(read.views[1]!.eye[0]).toBeCloseTo(0.3, 14);
      expect(read.views[0]!.pin).toBeNull();
    }
    expect(writeViewsFile(file, true)).not.toContain('\n');
  });

  it('takes the default tour when the file gives none, and ignores keys it does not know', () => {
    const read = parseViewsFile(fileOf([{ name: 'a', eye: [0, 0, 1], target: [0, 0, 0], up: [0, 1, 0], fovy_deg: 50, colour: 'red' }], { author: 'x' }));
    expect(read.tour).toEqual({ flightSeconds: 2, pauseSeconds: 2 });
    expect(read.views[0]!.fovyDeg).toBe(50);
  });

  it('refuses what is not a views file, or one of another version, saying so', () => {
    expect(refused('{"views": [')).toMatch(/not JSON/);
    expect(refused('[1, 2]')).toMatch(/must hold a JSON object/);
    expect(refused('{"views": []}')).toMatch(/not a views file: "splatsort_views"/);
    expect(refused('{"splatsort_views": 2, "views": []}')).toMatch(/version 2; this viewer reads version 1/);
    expect(refused('{"splatsort_views": 1, "views": {}}')).toMatch(/"views" must be an array, got \{\}/);
  });

  it('names every bad view, by its place or name, and what is wrong with it', () => {
    const good = { eye: [0, 0, 1], target: [0, 0, 0], up: [0, 1, 0], fovy_deg: 60 };
    const message = refused(fileOf([
      { ...good, name: '' },
      { ...good, name: 'eye', eye: [0, 'x', 1] },
      { ...good, name: 'same', eye: [0, 0, 0] },
      { ...good, name: 'up', up: [0, 0, 3] },
      { ...good, name: 'wide', fovy_deg: 180 },
      { ...good, name: 'far', pin: [1e300, 0, 0] },
      { ...good, name: 'twice' },
      { ...good, name: 'twice' },
      { ...good, name: 'bell\u0007' },
      'not a view',
    ], { tour: { flight_seconds: -1 } }));
    for (const part of [
      'view 1\'s "name" is empty',
      'view "eye": "eye" must be an array of three numbers',
      'view "same": "eye" and "target" are the same point',
      'view "up": "up" is zero or along the view direction',
      'view "wide": "fovy_deg" must be a number of degrees between 0 and 180, got 180',
      'view "far": "pin" must be an array of three numbers within ±1000000000',
      'view 8: the name "twice" is taken by an earlier view',
      'view 9\'s "name" holds a control character',
      'view 10 must be an object, got "not a view"',
      '"tour": "flight_seconds" must be a number of seconds from 0 to 600, got -1',
    ]) expect(message).toContain(part);
  });

  it('is bounded: too long a file, too many views, too long a name, and long values cut short in messages', () => {
    expect(refused(' '.repeat(MAX_VIEWS_FILE_CHARS + 1))).toMatch(/characters long; the most read is 65536/);
    const many = Array.from({ length: MAX_VIEWS + 1 }, (_, i) => ({ name: `v${i}` }));
    expect(refused(fileOf(many))).toMatch(/holds 101 views; the most is 100/);
    expect(refused(fileOf([{ name: 'n'.repeat(81), eye: [0, 0, 1], target: [0, 0, 0], up: [0, 1, 0], fovy_deg: 60 }]))).toMatch(/81 characters long; the most is 80/);
    const message = refused(fileOf([{ name: 'x', eye: 'e'.repeat(5000), target: [0, 0, 0], up: [0, 1, 0], fovy_deg: 60 }]));
    expect(message.length).toBeLessThan(200);
    // A hundred bad views name ten problems, and how many more.
    expect(refused(fileOf(Array.from({ length: 100 }, () => ({}))))).toMatch(/; and 90 more$/);
  });
});

describe('the list of views', () => {
  const list = [view('a'), view('b'), view('c')];

  it('adds at the end, refusing a name taken, a bad pose and a full list; leaves the list it was given alone', () => {
    const added = addView(list, view('d'));
    expect(added.map((v) => v.name)).toEqual(['a', 'b', 'c', 'd']);
    expect(list).toHaveLength(3);
    expect(() => addView(list, view('b'))).toThrow('a view named "b" is already there');
    expect(() => addView(list, { ...view('e'), target: [0, 0, 5] })).toThrow('view "e": "eye" and "target" are the same point');
    const full = Array.from({ length: MAX_VIEWS }, (_, i) => view(`v${i}`));
    expect(() => addView(full, view('one more'))).toThrow('there are 100 views already; the most is 100');
  });

  it('removes and moves by name, clamping the place, naming the views there are for an unknown name', () => {
    expect(removeView(list, 'b').map((v) => v.name)).toEqual(['a', 'c']);
    expect(moveView(list, 'c', 0).map((v) => v.name)).toEqual(['c', 'a', 'b']);
    expect(moveView(list, 'a', 1).map((v) => v.name)).toEqual(['b', 'a', 'c']);
    expect(moveView(list, 'a', 99).map((v) => v.name)).toEqual(['b', 'c', 'a']);
    expect(() => removeView(list, 'z')).toThrow('no view is named "z": there are "a", "b", "c"');
    expect(() => moveView([], 'z', 0)).toThrow('no view is named "z": there are none');
    expect(() => moveView(list, 'a', 0.5)).toThrow('a view\'s place must be a whole number, got 0.5');
  });

  it('steps to the next and previous view around the ends', () => {
    expect(steppedIndex(3, null, 1)).toBe(0);
    expect(steppedIndex(3, null, -1)).toBe(2);
    expect(steppedIndex(3, 2, 1)).toBe(0);
    expect(steppedIndex(3, 0, -1)).toBe(2);
    expect(steppedIndex(3, 1, 1)).toBe(2);
    expect(steppedIndex(0, null, 1)).toBeNull();
  });
});

describe('a tour', () => {
  it('flies to each view in order, pausing at each', async () => {
    const steps: string[] = [];
    const outcome = await playTour(3, { flightSeconds: 1.5, pauseSeconds: 2 }, {
      fly: async (i, s) => void steps.push(`fly ${i} ${s}`),
      wait: async (s) => void steps.push(`wait ${s}`),
    }, new AbortController().signal);
    expect(outcome).toBe('ended');
    expect(steps).toEqual(['fly 0 1.5', 'wait 2', 'fly 1 1.5', 'wait 2', 'fly 2 1.5', 'wait 2']);
  });

  it('stops when its signal aborts, a pause cut short at once', async () => {
    const stop = new AbortController();
    const steps: number[] = [];
    const started = performance.now();
    const outcome = await playTour(5, { flightSeconds: 0, pauseSeconds: 60 }, {
      fly: async (i) => {
        steps.push(i);
        setTimeout(() => stop.abort(), 10);
      },
      wait: abortableWait,
    }, stop.signal);
    expect(outcome).toBe('stopped');
    expect(steps).toEqual([0]);
    // The first pause of 60 s ended with the abort.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});

describe('a pin on screen', () => {
  it('is where the camera shows the point, and nowhere behind the camera', () => {
    const view = mat4.lookAt(mat4.create(), [0, 0, 5], [0, 0, 0], [0, 1, 0]);
    const projection = mat4.perspectiveZO(mat4.create(), Math.PI / 2, 2, 0.01, Infinity);
    const centre = projectPoint(view, projection, [0, 0, 0], 800, 400)!;
    expect(centre.x).toBeCloseTo(400, 9);
    expect(centre.y).toBeCloseTo(200, 9);
    // 45° up and right of the view's axis at distance 5: the top edge, a quarter in from the right (aspect 2).
    const corner = projectPoint(view, projection, [5, 5, 0], 800, 400)!;
    expect(corner.x).toBeCloseTo(600, 9);
    expect(corner.y).toBeCloseTo(0, 9);
    expect(projectPoint(view, projection, [0, 0, 6], 800, 400)).toBeNull();
  });
});

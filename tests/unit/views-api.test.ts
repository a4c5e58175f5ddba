/**
 * A viewer's named views (src/lib/views.ts) over a camera that flies in
 * steps the test drives: the list's changes and their events, flights to
 * a view, next and previous, a tour stopped by the controls, the views
 * kept in a link (the address while unchanged, else the views while few)
 * and read back from one, addresses refused by scheme, and pins.
 */
import { mat4 } from 'gl-matrix';
import { describe, expect, it } from 'vitest';
import { MAX_LINK_VIEWS_CHARS, ViewerViews } from '../../src/lib/views';
import type { CameraPose } from '../../src/lib/public-types';
import type { SavedView } from '../../src/lib/views-api';

/** A camera whose flights land at once (a flight the test marks `interrupted` lands where it started, as the controls would leave it). */
function host(options: { interrupted?: (to: CameraPose) => boolean } = {}) {
  let pose: CameraPose = { eye: [0, 0, 5], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 60 };
  const flights: { to: CameraPose; seconds: number | undefined }[] = [];
  const changes: (readonly SavedView[])[] = [];
  const view = mat4.lookAt(mat4.create(), [0, 0, 5], [0, 0, 0], [0, 1, 0]);
  const projection = mat4.perspectiveZO(mat4.create(), Math.PI / 2, 2, 0.01, Infinity);
  const views = new ViewerViews({
    camera: {
      get: () => structuredClone(pose),
      flyTo: async (to, o) => {
        flights.push({ to, seconds: o?.seconds });
        if (!options.interrupted?.(to)) pose = structuredClone(to);
      },
    },
    lastFrame: () => ({ view, projection, eye: [0, 0, 5], fovY: Math.PI / 2, width: 1600, height: 800, shDegree: 0, splatScale: 1 }),
    canvasSize: () => ({ width: 800, height: 400 }),
    baseUrl: () => 'https://example.org/viewer/',
    changed: (list) => changes.push(list),
  });
  return { views, flights, changes, setPose: (p: CameraPose) => void (pose = p) };
}
const at = (z: number): CameraPose => ({ eye: [0, 0, z], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 50 });

describe('named views', () => {
  it('adds the view on screen, with a pin at its target when asked; removes and moves by name; each change is an event', () => {
    const { views, changes, setPose } = host();
    views.add('Start');
    setPose(at(2));
    const pinned = views.add('Near', { pin: 'target' });
    views.add('Far', { camera: at(9), pin: [1, 2, 3] });
    expect(pinned).toEqual({ name: 'Near', camera: at(2), pin: [0, 0, 0] });
    expect(views.list().map((v) => [v.name, v.camera.eye[2], v.pin])).toEqual([['Start', 5, null], ['Near', 2, [0, 0, 0]], ['Far', 9, [1, 2, 3]]]);
    views.move('Far', 0);
    views.remove('Start');
    expect(views.list().map((v) => v.name)).toEqual(['Far', 'Near']);
    expect(changes.map((list) => list.length)).toEqual([1, 2, 3, 3, 2]);
    expect(() => views.add('Near')).toThrow('a view named "Near" is already there');
    expect(() => views.remove('Start')).toThrow('no view is named "Start": there are "Far", "Near"');
    // What list() gives is a copy: changing it changes no view.
    views.list()[0]!.camera.eye[0] = 99;
    expect(views.list()[0]!.camera.eye[0]).toBe(0);
  });

  it('flies to a view over the tour\'s flight, or the seconds asked; next and previous go around the ends', async () => {
    const { views, flights } = host();
    views.replace([{ name: 'a', camera: at(1), pin: null }, { name: 'b', camera: at(2), pin: null }, { name: 'c', camera: at(3), pin: null }], { flightSeconds: 1.25, pauseSeconds: 0 });
    await views.go('b', { seconds: 0.5 });
    expect(views.current).toBe('b');
    await views.next();
    await views.next();
    await views.previous();
    expect(flights.map((f) => [f.to.eye[2], f.seconds])).toEqual([[2, 0.5], [3, 1.25], [1, 1.25], [3, 1.25]]);
    await expect(views.go('z')).rejects.toThrow('no view is named "z"');
    views.remove('c');
    expect(views.current).toBeNull();
  });

  it('plays a tour of every view in order; the controls taking the camera stop it there', async () => {
    const whole = host();
    whole.views.replace([{ name: 'a', camera: at(1), pin: null }, { name: 'b', camera: at(2), pin: null }], { flightSeconds: 0, pauseSeconds: 0 });
    const playing = whole.views.play();
    expect(whole.views.playing).toBe(true);
    expect(await playing).toBe('ended');
    expect(whole.views.playing).toBe(false);
    expect(whole.flights.map((f) => f.to.eye[2])).toEqual([1, 2]);

    const cut = host({ interrupted: (to) => to.eye[2] === 2 });
    cut.views.replace([{ name: 'a', camera: at(1), pin: null }, { name: 'b', camera: at(2), pin: null }, { name: 'c', camera: at(3), pin: null }], { flightSeconds: 0, pauseSeconds: 0 });
    expect(await cut.views.play()).toBe('stopped');
    expect(cut.flights.map((f) => f.to.eye[2])).toEqual([1, 2]);
    expect(cut.views.playing).toBe(false);
  });

  it('keeps the views in a link while few, reads them back from it, and drops them from a link once too many', async () => {
    const { views } = host();
    views.add('Door', { camera: at(2), pin: [0.5, 0, 0] });
    const params = new URLSearchParams('url=scene.ply');
    views.writeLink(params);
    const other = host().views;
    expect(await other.openLink(params)).toBe(true);
    expect(other.list()).toEqual(views.list());
    expect(await other.openLink(new URLSearchParams('url=scene.ply'))).toBe(false);
    for (let i = 0; i < 20; i++) views.add(`A rather long name for view number ${i}`, { camera: at(3 + i) });
    expect(JSON.stringify(JSON.parse(views.file())).length).toBeGreaterThan(MAX_LINK_VIEWS_CHARS);
    views.writeLink(params);
    expect(params.has('views')).toBe(false);
    expect(params.get('url')).toBe('scene.ply');
  });

  it('opens views files from a File, and refuses addresses by scheme and files by size before reading them', async () => {
    const { views } = host();
    const text = JSON.stringify({ splatsort_views: 1, tour: { pause_seconds: 4 }, views: [{ name: 'One', eye: [0, 0, 1], target: [0, 0, 0], up: [0, 1, 0], fovy_deg: 45 }] });
    await views.open(new File([text], 'tour.json'));
    expect(views.list().map((v) => v.name)).toEqual(['One']);
    expect(views.tour).toEqual({ flightSeconds: 2, pauseSeconds: 4 });
    await expect(views.open(new File(['x'.repeat(300_000)], 'big.json'))).rejects.toThrow('big.json is 300000 bytes; a views file is at most 65536 characters');
    await expect(views.open('javascript:alert(1)')).rejects.toThrow('the views address uses "javascript:": only http, https and blob URLs are opened');
    await expect(views.open('file:///etc/passwd')).rejects.toThrow('uses "file:"');
    await expect(views.openLink(new URLSearchParams({ views: '{"splatsort_views": 1, "views": [{"name": ""}]}' }))).rejects.toThrow('view 1\'s "name" is empty');
    // A refused file changes nothing.
    expect(views.list().map((v) => v.name)).toEqual(['One']);
    expect(() => (views.tour = { flightSeconds: -1, pauseSeconds: 0 })).toThrow('"flight_seconds" must be a number of seconds from 0 to 600');
  });

  it('places each pin where the last frame shows its point, in CSS pixels, and says when it is out of sight', () => {
    const { views } = host();
    views.add('Centre', { camera: at(4), pin: [0, 0, 0] });
    views.add('Behind', { camera: at(5), pin: [0, 0, 9] });
    views.add('Off to the side', { camera: at(6), pin: [40, 0, 0] });
    views.add('No pin', { camera: at(7) });
    const pins = views.pins();
    expect(pins.map((p) => p.name)).toEqual(['Centre', 'Behind', 'Off to the side']);
    expect(pins[0]).toMatchObject({ visible: true });
    expect(pins[0]!.x).toBeCloseTo(400, 9);
    expect(pins[0]!.y).toBeCloseTo(200, 9);
    expect(pins[1]!.visible).toBe(false);
    expect(pins[2]!.visible).toBe(false);
  });
});

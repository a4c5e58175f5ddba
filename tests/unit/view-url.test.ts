import { describe, expect, it, test } from 'vitest';
import { mat4 } from 'gl-matrix';
import { OrbitCamera, createCameraView } from '../../src/app/camera/orbit-camera';
import { readOrderParam, readRendererParam, readViewMode, readViewParams, writeOrderParam, writeRendererParam, writeViewParams } from '../../src/app/camera/view-url';
import { DEFAULT_ORDER_SETTING, DEFAULT_RENDERER_SETTING, DEFAULT_SPLAT_ORDER, ORDER_SETTINGS, RENDERER_SETTINGS } from '../../src/render/frame-renderer';

describe('the view in the URL', () => {
  it.each([
    [0, 1, 0],
    [0, -1, 0],
    [0, 0, 1],
    [-1, 0, 0],
    [0.3, -0.8, 0.52],
  ])('restores the same camera exactly (up %s)', (...up) => {
    const camera = new OrbitCamera();
    camera.setUp(up);
    camera.frame({ min: [-3.1, -0.7, 2], max: [4.9, 1.3, 11.7] }, 1.5);
    camera.orbit(1.234567, -0.4321);
    camera.zoom(0.37);
    camera.pan(13, -7, 600);
    camera.fovY = 0.93;
    const params = new URLSearchParams('url=scenes%2Fa.ply');
    writeViewParams(camera.getView(createCameraView()), params);
    const link = `https://example.test/?${params.toString()}`;

    const restored = new OrbitCamera();
    restored.setView(readViewParams(new URL(link).searchParams)!);
    const [a, b] = [camera.viewMatrix(mat4.create()), restored.viewMatrix(mat4.create())];
    for (let i = 0; i < 16; i++) expect(b[i]).toBeCloseTo(a[i]!, 12);
    expect(restored.fovY).toBeCloseTo(camera.fovY, 14);
    expect(new URL(link).searchParams.get('url')).toBe('scenes/a.ply');
  });

  it('is absent when the URL names no view, and explained when it is malformed', () => {
    expect(readViewParams(new URLSearchParams('url=x.ply'))).toBeNull();
    expect(() => readViewParams(new URLSearchParams('eye=1,2&target=0,0,0'))).toThrow(/"eye" must be three numbers/);
    expect(() => readViewParams(new URLSearchParams('eye=1,2,3&target=0,0,0&fovy=200'))).toThrow(/"fovy"/);
    expect(() => readViewParams(new URLSearchParams('eye=1,2,3&target=1,2,3'))).toThrow(/same point/);
  });

  it('takes any up vector as the scene\'s up, normalised', () => {
    const camera = new OrbitCamera();
    camera.setView({ eye: [0, 0, 5], target: [0, 0, 0], up: [0.2, -0.9, 0], fovyDeg: 40 });
    const length = Math.hypot(0.2, 0.9);
    expect(Array.from(camera.up)).toEqual([0.2 / length, -0.9 / length, 0]);
    expect(camera.distance).toBeCloseTo(5, 12);
    const view = camera.getView(createCameraView());
    [0, 0, 5].forEach((v, i) => expect(view.eye[i]).toBeCloseTo(v, 12));
  });

  it('keeps fly mode in the link, and leaves orbit links as they were', () => {
    const view = { eye: [0, 0, 5], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 40 } as const;
    const params = new URLSearchParams('mode=fly');
    writeViewParams({ ...view, eye: [...view.eye], target: [...view.target], up: [...view.up] }, params);
    expect(params.has('mode')).toBe(false);
    expect(readViewMode(params)).toBe('orbit');
    writeViewParams({ ...view, eye: [...view.eye], target: [...view.target], up: [...view.up] }, params, 'fly');
    expect(params.get('mode')).toBe('fly');
    expect(readViewMode(params)).toBe('fly');
    expect(() => readViewMode(new URLSearchParams('mode=walk'))).toThrow(/"mode" must be orbit or fly, got "walk"/);
  });
});

describe('the renderer in the URL', () => {
  test.each(RENDERER_SETTINGS)('reads back %s as written, beside the view', (setting) => {
    const params = new URLSearchParams('url=scenes%2Fa.ply&renderer=tiles');
    writeViewParams({ eye: [0, 0, 5], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 40 }, params);
    writeRendererParam(setting, params);
    const link = new URL(`https://example.test/?${params.toString()}`);
    expect(readRendererParam(link.searchParams)).toBe(setting);
    expect(readViewParams(link.searchParams)?.fovyDeg).toBe(40);
  });

  test('auto, the default, is left out of links, and a link without one opens with auto', () => {
    const params = new URLSearchParams('renderer=quads');
    writeRendererParam('auto', params);
    expect(params.has('renderer')).toBe(false);
    expect(readRendererParam(new URLSearchParams('url=x.ply'))).toBe(DEFAULT_RENDERER_SETTING);
    expect(DEFAULT_RENDERER_SETTING).toBe('auto');
  });

  test('a renderer it does not know is explained', () => {
    expect(() => readRendererParam(new URLSearchParams('renderer=raytrace'))).toThrow(/"renderer" must be one of auto, quads, tiles, got "raytrace"/);
  });
});

describe('the splat order in the URL', () => {
  test.each(ORDER_SETTINGS)('reads back %s as written, beside the renderer and the view', (order) => {
    const params = new URLSearchParams('url=scenes%2Fa.ply&order=per-pixel');
    writeViewParams({ eye: [0, 0, 5], target: [0, 0, 0], up: [0, 1, 0], fovyDeg: 40 }, params);
    writeRendererParam('quads', params);
    writeOrderParam(order, params);
    const link = new URL(`https://example.test/?${params.toString()}`);
    expect(readOrderParam(link.searchParams)).toBe(order);
    expect(readRendererParam(link.searchParams)).toBe('quads');
    expect(readViewParams(link.searchParams)?.fovyDeg).toBe(40);
  });

  test('either order is written by name; auto, the default, is left out, and a link without one opens with it', () => {
    const params = new URLSearchParams();
    writeOrderParam('per-pixel', params);
    expect(params.toString()).toBe('order=per-pixel');
    writeOrderParam('centre-depth', params);
    expect(params.toString()).toBe('order=centre-depth');
    writeOrderParam('auto', params);
    expect(params.has('order')).toBe(false);
    expect(readOrderParam(new URLSearchParams('url=x.ply&renderer=tiles'))).toBe(DEFAULT_ORDER_SETTING);
    expect(DEFAULT_ORDER_SETTING).toBe('auto');
    // The render command's and the benchmarks' order, where no setting names one.
    expect(DEFAULT_SPLAT_ORDER).toBe('centre-depth');
  });

  test('an order it does not know is explained', () => {
    expect(() => readOrderParam(new URLSearchParams('order=per-splat'))).toThrow(/"order" must be one of auto, centre-depth, per-pixel, got "per-splat"/);
    expect(() => readOrderParam(new URLSearchParams('order='))).toThrow(/"order" must be one of/);
  });
});

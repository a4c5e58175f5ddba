import { describe, expect, it } from 'vitest';
import { DEFAULT_LOAD_LIMITS, PREVIEW_SHARE, previewSplatLimit, type LoadLimits } from '../../src/io/load-limits';
import { PREVIEW_GROWTH, PREVIEW_INTERVAL_MS, previewSender } from '../../src/io/preview-sender';
import { ScenePreview, type PreviewPart } from '../../src/io/scene-preview';
import { chunksOf } from '../../src/io/source-bytes';
import { loadSplatStream } from '../../src/io/splat-stream';
import type { SplatCloud } from '../../src/scene/splat-cloud';
import { inriaPly, splatFile } from '../support/splat-files';

/** Streams `bytes` in `chunk`-byte pieces with a clock that advances `msPerChunk` a piece; returns the parts sent and the final cloud. */
async function streamWithPreview(bytes: Uint8Array, name: string, chunk: number, msPerChunk: number): Promise<{ parts: PreviewPart[]; cloud: SplatCloud; error?: unknown }> {
  const parts: PreviewPart[] = [];
  let clock = 0;
  const onDecoded = previewSender((part) => parts.push(part), DEFAULT_LOAD_LIMITS, () => clock);
  async function* ticking(): AsyncGenerator<Uint8Array> {
    for (const piece of chunksOf(bytes, chunk)) {
      clock += msPerChunk;
      yield piece;
    }
  }
  try {
    return { parts, cloud: await loadSplatStream(ticking(), { name, totalBytes: bytes.length, onDecoded }) };
  } catch (error) {
    return { parts, cloud: null as unknown as SplatCloud, error };
  }
}

/** The first `n` splats of `cloud`, field by field. */
function prefix(cloud: SplatCloud, n: number) {
  const k = cloud.sh.length / cloud.count;
  return {
    positions: Array.from(cloud.positions.subarray(0, 3 * n)),
    scales: Array.from(cloud.scales.subarray(0, 3 * n)),
    rotations: Array.from(cloud.rotations.subarray(0, 4 * n)),
    opacities: Array.from(cloud.opacities.subarray(0, n)),
    dc: Array.from(cloud.dc.subarray(0, 3 * n)),
    sh: Array.from(cloud.sh.subarray(0, k * n)),
  };
}

describe('the scene while it loads', () => {
  it('sends an INRIA PLY in growing ranges, spaced in time, that add up to the splats decoded so far', async () => {
    const count = 5000;
    const bytes = inriaPly({ count, shDegree: 1, seed: 3 });
    const { parts, cloud } = await streamWithPreview(bytes, 'scene.ply', 4096, 100);
    expect(parts.length).toBeGreaterThan(3);
    const preview = new ScenePreview();
    let shown: SplatCloud | null = null;
    for (const [i, part] of parts.entries()) {
      expect(part.expected).toBe(count);
      expect(part.shDegree).toBe(1);
      if (i > 0) {
        // Each part brings the scene to at least PREVIEW_GROWTH times what it had.
        expect(part.first + part.count).toBeGreaterThanOrEqual(PREVIEW_GROWTH * part.first);
      }
      shown = preview.add(part);
      // What the viewer draws is exactly the file's first splats, decoded as the whole load decodes them.
      expect(prefix(shown, shown.count)).toEqual(prefix(cloud, shown.count));
    }
    expect(shown!.count).toBeLessThanOrEqual(count);
    // Bounds over the splats so far.
    const xs = Array.from({ length: shown!.count }, (_, i) => cloud.positions[3 * i]!);
    expect(shown!.bounds.min[0]).toBe(Math.min(...xs));
    expect(shown!.bounds.max[0]).toBe(Math.max(...xs));
  });

  it('waits PREVIEW_INTERVAL_MS between ranges', async () => {
    const bytes = inriaPly({ count: 3000, seed: 5 });
    // A chunk every 10 ms: at most one range per 25 chunks.
    const { parts } = await streamWithPreview(bytes, 'scene.ply', 1024, 10);
    const chunks = Math.ceil(bytes.length / 1024);
    expect(parts.length).toBeGreaterThan(0);
    expect(parts.length).toBeLessThanOrEqual(Math.ceil((chunks * 10) / PREVIEW_INTERVAL_MS) + 1);
  });

  it('grows its store for a .splat file, which declares no count', async () => {
    const count = 150_000;
    const bytes = splatFile(count);
    const parts: PreviewPart[] = [];
    let clock = 0;
    const onDecoded = previewSender((part) => parts.push(part), DEFAULT_LOAD_LIMITS, () => (clock += 1000));
    // No size given: the stream cannot know the count.
    const cloud = await loadSplatStream(chunksOf(bytes, 64 * 1024), { name: 'scene.splat', onDecoded });
    const preview = new ScenePreview();
    let shown: SplatCloud | null = null;
    for (const part of parts) {
      expect(part.expected).toBeNull();
      shown = preview.add(part);
    }
    expect(shown!.count).toBeGreaterThan(65536);
    expect(prefix(shown!, shown!.count)).toEqual(prefix(cloud, shown!.count));
  });

  it('sends nothing past a range whose values the file\'s checks refuse', async () => {
    const count = 4000;
    const bytes = inriaPly({ count, seed: 9, value: (name, i) => (name === 'x' && i === 2500 ? 1e30 : undefined) });
    const { parts, error } = await streamWithPreview(bytes, 'scene.ply', 2048, 300);
    // The load itself fails, and says why.
    expect(String(error)).toMatch(/position of splat 2,500 is 1.00e\+30/);
    const sent = parts.reduce((n, p) => n + p.count, 0);
    expect(sent).toBeGreaterThan(0);
    expect(sent).toBeLessThanOrEqual(2500);
  });

  it('takes parts only in order', () => {
    const preview = new ScenePreview();
    const part = (first: number, count: number): PreviewPart => ({
      first, count, expected: 10, most: 10, shDegree: 0,
      positions: new Float32Array(3 * count), scales: new Float32Array(3 * count).fill(1), rotations: new Float32Array(4 * count),
      opacities: new Float32Array(count), dc: new Float32Array(3 * count), sh: new Float32Array(0),
    });
    expect(preview.add(part(0, 4)).count).toBe(4);
    expect(() => preview.add(part(5, 2))).toThrow(/out of order/);
    expect(preview.add(part(4, 6)).count).toBe(10);
  });

  it('stops growing at a share of the scene\'s bound while the load goes on to the bound itself', async () => {
    // A small device: 40,000 splats a scene, so previews of at most 10,000.
    const limits: LoadLimits = { maxSplats: [40_000, 40_000, 40_000, 40_000], maxBytes: 2 ** 24 };
    const most = previewSplatLimit(limits, 0);
    expect(most).toBe(40_000 * PREVIEW_SHARE);
    const parts: PreviewPart[] = [];
    let clock = 0;
    const onDecoded = previewSender((part) => parts.push(part), limits, () => (clock += 1000));
    const cloud = await loadSplatStream(chunksOf(splatFile(30_000), 8192), { name: 'scene.splat', onDecoded, limits });
    expect(cloud.count).toBe(30_000);
    const preview = new ScenePreview();
    let shown: SplatCloud | null = null;
    for (const part of parts) {
      expect(part.most).toBe(most);
      shown = preview.add(part);
    }
    // The preview reached its most exactly (the last range is cut there) and held no more.
    expect(shown!.count).toBe(most);
    expect(shown!.positions.buffer.byteLength).toBe(3 * 4 * most);
    expect(prefix(shown!, most)).toEqual(prefix(cloud, most));
  });
});

/**
 * validateSplatCloud, the check every loaded scene passes before the
 * viewer draws it: it names the attribute, the first bad splat and how many
 * are bad; it allows what the renderer can draw (up to 2^32) and no more;
 * it is one fast pass per array; and the real scenes pass it.
 */
import { describe, expect, it } from 'vitest';
import { loadSplatFile } from '../../src/io/parse-splat-file';
import { SplatFormatError } from '../../src/io/ply/parse';
import { MAX_MAGNITUDE, validateSplatCloud } from '../../src/io/validate-splats';
import { allocateSplatCloud, computeBounds, type ShDegree, type SplatCloud } from '../../src/scene/splat-cloud';
import { read } from '../support/broken-files';

describe('validateSplatCloud', () => {
  function cloud(count: number, shDegree: ShDegree = 0): SplatCloud {
    const c = allocateSplatCloud(count, shDegree);
    for (let i = 0; i < count; i++) {
      c.positions.set([i, -i, 0.5 * i], 3 * i);
      c.scales.set([0.01, 0.02, 0.03], 3 * i);
      c.rotations[4 * i] = 1;
      c.opacities[i] = 0.5;
    }
    c.bounds = computeBounds(c.positions, count);
    return c;
  }
  function rejects(c: SplatCloud): string {
    try {
      validateSplatCloud(c);
    } catch (error) {
      expect(error).toBeInstanceOf(SplatFormatError);
      expect((error as Error).name).toBe('SplatFormatError');
      return (error as Error).message;
    }
    throw new Error('validateSplatCloud accepted the cloud');
  }

  it('names the attribute, the first bad splat and how many are bad', () => {
    const c = cloud(2000);
    c.positions[3 * 1204 + 1] = NaN;
    c.positions[3 * 1500] = Infinity;
    c.positions[3 * 1999 + 2] = NaN;
    c.positions[3 * 1999] = NaN;
    expect(rejects(c)).toBe('position of splat 1,204 is NaN (3 splats have non-finite positions)');
  });

  it('finds a non-finite value in every attribute', () => {
    const attributes = [
      ['positions', 'position'], ['scales', 'scale'], ['rotations', 'rotation'], ['opacities', 'opacity'],
      ['dc', 'base colour (f_dc)'], ['sh', 'SH coefficient'],
    ] as const;
    for (const [key, label] of attributes) {
      for (const value of [NaN, Infinity, -Infinity]) {
        const c = cloud(10, 3);
        const array = c[key];
        array[(array.length / 10) * 7] = value;
        expect(rejects(c)).toMatch(new RegExp(`^${label.replace(/[()]/g, '\\$&')} of splat 7 is ${value} \\(1 splat has a non-finite`));
      }
    }
  });

  it('refuses an empty cloud', () => {
    expect(rejects(cloud(0))).toBe('the file holds no splats');
  });

  it('allows scales and coordinates up to 2^32 (negative scales too: the renderer squares them) and no more', () => {
    const c = cloud(4);
    c.scales[5] = MAX_MAGNITUDE;
    c.scales[6] = -MAX_MAGNITUDE;
    c.positions[2] = -MAX_MAGNITUDE;
    c.bounds = computeBounds(c.positions, 4);
    expect(() => validateSplatCloud(c)).not.toThrow();
    c.scales[5] = MAX_MAGNITUDE * (1 + 2 ** -23);
    expect(rejects(c)).toMatch(/^scale of splat 1 is 4\.29e\+9, absurdly large: beyond ±2\^32 = 4,294,967,296, i\.e\. a stored log-scale above 22\.2 \(1 splat has an absurdly large scale\)/);
    c.scales[5] = 1;
    c.positions[2] = -1e10;
    expect(rejects(c)).toMatch(/^position of splat 0 is -1\.00e\+10, absurdly large/);
  });

  it('refuses arrays whose lengths do not match the count', () => {
    const c = cloud(5);
    c.opacities = new Float32Array(4);
    expect(rejects(c)).toMatch(/opacities hold 4 values for 5 splats/);
  });

  it('validates a million splats in one fast pass per array', () => {
    const n = 1_048_576;
    const c = cloud(n, 0);
    validateSplatCloud(c); // warm up
    const times: number[] = [];
    for (let r = 0; r < 5; r++) {
      const t0 = performance.now();
      validateSplatCloud(c);
      times.push(performance.now() - t0);
    }
    const best = Math.min(...times);
    console.log(`validateSplatCloud: 1M splats (SH 0, ${(n * 14 * 4 / 2 ** 20).toFixed(0)} MiB of floats) in ${best.toFixed(1)} ms`);
    expect(best).toBeLessThan(150); // about 15 ms here; generous for a loaded machine
  });

  it.each([
    'inria_kacytran_iter7000_9k_sh3.ply',
    'inria_karangkidul_150k_sh3_decoded.ply',
    'inria_karangkidul_1M_sh0_decoded.ply',
    'playcanvas_biker.compressed.ply',
    'playcanvas_biker_v4.spz',
    'justdealman_model.splat',
  ])('passes the real scene %s', async (file) => {
    const c = await loadSplatFile(read(file), file);
    const t0 = performance.now();
    validateSplatCloud(c);
    const ms = performance.now() - t0;
    let maxScale = 0;
    for (let i = 0; i < c.scales.length; i++) maxScale = Math.max(maxScale, Math.abs(c.scales[i]!));
    console.log(`${file}: ${c.count} splats validated in ${ms.toFixed(1)} ms; largest scale ${maxScale.toPrecision(3)}`);
  }, 120_000);
});

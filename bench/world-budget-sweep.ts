/**
 * The world benchmark's pictures under budgets (bench/bench-world.ts
 * --budgets): at cameras looking down and cameras over the city, the full
 * detail once, the default threshold with no budget that binds, then each
 * budget under each budget policy, every picture against the full detail
 * (PSNR), with the splats it drew and its GPU frame time.
 */
import type { CameraFile } from '../src/app/camera/camera-file';
import type { SplatFrame } from '../src/app/frame/splat-frame';
import type { DrawOrder } from '../src/app/frame/order/draw-order';
import { WorldSession, type WorldChunks } from '../src/app/world/world-session';
import { WORLD_DEFAULTS } from '../src/app/world/world-options';
import type { BudgetPolicy } from '../src/app/world/world-lod';
import { isPacked, type PoolSplats } from '../src/scene/splat-packing';
import { renderOffscreen } from './render-offscreen';
import { psnr } from '../cli/picture-compare';
import { encodePng } from '../cli/png';
import { shiftFloor } from './shift-floor';
import { boxDownsample } from './picture-downsample';
import { ANTIALIASED_FILTER, type ScreenFilter } from '../src/scene/anti-aliasing';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SweepSetup {
  device: GPUDevice;
  frame: SplatFrame;
  order: DrawOrder;
  files: WorldChunks;
  /** Camera `t` (0..1) along the path, `altitude` in the world's widths up, looking down (`steep`) or ahead. */
  camera(t: number, altitude: number, steep: boolean): CameraFile;
  /** The GPU time of one frame of `world` from `camera` (null: nothing drawn). */
  frameMs(world: WorldSession, camera: CameraFile, screenFilter?: ScreenFilter): Promise<number | null>;
  print(line: Record<string, unknown>): void;
}

export interface SweepOptions {
  budgets: number[];
  policies: BudgetPolicy[];
  /** Cameras looking down at the ground, at `altitudes` in turn; cameras looking ahead, over the city, at `cityAltitudes` in turn. */
  downViews: number;
  cityViews: number;
  altitudes: number[];
  cityAltitudes: number[];
  /** Views whose full detail wants more splats are left out. */
  fullLimit: number;
  /** Frames timed a picture (their median). */
  frames: number;
  /** Only these views of each set (null: all). */
  only: Set<number> | null;
  /** Where to write each picture as a PNG (null: nowhere). */
  pictures: string | null;
  /** The full detail is also drawn at this many times the width and height and averaged down (1: not): each picture's PSNR against that too. */
  supersample: number;
  /**
   * With `supersample`, each picture is drawn again with the anti-aliased screen filter and put against the supersampled
   * full detail too; and the full detail is supersampled a second time with that filter, each picture (both filters)
   * against that as well.
   */
  antiAliased: boolean;
}

/** GPU memory a sweep's world may hold: far past its budget, so that nothing it wants finds no room. Its pictures are still: no fades. */
const SWEEP_MEMORY = 16 * 2 ** 30;

/** How long a picture may wait for its chunks: a full detail of tens of millions of splats decodes in a minute or two. */
const SETTLE_LIMIT_MS = 10 * 60_000;

/**
 * The world's splats on its GPU pool, the picture settled (nothing on its
 * way), read back as RGBA. Bounded by time, not by turns: the chunks decode
 * in worker threads, and a hundred thousand turns of this loop passed
 * in a second or two while the first of them was still decoding.
 */
export async function settledPicture(device: GPUDevice, frame: SplatFrame, order: DrawOrder, world: WorldSession, camera: CameraFile, screenFilter?: ScreenFilter): Promise<Uint8Array | null> {
  const started = performance.now();
  for (;;) {
    world.updateCamera(camera);
    if (world.settled) break;
    if (performance.now() - started > SETTLE_LIMIT_MS) throw new Error(`the world did not settle in ${SETTLE_LIMIT_MS / 60_000} minutes: ${JSON.stringify({ ...world.progress, failed: [...world.progress.failed] })}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  if (!world.scene) return null;
  return (await renderOffscreen(device, frame, order, world.scene, camera, { renderer: 'tiles', maxDrawn: world.maxDrawn, screenFilter })).rgba;
}

const round = (db: number) => (Number.isFinite(db) ? Math.round(db * 100) / 100 : 'identical');

/** An infinite PSNR (identical pictures) as JSON can hold it. */
const decibels = (a: Uint8Array | null, b: Uint8Array | null) => {
  if (!a || !b) return null;
  const db = psnr(a, b);
  return Number.isFinite(db) ? db : 'identical';
};

export async function budgetSweep(setup: SweepSetup, options: SweepOptions): Promise<void> {
  const { device, frame, order, print } = setup;
  // Each chunk decoded once for every session of the sweep (the path's own session reads its chunks itself).
  const files = sharedDecodes(setup.files);
  const thresholdPx = WORLD_DEFAULTS.thresholdPx;
  // Largest first: a session's pool is sized by the budget it has when its first chunk arrives.
  const budgets = [...options.budgets].sort((a, b) => b - a);
  // One session a policy, kept from view to view: its budget set for each picture, its pool sized for the largest.
  const sessions = options.policies.map((budgetPolicy) => new WorldSession(device, files, { ...WORLD_DEFAULTS, budget: budgets[0]!, thresholdPx, budgetPolicy, memoryBytes: SWEEP_MEMORY, fadeMs: 0 }));
  const median = async (world: WorldSession, camera: CameraFile, screenFilter?: ScreenFilter) => {
    const times: number[] = [];
    for (let f = 0; f < options.frames; f++) {
      const ms = await setup.frameMs(world, camera, screenFilter);
      if (ms !== null) times.push(ms);
    }
    times.sort((a, b) => a - b);
    return times.length > 0 ? times[times.length >> 1]! : null;
  };
  // With --anti-aliased, the frame drawn with the anti-aliased filter is timed too (the filter worlds are drawn with).
  const timedAntiAliased = async (world: WorldSession, camera: CameraFile) => (options.antiAliased ? { frameMsAntiAliased: await median(world, camera, ANTIALIASED_FILTER) } : {});
  // What the full detail moved by the threshold's pixels scores against itself (bench/shift-floor.ts): the most a picture off by that can score.
  const floorAt = (fine: Uint8Array | null, camera: CameraFile, px: number | null) => (fine && px !== null && Number.isFinite(px) ? round(shiftFloor(fine, camera.width, camera.height, px)) : null);
  const write = (name: string, rgba: Uint8Array | null, camera: CameraFile) => {
    if (!options.pictures || !rgba) return;
    mkdirSync(options.pictures, { recursive: true });
    writeFileSync(join(options.pictures, `${name}.png`), encodePng(camera.width, camera.height, rgba));
  };
  const views = [
    ...Array.from({ length: options.downViews }, (_, v) => ({ set: 'down', v, altitude: options.altitudes[v % options.altitudes.length]!, steep: true, t: (v + 1) / (options.downViews + 1) })),
    ...Array.from({ length: options.cityViews }, (_, v) => ({ set: 'city', v, altitude: options.cityAltitudes[v % options.cityAltitudes.length]!, steep: false, t: (v + 1) / (options.cityViews + 1) })),
  ].filter(({ v }) => !options.only || options.only.has(v));
  for (const { set, v, altitude, steep, t } of views) {
    const camera = setup.camera(t, altitude, steep);
    const view = { kind: 'budget', view: v, set, altitude };
    // The full detail: every leaf in view at its finest level, no budget.
    const full = new WorldSession(device, files, { ...WORLD_DEFAULTS, budget: 1e9, thresholdPx: 0, memoryBytes: SWEEP_MEMORY, fadeMs: 0 });
    const fullWanted = full.updateCamera(camera).wantedSplats;
    if (fullWanted > options.fullLimit) {
      print({ ...view, fullWanted, psnr: null, why: `the full detail passes --full-limit ${options.fullLimit}` });
      full.close();
      continue;
    }
    const fine = await settledPicture(device, frame, order, full, camera);
    const fullDrawn = full.frame.drawnSplats;
    if (fullDrawn !== fullWanted) {
      // The pool's room (the memory, a buffer's records) ran out before the finest levels were all on the GPU.
      print({ ...view, fullWanted, fullDrawn, psnr: null, why: 'the full detail did not all fit on the GPU' });
      full.close();
      continue;
    }
    // The tile renderer bins at most a budget of candidates a frame, nearest splats first: a full detail past it is not the full detail.
    const fullCut = frame.painters.tiles.notice;
    write(`${set}-${v}-full`, fine, camera);
    // The full detail supersampled: what each picture, the full detail's own included, is off from the scene a display would show.
    const s = options.supersample;
    const big = s > 1 ? await settledPicture(device, frame, order, full, { ...camera, width: camera.width * s, height: camera.height * s }) : null;
    const truth = big && boxDownsample(big, camera.width * s, camera.height * s, s);
    const againstTruth = (picture: Uint8Array | null) => (truth ? { psnrSupersampled: decibels(picture, truth) } : {});
    const truthLine = truth ? { fullSupersampled: decibels(fine, truth), supersampledCut: frame.painters.tiles.notice } : {};
    // The full detail supersampled with the anti-aliased screen filter at its finer pixels: its splats keep the
    // opacity they cover (Mip-Splatting's filter), where the classic 0.3 px² widens each sub-pixel splat at full opacity.
    const bigAntiAliased = truth && options.antiAliased ? await settledPicture(device, frame, order, full, { ...camera, width: camera.width * s, height: camera.height * s }, ANTIALIASED_FILTER) : null;
    const truthAntiAliased = bigAntiAliased && boxDownsample(bigAntiAliased, camera.width * s, camera.height * s, s);
    // A picture with the anti-aliased screen filter, against both supersampled pictures; and the picture as drawn against the anti-aliased one.
    const antiAliased = async (world: WorldSession, plain: Uint8Array | null, names: readonly [string, string, string]) => {
      if (!truth || !truthAntiAliased) return {};
      const filtered = await settledPicture(device, frame, order, world, camera, ANTIALIASED_FILTER);
      return { [names[0]]: decibels(filtered, truth), [names[1]]: decibels(plain, truthAntiAliased), [names[2]]: decibels(filtered, truthAntiAliased) };
    };
    const fullAntiAliased = await antiAliased(full, fine, ['fullSupersampledAntiAliased', 'fullAgainstAntiAliasedTruth', 'fullAntiAliasedAgainstAntiAliasedTruth']);
    const pictureNames = ['psnrSupersampledAntiAliased', 'psnrAgainstAntiAliasedTruth', 'psnrAntiAliasedAgainstAntiAliasedTruth'] as const;
    // The default threshold where no budget binds: within how much of the full detail?
    full.setThreshold(thresholdPx);
    const loose = await settledPicture(device, frame, order, full, camera);
    const looseCut = frame.painters.tiles.notice;
    print({ ...view, budget: 'full', policy: null, drawn: full.frame.drawnSplats, thresholdUsed: full.frame.thresholdPx, psnr: decibels(loose, fine), shiftFloor: floorAt(fine, camera, full.frame.thresholdPx), ...againstTruth(loose), ...(await antiAliased(full, loose, pictureNames)), ...truthLine, ...fullAntiAliased, frameMs: await median(full, camera), ...(await timedAntiAliased(full, camera)), fullWanted, fullDrawn, fullCut, cut: looseCut });
    write(`${set}-${v}-default`, loose, camera);
    full.close();
    for (const budget of budgets) {
      for (const [p, world] of sessions.entries()) {
        world.setBudget(budget);
        const picture = await settledPicture(device, frame, order, world, camera);
        const cut = frame.painters.tiles.notice;
        const facts = world.frame;
        print({ ...view, budget, policy: options.policies[p], drawn: facts.drawnSplats, thresholdUsed: facts.thresholdPx, leftOut: facts.leftOut, psnr: decibels(picture, fine), shiftFloor: options.policies[p] === 'threshold' ? floorAt(fine, camera, facts.thresholdPx) : null, ...againstTruth(picture), ...(await antiAliased(world, picture, pictureNames)), frameMs: await median(world, camera), ...(await timedAntiAliased(world, camera)), fullDrawn, cut });
        write(`${set}-${v}-${options.policies[p]}-${budget}`, picture, camera);
      }
    }
  }
  for (const world of sessions) world.close();
}

/**
 * `files` with each chunk's decoded splats kept once read (the sessions
 * only read them: the pool copies them to the GPU), up to a bound, least
 * recently read going first: decoding is most of a sweep's time, and its
 * four sessions, the full detail's and one a policy, read the same chunks.
 * A read asked to stop still decodes for the others, and stops its caller.
 */
function sharedDecodes(files: WorldChunks, maxBytes = 48 * 2 ** 30): WorldChunks {
  const kept = new Map<number, Promise<{ cloud: PoolSplats; bytes: number }>>();
  const sizes = new Map<number, number>();
  let held = 0;
  const read = (file: number) => {
    const decoded = files.readChunk(file);
    decoded.then(({ cloud }) => {
      if (kept.get(file) !== decoded) return;
      const size = isPacked(cloud)
        ? cloud.records.byteLength + cloud.sh.byteLength
        : cloud.positions.byteLength + cloud.scales.byteLength + cloud.rotations.byteLength + cloud.opacities.byteLength + cloud.dc.byteLength + cloud.sh.byteLength;
      sizes.set(file, size);
      held += size;
      for (const [old] of kept) {
        if (held <= maxBytes) break;
        if (old === file || !sizes.has(old)) continue;
        held -= sizes.get(old)!;
        sizes.delete(old);
        kept.delete(old);
      }
    }, () => kept.get(file) === decoded && kept.delete(file));
    return decoded;
  };
  return {
    name: files.name,
    index: files.index,
    outline: files.outline,
    usedSplats: files.usedSplats,
    readEnvironment: files.readEnvironment?.bind(files),
    async readChunk(file, signal) {
      let decoded = kept.get(file);
      if (decoded) kept.delete(file);
      decoded ??= read(file);
      // Most recently read last.
      kept.set(file, decoded);
      const result = await decoded;
      signal?.throwIfAborted();
      return result;
    },
  };
}

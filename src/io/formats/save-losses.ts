/**
 * What a writable format cannot hold of a particular scene, named, so that
 * "save scene as" and the convert command say it before they write: SH
 * bands past the format's, a screen filter the format has no way to record
 * (then the file is drawn with the classic one), SPZ's ceiling on scales.
 * The precision each format keeps is its writer's `keeps` and is not
 * repeated here. A world is not saved at all (WORLD_NOT_SAVED). DOM-free.
 */
import { ANTIALIASED_FILTER, CLASSIC_FILTER, describeScreenFilter, MIP_FILTER, type ScreenFilter } from '../../scene/anti-aliasing';
import type { ShDegree, SplatCloud } from '../../scene/splat-cloud';

/** A writable format as this module needs it (save-formats.ts's WritableFormat is one; the SPZ writer imports from here). */
interface SavedFormat {
  readonly id: string;
  readonly label: string;
}

/** What a format's file can record beyond each splat's values. */
interface Holds {
  /** The highest SH degree it stores. */
  shDegree: ShDegree;
  /** The screen filters it records (besides the classic one, which is what a file that says nothing means). */
  filters: readonly ScreenFilter[];
}

const HOLDS: Readonly<Record<string, Holds>> = {
  // filter_3D (Mip-Splatting) and the header comment "antialiased" (ply/stream.ts).
  ply: { shDegree: 3, filters: [MIP_FILTER, ANTIALIASED_FILTER] },
  splat: { shDegree: 0, filters: [] },
  // Its flag "antialiased" is gsplat's mode; nothing records Mip-Splatting's filter.
  spz: { shDegree: 3, filters: [ANTIALIASED_FILTER] },
  // KHR_gaussian_splatting has no word for a screen filter: gsplat's flag goes in its extras (gltf/attributes.ts).
  glb: { shDegree: 3, filters: [ANTIALIASED_FILTER] },
};

/** The largest scale SPZ stores: its 8-bit log-scale's top step, (255 / 16) − 10. */
export const SPZ_LARGEST_SCALE = Math.exp(255 / 16 - 10);
/** The largest |SH coefficient| SPZ stores (writers/spz.ts). */
export const SPZ_LARGEST_SH = 127 / 128;

/** Why a world on screen cannot be saved, for the page and the command. */
export const WORLD_NOT_SAVED =
  "A world is not saved as one file: its levels of detail are streamed in chunks from its folder (the make-world command's), which holds them all; copy that folder to keep it";

const sameFilter = (a: ScreenFilter, b: ScreenFilter): boolean => a.variance === b.variance && a.compensate === b.compensate;

function holdsOf(format: SavedFormat): Holds {
  const holds = HOLDS[format.id];
  if (!holds) throw new Error(`No account of what ${format.label} holds: add it to save-losses.ts`);
  return holds;
}

/**
 * What saving `cloud` as `format` loses beyond the format's precision, one
 * sentence each, naming it; empty when nothing.
 */
export function saveLosses(cloud: SplatCloud, format: SavedFormat): string[] {
  const holds = holdsOf(format);
  const losses: string[] = [];
  if (cloud.shDegree > holds.shDegree) {
    const bands = holds.shDegree + 1 === cloud.shDegree ? `band ${cloud.shDegree}` : `bands ${holds.shDegree + 1} to ${cloud.shDegree}`;
    losses.push(`its view-dependent colour, SH ${bands}: ${format.label} keeps SH up to degree ${holds.shDegree}`);
  }
  const aa = cloud.antiAliasing;
  if (aa && !sameFilter(aa.filter, CLASSIC_FILTER) && !holds.filters.some((f) => sameFilter(f, aa.filter))) {
    losses.push(
      `its anti-aliasing (${describeScreenFilter(aa.filter)}, from ${aa.source}): ${format.label} cannot record it, ` +
      `so the file is drawn with the classic filter (${describeScreenFilter(CLASSIC_FILTER)})`,
    );
  }
  if (format.id === 'spz') losses.push(...spzClamps(cloud));
  return losses;
}

/** How many splats have a value above `most` in magnitude, of `width` values each. */
function splatsAbove(values: Float32Array, width: number, most: number): number {
  let splats = 0;
  for (let i = 0; i < values.length; i += width) {
    for (let k = 0; k < width; k++) {
      if (Math.abs(values[i + k]!) > most) {
        splats++;
        break;
      }
    }
  }
  return splats;
}

const splatsText = (n: number): string => `${n.toLocaleString('en-US')} splat${n === 1 ? '' : 's'}`;

/**
 * SPZ's 8-bit ranges that change the picture when a value is clamped to
 * them: a scale above SPZ_LARGEST_SCALE (the splat shrinks) and an SH
 * coefficient beyond ±SPZ_LARGEST_SH (its view-dependent colour fades).
 * Its base colour's range, ±3.33, is not named: past it the colour is
 * already beyond white or black, where the picture clamps it too.
 */
function spzClamps(cloud: SplatCloud): string[] {
  const out: string[] = [];
  const large = splatsAbove(cloud.scales, 3, SPZ_LARGEST_SCALE);
  if (large > 0) out.push(`the size of ${splatsText(large)} with a scale above ${SPZ_LARGEST_SCALE.toFixed(0)}, the most SPZ stores: written at ${SPZ_LARGEST_SCALE.toFixed(0)}`);
  const width = cloud.sh.length / cloud.count;
  const bright = width > 0 ? splatsAbove(cloud.sh, width, SPZ_LARGEST_SH) : 0;
  if (bright > 0) out.push(`part of the view-dependent colour of ${splatsText(bright)} with an SH coefficient beyond ±${SPZ_LARGEST_SH}, the most SPZ stores: clamped to it`);
  return out;
}

/** The losses as one sentence, for a message or a line: "Saved as SPZ, the scene would lose a; and b." */
export function lossesText(label: string, losses: readonly string[]): string {
  return `Saved as ${label}, the scene would lose ${losses.join('; and ')}.`;
}

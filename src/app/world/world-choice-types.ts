/**
 * What a world's level choice (world-choice.ts) takes and gives: its
 * leaves, the camera, the options of a frame, and the choice. Types only.
 */
import type { ReadonlyVec3 } from 'gl-matrix';
import type { LodRun } from '../../io/lod/lod-meta';

/** A leaf as the choice sees it: its box and, per level, its run and its error in scene units (null where the run is null or empty). */
export interface WorldLeaf {
  min: readonly [number, number, number];
  max: readonly [number, number, number];
  runs: readonly (LodRun | null)[];
  errors: readonly (number | null)[];
}

/** The camera as the choice needs it. */
export interface WorldView {
  eye: ReadonlyVec3;
  /** The frustum's six planes (a, b, c, d): a point is inside where a·x + b·y + c·z + d ≥ 0 for all. */
  planes: Float64Array;
  /** Screen pixels a unit of scene spans at distance 1 (the viewport height over 2·tan(fovY / 2)). */
  pixelsPerUnit: number;
  /** The screen's pixels (width × height): the most a leaf may cover, for the 'benefit' budget policy. */
  screenPixels: number;
}

/**
 * How a splat budget that the asked threshold's levels do not fit is spent
 * (docs/streamed-worlds-design.md, "Spending a budget that binds"):
 * - 'threshold': one threshold for every leaf, raised to the lowest at
 *   which the wanted splats fit;
 * - 'benefit': every leaf from its coarsest level, then finer levels
 *   bought where they save the most screen area × pixels of error per
 *   splat (world-budget-policy.ts);
 * - 'distance': the level from the leaf's distance alone, one level
 *   coarser each time the distance doubles past the largest distance at
 *   which the wanted splats fit.
 * Where the budget does not bind, all three give the asked threshold's
 * levels; none draws a leaf finer than the asked threshold wants.
 */
export type BudgetPolicy = 'threshold' | 'benefit' | 'distance';

export interface LodChoiceOptions {
  /** The most error a leaf may show, in pixels. */
  thresholdPx: number;
  /** The most splats drawn. */
  budget: number;
  /** How a budget that binds is spent (absent: 'threshold'; the viewer's is WORLD_DEFAULTS.budgetPolicy). */
  budgetPolicy?: BudgetPolicy;
  /** Whether chunk file `file` is on the GPU. */
  resident: (file: number) => boolean;
  /**
   * Whether chunk file `file` failed (it is not asked for again): a leaf
   * whose level is in such a file wants the nearest level that is not,
   * coarser first, and draws what it has meanwhile (default: none failed).
   */
  failed?: (file: number) => boolean;
}

export interface LodChoice {
  /**
   * What is drawn: per leaf, the wanted level where resident, else the
   * nearest coarser resident one, else the nearest finer; each as its run's
   * number, leaf · levels + level, with the world's levels (an index's
   * `levels`; for a list of leaves, the most any has: levelsOf). The
   * world's outline holds each run's file, first row and count at that
   * place (world-run-table.ts).
   */
  draw: number[];
  drawnSplats: number;
  /**
   * Per leaf the level wanted: the one its error asks for, or where that
   * one's file failed the nearest whose file did not, coarser first (−1:
   * not drawn: out of view, left out by the budget, or every level failed).
   */
  wanted: Int32Array;
  wantedSplats: number;
  /**
   * The threshold the budget allowed: the one asked for, or ('threshold')
   * the lowest above it at which the wanted splats fit; under the other
   * policies, where the budget binds, the largest error in pixels of a
   * wanted leaf's level (at least the one asked for; a leaf around the eye
   * counts as 1e-9 away, so a coarse level of it reads as about 1e12 px).
   */
  thresholdPx: number;
  /** Leaves in view that even their coarsest level could not keep within the budget. */
  leftOut: number;
  /** Chunk files to fetch, most needed first. */
  fetch: number[];
}

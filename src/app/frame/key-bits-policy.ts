/**
 * The "auto" key width: the fewest bits among 16, 24 and 32 (the widths
 * that cost whole radix passes) whose ordering error stays under
 * AUTO_KEY_BITS_THRESHOLD. Pure: the viewer core feeds it a measure of the
 * drawn order every AUTO_MEASURE_INTERVAL frames and draws the next frames
 * with the bits it returns; tests/unit/key-bits-policy.test.ts holds it.
 *
 * It starts exact (32 bits), climbs at once when a measure is over the
 * threshold, and tries one step down after `patience` good measures in a
 * row: that one probe frame is measured, kept if good, else undone, and the
 * wait before the next try doubles (up to MAX_PATIENCE). A new scene starts
 * over.
 */
import type { OrderErrorMeasure } from '../../render/order-error-pass';

/** 'auto', or a fixed width: the panel offers 16, 24 and 32, the render command any from 1 to 32. */
export type KeyBitsSetting = 'auto' | number;
export type KeyWidth = 16 | 24 | 32;

/**
 * A measure is good when at most 1% of adjacent drawn pairs are inverted
 * and no inversion is beyond one 16-bit key step of the visible depth
 * range. Measured on an H100 (docs/benchmarks.md): adaptive 16-bit keys
 * leave 1.5% of pairs inverted in the 9k INRIA scene (2,600 visible) and
 * 43–49% at 0.6–7.3M visible (the splats within one step outnumber the
 * steps), 24 bits 0–3.2%, 32 bits none; so auto keeps 16 bits for small
 * scenes and 24 or 32 for dense ones, where the sort's extra passes cost
 * 0.1–0.3 ms beside renders of 35–160 ms.
 */
export const AUTO_KEY_BITS_THRESHOLD = { invertedFraction: 0.01, beyond: 0 } as const;
/** Frames between two measures in auto (each costs a pass over the drawn order). */
export const AUTO_MEASURE_INTERVAL = 30;
/** Good measures in a row before the first try one step down; doubles after a failed try. */
export const FIRST_PATIENCE = 2;
export const MAX_PATIENCE = 32;

export interface AutoKeyBits {
  /** The bits the next frames use. */
  bits: KeyWidth;
  /** Good measures in a row at `bits`. */
  good: number;
  patience: number;
  /** `bits` is a probe one step below the last good width: the next measure decides. */
  probing: boolean;
}

export function initialAutoKeyBits(): AutoKeyBits {
  return { bits: 32, good: 0, patience: FIRST_PATIENCE, probing: false };
}

export function isGoodMeasure(m: Pick<OrderErrorMeasure, 'invertedFraction' | 'beyond'>): boolean {
  return m.invertedFraction <= AUTO_KEY_BITS_THRESHOLD.invertedFraction && m.beyond <= AUTO_KEY_BITS_THRESHOLD.beyond;
}

const up = (b: KeyWidth): KeyWidth => (b === 16 ? 24 : 32);
const down = (b: KeyWidth): KeyWidth => (b === 32 ? 24 : 16);

/** The state after a measure of a frame drawn with `state.bits`. */
export function nextAutoKeyBits(state: AutoKeyBits, measure: Pick<OrderErrorMeasure, 'invertedFraction' | 'beyond'>): AutoKeyBits {
  const good = isGoodMeasure(measure);
  if (state.probing) {
    return good
      ? { bits: state.bits, good: 0, patience: state.patience, probing: false }
      : { bits: up(state.bits), good: 0, patience: Math.min(2 * state.patience, MAX_PATIENCE), probing: false };
  }
  if (!good) return { bits: state.bits === 32 ? 32 : up(state.bits), good: 0, patience: state.patience, probing: false };
  const streak = state.good + 1;
  if (streak >= state.patience && state.bits > 16) return { bits: down(state.bits), good: 0, patience: state.patience, probing: true };
  return { ...state, good: streak };
}

/** The key width a setting draws with now. */
export function keyBitsOf(setting: KeyBitsSetting, auto: AutoKeyBits): number {
  return setting === 'auto' ? auto.bits : setting;
}

/**
 * The frame engine's ordering-error measures and the auto key width they
 * steer (key-bits-policy.ts): which frames are measured, what a measure
 * teaches, and the last one, for the panel. A new scene starts the width
 * over. DOM-free, no GPU.
 */
import { initialAutoKeyBits, keyBitsOf, nextAutoKeyBits, AUTO_MEASURE_INTERVAL, type AutoKeyBits, type KeyBitsSetting } from './key-bits-policy';
import type { OrderChoice } from './order/order-policy';
import type { FrameSettings } from './frame-settings';
import type { OrderErrorMeasure } from '../../render/order-error-pass';

export class KeyWidth {
  private auto: AutoKeyBits = initialAutoKeyBits();
  private measuredBits = 32;
  private measuredAuto = false;
  private framesSinceMeasure = 0;
  /** Counts scenes, so that a measure of a scene gone steers nothing. */
  private scene = 0;
  /** The last ordering error measured, and the key width it was measured at. */
  orderError: (OrderErrorMeasure & { keyBits: number }) | null = null;

  /** A new scene: auto starts exact again. */
  reset(): void {
    this.scene++;
    this.auto = initialAutoKeyBits();
  }

  /** The key width a setting draws with now. */
  bitsOf(setting: KeyBitsSetting): number {
    return keyBitsOf(setting, this.auto);
  }

  /** Whether this frame's drawn order is measured: every frame the settings ask it of, and auto's probes and checks. */
  wantsMeasure(settings: FrameSettings, choice: Readonly<OrderChoice>): boolean {
    if (settings.measureOrder) return true;
    return settings.keyBits === 'auto' && choice.source === 'gpu-sort' && (this.auto.probing || this.framesSinceMeasure >= AUTO_MEASURE_INTERVAL);
  }

  /** A frame was drawn; `measured`: its order is being measured at `keyBits` (only a measure of auto's own sort steers auto). */
  drawn(measured: boolean, keyBits: number, autoSort: boolean): void {
    this.framesSinceMeasure++;
    if (!measured) return;
    this.framesSinceMeasure = 0;
    this.measuredBits = keyBits;
    this.measuredAuto = autoSort;
  }

  /** Where the measure's read goes: steers auto only for this scene, at the width auto drew with. */
  reading(): (m: OrderErrorMeasure) => void {
    const scene = this.scene;
    const bits = this.measuredBits;
    const steers = this.measuredAuto;
    return (m) => {
      this.orderError = { ...m, keyBits: bits };
      if (steers && scene === this.scene && bits === this.auto.bits) this.auto = nextAutoKeyBits(this.auto, m);
    };
  }
}

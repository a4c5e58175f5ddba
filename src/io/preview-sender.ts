/**
 * The worker's side of drawing a scene while it loads: hands on the splats
 * a streaming decode has finished (src/io/splat-stream.ts onDecoded), a
 * range at a time, each range copied out so the decode can go on filling
 * its arrays. DOM-free.
 *
 * How often: the viewer uploads the whole scene so far for each range it
 * gets, so the ranges are spaced in time (PREVIEW_INTERVAL_MS) and in size
 * (each scene at least PREVIEW_GROWTH times the last), which bounds the
 * uploads of a whole load to a few times the scene: about 1 + 1/1.5 +
 * 1/1.5² + … = 3 scenes' worth.
 */
import { shCoefficients, type SplatCloud } from '../scene/splat-cloud';
import { DEFAULT_LOAD_LIMITS, previewSplatLimit, type LoadLimits } from './load-limits';
import type { PreviewPart } from './scene-preview';
import { validateSplatCloud } from './validate-splats';

/** The least time between two ranges: four a second is smooth enough to watch a scene grow. */
export const PREVIEW_INTERVAL_MS = 250;
/** Each range brings the scene to at least this many times the splats it had. */
export const PREVIEW_GROWTH = 1.5;

/**
 * An onDecoded callback that sends `send` each new range once it is due.
 * A range whose values would not pass the file's checks is not sent, nor
 * anything after it: the load itself then fails with the checks' message.
 * The preview stops growing at previewSplatLimit(limits) splats (the load
 * goes on to the scene's own bound).
 */
export function previewSender(
  send: (part: PreviewPart) => void,
  limits: LoadLimits = DEFAULT_LOAD_LIMITS,
  now: () => number = () => performance.now(),
): (cloud: SplatCloud, decoded: number, expected: number | undefined) => void {
  let sent = 0;
  let lastAt = -Infinity;
  let stopped = false;
  return (cloud, decodedSoFar, expected) => {
    if (stopped) return;
    const most = previewSplatLimit(limits, cloud.shDegree);
    const decoded = Math.min(decodedSoFar, most);
    // The last range, up to the preview's most, goes whenever it is due.
    if (decoded <= sent || (decoded < sent * PREVIEW_GROWTH && decoded < most)) return;
    const time = now();
    if (time - lastAt < PREVIEW_INTERVAL_MS) return;
    const k = 3 * shCoefficients(cloud.shDegree);
    const part: PreviewPart = {
      first: sent,
      count: decoded - sent,
      expected: expected ?? null,
      most,
      shDegree: cloud.shDegree,
      positions: cloud.positions.slice(3 * sent, 3 * decoded),
      scales: cloud.scales.slice(3 * sent, 3 * decoded),
      rotations: cloud.rotations.slice(4 * sent, 4 * decoded),
      opacities: cloud.opacities.slice(sent, decoded),
      dc: cloud.dc.slice(3 * sent, 3 * decoded),
      sh: cloud.sh.slice(k * sent, k * decoded),
    };
    try {
      validateSplatCloud({ ...part, bounds: { min: [0, 0, 0], max: [0, 0, 0] } });
    } catch {
      stopped = true;
      return;
    }
    sent = decoded;
    lastAt = time;
    send(part);
  };
}

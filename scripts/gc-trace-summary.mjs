/**
 * The garbage collections of a Node run traced with --trace-gc, per
 * isolate (the main thread and each worker thread), split by the run's own
 * phases: its JSON lines on the same stdout ({"kind":"first"} ends the
 * opening, {"kind":"path"} the path, as bench-world.mjs prints them).
 *
 *   node --trace-gc scripts/thread-stalls.mjs bench-dist/bench-world.mjs … > run.log
 *   node scripts/gc-trace-summary.mjs run.log
 *
 * Prints one JSON line per isolate: {isolate, fullGcs: {opening, path,
 * after}, fullGcMs (their pauses), fullGcStepMs (the incremental marking
 * steps before each, on the same thread: "+ N ms in M steps"),
 * scavenges: {…}, scavengeMs}. The main
 * thread's isolate is the one whose first collection comes first: workers
 * start after it.
 */
import { readFileSync } from 'node:fs';

const file = process.argv[2];
if (!file) throw new Error('usage: node scripts/gc-trace-summary.mjs <a --trace-gc log>');
const GC = /^\[\d+:(0x[0-9a-f]+)\]\s+\d+ ms: (Scavenge|Mark-Compact|Minor Mark-Compact)\S*( \(reduce\))? .*?MB, ([\d.]+) \/ [\d.]+ ms(?:\s+\(\+ ([\d.]+) ms in \d+ steps)?/;
const isolates = new Map();
let phase = 'opening';
for (const line of readFileSync(file, 'utf8').split('\n')) {
  if (line.startsWith('{')) {
    const kind = /"kind":"([^"]+)"/.exec(line)?.[1];
    if (kind === 'first') phase = 'path';
    else if (kind === 'path') phase = 'after';
    continue;
  }
  const m = GC.exec(line);
  if (!m) continue;
  const [, isolate, collector, , pause, steps] = m;
  if (!isolates.has(isolate)) {
    const zero = () => ({ opening: 0, path: 0, after: 0 });
    isolates.set(isolate, { isolate, main: isolates.size === 0, fullGcs: zero(), fullGcMs: zero(), fullGcStepMs: zero(), scavenges: zero(), scavengeMs: zero() });
  }
  const entry = isolates.get(isolate);
  const [count, ms] = collector === 'Mark-Compact' ? [entry.fullGcs, entry.fullGcMs] : [entry.scavenges, entry.scavengeMs];
  count[phase]++;
  ms[phase] = Math.round((ms[phase] + Number(pause)) * 10) / 10;
  if (collector === 'Mark-Compact' && steps) entry.fullGcStepMs[phase] = Math.round((entry.fullGcStepMs[phase] + Number(steps)) * 10) / 10;
}
for (const entry of isolates.values()) console.log(JSON.stringify(entry));

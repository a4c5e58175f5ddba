#!/usr/bin/env bash
# A hostile file on the GPU machine, both renderers, two builds in one run: the frame benchmark
# at the hostile scene's camera (bench/hostile-scene.ts: 86,818 splats, 95 % of them covering
# the 1920×1080 window), this working tree's build and an earlier commit's, taking turns.
#
#   bash bench/before-after-run.sh prepare COMMIT   # development machine: bench-dist, bench-dist/before, the kit
#   OUT=/tmp/x bash bench/hostile-run.sh            # GPU machine, project root, carrying bench-dist and bench-scenes
#
# Writes $OUT/before.jsonl and $OUT/after.jsonl (bench-frame's lines) and run.log. A frame of the
# earlier build draws every quad (about 1.7e11 fragments), so each run is a few frames (RUNS,
# default 3, one warm-up batch) under a time limit of its own (EACH, default 150 s); SIZE (e.g.
# "--width 128 --height 72") draws another size; ROWS (default "after:tiles before:tiles after:quads
# before:quads") picks the builds and renderers.
set -euo pipefail
[ -f bench/gpu-run.sh ] || { echo "run from the project root" >&2; exit 2; }
source bench/gpu-run.sh

work=/tmp/hostile-run
start_run
node bench-dist/hostile-scene.mjs --out $work/hostile.ply >>"$log"
frame() {
  local build=$1 renderer=$2
  local dist=bench-dist; [ "$build" = before ] && dist=bench-dist/before
  say "$build: $renderer"
  timeout "${EACH:-150}" node $dist/bench-frame.mjs --scene $work/hostile.ply --camera $work/hostile.json --renderer "$renderer" \
    --bits 32 --runs "${RUNS:-3}" --max-warm-batches 1 ${SIZE:-} 2>>"$log" | tee -a "$out/$build.jsonl" \
    || say "bench-frame ($build, $renderer) failed or ran out of time (run.log has its error)"
}
for row in ${ROWS:-after:tiles before:tiles after:quads before:quads}; do
  frame ${row%%:*} ${row##*:}
done
say done

#!/usr/bin/env bash
# The frame benchmark of several builds of the project in one run on the GPU machine, tiles only:
# the tile renderer's camera files of the 9k and 150k INRIA scenes, then the 150k scene ×48 along the
# built-in path, at 1920×1080. For trying ways of doing one pass: build each way into a folder of
# bench-dist, and compare the ways' lines, which come from one run. The builds take turns scene by
# scene (in order on the 9k scene, reversed on the 150k), so a drift of the clocks falls on all alike.
#
#   bash bench/before-after-run.sh prepare COMMIT      # bench-dist (this tree) and bench-dist/before
#   npm run bench:build && mv bench-dist /tmp/x ...    # each further way, moved into bench-dist/NAME after
#   OUT=/tmp/x BUILDS="before:bench-dist/before after:bench-dist ways:bench-dist/ways" bash bench/variants-run.sh
#
# Writes $OUT/NAME.jsonl (bench-frame's lines) for each build, and run.log. FRAME_ARGS adds options to
# every run (e.g. "--order centre-depth,per-pixel"); COPIES (default 48) sizes the replicated scene.
set -euo pipefail
[ -f bench/gpu-run.sh ] || { echo "run from the project root" >&2; exit 2; }
source bench/gpu-run.sh
work=/tmp/before-after-run
start_run $small $large
builds=${BUILDS:?name the builds: NAME:FOLDER ...}
cams() { local c= ; for n in "$@"; do c=$c${c:+,}$cameras/$n.json; done; echo $c; }
limit=${LIMIT:-560}
frame() {
  local name=$1 dist=$2; shift 2
  local left=$((limit - SECONDS))
  [ $left -gt 20 ] || { say "no time left for $name: $*"; return 0; }
  say "$name: $*"
  timeout $left node $dist/bench-frame.mjs --bits 32 --runs "${RUNS:-20}" --max-warm-batches "${WARM:-8}" --renderer tiles ${FRAME_ARGS:-} "$@" \
    2>>"$log" >>"$out/$name.jsonl" || say "bench-frame ($name) failed or ran out of time (run.log has its error): $*"
}
reversed=$(echo $builds | tr ' ' '\n' | tac | tr '\n' ' ')
for b in $builds; do frame ${b%%:*} ${b#*:} --scene $work/$small.ply --camera $(cams 9k-outside 9k-inside); done
for b in $reversed; do frame ${b%%:*} ${b#*:} --scene $work/$large.ply --camera $(cams 150k-outside 150k-inside-level 150k-inside-down); done
for b in $builds; do RUNS=10 WARM=4 frame ${b%%:*} ${b#*:} --scene $work/$large.ply --copies "${COPIES:-48}"; done
say done

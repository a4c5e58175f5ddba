#!/usr/bin/env bash
# The frame benchmark of two builds of the project in one run on the GPU machine: this working tree's
# and an earlier commit's, at the tile renderer's camera files of the 9k and 150k INRIA scenes, at
# 1920×1080, both renderers. The two builds take turns scene by scene (before, after, after, before),
# so a drift of the machine's clocks over the run falls on both alike.
#
#   bash bench/before-after-run.sh prepare COMMIT   # development machine, project root, after npm install
#   OUT=/tmp/x bash bench/before-after-run.sh      # GPU machine, project root, carrying bench-dist and bench-scenes
#
# prepare builds bench-dist from the working tree and bench-dist/before from COMMIT (a git worktree
# under /tmp), and fills bench-scenes/ with the two scenes (.ply.xz) and the Node kit, as
# tile-frame-run.sh does. The run writes $OUT/before.jsonl and $OUT/after.jsonl (bench-frame's lines)
# and run.log; FRAME_ARGS adds options to every bench-frame run (e.g. "--order centre-depth,per-pixel");
# AFTER_ARGS adds options to the working tree's runs only (e.g. one the earlier build lacks);
# REPLICA=1 adds the replicated scene (below). Table: node bench/before-after-table.mjs $OUT/before.jsonl $OUT/after.jsonl
set -euo pipefail
[ -f bench/gpu-run.sh ] || { echo "run from the project root" >&2; exit 2; }
source bench/gpu-run.sh

if [ "${1:-}" = prepare ]; then
  commit=${2:?name the commit to compare with}
  pack_scenes_and_kit $small $large
  npm run bench:build
  before=$(mktemp -d /tmp/before-XXXX)
  git worktree add -q --detach "$before" "$commit"
  ln -s "$(pwd)/node_modules" "$before/node_modules"
  (cd "$before" && npm run bench:build --silent)
  mv "$before/bench-dist" bench-dist/before
  git worktree remove --force "$before"
  du -sh bench-dist $scenes
  exit 0
fi

work=/tmp/before-after-run
start_run $small $large
cams() { local c= ; for n in "$@"; do c=$c${c:+,}$cameras/$n.json; done; echo $c; }
limit=${LIMIT:-570}
frame() {
  local build=$1; shift
  local left=$((limit - SECONDS))
  [ $left -gt 20 ] || { say "no time left for $build: $*"; return 0; }
  local dist=bench-dist; [ "$build" = before ] && dist=bench-dist/before
  say "$build: $*"
  local own=${AFTER_ARGS:-}; [ "$build" = before ] && own=
  timeout $left node $dist/bench-frame.mjs --bits 32 --runs "${RUNS:-20}" --max-warm-batches "${WARM:-8}" ${SIZE:-} ${FRAME_ARGS:-} $own "$@" 2>>"$log" | tee -a "$out/$build.jsonl" \
    || say "bench-frame ($build) failed or ran out of time (run.log has its error): $*"
}
small_cams=$(cams 9k-outside 9k-inside)
large_cams=$(cams 150k-outside 150k-inside-level 150k-inside-down)
frame before --scene $work/$small.ply --camera $small_cams
frame after --scene $work/$small.ply --camera $small_cams
frame after --scene $work/$large.ply --camera $large_cams
frame before --scene $work/$large.ply --camera $large_cams
# REPLICA=1: also the 150k scene ×COPIES (default 48: 7.2M splats) along the built-in path, tiles only
# (a quad frame there takes a tenth of a second), REPLICA_ARGS added (e.g. "--order centre-depth,per-pixel").
if [ "${REPLICA:-0}" = 1 ]; then
  for build in after before; do
    RUNS=${REPLICA_RUNS:-10} WARM=${REPLICA_WARM:-4} FRAME_ARGS="--renderer tiles ${REPLICA_ARGS:-}" \
      frame $build --scene $work/$large.ply --copies "${COPIES:-48}"
  done
fi
say done

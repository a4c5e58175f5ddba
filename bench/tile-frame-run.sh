#!/usr/bin/env bash
# The tile renderer's frame benchmark against the INRIA CUDA rasterizer, on the GPU machine, in one
# command: bench-frame (quads and tiles) at the camera files of the 9k and 150k INRIA scenes, the
# built-in camera path through a replicated scene of several million splats, and the INRIA
# rasterizer (time-ref.sh) at the same camera files, all at 1920×1080.
#
#   bash bench/tile-frame-run.sh prepare    # development machine, project root, after npm install
#   bash bench/tile-frame-run.sh            # GPU machine, project root, carrying bench-dist and bench-scenes
#
# prepare builds bench-dist and fills the git-ignored bench-scenes/ with what the GPU machine needs,
# compressed (the working tree that travels is at most 64 MiB): the two scenes (.ply.xz), the INRIA
# kit (../shared/device/inria-ref) and the Node kit (../shared/device/make-kit.sh's .devkit, as a
# tar.xz: its Dawn binary is 21 MB uncompressed, 5 MB compressed).
#
# The run writes under $OUT (at most 8 files come back): frame.jsonl (bench-frame's lines, all scenes),
# inria.jsonl (time-ref.sh's lines), inria-pictures.tar (its picture at each camera), popping.jsonl
# (bench-popping's lines, with POPPING=1), clocks.csv (the GPU's clocks through the frame timing), run.log.
# Tables:  node bench/tile-table.mjs $OUT/frame.jsonl $OUT/inria.jsonl [$OUT/popping.jsonl]
#
# FRAME_ARGS adds options to every bench-frame run (e.g. "--renderer tiles --order centre-depth,per-pixel");
# POPPING=1 also counts the pops along a slow turn at each camera (bench-popping, at POP_SIZE, default
# "--width 320 --height 180": its exact reference is a CPU rasterizer), one process per camera after the
# timing; REPLICA=none leaves out the replicated scene; FRAMES=0 leaves out the frame timing;
# CAMERA_SIZE="3840 2160" draws every camera file, and the replicated scene's path, at that size.
#
# On SwiftShader, for a check of the whole chain at a small size (no INRIA timing without CUDA):
#   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json OUT=/tmp/tiles SIZE="--width 160 --height 90" \
#     RUNS=1 WARM=1 REPLICA=inria_kacytran_iter7000_9k_sh3 COPIES=2 REPLICA_RUNS=1 REPLICA_WARM=1 INRIA=0 LIMIT=3600 \
#     bash bench/tile-frame-run.sh
set -euo pipefail
[ -f bench/gpu-run.sh ] || { echo "run from the project root" >&2; exit 2; }
source bench/gpu-run.sh

if [ "${1:-}" = prepare ]; then
  pack_scenes_and_kit $small $large
  rm -rf $scenes/inria-ref && cp -r ${SHARED:-../shared}/device/inria-ref $scenes/inria-ref && chmod -R u+w $scenes/inria-ref
  npm run bench:build
  # What travels: the tracked and untracked-not-ignored files, and the two carried folders.
  tree=$(git ls-files -z --cached --others --exclude-standard | xargs -0 du -cb 2>/dev/null | awk '/\ttotal$/ { n += $1 } END { print n }')
  carried=$(du -cb $scenes bench-dist | tail -1 | cut -f1)
  awk -v t="$tree" -v c="$carried" 'BEGIN { printf "travels: %.1f MiB (working tree %.1f, bench-dist and bench-scenes %.1f); the limit is 64\n", (t + c) / 1048576, t / 1048576, c / 1048576; exit (t + c > 64 * 1048576) }'
  exit 0
fi

work=/tmp/tile-frame-run
start_run $small $large
mkdir -p $work/cameras
cp $cameras/*.json $work/cameras/
# CAMERA_SIZE="3840 2160": every camera file at that size (the same view, more pixels), so the INRIA
# rasterizer and bench-frame (which draws a camera file at its own size) both draw at it.
if [ -n "${CAMERA_SIZE:-}" ]; then
  set -- $CAMERA_SIZE
  for camera in $work/cameras/*.json; do
    node -e 'const fs = require("fs"); const [f, w, h] = process.argv.slice(1); const c = JSON.parse(fs.readFileSync(f, "utf8")); c.width = Number(w); c.height = Number(h); fs.writeFileSync(f, JSON.stringify(c, null, 2));' "$camera" "$1" "$2"
  done
  set --
fi

# Within a device command's 10 minutes: the parts most wanted first (the cameras, then the INRIA times
# at them), the replicated scene last, and each bench-frame cut at this many seconds of the run.
limit=${LIMIT:-570}
inria=${INRIA:-1}
if [ "$inria" = 1 ]; then
  # The INRIA extension builds on the CPU (~2 minutes) while the cameras are timed on the GPU
  # (bench-frame's times are GPU timestamps); time-ref.sh with no camera only builds.
  say "building the INRIA rasterizer"
  bash $scenes/inria-ref/time-ref.sh none > $work/inria-build.log 2>&1 &
  build=$!
fi

size=${SIZE:-}
frame_args=${FRAME_ARGS:-}
# A scene that fails or runs out of time is logged and the run goes on with the next part.
frame() {
  local left=$((limit - SECONDS))
  [ $left -gt 20 ] || { say "no time left for: $*"; return 0; }
  timeout $left node bench-dist/bench-frame.mjs --bits 32 $size $frame_args "$@" 2>>"$log" | tee -a "$out/frame.jsonl" \
    || say "bench-frame failed or ran out of time (run.log has its error): $*"
}
runs=${RUNS:-20}
# Each scene at its cameras; EXTRA_QUEUES (e.g. "16") times the per-pixel order again with each of
# those queue sizes.
cameras_of() { local c= ; for n in "$@"; do c=$c${c:+,}$work/cameras/$n.json; done; echo $c; }
# The SM clock through the frame timing, every 100 ms (clocks.csv): bench-frame holds the clocks of a
# steady load before each timed frame (bench/clock-hold.ts); this shows what they were.
clocks=
if [ "${FRAMES:-1}" = 1 ] && command -v nvidia-smi >/dev/null; then
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,clocks_event_reasons.active --format=csv -lms 100 > "$out/clocks.csv" 2>&1 &
  clocks=$!
fi
[ "${FRAMES:-1}" = 1 ] && for scene in "$small:$(cameras_of 9k-outside 9k-inside)" "$large:$(cameras_of 150k-outside 150k-inside-level 150k-inside-down)"; do
  say "${scene%%:*} at its cameras"
  frame --runs $runs --max-warm-batches "${WARM:-8}" --scene $work/${scene%%:*}.ply --camera ${scene#*:}
  for q in ${EXTRA_QUEUES:-}; do
    frame --runs $runs --max-warm-batches "${WARM:-8}" --scene $work/${scene%%:*}.ply --camera ${scene#*:} --renderer tiles --order per-pixel --queue $q
  done
done
[ -n "$clocks" ] && kill $clocks

if [ "$inria" = 1 ]; then
  wait $build || { say "INRIA build failed"; cat $work/inria-build.log >> "$log"; }
  say "INRIA rasterizer at the same cameras"
  for scene in $small:9k $large:150k; do
    bash $scenes/inria-ref/time-ref.sh $work/${scene%%:*}.ply $work/cameras/${scene##*:}-*.json 2>>"$log" | tee -a "$out/inria.jsonl" \
      || say "time-ref.sh failed on ${scene%%:*} (run.log has its error)"
  done
  # A file over 16 MiB does not come back: the pictures are left out then.
  if (cd $work/cameras && tar -cf "$out/inria-pictures.tar" *.inria.png); then
    [ "$(stat -c %s "$out/inria-pictures.tar")" -lt 16000000 ] || { say "INRIA pictures too large to bring back"; rm "$out/inria-pictures.tar"; }
  fi
fi

# Several million splats: the 150k scene ×48 on a grid (7.2M, SH 3), along the built-in path; a quad
# frame there takes a tenth of a second or more, so fewer frames.
if [ "${REPLICA:-}" != none ]; then
  say "replicated scene"
  frame --runs "${REPLICA_RUNS:-10}" --max-warm-batches "${REPLICA_WARM:-4}" --scene $work/${REPLICA:-$large}.ply --copies "${COPIES:-48}" \
    ${CAMERA_SIZE:+--width ${CAMERA_SIZE% *} --height ${CAMERA_SIZE#* }}
fi
# After the timing (its GPU frames and CPU reference would disturb the times): one process per camera.
if [ "${POPPING:-0}" = 1 ]; then
  say "popping along a slow turn at each camera"
  for camera in $work/cameras/*.json; do
    name=$(basename $camera); scene=$small; case $name in 150k-*) scene=$large ;; esac
    timeout $((limit - SECONDS)) node bench-dist/bench-popping.mjs --scene $work/$scene.ply --camera $camera ${POP_SIZE:---width 320 --height 180} \
      --queue "${POP_QUEUES:-8,16}" > $work/popping-$name.jsonl 2>>"$log" &
  done
  wait
  cat $work/popping-*.jsonl > "$out/popping.jsonl"
fi
say "done"

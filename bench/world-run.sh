#!/usr/bin/env bash
# The world benchmark's Streamed SOG world, built on the GPU machine: the 1M-splat capture ×100 on a
# grid (104.9M splats at level 0), 3 levels, by bench/make-world.ts with several splat-transform
# processes at once (their WebGPU work on the machine's GPU through the Node kit's Dawn).
#
#   bash bench/world-run.sh prepare    # development machine, project root, after npm install
#   bash bench/world-run.sh build      # GPU machine, project root, carrying bench-dist and the three files below
#
# prepare builds bench-dist and puts in the git-ignored bench-scenes/ what the build needs, compressed
# (the working tree that travels is at most 64 MiB): the scene as SOG (13 MB; its PLY is 71 MB), the
# Node kit (../shared/device/make-kit.sh's .devkit as a tar.xz, made only where there is none), and
# world-kit.tar.xz (1.2 MB): splat-transform's command line (its bundled dist/cli.mjs, worker and WebP
# codec; dist/index.cjs only so that the package resolves) and the WebP decoder's wasm that the
# project's SOG reader loads from node_modules in Node (@jsquash/webp; bench-dist does not inline it),
# so the world's chunks can also be decoded there. splat-transform runs on the kit's `webgpu` (0.6.2,
# the Dawn the benchmarks use; splat-transform asks for 0.4.0, whose binary would take 4.4 of the 6 MiB
# left: decimation and chunk encoding were checked with 0.6.2 on SwiftShader). It prints what travels and fails over 64 MiB.
#
# build writes worlds/big (WORLD to change it) and prints make-world's JSON line; a finished world with
# the same options is kept and its line printed again. The build stops itself after LIMIT seconds
# (default 560, inside a device command's 10 minutes) with exit status 75; run it again and it goes on
# from the parts already whole. The log: worlds/big.log, and $OUT/world-build.log where OUT is set.
# COPIES (100), LEVELS (3), JOBS (10: one row of the 10×10 grid each, so the parts' boxes do not
# overlap), CHUNK (256, thousands of splats a chunk), WORKERS (default:
# the cores shared among the jobs, rounded up), DECIMATION (uniform or adaptive: make-world's --decimation), KEEP
# (the percentage of splats a level keeps of the one before: make-world's --keep, default 25)
# and SCENE (a scene file instead of the carried one) change it.
#
# On SwiftShader, for a check of the whole chain at a small size (make-world's --decode also decodes
# every chunk):
#   VK_ICD_FILENAMES=/usr/lib/chromium/vk_swiftshader_icd.json SCENE=/tmp/scene.sog COPIES=8 LEVELS=2 JOBS=2 \
#     CHUNK=16 WORLD=/tmp/world EXTRA=--decode bash bench/world-run.sh build
set -euo pipefail
[ -f package.json ] || { echo "run from the project root" >&2; exit 2; }
scenes=bench-scenes
scene=inria_karangkidul_1M_sh0
kit=$scenes/world-kit.tar.xz
carry="bench-dist $scenes/devkit.tar.xz $scenes/$scene.sog $kit"

if [ "${1:-}" = prepare ]; then
  shared=${SHARED:-../shared}
  mkdir -p $scenes
  st=node_modules/@playcanvas/splat-transform
  [ -f $scenes/$scene.sog ] || VK_ICD_FILENAMES=${VK_ICD_FILENAMES:-/usr/lib/chromium/vk_swiftshader_icd.json} \
    node $st/bin/cli.mjs --no-tty --quiet $shared/scenes/${scene}_decoded.ply $scenes/$scene.sog
  if [ ! -f $scenes/devkit.tar.xz ]; then
    [ -d .devkit ] || bash $shared/device/make-kit.sh
    tar -cf - .devkit | xz -T2 -6 > $scenes/devkit.tar.xz
  fi
  # The command line's files: cli.mjs loads its SPZ codec as a chunk of its own, named in it.
  spz=$(grep -o "spz-[A-Za-z0-9_]*\.js" $st/dist/cli.mjs | sort -u)
  files=$(for f in package.json LICENSE bin/cli.mjs dist/cli.mjs dist/index.cjs dist/worker.mjs lib/webp.wasm $(for c in $spz; do echo dist/$c; done); do echo @playcanvas/splat-transform/$f; done)
  tar -C node_modules -cf - $files @jsquash/webp/package.json @jsquash/webp/codec/dec/webp_dec.wasm | xz -T2 -9 > $kit
  npm run bench:build
  # What travels: the tracked and untracked-not-ignored files, and the carried paths.
  tree=$(git ls-files -z --cached --others --exclude-standard | xargs -0 du -cb 2>/dev/null | awk '/\ttotal$/ { n += $1 } END { print n }')
  carried=$(du -cb $carry | tail -1 | cut -f1)
  echo "carry: $carry"
  awk -v t="$tree" -v c="$carried" 'BEGIN { printf "travels: %.1f MiB (working tree %.1f, carried %.1f); the limit is 64\n", (t + c) / 1048576, t / 1048576, c / 1048576; exit (t + c > 64 * 1048576) }'
  exit 0
fi
[ "${1:-}" = build ] || { echo "usage: bash bench/world-run.sh prepare|build" >&2; exit 2; }

world=${WORLD:-worlds/big}
mkdir -p "$(dirname "$world")"
log=$world.log
say() { echo "[$(date -u +%T)] $*" | tee -a "$log" >&2; }
# The Node kit (node, the Vulkan loader, webgpu), unless a Vulkan driver was named (SwiftShader).
if [ -z "${VK_ICD_FILENAMES:-}" ]; then
  [ -d .devkit ] || tar -xJf $scenes/devkit.tar.xz
  source .devkit/setup.sh
  nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader >> "$log" 2>&1 || true
elif [ ! -e node_modules ]; then
  [ -d .devkit ] || tar -xJf $scenes/devkit.tar.xz
  ln -s .devkit/node_modules node_modules
fi
# splat-transform and the WebP decoder into node_modules (on the GPU machine the kit's folder, a link:
# -C goes through it).
if [ ! -f node_modules/@playcanvas/splat-transform/bin/cli.mjs ] || [ ! -f node_modules/@jsquash/webp/codec/dec/webp_dec.wasm ]; then
  tar -xJf $kit -C node_modules/
fi
say "node $(node --version), $(nproc) cores, $(free -g | awk '/^Mem:/ { print $2 }') GiB, disk free $(df -h --output=avail . | tail -1 | tr -d ' ')"
args=(--scene "${SCENE:-$scenes/$scene.sog}" --copies "${COPIES:-100}" --levels "${LEVELS:-3}" --jobs "${JOBS:-10}" --chunk "${CHUNK:-256}" --out "$world")
[ -n "${WORKERS:-}" ] && args+=(--workers "$WORKERS")
[ -n "${DECIMATION:-}" ] && args+=(--decimation "$DECIMATION")
[ -n "${KEEP:-}" ] && args+=(--keep "$KEEP")
say "node bench-dist/make-world.mjs ${args[*]} ${EXTRA:-}"
status=0
timeout "${LIMIT:-560}" node bench-dist/make-world.mjs "${args[@]}" ${EXTRA:-} 2>>"$log" | tee -a "$log" || status=$?
# Cut short by LIMIT: exit 75 (not timeout's 124, which reads as the device command's own limit).
if [ $status = 124 ]; then say "not finished after ${LIMIT:-560} s: run the same command again to go on"; status=75; fi
[ $status = 0 ] || [ $status = 75 ] || say "make-world failed (exit $status); the log: $log"
say "disk: $(du -sh "$world" | cut -f1) in $world, $(df -h --output=avail . | tail -1 | tr -d ' ') free"
[ -n "${OUT:-}" ] && mkdir -p "$OUT" && cp "$log" "$OUT/world-build.log"
exit $status

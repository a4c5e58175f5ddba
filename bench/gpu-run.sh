# What the GPU machine's benchmark runs share (sourced by tile-frame-run.sh and before-after-run.sh,
# from the project root): the carried folder of scenes and the Node kit, the tile renderer's camera
# files and their two scenes, how the scenes and the kit are packed here and unpacked there.
scenes=bench-scenes
cameras=docs/results/2026-11-26-h100-tiles/cameras
small=inria_kacytran_iter7000_9k_sh3
large=inria_karangkidul_150k_sh3_decoded

# Development machine: the scenes named (from ../shared/scenes, or $SHARED/scenes) compressed into
# $scenes, and the Node kit (../shared/device/make-kit.sh's .devkit) as a tar.xz: the working tree
# that travels is at most 64 MiB, and the kit's Dawn binary is 21 MB uncompressed, 5 MB compressed.
pack_scenes_and_kit() {
  local shared=${SHARED:-../shared}
  mkdir -p $scenes
  for s in "$@"; do
    [ -f $scenes/$s.ply.xz ] || xz -T2 -6 -c $shared/scenes/$s.ply > $scenes/$s.ply.xz
  done
  [ -d .devkit ] || bash $shared/device/make-kit.sh
  tar -cf - .devkit | xz -T2 -6 > $scenes/devkit.tar.xz
}

# GPU machine: $out and its run.log, say (a line with the time, to run.log and stderr), the Node kit
# unless a Vulkan driver was named (SwiftShader), and the scenes named unpacked into $work.
start_run() {
  out=${OUT:?set OUT to the folder the results go to}
  mkdir -p "$out" "$work"
  log=$out/run.log
  if [ -z "${VK_ICD_FILENAMES:-}" ]; then
    [ -d .devkit ] || tar -xJf $scenes/devkit.tar.xz
    source .devkit/setup.sh
  fi
  for s in "$@"; do
    [ -f $work/$s.ply ] || xz -dc $scenes/$s.ply.xz > $work/$s.ply
  done
}
say() { echo "[$(date -u +%T)] $*" | tee -a "$log" >&2; }

#!/usr/bin/env bash
# Old against new F32 panel kernel (f32_avx512) on this CPU, by process CPU time: two builds of
# parakeet_kernel_rates (PARAKEET_BUILD_TESTS=1; native/build/tests), run alternately `runs` times each
# with `--cpu-time --ymm`, one thread, the encoders' shapes at 125 and 750 frames. Prints one line per
# run and shape: build, run, shape, frames, f32_avx512 G multiply-adds/s (× 2 for G-FLOP/s).
# CPU time leaves out time spent waiting for a core on a shared machine, not the shared caches.
#   test/bench/f32-panels-ab.sh OLD_KERNEL_RATES NEW_KERNEL_RATES [runs]
set -euo pipefail
old=$1
new=$2
runs=${3:-2}
for run in $(seq 1 "$runs"); do
  for build in old new; do
    binary=${!build}
    "$binary" --cpu-time --ymm | awk -v build="$build" -v run="$run" '
      /^per-channel int8 and F32/ { table = 1; next }
      table && /\|/ && !/^shape/ {
        split($0, halves, "|"); n = split(halves[2], cells, " "); label = halves[1]; sub(/ +$/, "", label)
        frames = label; sub(/.* /, "", frames); sub(/ +[0-9]+$/, "", label)
        printf "%s %s %-17s %4s %s\n", build, run, label, frames, cells[6]
      }'
  done
done

#!/bin/bash
# Session 16, after the closing run: four Go-only rounds of the final build
# at 1 and 16 threads at 64 x 256, each measuring the 512^3 GEMM peak at 1
# and 16 threads, for the spread of the GEMM scaling and of the fraction of
# the peak.
cd "$(dirname "$0")" || exit 1
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi -L 2>/dev/null; } > $OUT/machine.txt
for r in 1 2 3 4; do
  echo "## round $r build new" >> $OUT/rounds.txt
  timeout 30 ./tb-new -threads 1,16 -rounds 1 -steps 10 -sizes 64x256 -peer none >> $OUT/rounds.txt 2>&1
done
grep -E "^##|^\| 64|scaling" $OUT/rounds.txt

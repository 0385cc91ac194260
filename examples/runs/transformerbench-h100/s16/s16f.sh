#!/bin/bash
# Session 16: the 512^3 GEMM peak at 1 and 16 threads, five interleaved
# rounds of 7c3b330 (final: every row block packs its B) and the build
# that packs B once for all row blocks (spack).
cd "$(dirname "$0")" || exit 1
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi -L 2>/dev/null; } > $OUT/machine.txt
for r in 1 2 3 4 5; do
  for b in final spack; do
    echo "## round $r build $b" >> $OUT/peaks.txt
    timeout 20 ./tb-$b -threads 1,16 -rounds 1 -steps 1 -sizes 8x32 -peer none 2>&1 | grep "GEMM peak" >> $OUT/peaks.txt
  done
done
awk '/^##/{printf "\n%s ", $0} /GEMM peak \(/{printf "%s ", $(NF-1)} /scaling/{printf "%s", $NF}' $OUT/peaks.txt; echo

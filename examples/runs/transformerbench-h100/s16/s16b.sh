#!/bin/bash
# Session 16, second device run: tests on the host, then builds at 16
# threads (Go only): prev = 76d061f (session 15's host build), t = 0bdfed1
# (one-call softmax, recomputation from stats, AVX2 transposes), c4 =
# 608864f (+ 4 chunks per goroutine, row blocks split), c2 = c4 with 2,
# k32 = c4 with 32 k chunks; phases and a profile of c4. Outputs saved here
# as s16b-*.txt. (The tests fail only where they need testdata, which the
# binary's folder lacks.)
cd "$(dirname "$0")" || exit 1
{ nproc; grep -m1 "model name" /proc/cpuinfo; grep -m1 flags /proc/cpuinfo | grep -o "avx512f" | head -1; lscpu | grep -E "Thread|Core|Socket|MHz" ; } 2>&1 | tee $OUT/machine.txt
timeout 60 ./transformer.test -test.short > $OUT/test-transformer.txt 2>&1; tail -1 $OUT/test-transformer.txt
timeout 60 ./gemm.test -test.short > $OUT/test-gemm.txt 2>&1; tail -1 $OUT/test-gemm.txt
for r in 1 2 3; do
  for b in prev t c4 c2 k32; do
    echo "## round $r build $b" >> $OUT/ab.txt
    timeout 30 ./tb-$b -threads 16 -rounds 1 -steps 10 -sizes 16x100,32x128,64x256 -peer none >> $OUT/ab.txt 2>&1
  done
done
timeout 25 ./transformer.test -test.run XXX -test.bench 'StepPhases/B=64,T=256' -test.benchtime 5x -test.cpu 16 > $OUT/phases.txt 2>&1
timeout 20 ./transformer.test -test.run XXX -test.bench 'StepPhases/B=64,T=256/step' -test.benchtime 10x -test.cpu 16 -test.cpuprofile $OUT/cpu16.prof > /dev/null 2>&1

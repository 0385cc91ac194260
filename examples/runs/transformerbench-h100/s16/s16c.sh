#!/bin/bash
# Session 16, third device run: the AVX-512 softmax tested on the host
# (a5 = 90809f9, which had the scale-loop bug fixed in af60a41), the weight
# hash after three steps of c4 (608864f) and a5, then c4, a5 and a5k (a5
# with 32 k chunks) at 16 threads, Go only; phases and a profile of a5.
# Outputs saved here as s16c-*.txt.
cd "$(dirname "$0")" || exit 1
timeout 60 ./transformer.test -test.short -test.run 'Softmax|ExpScale|Attention|Grad|Train|Transpose|Fused|Session' > $OUT/test-a5.txt 2>&1
./transformer.test -test.run ZZHash -test.v 2>&1 | grep HASH | sed 's/^/a5 /'
./transformer-c4.test -test.run ZZHash -test.v 2>&1 | grep HASH | sed 's/^/c4 /'
for r in 1 2 3; do
  for b in c4 a5 a5k; do
    echo "## round $r build $b" >> $OUT/ab.txt
    timeout 30 ./tb-$b -threads 16 -rounds 1 -steps 10 -sizes 16x100,32x128,64x256 -peer none >> $OUT/ab.txt 2>&1
  done
done
timeout 25 ./transformer.test -test.run XXX -test.bench 'StepPhases/B=64,T=256' -test.benchtime 5x -test.cpu 16 > $OUT/phases.txt 2>&1
timeout 20 ./transformer.test -test.run XXX -test.bench 'StepPhases/B=64,T=256/step' -test.benchtime 10x -test.cpu 16 -test.cpuprofile $OUT/cpu16.prof > /dev/null 2>&1

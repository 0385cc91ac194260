#!/bin/bash
# Session 16 first device run: current head (new, 239db53) against 76d061f
# (prev, the build of session 15's host run), Go only, 1 and 16 threads;
# phases and a 16-thread profile of the 64x256 step. Outputs saved here as
# s16a-*.txt (the profile's top as s16a-cpu16-top.txt).
cd "$(dirname "$0")" || exit 1
{ nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi -L 2>/dev/null; } 2>&1 | tee $OUT/machine.txt
for r in 1 2; do
  for b in prev new; do
    echo "## round $r build $b" >> $OUT/ab.txt
    timeout 40 ./transformerbench-$b -threads 1,16 -rounds 1 -steps 10 -sizes 32x128,64x256 -peer none >> $OUT/ab.txt 2>&1
  done
done
grep -E "^##|^\| [0-9]|peak" $OUT/ab.txt
timeout 25 ./transformer.test -test.run XXX -test.bench 'StepPhases/B=64,T=256' -test.benchtime 5x -test.cpu 16 > $OUT/phases.txt 2>&1
grep -E "^Bench" $OUT/phases.txt | awk '{printf "%s %.2f %s\n", $1, $3/1e6, $5}'
timeout 20 ./transformer.test -test.run XXX -test.bench 'StepPhases/B=64,T=256/step' -test.benchtime 10x -test.cpu 16 -test.cpuprofile $OUT/cpu16.prof > /dev/null 2>&1
ls -la $OUT

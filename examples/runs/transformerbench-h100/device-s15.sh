#!/bin/bash
# Session 15's closing device run (about 5 minutes): the training step
# against PyTorch 2.11 at 1–16 threads (3 interleaved rounds), then two
# interleaved rounds of three Go builds at 1 and 16 threads without the
# peer: a52b77b (the session's start), 1eed2a7 (this session's kernels and
# back-off rule, attention weights kept) and the final build (weights
# computed again in the backward pass); then the phases at 32 × 128 and
# 64 × 256 on 16 threads and a 16-thread profile of the 64 × 256 step.
# Prepare .device/ on the development machine:
#
#   CGO_ENABLED=0 go build -o .device/transformerbench-new ./examples/transformerbench
#   CGO_ENABLED=0 go test -c -o .device/transformer.test ./transformer
#   git worktree add /tmp/base a52b77b && (cd /tmp/base && CGO_ENABLED=0 go build -o /work/main/.device/transformerbench-prev ./examples/transformerbench)
#   (cd /tmp/base && git checkout 1eed2a7 && CGO_ENABLED=0 go build -o /work/main/.device/transformerbench-store ./examples/transformerbench)
#   cp ../shared/bench/peer_torch_fast.py examples/runs/transformerbench-h100/device-s15.sh .device/
#
# then run `bash .device/device-s15.sh` with carry [".device"].
cd "$(dirname "$0")" || exit 1
export PYTHONUNBUFFERED=1
{ nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi -L 2>/dev/null; python3 -c "import torch; print('torch', torch.__version__)"; } 2>&1 | tee $OUT/machine.txt
timeout 210 ./transformerbench-new -threads 1,2,4,8,16 -rounds 3 -steps 15 -sizes 8x32,16x100,32x128,64x256 -peer peer_torch_fast.py > $OUT/tb.txt 2>&1
tail -9 $OUT/tb.txt
for r in 1 2; do
  for b in prev store new; do
    echo "## round $r build $b" >> $OUT/ab.txt
    timeout 20 ./transformerbench-$b -threads 1,16 -rounds 1 -steps 10 -sizes 8x32,16x100,32x128,64x256 -peer none 2>&1 | tail -7 >> $OUT/ab.txt
  done
done
grep -E "^##|^\| [0-9]" $OUT/ab.txt
timeout 25 ./transformer.test -test.run XXX -test.bench 'StepPhases/B=(32,T=128|64,T=256)' -test.benchtime 5x -test.cpu 16 > $OUT/phases.txt 2>&1
grep -E "^Bench" $OUT/phases.txt | awk '{printf "%s %.2f %s\n", $1, $3/1e6, $5}'
timeout 15 ./transformer.test -test.run XXX -test.bench 'StepPhases/B=64,T=256/step' -test.benchtime 8x -test.cpu 16 -test.cpuprofile $OUT/cpu16.prof > /dev/null 2>&1

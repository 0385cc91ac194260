#!/bin/bash
# The next device run (prepared on the two-core machine; about 9.5 minutes):
# KV-cached play against PyTorch 2.11's KV-cached decode (1 and 64 games,
# 1 and 16 threads, five interleaved rounds; issue 46's third point), the
# training step against PyTorch 2.11 at 1–16 threads, the release before
# the attention, fused-pass and k-split changes for the before/after ratio on
# the same machine, the weight gradients' products with and without the
# split along k at 1–16 threads, the per-phase times at 1 and 16 threads and
# a CPU profile of the 64 × 256 step on 16 threads. Prepare .device/ on the development machine:
#
#   CGO_ENABLED=0 go build -o .device/transformerbench ./examples/transformerbench
#   CGO_ENABLED=0 go test -c -o .device/transformer.test ./transformer
#   CGO_ENABLED=0 go test -c -o .device/gemm.test ./transformer/internal/gemm
#   git worktree add /tmp/base 94b0442 && (cd /tmp/base && CGO_ENABLED=0 go build -o /work/main/.device/transformerbench-base ./examples/transformerbench)
#   cp ../shared/bench/peer_torch_fast.py ../shared/bench/peer_torch_decode.py .device/
#   cp examples/runs/transformerbench-h100/device-next.sh .device/
#
# then run `bash .device/device-next.sh` through the device tool with
# carry [".device"] and timeout_s 600. Its files come back under $OUT.
cd "$(dirname "$0")" || exit 1
export PYTHONUNBUFFERED=1
{ nproc; grep -m1 "model name" /proc/cpuinfo; python3 -c "import torch; print('torch', torch.__version__)"; } 2>&1 | tee $OUT/machine.txt
timeout 90 ./transformerbench -decode -decode-peer peer_torch_decode.py -threads 1,16 -games 1,64 -length 200 -rounds 5 > $OUT/decode.txt 2>&1
tail -8 $OUT/decode.txt
timeout 300 ./transformerbench -threads 1,2,4,8,16 -rounds 3 -steps 15 -sizes 8x32,16x100,32x128,64x256 -peer peer_torch_fast.py > $OUT/tb.txt 2>&1
tail -9 $OUT/tb.txt
timeout 45 ./transformerbench-base -threads 1,16 -rounds 1 -steps 10 -sizes 8x32,16x100,32x128,64x256 -peer none > $OUT/tb-base.txt 2>&1
tail -7 $OUT/tb-base.txt
timeout 40 ./gemm.test -test.run XXX -test.bench KSplit -test.benchtime 10x > $OUT/ksplit.txt 2>&1
grep -E "^Bench" $OUT/ksplit.txt | awk '{printf "%s %.2f ms %s GFLOP/s\n", $1, $3/1e6, $5}'
timeout 60 ./transformer.test -test.run XXX -test.bench 'StepPhases/B=64' -test.benchtime 5x -test.cpu 1,16 > $OUT/phases.txt 2>&1
grep -E "^Bench" $OUT/phases.txt | awk '{printf "%s %.2f\n", $1, $3/1e6}'
timeout 30 ./transformer.test -test.run XXX -test.bench 'StepPhases/B=64,T=256/step' -test.benchtime 8x -test.cpu 16 -test.cpuprofile $OUT/cpu16.prof > /dev/null 2>&1
cp transformer.test $OUT/ 2>/dev/null # the profile needs its binary

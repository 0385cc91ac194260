#!/bin/bash
# Device run 4 (final): transformerbench, Go against PyTorch 2.11 (peer_torch_fast.py,
# nn.TransformerEncoder and SDPA), threads 1–16, three interleaved rounds, 20 timed steps;
# then the session-start Go binary once for the before/after ratio on this machine.
cd "$(dirname "$0")/../../../.device" || exit 1
export PYTHONUNBUFFERED=1
{ nproc; grep -m1 "model name" /proc/cpuinfo; python3 -c "import torch; print('torch', torch.__version__)"; } 2>&1 | tee $OUT/machine.txt
timeout 380 ./transformerbench -threads 1,2,4,8,16 -rounds 3 -steps 20 -sizes 8x32,16x100,32x128,64x256 -peer peer_torch_fast.py > $OUT/tb-final.txt 2>&1
tail -9 $OUT/tb-final.txt
timeout 40 ./transformerbench-base -threads 1,16 -rounds 1 -steps 10 -sizes 8x32,16x100,32x128,64x256 -peer none > $OUT/tb-base.txt 2>&1
tail -7 $OUT/tb-base.txt

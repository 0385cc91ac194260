#!/bin/bash
# Session 16's last device run (about 4 minutes): the released build
# (B packed once per product for large products) against PyTorch 2.11 at
# 1–16 threads, three interleaved rounds; the tb run is cut at 235 s (the
# session's device time), and its table then takes the complete rounds.
# Prepare .device/: CGO_ENABLED=0 go build -o .device/tb-new ./examples/transformerbench;
# cp ../shared/bench/peer_torch_fast.py examples/runs/transformerbench-h100/device-s16b.sh .device/
cd "$(dirname "$0")" || exit 1
export PYTHONUNBUFFERED=1
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; nvidia-smi -L 2>/dev/null; python3 -c "import torch; print('torch', torch.__version__)"; } > $OUT/machine.txt 2>&1
timeout 235 ./tb-new -threads 1,2,4,8,16 -rounds 3 -steps 15 -sizes 8x32,16x100,32x128,64x256 -peer peer_torch_fast.py > $OUT/tb.txt 2>&1
tail -8 $OUT/tb.txt

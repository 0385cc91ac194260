#!/bin/bash
# Session 16's closing device run (about 6 minutes): the package's tests
# that need no testdata on the host (the AVX-512 softmax among them), the
# weight hash after three training steps with and without the AVX-512
# softmax (equal if it has the AVX2 kernels' bits), the training step
# against PyTorch 2.11 at 1–16 threads (3 interleaved rounds), one round of
# the session-start build against the final one at 1 and 16 threads (Go
# only), the phases at 64 × 256 on 16 threads and a 16-thread profile.
# Prepare .device/ on the development machine (see the session's note):
#
#   CGO_ENABLED=0 go build -o .device/tb-new ./examples/transformerbench
#   CGO_ENABLED=0 go test -c -o .device/transformer.test ./transformer   (with the weight-hash test)
#   CGO_ENABLED=0 go test -c -o .device/gemm.test ./transformer/internal/gemm
#   tb-fb, transformer-fb.test: the same with the AVX-512 softmax switched off
#   tb-prev: 76d061f (session 15's host build)
#   cp ../shared/bench/peer_torch_fast.py examples/runs/transformerbench-h100/device-s16.sh .device/
#
# then run `bash .device/device-s16.sh` with carry [".device"].
cd "$(dirname "$0")" || exit 1
export PYTHONUNBUFFERED=1
{ date -u; nproc; grep -m1 "model name" /proc/cpuinfo; grep -m1 -o avx512f /proc/cpuinfo; nvidia-smi -L 2>/dev/null; python3 -c "import torch; print('torch', torch.__version__)"; } 2>&1 | tee $OUT/machine.txt
timeout 60 ./transformer.test -test.short -test.run 'Softmax|ExpScale|Attention|Grad|Train|Transpose|Fused|Session|Parallel|Adam|LayerNorm|ReLU' > $OUT/test-transformer.txt 2>&1; tail -1 $OUT/test-transformer.txt
timeout 60 ./gemm.test -test.short > $OUT/test-gemm.txt 2>&1; tail -1 $OUT/test-gemm.txt
tb=new
grep -q "^--- FAIL" $OUT/test-transformer.txt && tb=fb
echo "tb build: $tb" | tee -a $OUT/machine.txt
{ ./transformer.test -test.run ZZHash -test.v 2>&1 | grep HASH | sed 's/^/avx512 /'; ./transformer-fb.test -test.run ZZHash -test.v 2>&1 | grep HASH | sed 's/^/avx2 /'; } | tee $OUT/hash.txt
timeout 300 ./tb-$tb -threads 1,2,4,8,16 -rounds 3 -steps 15 -sizes 8x32,16x100,32x128,64x256 -peer peer_torch_fast.py > $OUT/tb.txt 2>&1
tail -9 $OUT/tb.txt
for b in prev $tb; do
  echo "## build $b" >> $OUT/ab.txt
  timeout 30 ./tb-$b -threads 1,16 -rounds 1 -steps 10 -sizes 8x32,16x100,32x128,64x256 -peer none 2>&1 | tail -7 >> $OUT/ab.txt
done
grep -E "^##|^\| [0-9]|peak" $OUT/ab.txt
timeout 25 ./transformer.test -test.run XXX -test.bench 'StepPhases/B=64,T=256' -test.benchtime 5x -test.cpu 16 > $OUT/phases.txt 2>&1
grep -E "^Bench" $OUT/phases.txt | awk '{printf "%s %.2f %s\n", $1, $3/1e6, $5}'
timeout 15 ./transformer.test -test.run XXX -test.bench 'StepPhases/B=64,T=256/step' -test.benchtime 10x -test.cpu 16 -test.cpuprofile $OUT/cpu16.prof > /dev/null 2>&1
ls $OUT

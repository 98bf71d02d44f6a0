#!/bin/bash
# helper j64 call 1: the d64 _c2 sibling (issue11j): check, interleaved timing against the shipped d64 kernel, ncu
export PYTHONUNBUFFERED=1
S=$SECONDS
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sha256sum kernels/co/sm_90a/hopper_fwd.cubin .dev-j64/v/*/hopper_fwd.cubin
V=.dev-j64/v
t0=$SECONDS; timeout 150 python3 .dev-j64/dev.py check-only $V/v_c2s4_d64 $V/v_c2t1_d64 > $OUT/check.log 2>&1; rc=$?
echo "check rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check.log)"; grep -c " ok" $OUT/check.log; grep -E "FAIL|Error|error" $OUT/check.log | head -8
if [ $rc -eq 124 ]; then echo "STOP: check timed out (hang?)"; tail -5 $OUT/check.log; exit 1; fi
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;32,32,32,512,512,64,1;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0"
R="$R;16,32,32,1024,1024,64,1;8,32,32,2048,2048,64,0;8,32,32,2048,2048,64,1;4,32,32,4096,4096,64,0;4,32,32,4096,4096,64,1"
R="$R;2,32,32,8192,8192,64,0;2,32,32,8192,8192,64,1;1,32,32,16384,16384,64,0;1,32,32,16384,16384,64,1;1,2,2,40000,40000,64,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none OUT=$OUT timeout 200 \
  python3 .dev-j64/dev.py time $V/v_c2s4_d64 $V/v_c2s3_d64 $V/v_c2t1_d64 > $OUT/time.log 2>&1; echo "time rc=$? ($((SECONDS-t0))s)"
left=$((400-(SECONDS-S)))
if [ $left -gt 50 ]; then
  t0=$SECONDS
  for impl in c2 cudnn; do
    if [ $impl = c2 ]; then a="hopper 16 32 32 1024 1024 64 0 $V/v_c2s4_d64/hopper_fwd.cubin"; else a="cudnn 16 32 32 1024 1024 64 0"; fi
    timeout $((left/2-5)) ncu --profile-from-start off --clock-control none --set full -o $OUT/ncu_$impl python3 bench/hopper_ncu.py $a > $OUT/ncu_$impl.log 2>&1
    ncu --import $OUT/ncu_$impl.ncu-rep --page details > $OUT/ncu_$impl.txt 2>&1; rm -f $OUT/ncu_$impl.ncu-rep
  done
  echo "ncu ($((SECONDS-t0))s)"
  grep -hE "^  [a-z_]+.*\(|Duration|Registers Per|Issue Slots Busy|No Eligible|Executed Ipc A|Compute \(SM\) Thr" $OUT/ncu_c2.txt $OUT/ncu_cudnn.txt | head -30
fi
echo "total $((SECONDS-S))s"
tail -17 $OUT/time.log

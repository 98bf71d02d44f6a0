#!/bin/bash
# lead call 2 on issue11h-next (+ KERNELS filter): sanitizers over the new kernels (d64, d64_s4, every _varlen), bf16 + fp16;
# varlen timing of long and many-short rows; the bench
export PYTHONUNBUFFERED=1
cp -r .dev-lead/tree/. . || exit 2
S=$SECONDS
OUT=$OUT/v KERNELS='_d64(_s4)?$|_varlen$' STEPS=sanitize LIMIT=70 bash bench/hopper_validate.sh > $OUT/validate.log 2>&1; echo "validate rc=$? ($((SECONDS-S))s)"
tail -8 $OUT/validate.log
t0=$SECONDS
HOPPER_VARLEN_ROWS="4,4096,16384,16,16,128,0;4,4096,16384,16,16,128,1;4,4096,16384,32,32,64,0;4,4096,16384,32,32,64,1;256,16,256,32,32,64,0;256,16,256,16,16,128,1;128,64,512,32,8,128,1;16,128,4096,32,32,96,1;8,1024,8192,32,32,96,1;8,1024,8192,16,16,256,1" \
  timeout 60 python3 bench/hopper_varlen_dev.py time > $OUT/time_varlen2.log 2>&1; echo "varlen time rc=$? ($((SECONDS-t0))s)"
left=$((585-(SECONDS-S)))
t0=$SECONDS; mkdir -p $OUT/bench; timeout $left python3 -m pyhipattn bench --out $OUT/bench > $OUT/bench.log 2>&1; echo "bench rc=$? ($((SECONDS-t0))s)"
tail -50 $OUT/bench.log
echo; tail -12 $OUT/time_varlen2.log
echo; tail -9 $OUT/validate.log
cp $OUT/v/hopper_sanitize /dev/null 2>&1; rm -f $OUT/v/hopper_sanitize; (cd $OUT && tar czf v.tgz v && rm -rf v); ls -R $OUT | head

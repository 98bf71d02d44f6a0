#!/bin/bash
# issue11ac (2026-11-27 session 5), call a2: HOPPER_C2_CAUSAL_Q3_D64=1 (the _c2 kernels with three Q buffers) against the
# default build.  Carry [".whl", ".dev-ac"], kind nvidia-h100-x1, the usual prefix, then `bash .dev-ac/a2.sh`.
# v.tar.xz: v/base_d64 (the default build of branch issue11ac-c2causal = 326e354c..., main b198851's bytes), v/q3_d64
# (NVCC_EXTRA=-DHOPPER_C2_CAUSAL_Q3_D64=1, 93a3cd61...; only the two _c2 kernels' .text differ; its manifest's _c2 entries
# edited to shared 165632 / q_stages 3, as make_manifest.shared_bytes gives for three Q buffers).  Steps: unpack + sha256;
# check-only of q3; bitcheck (out / LSE of q3 against base_d64 bit for bit, helper-47's 41 shapes); one paired timing
# (5 rounds) of eight _c2 rows, columns hopper (shipped = base: A/A), base_d64, aa_d64 (a copy: A/A), q3_d64, cuDNN; bf16
# racecheck over q3's _c2; ncu (one launch each, base / q3, causal 32x512 and 16x1024 32/32); ratio table last.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-ac
V=$L/v
OUT=${OUT:-/tmp/ac-out}
mkdir -p "$OUT" /tmp/nv
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant files differ from the ones built"; exit 2; }
cp -r $V/base_d64 $V/aa_d64
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)
echo "checkout cubin ${ship:0:16} ($([ "$ship" = "$(sha256sum $V/base_d64/hopper_fwd.cubin | cut -c1-64)" ] && echo "= base_d64: hopper is an A/A column" || echo "NOT base_d64"))"
t0=$SECONDS; timeout 100 python3 bench/hopper_dev.py check-only $V/q3_d64 > $OUT/check.log 2>&1; rc=$?
nl=$(grep -c "^$V/q3_d64/hopper_fwd.cubin " $OUT/check.log); nf=$(grep "^$V/q3_d64/hopper_fwd.cubin " $OUT/check.log | grep -c "FAIL")
echo "check-only rc=$rc ($((SECONDS-t0))s): q3_d64 $nl lines, $nf FAIL; $(tail -1 $OUT/check.log | cut -c1-200)"
grep FAIL $OUT/check.log | head -3 | cut -c1-240
{ [ "$nf" = 0 ] && [ "$nl" -gt 0 ] && [ $rc = 0 ]; } || { echo "STOP: q3_d64 failed its check"; exit 1; }
t0=$SECONDS; timeout 80 python3 $L/bitcheck.py $V base_d64 q3_d64 > $OUT/bit.log 2>&1; rc=$?
echo "bitcheck rc=$rc ($((SECONDS-t0))s)"; grep -E "DIFFERENT|RAISED|raised|^bitcheck|Error" $OUT/bit.log | cut -c1-300 | tail -6
R="32,32,32,512,512,64,1;32,16,16,512,512,64,1;16,32,32,1024,1024,64,1;32,32,32,256,256,64,1"
R="$R;32,32,32,512,512,64,0;32,16,16,512,512,64,0;16,32,32,1024,1024,64,0;16,12,12,1024,1024,64,0"
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 75 python3 bench/hopper_dev.py time $V/base_d64 $V/aa_d64 $V/q3_d64 > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
t0=$SECONDS; CO=$V/q3_d64 KERNELS='_c2$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/q3_d64 \
  timeout 45 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | cut -c1-240; echo "  racecheck q3_d64 _c2 ($((SECONDS-t0))s)"
if [ $((SECONDS-S)) -lt 175 ]; then
  ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
  M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,gpc__cycles_elapsed.max
  C5=32,32,32,512,512,64,1; C10=16,32,32,1024,1024,64,1; B=$V/base_d64/hopper_fwd.cubin; Q=$V/q3_d64/hopper_fwd.cubin
  t0=$SECONDS
  timeout 30 $ncu --profile-from-start off --clock-control none --import-source no --section WarpStateStats --metrics $M \
    -k regex:_c2 -o /tmp/nv/a2 -f python3 $L/ncu_multi.py hopper $B $C5 hopper $Q $C5 hopper $B $C10 hopper $Q $C10 > /tmp/nv/a2.log 2>&1
  echo "ncu rc $? ($((SECONDS-t0))s): results base c512, q3 c512, base c1024, q3 c1024"
  $ncu -i /tmp/nv/a2.ncu-rep --page raw --csv > /tmp/nv/a2-raw.csv 2>&1
  python3 $L/ncu_sum2.py /tmp/nv/a2-raw.csv 2>&1 | grep -E "^\[|duration|stalls" | sed 's/tensor pipe.*//' | cut -c1-260 | tee $OUT/ncu_sum.txt
  gzip -c /tmp/nv/a2-raw.csv > $OUT/ncu_raw.csv.gz
fi
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -czf extras.tgz s check.log 2>/dev/null && rm -rf s check.log)
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json

#!/bin/bash
# issue11u (helper-41), call u2: which part of HOPPER_C2_HALFDIAG_D64 costs.  Call u1 (same script family, u1.sh): values
# 1-3 lost 6-10% on every _c2 row, the non-causal ones too, where the half path never runs.  Here:
#   hd4_d64  -DHOPPER_C2_HALFDIAG_D64=4  the half QK^T (tile start / fused boundary) + one-block tiles' half PV; no own instance
#   hd5_d64  -DHOPPER_C2_HALFDIAG_D64=5  the first block's own c2_step instance with the half PV only; QK^T / boundary whole
#   hd1_d64  (again, as in u1: both parts)
#   hd1off_d64  -DHOPPER_C2_HALFDIAG_D64=1 -DHOPPER_C2_HALFDIAG_OFF_D64=1  hd1's code, the half path never taken (its cost alone)
# Carry [".whl", ".dev-u"], kind nvidia-h100-x1, the usual prefix, then `bash .dev-u/u2.sh`.  Steps: unpack both tars +
# sha256; check-only of hd4 / hd5 (50 s each); bigcheck (bit for bit against base_d64, 30 shapes); bf16 racecheck over _c2;
# ncu (WarpStateStats + SchedulerStats) of base / hd1 / hd4 / hd5 / hd1off on 32x512 16/16 non-causal and 32/32 causal, one
# launch each; one paired timing (5 rounds) of u1's 8 rows, columns hopper, base_d64, aa_d64 (= base), hd1, hd4, hd5, hd1off, cuDNN.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-u
V=$L/v
OUT=${OUT:-/tmp/u-out}
VARS="${VARS:-hd4_d64 hd5_d64 hd1off_d64}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L && tar -xJf $L/v2.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS && sha256sum -c --quiet SHA256SUMS2) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
cp -r $V/base_d64 $V/aa_d64
echo "checkout cubin sha256 $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16)"
ok=()
for c in $VARS; do
  t0=$SECONDS; timeout 50 python3 bench/hopper_dev.py check-only $V/$c > $OUT/check-$c.log 2>&1; rc=$?
  echo "check-only $c rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check-$c.log | cut -c1-200)"
  grep -E "FAIL|Error" $OUT/check-$c.log | head -4 | cut -c1-240
  [ $rc -eq 124 ] && echo "  $c TIMED OUT (a hang?): dropped"
  [ $rc -eq 0 ] && ok+=($c)
done
if [ ${#ok[@]} -gt 0 ]; then
  t0=$SECONDS; timeout 50 python3 $L/bigcheck.py $V base_d64 "${ok[@]}" > $OUT/bigcheck2.log 2>&1; rc=$?
  echo "bigcheck rc=$rc ($((SECONDS-t0))s): $(grep -c ' same' $OUT/bigcheck2.log) shapes all same; $(tail -1 $OUT/bigcheck2.log)"
  grep -E "DIFFERS|raised|Error" $OUT/bigcheck2.log | cut -c1-260 | head -8
  for c in "${ok[@]}"; do
    t0=$SECONDS; CO=$V/$c KERNELS='_c2$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/$c \
      timeout 40 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | sort -u | cut -c1-240; echo "  racecheck $c _c2 ($((SECONDS-t0))s)"
  done
fi
N=32,16,16,512,512,64,0; C=32,32,32,512,512,64,1
nargs=(); labs=()
for c in base_d64 hd1_d64 "${ok[@]}"; do nargs+=(hopper $V/$c/hopper_fwd.cubin $N hopper $V/$c/hopper_fwd.cubin $C); labs+=("$c/nc512-16" "$c/c512-32"); done
t0=$SECONDS
timeout 60 ncu --profile-from-start off --clock-control none --import-source no --section WarpStateStats --section SchedulerStats \
  --metrics smsp__inst_executed.sum,gpu__time_duration.sum -k regex:_c2 -o /tmp/u2_rep -f python3 $L/ncu_multi.py "${nargs[@]}" > $OUT/ncu_run.log 2>&1
echo "ncu rc $? ($((SECONDS-t0))s)"; grep -E "^profiled|ERR" $OUT/ncu_run.log | head -12 | cut -c1-200
ncu -i /tmp/u2_rep.ncu-rep --page raw --csv > /tmp/u2_raw.csv 2>&1; gzip -c /tmp/u2_raw.csv > $OUT/ncu_raw.csv.gz
python3 $L/ncu_sum.py /tmp/u2_raw.csv "${labs[@]}" 2>&1 | tee $OUT/ncu_sum.txt | cut -c1-400
R="32,16,16,512,512,64,1;32,32,32,512,512,64,1;16,12,12,1024,1024,64,1;16,32,32,1024,1024,64,1;8,16,16,900,1000,64,1"
R="$R;32,16,16,512,512,64,0;16,32,32,1024,1024,64,0;8,32,32,2048,2048,64,0"
cols=($V/base_d64 $V/aa_d64 $V/hd1_d64); for c in "${ok[@]}"; do cols+=($V/$c); done
rounds=5; [ $((SECONDS-S)) -gt 150 ] && rounds=3
t0=$SECONDS; HOPPER_DEV_ROUNDS=$rounds HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 90 python3 bench/hopper_dev.py time "${cols[@]}" > $OUT/time2.log 2>&1; rc=$?
echo "time rc=$rc rounds=$rounds ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time2.log | head -5 | cut -c1-240
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -cJf extras2.tar.xz s check-*.log ncu_run.log 2>/dev/null && rm -rf s check-*.log ncu_run.log)
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json

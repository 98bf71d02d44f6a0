#!/bin/bash
# issue11w (helper-44), call w1: the d128 non-causal rows against cuDNN.  Over /work/main's tree, carry [".whl", ".dev-w"],
# kind nvidia-h100-x1, the usual prefix, then `bash .dev-w/w1.sh`.  Variants (.dev-w/v1.tar.xz -> .dev-w/v/<name>_d128/,
# whole builds of branch issue11w-d128nc, sha256 in .dev-w/SHA256SUMS):
#   base   default build (= main's 6e947678..., the reference)
#   rot1   -DHOPPER_NC_ROT_D128=1  non-causal tiles start their key blocks at m_block % n_max and wrap
#   rot2   -DHOPPER_NC_ROT_D128=2  ... at (m_block % 2) * (n_max / 2)
#   hint   -DHOPPER_L2_HINT_D128=1 K / V loads evict_last, Q evict_first
#   pf1    -DHOPPER_PF_NEXT_D128=1 the producer prefetches the next tile's Q into L2 a tile ahead (static schedule)
#   pf2    -DHOPPER_PF_NEXT_D128=2 ... and its first K / V block
#   k_fk   base's bytes, gate.py forcing _fk on every d128 row (4x4096 included)
# Steps: ncu --set full (one launch each: ours / cuDNN at 4x4096 and 8x2048, 16/16 non-causal bf16); check-only of each
# variant alone; bigcheck (hint / pf bit for bit, rot within tolerance); bf16 racecheck of pf2 / rot1 over _d128(_fk)?$;
# one paired timing (5 rounds) of the 7 d128 rows; ratio table last.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-w
V=$L/v
OUT=${OUT:-/tmp/w-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && mkdir -p $V && tar -xJf $L/v1.tar.xz -C $V || { echo "STOP: unpack"; exit 2; }
(cd $V && sha256sum -c --quiet ../SHA256SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
mkdir -p $V/k_fk_d128 && cp $V/base_d128/hopper_fwd.cubin $V/base_d128/hopper_manifest.json $V/k_fk_d128/
echo "checkout cubin sha256 $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16) (base: 6e947678bcb9a676)"
# 1. ncu
t0=$SECONDS
NC="--profile-from-start off --clock-control none --set full --import-source no"
A=4,16,16,4096,4096,128,0; B=8,16,16,2048,2048,128,0
timeout 100 ncu $NC -o /tmp/w1 -f python3 $L/ncu_multi.py hopper $V/base_d128/hopper_fwd.cubin $A cudnn - $A \
  hopper $V/base_d128/hopper_fwd.cubin $B cudnn - $B > $OUT/ncu_run.log 2>&1
echo "ncu rc $? ($((SECONDS-t0))s)"; grep -E "^profiled|ERR" $OUT/ncu_run.log | head -6 | cut -c1-160
ncu -i /tmp/w1.ncu-rep --page raw --csv > /tmp/w1_raw.csv 2>/dev/null
ncu -i /tmp/w1.ncu-rep --page details > /tmp/ncu_details.txt 2>&1
ncu -i /tmp/w1.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $OUT/ncu_source_sass.csv.gz
python3 $L/ncu_sum.py /tmp/w1_raw.csv > /tmp/ncu_sum.txt 2>&1; cut -c1-250 /tmp/ncu_sum.txt
gzip -c /tmp/w1_raw.csv > $OUT/ncu_raw.csv.gz
echo "ncu done ($((SECONDS-t0))s)"
# 2. check-only, each alone
ok=()
for c in rot1 rot2 hint pf1 pf2; do
  t0=$SECONDS; timeout 45 python3 bench/hopper_dev.py check-only $V/${c}_d128 > /tmp/check-$c.log 2>&1; rc=$?
  echo "check-only $c rc=$rc ($((SECONDS-t0))s): $(tail -1 /tmp/check-$c.log | cut -c1-160)"
  grep -E "FAIL|Error" /tmp/check-$c.log | head -4 | cut -c1-240
  [ $rc -eq 124 ] && echo "  $c TIMED OUT (a hang?): dropped"
  [ $rc -eq 0 ] && ok+=(${c}_d128)
done
t0=$SECONDS; timeout 45 python3 $L/gate.py check-only $V/k_fk_d128 > /tmp/check-k_fk.log 2>&1; rc=$?
echo "check-only k_fk (gate) rc=$rc ($((SECONDS-t0))s): $(tail -1 /tmp/check-k_fk.log | cut -c1-160)"; grep -m2 "gate fk" /tmp/check-k_fk.log
# 3. bigcheck
if [ ${#ok[@]} -gt 0 ]; then
  t0=$SECONDS; SAME_ONLY=hint_d128,pf1_d128,pf2_d128 timeout 60 python3 $L/bigcheck.py $V base_d128 "${ok[@]}" > $OUT/bigcheck.log 2>&1; rc=$?
  echo "bigcheck rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/bigcheck.log)"; grep -E "DIFFERS|Error|Traceback" $OUT/bigcheck.log | head -6 | cut -c1-300
  if [ $rc -eq 1 ]; then keep=(); for c in "${ok[@]}"; do grep -q "$c DIFFERS" $OUT/bigcheck.log || keep+=($c); done; ok=("${keep[@]}"); fi
fi
# 4. racecheck (bf16) of the variants whose producer changed most
for c in pf2_d128 rot1_d128; do
  [[ " ${ok[*]} " == *" $c "* ]] || continue
  t0=$SECONDS; CO=$V/$c KERNELS='_d128(_fk)?$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=/tmp/s/$c \
    timeout 45 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | sort -u | cut -c1-240; echo "  racecheck $c ($((SECONDS-t0))s)"
done
# 5. timing
R="32,16,16,512,512,128,0;16,16,16,1024,1024,128,0;8,16,16,2048,2048,128,0;4,16,16,4096,4096,128,0;2,16,16,8192,8192,128,0"
R="$R;4,16,16,4096,4096,128,1;32,16,16,512,512,128,1"
cols=($V/base_d128); for c in "${ok[@]}"; do cols+=($V/$c); done; cols+=($V/k_fk_d128)
rounds=5; [ $((SECONDS-S)) -gt 150 ] && rounds=3
t0=$SECONDS; HOPPER_DEV_ROUNDS=$rounds HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 100 python3 $L/gate.py time "${cols[@]}" > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc rounds=$rounds ($((SECONDS-t0))s)"
grep -E "failed|Error|Traceback" $OUT/time.log | head -5 | cut -c1-240; grep "gate fk" $OUT/time.log | sort -u | head -8
find /tmp/s -name hopper_sanitize -delete 2>/dev/null; (cd /tmp && tar -cJf $OUT/extras.tar.xz ncu_details.txt ncu_sum.txt check-*.log s 2>/dev/null)
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json

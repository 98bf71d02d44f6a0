#!/bin/bash
# issue11v (helper-42, branch issue11v-c2nc), call v1: the d64 `_c2` non-causal rows at 512-1024.  Over /work/main's tree,
# carry [".whl", ".dev-v"], kind nvidia-h100-x1, prefix:
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
#   export PYTHONPATH=/tmp/site:$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1 && bash .dev-v/v1.sh
# .dev-v: v.tar.xz (v/<name>_d64/{hopper_fwd.cubin,hopper_manifest.json}), SHA256SUMS, bigcheck.py (= notes/logs/h100-hopper-2026-11-27-s-bigcheck.py), texts.py, ratios.py.
#   base_d64  the branch's default build = main 2cfeddb's cubin 6873dec5... bit for bit (reference; bigcheck's base)
#   aa_d64    a copy of base_d64 (the A/A column)

#   pin2_d64  -DHOPPER_C2_PIN_D64=2  the turn's BAR.ARV pinned behind every exponential / the row sums / P's last register
#   pin3_d64  -DHOPPER_C2_PIN_D64=3  both
# Steps: unpack + sha256; ncu --set full of one launch each of base's _c2 and cuDNN at 32x512 16/16 d64 bf16 non-causal
# (details + SASS source page CSV, xz); check-only of each variant (60 s each; failure / timeout drops it); bigcheck (out /
# LSE bit for bit against base); bf16 racecheck over _c2; one paired timing, 5 rounds, 6 rows; ratio table last.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-v
V=$L/v
OUT=${OUT:-/tmp/v-out}
VARS="${VARS:-pin2_d64 pin3_d64}"
mkdir -p "$OUT" /tmp/nv
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
cp -r $V/base_d64 $V/aa_d64
echo "checkout cubin $(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-16); its _c2 against base_d64: $(python3 $L/texts.py kernels/co/sm_90a/hopper_fwd.cubin $V/base_d64/hopper_fwd.cubin '_c2$')"
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
prof() {  # name impl
  t0=$SECONDS
  timeout 50 $ncu --profile-from-start off --clock-control none --set full --import-source no --kernel-name regex:"hopper_fwd|cudnn|sm90" \
    -o /tmp/nv/$1 -f python3 bench/hopper_ncu.py $2 32 16 16 512 512 64 0 $V/base_d64/hopper_fwd.cubin > /tmp/nv/$1.log 2>&1
  echo "ncu $1 rc=$? ($((SECONDS-t0))s)"; tail -2 /tmp/nv/$1.log | cut -c1-200
  $ncu --import /tmp/nv/$1.ncu-rep --page details > /tmp/nv/$1.txt 2>&1
  grep -E "^  [a-zA-Z_]|Duration|Elapsed Cycles|SM Active Cycles|DRAM Throughput|L2 Cache Throughput|Executed Ipc A|Issue Slots Busy|Executed Instructions  |Registers Per|No Eligible|Warp Cycles Per Issued" /tmp/nv/$1.txt | head -14
  $ncu --import /tmp/nv/$1.ncu-rep --page raw --csv > /tmp/nv/$1-raw.csv 2>/dev/null
  ($ncu --import /tmp/nv/$1.ncu-rep --page source --csv --print-source sass > /tmp/nv/$1-src.csv 2>/tmp/nv/$1-src.err ||
   $ncu --import /tmp/nv/$1.ncu-rep --page source --csv > /tmp/nv/$1-src.csv 2>>/tmp/nv/$1-src.err)
  echo "$1 source page: $(wc -lc < /tmp/nv/$1-src.csv) $(head -c 200 /tmp/nv/$1-src.err)"
}
if [ -n "$ncu" ]; then
  prof ncu-c2-nc512 hopper
  prof ncu-cudnn-nc512 cudnn
  (cd /tmp/nv && tar -cJf $OUT/ncu.tar.xz *.txt *.csv *.log 2>/dev/null)
else
  echo "no ncu"
fi
ok=()
for c in $VARS; do
  t0=$SECONDS; timeout 60 python3 bench/hopper_dev.py check-only $V/$c > /tmp/nv/check-$c.log 2>&1; rc=$?
  echo "check-only $c rc=$rc ($((SECONDS-t0))s): $(tail -1 /tmp/nv/check-$c.log | cut -c1-200)"
  grep -E "FAIL|Error" /tmp/nv/check-$c.log | head -4 | cut -c1-240
  [ $rc -eq 124 ] && echo "  $c TIMED OUT (a hang?): dropped"
  [ $rc -eq 0 ] && ok+=($c)
done
[ ${#ok[@]} -gt 0 ] || { echo "STOP: no variant passed its check"; exit 1; }
t0=$SECONDS; timeout 60 python3 $L/bigcheck.py $V base_d64 "${ok[@]}" > $OUT/bigcheck.log 2>&1; rc=$?
echo "bigcheck rc=$rc ($((SECONDS-t0))s)"; grep -E "^bigcheck: |Error|DIFF" $OUT/bigcheck.log | cut -c1-240 | tail -8
for c in "${ok[@]}"; do
  t0=$SECONDS; CO=$V/$c KERNELS='_c2$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=/tmp/nv/s/$c \
    timeout 45 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | cut -c1-240; echo "  racecheck $c _c2 ($((SECONDS-t0))s)"
done
R="32,16,16,512,512,64,0;32,32,32,512,512,64,0;16,12,12,1024,1024,64,0;16,32,32,1024,1024,64,0"
R="$R;32,32,32,512,512,64,1;16,32,32,1024,1024,64,1"
cols=($V/base_d64 $V/aa_d64); for c in "${ok[@]}"; do cols+=($V/$c); done
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 130 python3 bench/hopper_dev.py time "${cols[@]}" > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
python3 $L/ratios.py $OUT/hopper_time.json
echo "wall $((SECONDS-S))s"

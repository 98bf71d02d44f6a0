#!/bin/bash
# issue11ai (helper ai, branch issue11ai-pmall2 from main 4216b31): built on the CPU, NOT run on a GPU yet.  The next
# session's first device call: kind nvidia-h100-x1, carry [".whl", ".dev-ai"], over /work/main's tree (main 4216b31 or a
# later commit whose pyhipattn/families/hopper.py is 4216b31's: the script stops otherwise), command
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl && export PYTHONPATH=/tmp/site:$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1 && bash .dev-ai/ai.sh
# ~150 s of command wall expected (timeout_s 300 leaves room).
# v.tar.xz: v/base (the default build = main 4216b31's cubin b4ba9b62... + manifest 374ad0ef...), v/pmall
# (PARAM_MAPS_ALL=15: the 24 other non-varlen TMA kernels -- d128 / _static / _bn176 / _softcap, d64 / _s4 / _static,
# d96 / _dyn / _softcap, d256 / _softcap, bf16 + fp16 -- take host-made tensor maps, a second kernel parameter at 240;
# only those kernels' .text differ from base).  tree/hopper.py: the branch's pyhipattn/families/hopper.py (tile_maps /
# o_map_rows for those kernels), copied over this tree's after checking that it is main 4216b31's (on the device only).
# Steps: check-only of pmall; bitcheck (out / LSE vs base bit for bit, ~75 shapes: d64 / d96 / d128 / d256); bf16
# racecheck of the changed kernels in three groups (time allowing); paired timing, 5 rounds, base / aa (A/A copy) /
# pmall on 4 one-key-block rows + 8 bench rows; the ratio table last.
# Files (.dev-ai, git-ignored): ai.sh (this; notes/logs/h100-hopper-2026-11-27-ai-next.sh), bitcheck.py
# (-ai-bitcheck.py), ratios.py (-ai-ratios.py), tree/hopper.py, v.tar.xz, SHA256SUMS (-ai-SHA256SUMS.txt).
# Logs under $OUT: check-pmall.log, bit.log, time.log, hopper_time.json, extras.tgz (racecheck logs).
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-ai
V=$L/v
OUT=${OUT:-/tmp/ai-out}
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant files differ from the ones built"; exit 2; }
cp -r $V/base $V/aa
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)
echo "checkout $(git rev-parse --short HEAD 2>/dev/null || echo "(no git)") cubin ${ship:0:16} ($([ "$ship" = "$(sha256sum $V/base/hopper_fwd.cubin | cut -c1-64)" ] && echo "= base: hopper is an A/A column" || echo "NOT base"))"
echo "ce5cf2ede50de2e1e9a44ce9f009fb7b2dc1fc709f6ab9d8c1cc1cce1e4f1904  pyhipattn/families/hopper.py" | sha256sum -c --quiet \
  || { echo "STOP: the tree's planner is not main 2493144's"; exit 2; }
cp $L/tree/hopper.py pyhipattn/families/hopper.py
t0=$SECONDS
timeout 100 python3 bench/hopper_dev.py check-only $V/pmall > $OUT/check-pmall.log 2>&1
nl=$(grep -c "^$V/pmall/hopper_fwd.cubin " $OUT/check-pmall.log); nf=$(grep "^$V/pmall/hopper_fwd.cubin " $OUT/check-pmall.log | grep -c "FAIL")
echo "check-only pmall ($((SECONDS-t0))s): $nl lines, $nf FAIL; $(tail -1 $OUT/check-pmall.log | cut -c1-100)"
grep "FAIL\|rror" $OUT/check-pmall.log | head -3 | cut -c1-240
{ [ "$nf" = 0 ] && [ "$nl" -gt 100 ] && tail -1 $OUT/check-pmall.log | grep -q "^check: 0 failures"; } || { echo "STOP: pmall failed its check"; exit 1; }
t0=$SECONDS; timeout 70 python3 $L/bitcheck.py $V base pmall > $OUT/bit.log 2>&1; rc=$?
echo "bitcheck rc=$rc ($((SECONDS-t0))s)"
grep -E "DIFFERENT|RAISED|raised|^bitcheck|Error|^bit plans" $OUT/bit.log | cut -c1-400 | tail -8
# racecheck, bf16, the 12 changed kernels in three groups (the O-map TMA-store kernels first), each while time allows
G1='_d128$|_d64$|_d64_s4$|_d128_static$'
G2='_d96$|_d256$|_d128_bn176$|_d64_static$'
G3='_d128_softcap$|_d96_dyn$|_d96_softcap$|_d256_softcap$'
i=0
for grp in "$G1" "$G2" "$G3"; do
  i=$((i+1))
  if [ $((SECONDS-S)) -lt $((60+15*i)) ]; then
    t0=$SECONDS; CO=$V/pmall KERNELS="$grp" DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/g$i \
      timeout 45 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | head -1 | cut -c1-240; echo "  racecheck pmall group $i ($grp) ($((SECONDS-t0))s)"
  else echo "racecheck group $i ($grp) skipped (time: $((SECONDS-S))s)"; fi
done
R="1,132,132,128,128,64,0;1,132,132,128,128,96,0;1,132,132,128,128,128,0;1,132,132,128,128,256,0"
R="$R;8,32,32,2048,2048,64,0;4,32,32,4096,4096,64,1;2,16,16,8192,8192,128,0;1,16,16,16384,16384,128,1"
R="$R;1,32,8,8192,8192,128,1;4,32,32,2048,2048,96,1;1,16,8,4096,4096,256,1;1,8,8,32768,32768,64,0"
left=$((240-(SECONDS-S))); [ $left -gt 60 ] || left=60
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout $left python3 bench/hopper_dev.py time $V/base $V/aa $V/pmall > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s, limit ${left}s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -czf extras.tgz s 2>/dev/null && rm -rf s)
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json

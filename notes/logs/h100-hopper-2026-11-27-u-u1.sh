#!/bin/bash
# issue11u (helper-41, branch issue11u-c2halfdiag): HOPPER_C2_HALFDIAG_D64 -- a _c2 warpgroup none of whose rows sees
# columns 64..127 of its tile's first key block computes that block on keys 0..63 only (QK^T m64n64, PV k = 64).
# One device call over /work/main's tree, carry [".whl", ".dev-u"], kind nvidia-h100-x1, prefix:
#   python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl &&
#   export PYTHONPATH=/tmp/site:$PWD XLA_PYTHON_CLIENT_PREALLOCATE=false PYTHONUNBUFFERED=1 && bash .dev-u/u1.sh
# .dev-u: v.tar.xz (v/<name>_d64/{hopper_fwd.cubin,hopper_manifest.json}), SHA256SUMS, bigcheck.py, ratios.py, this script.
#   base_d64  the branch's default build = main 2cfeddb's committed cubin 6873dec5... (the reference; bigcheck's base)
#   hd1_d64   -DHOPPER_C2_HALFDIAG_D64=1  the first block in a c2_step instance of its own (the steady step as base's)
#   hd3_d64   -DHOPPER_C2_HALFDIAG_D64=3  as 1, and that block's softmax on columns 0..63 only when half
#   hd2_d64   -DHOPPER_C2_HALFDIAG_D64=2  the half test in every c2_step (smaller code; the steady step rescheduled)
# Steps: unpack + sha256; check-only of each variant alone (50 s each; a failure or timeout drops it); bigcheck (out / LSE
# bit for bit against base_d64, 30 shapes); bf16 racecheck over _c2 of each passing variant; one paired timing
# (HOPPER_DEV_ROUNDS=5; 3 if the steps before ran long) of 8 d64 bf16 rows, columns hopper, base_d64, aa_d64 (a copy of
# base: A/A), the passing variants, cuDNN; the ratio table last.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-u
V=$L/v
OUT=${OUT:-/tmp/u-out}
VARS="${VARS:-hd1_d64 hd3_d64 hd2_d64}"
mkdir -p "$OUT"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant cubins differ from the ones built"; exit 2; }
cp -r $V/base_d64 $V/aa_d64
python3 - kernels/co/sm_90a/hopper_fwd.cubin $V/base_d64/hopper_fwd.cubin <<'PY'
import hashlib, struct, sys
def texts(p):   # ELF64 section name -> sha256 of its bytes (.text.* only)
    b = open(p, "rb").read()
    shoff, = struct.unpack_from("<Q", b, 0x28); shentsize, shnum, shstrndx = struct.unpack_from("<HHH", b, 0x3A)
    sh = [struct.unpack_from("<IIQQQQIIQQ", b, shoff + i * shentsize) for i in range(shnum)]
    so = sh[shstrndx][4]
    name = lambda o: b[so + o:b.index(b"\0", so + o)].decode()
    return {name(s[0])[6:]: hashlib.sha256(b[s[4]:s[4] + s[5]]).hexdigest() for s in sh if name(s[0]).startswith(".text.")}
a, b = texts(sys.argv[1]), texts(sys.argv[2])
print("checkout cubin sha256", hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest()[:16], "; kernels differing from base_d64:",
      sorted(k for k in a if a[k] != b.get(k)) or "none",
      "; _c2 equal to base:", all(a[k] == b[k] for k in a if k.endswith("_c2")), "(hopper column = A/A on _c2 rows if True)")
PY
ok=()
for c in $VARS; do
  t0=$SECONDS; timeout 50 python3 bench/hopper_dev.py check-only $V/$c > $OUT/check-$c.log 2>&1; rc=$?
  echo "check-only $c rc=$rc ($((SECONDS-t0))s): $(tail -1 $OUT/check-$c.log | cut -c1-200)"
  grep -E "FAIL|Error" $OUT/check-$c.log | head -4 | cut -c1-240
  [ $rc -eq 124 ] && echo "  $c TIMED OUT (a hang?): dropped"
  [ $rc -eq 0 ] && ok+=($c)
done
[ ${#ok[@]} -gt 0 ] || { echo "STOP: no variant passed its check"; exit 1; }
t0=$SECONDS; timeout 60 python3 $L/bigcheck.py $V base_d64 "${ok[@]}" > $OUT/bigcheck.log 2>&1; rc=$?
echo "bigcheck rc=$rc ($((SECONDS-t0))s)"; grep -E "^bigcheck|Error" $OUT/bigcheck.log | cut -c1-260 | tail -34
for c in "${ok[@]}"; do
  t0=$SECONDS; CO=$V/$c KERNELS='_c2$' DTYPES=bf16 TOOLS=racecheck STEPS=sanitize LIMIT=40 OUT=$OUT/s/$c \
    timeout 40 bash bench/hopper_validate.sh 2>&1 | grep "^sanitize" | cut -c1-240; echo "  racecheck $c _c2 ($((SECONDS-t0))s)"
done
R="32,16,16,512,512,64,1;32,32,32,512,512,64,1;16,12,12,1024,1024,64,1;16,32,32,1024,1024,64,1;8,16,16,900,1000,64,1"
R="$R;32,16,16,512,512,64,0;16,32,32,1024,1024,64,0;8,32,32,2048,2048,64,0"
cols=($V/base_d64 $V/aa_d64); for c in "${ok[@]}"; do cols+=($V/$c); done
rounds=5; [ $((SECONDS-S)) -gt 130 ] && rounds=3
t0=$SECONDS; HOPPER_DEV_ROUNDS=$rounds HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout 110 python3 bench/hopper_dev.py time "${cols[@]}" > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc rounds=$rounds ($((SECONDS-t0))s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
(cd $OUT && find . -name hopper_sanitize -delete 2>/dev/null; tar -cJf extras.tar.xz s check-*.log 2>/dev/null && rm -rf s check-*.log)
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json

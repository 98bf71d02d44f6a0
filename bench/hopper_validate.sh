#!/bin/bash
# hopper_validate.sh: the hopper family's validation on an sm_90a GPU, in one command, with a summary table last.
#
#   bash bench/hopper_validate.sh                      # every step, logs under $OUT (default /tmp/hopper_validate)
#   STEPS="check sanitize" DTYPES=fp16 bash bench/hopper_validate.sh
#   WHEEL=dist/pyhipattn-*.whl STEPS=tests bash bench/hopper_validate.sh   # tests/gpu from an installed wheel
#
# Steps (STEPS, in this order, any subset):
#   check     python3 bench/hopper_dev.py check: every shipped hopper kernel against the float64 reference
#   tests     python3 -m pytest tests/gpu (from the checkout, or, with WHEEL, from that wheel installed in a scratch
#             folder and run outside the checkout)
#   sanitize  compute-sanitizer memcheck / synccheck / racecheck (TOOLS) over bench/hopper_sanitize.c with every kernel
#             of the manifest of each dtype in DTYPES (default "bf16 fp16") whose name matches the Python regular
#             expression KERNELS (searched, default: all); LIMIT seconds per tool and dtype (240); CO: the folder of
#             the cubin and manifest it runs (default kernels/co/sm_90a, e.g. a variant build's OUT); a tool that reports
#             any error or hazard exits 1 (--error-exitcode), so its rc says so
#   bench     python3 -m pyhipattn bench --out $OUT/bench
# Each step has its own time limit (CHECK_S, TESTS_S, LIMIT, BENCH_S) so one hang cannot eat the others.  Exit status:
# 0 when every step that ran passed.
set -u
OUT=${OUT:-/tmp/hopper_validate}
STEPS=${STEPS:-check tests sanitize bench}
DTYPES=${DTYPES:-bf16 fp16}
TOOLS=${TOOLS:-memcheck synccheck racecheck}
LIMIT=${LIMIT:-240}
CO=${CO:-kernels/co/sm_90a}
CHECK_S=${CHECK_S:-120}
TESTS_S=${TESTS_S:-300}
BENCH_S=${BENCH_S:-240}
export PYTHONUNBUFFERED=1
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
mkdir -p "$OUT"
summary=()
bad=0
note() { summary+=("$1"); echo "$1"; }

nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo "no nvidia-smi"
sha256sum kernels/co/sm_90a/hopper_fwd.cubin

for step in $STEPS; do
  case "$step" in
  check)
    timeout "$CHECK_S" python3 bench/hopper_dev.py check > "$OUT/check.log" 2>&1
    rc=$?; [ $rc -eq 0 ] || bad=1
    note "check     rc=$rc  $(tail -1 "$OUT/check.log")"
    ;;
  tests)
    if [ -n "${WHEEL:-}" ]; then
      site=$(mktemp -d)
      python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target "$site" $WHEEL || { note "tests     wheel install failed: $WHEEL"; bad=1; continue; }
      ( cd /tmp && PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" python3 -P -c "import pyhipattn; print('pyhipattn from', pyhipattn.__file__)" &&
        PYTHONPATH="$site${PYTHONPATH:+:$PYTHONPATH}" timeout "$TESTS_S" python3 -P -m pytest -v -rfs -p no:cacheprovider "$root/tests/gpu" ) > "$OUT/gpu-tests.log" 2>&1
    else
      timeout "$TESTS_S" python3 -m pytest -v -rfs -p no:cacheprovider tests/gpu > "$OUT/gpu-tests.log" 2>&1
    fi
    rc=$?; [ $rc -eq 0 ] || bad=1
    note "tests     rc=$rc  $(tail -1 "$OUT/gpu-tests.log")${WHEEL:+ (installed wheel)}"
    grep -E "^(FAILED|ERROR)" "$OUT/gpu-tests.log" | head -5
    ;;
  sanitize)
    gcc -O2 -I kernels/src/hopper -o "$OUT/hopper_sanitize" bench/hopper_sanitize.c -ldl -lm || { note "sanitize  the harness did not build"; bad=1; continue; }
    san=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
    [ -n "$san" ] || { note "sanitize  no compute-sanitizer"; bad=1; continue; }
    for dt in $DTYPES; do
      specs=$(python3 -c "import json, re, sys; m = json.load(open(sys.argv[3] + '/hopper_manifest.json'))['objects']
print(' '.join(f\"{o['kernel']}:{o['shared']}:{o['block_m']}:{o['threads']}:{o['head_dim']}\" + (f\":{o['param_maps']['offset']}:{o['block_n']}:{(16 if o.get('epilogue_smem_per_warp') else 64) if o.get('epilogue_tma') else 0}\" if o.get('param_maps') else '') for o in m
               if o['dtype'] == sys.argv[1] and re.search(sys.argv[2], o['kernel'])))" "$dt" "${KERNELS:-.}" "$CO")
      n=$(echo $specs | wc -w)
      [ "$n" -gt 0 ] || { note "sanitize  $dt: no kernel matches KERNELS=${KERNELS:-.}"; bad=1; continue; }
      for tool in $TOOLS; do
        log="$OUT/sanitize-$dt-$tool.log"
        timeout "$LIMIT" "$san" --tool "$tool" --error-exitcode 1 --print-limit 20 "$OUT/hopper_sanitize" "$CO/hopper_fwd.cubin" $specs > "$log" 2>&1
        rc=$?; [ $rc -eq 0 ] || bad=1
        note "sanitize  $dt $tool rc=$rc ($n kernels of $CO): $(grep -c '^ok ' "$log") cases ok, $(grep -c '^FAIL' "$log") failed; $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log" | tail -1)"
      done
    done
    ;;
  bench)
    mkdir -p "$OUT/bench"
    timeout "$BENCH_S" python3 -m pyhipattn bench --out "$OUT/bench" > "$OUT/bench.log" 2>&1
    rc=$?; [ $rc -eq 0 ] || bad=1
    tail -48 "$OUT/bench.log"
    note "bench     rc=$rc  $OUT/bench/results.json"
    ;;
  *) note "unknown step $step (accepted: check tests sanitize bench)"; bad=1 ;;
  esac
done
echo
echo "== hopper validation summary ($(date -u +%FT%TZ))"
printf '%s\n' "${summary[@]}"
exit $bad

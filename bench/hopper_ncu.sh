#!/usr/bin/env bash
# ncu over one launch of the hopper d128 kernel (16k non-causal: full set, details + per-SASS-line
# source counters; FULL_CUBIN=path picks another cubin), and SpeedOfLight / warp-state sections of
# the variants given (16k non-causal and 16x1024 causal), of the shipped kernel on the causal shape,
# and with NCU_CUDNN=1 of the cuDNN peer (issue 11).  Three files under $OUT.
#   bash bench/hopper_ncu.sh [VARIANT_DIR ...]
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/hopper-ncu}
mkdir -p "$OUT"
NCU=(ncu --profile-from-start off --clock-control none --import-source no)
rep=/tmp/hopper_nc16k
"${NCU[@]}" --set full -k regex:hopper_fwd -c 1 -o "$rep" -f python3 bench/hopper_ncu.py hopper 1 16 16 16384 16384 128 0 ${FULL_CUBIN:-} > /tmp/ncu_full.log 2>&1
echo "ncu full rc $?"; tail -3 /tmp/ncu_full.log
ncu -i "$rep.ncu-rep" --page details --print-details all > "$OUT/nc16k_details.txt" 2>&1; echo "details rc $?"
ncu -i "$rep.ncu-rep" --page source --csv --print-source sass > "$OUT/nc16k_sass.csv" 2>&1; echo "source rc $? $(wc -l < "$OUT/nc16k_sass.csv") lines"
S=(--section SpeedOfLight --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis
   --section MemoryWorkloadAnalysis --section Occupancy --section LaunchStats)
{
  for v in "$@"; do
    echo "=== $v nc 16k d128"; "${NCU[@]}" "${S[@]}" -k regex:hopper_fwd -c 1 python3 bench/hopper_ncu.py hopper 1 16 16 16384 16384 128 0 "$v/hopper_fwd.cubin"
  done
  for v in "" "$@"; do
    echo "=== ${v:-shipped} causal 16x1024 d128"; "${NCU[@]}" "${S[@]}" -k regex:hopper_fwd -c 1 python3 bench/hopper_ncu.py hopper 16 16 16 1024 1024 128 1 ${v:+$v/hopper_fwd.cubin}
  done
  if [ -n "${NCU_CUDNN:-}" ]; then
    echo "=== cudnn nc 16k d128"; "${NCU[@]}" "${S[@]}" -k regex:cudnn -c 1 python3 bench/hopper_ncu.py cudnn 1 16 16 16384 16384 128 0
    echo "=== cudnn causal 16x1024 d128"; "${NCU[@]}" "${S[@]}" -k regex:cudnn -c 1 python3 bench/hopper_ncu.py cudnn 16 16 16 1024 1024 128 1
  fi
} > "$OUT/ncu_sections.txt" 2>&1
echo "sections rc $?"
grep -E "^=== |Duration|Compute \(SM\) Throughput|Issue Slots Busy|No Eligible|Warp Cycles Per Issued|  [a-z_0-9]+(fwd|cudnn|sm90|flash)[a-zA-Z0-9_]*" "$OUT/ncu_sections.txt" | head -60

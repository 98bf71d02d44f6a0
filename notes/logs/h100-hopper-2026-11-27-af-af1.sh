#!/bin/bash
# issue11af call af1 (helper af, branch issue11af-d128fixed from main e057dc0): where the d128 _fk kernel's ~1.8 us a
# launch over cuDNN goes.  kind nvidia-h100-x1, carry [".whl", ".dev-af"], the usual prefix, then `bash .dev-af/af1.sh`.
# v.tar.xz: v/base_d128 (= the shipped cubin 4e6af702...), v/fkt_d128 (HOPPER_FK_TAIL_D128=1: the CTA's last tile takes an
# unfused last turn, no dummy QK^T), v/nofk_d128 (base cubin, manifest without the _fk kernels: the planner runs plain d128).
# Steps: unpack + sha256; ncu (LaunchStats, Occupancy, SpeedOfLight + metrics, --cache-control none) of one launch each:
# ours / fkt / cuDNN at 1x128 132/132 d128 and 1x512 33/33 d128, ours (_c2) / cuDNN at 1x128 132/132 d64; ncu
# SourceCounters (sampling interval 0) of ours / fkt / cuDNN at 1x128 132/132 d128; check-only of fkt; paired timing
# (5 rounds) of 9 d128 rows, columns hopper (shipped), base_d128, aa_d128 (copy of base), fkt_d128, nofk_d128, cuDNN.
export PYTHONUNBUFFERED=1
S=$SECONDS
L=.dev-af
V=$L/v
OUT=${OUT:-/tmp/af-out}
mkdir -p "$OUT" /tmp/nv
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
rm -rf $V && tar -xJf $L/v.tar.xz -C $L || { echo "STOP: unpack"; exit 2; }
(cd $L && sha256sum -c --quiet SHA256SUMS) || { echo "STOP: variant files differ from the ones built"; exit 2; }
cp -r $V/base_d128 $V/aa_d128
ship=$(sha256sum kernels/co/sm_90a/hopper_fwd.cubin | cut -c1-64)
echo "checkout cubin ${ship:0:16} ($([ "$ship" = "$(sha256sum $V/base_d128/hopper_fwd.cubin | cut -c1-64)" ] && echo "= base_d128" || echo "NOT base_d128"))"
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
FKT=$V/fkt_d128/hopper_fwd.cubin
N1=1,132,132,128,128,128,0; N4=1,33,33,512,512,128,0; D1=1,132,132,128,128,64,0
M=gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,gpc__cycles_elapsed.max
M=$M,sm__pipe_tensor_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active
M=$M,sm__pipe_alu_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
M=$M,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,smsp__issue_active.avg.pct_of_peak_sustained_active
M=$M,launch__shared_mem_config_size,launch__cluster_dim_x,launch__cluster_dim_y,sm__ctas_launched.sum,gpu__time_active.sum
t0=$SECONDS
timeout 75 $ncu --profile-from-start off --clock-control none --cache-control none --import-source no --section SpeedOfLight \
  --section LaunchStats --section Occupancy --section WarpStateStats --metrics $M -o /tmp/nv/f1 -f \
  python3 $L/ncu_multi.py hopper - $N1 hopper $FKT $N1 cudnn - $N1 hopper - $N4 hopper $FKT $N4 cudnn - $N4 hopper - $D1 cudnn - $D1 \
  > /tmp/nv/f1.log 2>&1
echo "ncu rc $? ($((SECONDS-t0))s)"; grep -E "^profiled|ERR|rror" /tmp/nv/f1.log | head -12 | cut -c1-200
$ncu -i /tmp/nv/f1.ncu-rep --page raw --csv > /tmp/nv/f1-raw.csv 2>&1
$ncu -i /tmp/nv/f1.ncu-rep --page details > /tmp/nv/f1-details.txt 2>&1
python3 $L/ncu_sum2.py /tmp/nv/f1-raw.csv 2>&1 | tee $OUT/ncu_sum.txt | cut -c1-400
t0=$SECONDS
timeout 50 $ncu --profile-from-start off --clock-control none --cache-control none --import-source no --warp-sampling-interval 0 \
  --section SourceCounters --section WarpStateStats -o /tmp/nv/f1src -f \
  python3 $L/ncu_multi.py hopper - $N1 hopper $FKT $N1 cudnn - $N1 > /tmp/nv/f1src.log 2>&1
echo "ncu src rc $? ($((SECONDS-t0))s)"
$ncu -i /tmp/nv/f1src.ncu-rep --page source --csv --print-source sass > /tmp/nv/f1-src.csv 2>/tmp/nv/f1-src.err || true
python3 $L/src.py /tmp/nv/f1-src.csv 2>&1 | cut -c1-300 | head -40
(cd /tmp/nv && tar -cJf $OUT/ncu.tar.xz f1-raw.csv f1-details.txt f1.log f1src.log f1-src.csv f1-src.err 2>/dev/null)
t0=$SECONDS; timeout 60 python3 bench/hopper_dev.py check-only $V/fkt_d128 > /tmp/nv/check-fkt.log 2>&1
nl=$(grep -c "^$V/fkt_d128/hopper_fwd.cubin " /tmp/nv/check-fkt.log); nf=$(grep "^$V/fkt_d128/hopper_fwd.cubin " /tmp/nv/check-fkt.log | grep -c "FAIL")
echo "check-only fkt ($((SECONDS-t0))s): $nl lines, $nf FAIL; $(tail -1 /tmp/nv/check-fkt.log | cut -c1-100)"
grep "FAIL" /tmp/nv/check-fkt.log | head -3 | cut -c1-240
COLS="$V/base_d128 $V/aa_d128 $V/nofk_d128"
{ [ "$nf" = 0 ] && tail -1 /tmp/nv/check-fkt.log | grep -q "^check: 0 failures"; } && COLS="$COLS $V/fkt_d128" || echo "fkt NOT timed (check)"
R="1,132,132,128,128,128,0;4,132,132,128,128,128,0;1,33,33,512,512,128,0;32,16,16,512,512,128,0;16,16,16,1024,1024,128,0"
R="$R;8,16,16,2048,2048,128,0;4,16,16,4096,4096,128,0;32,16,16,512,512,128,1;16,16,16,1024,1024,128,1"
left=$((220-(SECONDS-S))); [ $left -gt 30 ] || left=30
t0=$SECONDS; HOPPER_DEV_ROUNDS=5 HOPPER_DEV_SHAPES="$R" HOPPER_DEV_PORTABLE=0 HOPPER_DEV_PEERS=cudnn HOPPER_DEV_PGRID=none \
  OUT=$OUT timeout $left python3 bench/hopper_dev.py time $COLS > $OUT/time.log 2>&1; rc=$?
echo "time rc=$rc ($((SECONDS-t0))s, limit ${left}s)"
grep -E "failed|Error" $OUT/time.log | head -5 | cut -c1-240
cp /tmp/nv/check-fkt.log $OUT/ 2>/dev/null
echo "wall $((SECONDS-S))s"
python3 $L/ratios.py $OUT/hopper_time.json

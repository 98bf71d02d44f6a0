#!/usr/bin/env bash
# Build the hopper attention kernels (kernels/src/hopper, sm_90a only: wgmma, setmaxnreg) into
# kernels/co/sm_90a/hopper_fwd.cubin and hopper_manifest.json.  The object is built twice and
# the two sha256 must agree (deterministic); make_manifest.py checks kernarg layout vs
# hopper_args.h, spills / local memory, shared memory and HGMMA, and fails the build otherwise.
#
#   scripts/build/hopper.sh
#   STAGES_D64=4 STAGES_D128=3 OUT=/tmp/x scripts/build/hopper.sh    # other ring depths, elsewhere
#   Q_STAGES=1 NWG_D64=2 OUT=/tmp/z scripts/build/hopper.sh         # one Q buffer, d64 with 2 consumer warpgroups (as before 2026-11-24)
#   TMA_D128=0 REGS_2WG=40/232 BN176_D128=0 OUT=/tmp/t scripts/build/hopper.sh   # the d128 kernels of 2026-11-24 (cp.async)
#   BN_D128=176 Q_STAGES_D128=1 BN176_D128=0 OUT=/tmp/u scripts/build/hopper.sh  # the 176-key tile for every d128 kernel
#   BN_D256=80 D96_COMPUTE=128 OUT=/tmp/v scripts/build/hopper.sh    # d256 with 80-key blocks; d96 computed 128 wide
#   DYN_CAUSAL=0 L2_SECTION_KB=0 OUT=/tmp/w scripts/build/hopper.sh      # the static causal schedule of before 2026-11-26 (issue11d-short)
#   EPI_SMEM_D64=0 OUT=/tmp/e scripts/build/hopper.sh   # d64 O stored straight from the accumulators (before issue11f)
#   EPI_TMA_D128=0 RESCALE_IN_TURN_D128=0 RESCALE_VOTE_D128=1 DESC_ADD_D128=0 OUT=/tmp/s scripts/build/hopper.sh   # the d128 loop / epilogue before issue11g-steady
#   EPI_TMA_D64=0 DECODE_ONCE_D64=0 OUT=/tmp/f scripts/build/hopper.sh    # the d64 epilogue / tile decode before issue11h
#   DECODE_ONCE_D128=0 OUT=/tmp/d scripts/build/hopper.sh   # the d128 consumers' three tile decodes a tile (before issue11h-d128)
#   PARAM_MAPS_C2=0 OUT=/tmp/z scripts/build/hopper.sh   # the _c2 kernels make their tensor maps in the kernel (before call z1)
#   C2_CAUSAL_Q3_D64=0 OUT=/tmp/q scripts/build/hopper.sh   # no _c2q3 kernels (causal _c2 problems on _c2, before call a2)
#   PARAM_MAPS_FK=0 OUT=/tmp/k scripts/build/hopper.sh   # the d128 _fk kernels make their tensor maps in the kernel (before call af2)
#   C2_KVWAIT_D64=0 OUT=/tmp/w scripts/build/hopper.sh   # the _c2 kernels' mbarrier waits one by one (before call v5)
#   FAST_RCP=0 OUT=/tmp/r scripts/build/hopper.sh   # a tile's 1 / l by the IEEE division (before call ak1)
#   L2_SHORT_SK=0 OUT=/tmp/s scripts/build/hopper.sh   # short causal problems in 16384-KiB L2 sections too (before call al1)
#   LAZY_RESCALE=0 OUT=/tmp/l scripts/build/hopper.sh   # row maxima follow every key block, O rescaled each block (before call am3)
#   START_WAIT=0 OUT=/tmp/w scripts/build/hopper.sh   # the _c2 producer prefetches at once at a kernel's start (before call sw1)
#   NVCC_EXTRA="-DHOPPER_PINGPONG=0" OUT=/tmp/y scripts/build/hopper.sh   # experiments (bench/hopper_dev.py)
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
src=kernels/src/hopper
NVCC=${NVCC:-nvcc}
STAGES_D64=${STAGES_D64:-3}
STAGES_D128=${STAGES_D128:-2}
NWG_D64=${NWG_D64:-3}          # consumer warpgroups of the d64 kernels (block_m = 64 * NWG_D64; 2 before 2026-11-24)
Q_STAGES=${Q_STAGES:-2}        # Q buffers (2: the next tile's Q loads under the current tile)
Q_STAGES_D128=${Q_STAGES_D128:-$Q_STAGES}   # Q buffers of the d128 kernels (1 for BN_D128=176: shared memory)
TMA_D128=${TMA_D128:-1}        # 1: the d128 producer loads with TMA (tensor maps made in the kernel; 0 before 2026-11-26)
TMA_D64=${TMA_D64:-1}          # 1: the d64 producer loads with TMA too
DYN_D64=${DYN_D64:-1}          # 1: the d64 kernels take the dynamic causal schedule (needs TMA_D64=1 and DYN_CAUSAL=1)
BN_D128=${BN_D128:-128}        # key block of the d128 kernels (128 or 176)
REGS_2WG=${REGS_2WG:-24/240}   # setmaxnreg producer/consumer with two consumer warpgroups (40/232 before 2026-11-26)
BN176_D128=${BN176_D128:-1}    # 1: also the hopper_fwd_<dtype>_d128_bn176 kernels (needs REGS_2WG=24/240)
BN_D256=${BN_D256:-64}         # key block of the d256 kernels (64 or 80)
D96_COMPUTE=${D96_COMPUTE:-96} # columns the d96 kernels' GEMMs compute (96, or 128: the d128 compute over zero-filled columns)
DYN_CAUSAL=${DYN_CAUSAL:-1}    # 1: the d128 TMA kernels (not _bn176) deal causal tiles out dynamically (setmaxnreg 32/232 at d128; 0 before 2026-11-26)
DYN_D96=${DYN_D96:-1}         # 1: also the hopper_fwd_<dtype>_d96_dyn kernels (d96 with the dynamic causal schedule; the planner runs them on causal problems)
EPI_SMEM_D128=${EPI_SMEM_D128:-1}   # 1: the d128 kernels (TMA, 128-key blocks, two Q buffers) stage O through shared memory for coalesced stores (0 before 2026-11-26 evening)
EPI_SMEM_D64=${EPI_SMEM_D64:-2}     # the d64 kernels (TMA, two Q buffers): 0: 4-byte stores from the accumulators (before 2026-11-26 evening); 1: O through a 24 KiB shared buffer (warpgroup barriers); 2: the buffer, each warp its own rows (__syncwarp)
EPI_V4_D128=${EPI_V4_D128:-0}       # 1: the d128 O buffer's rows go out with st.global.v4 (inline PTX); 0: a uint4 store NVVM splits into four 4-byte stores
EPI_TMA_D128=${EPI_TMA_D128:-1}     # 1: the d128 O buffer goes out with TMA stores (a fourth tensor map; 512 bytes of tmaps scratch per CTA)
RESCALE_IN_TURN_D128=${RESCALE_IN_TURN_D128:-1}   # 1: d128 O rescaled inside the GEMM turn, between the QK^T and the PV issue (FA3's order)
RESCALE_VOTE_D128=${RESCALE_VOTE_D128:-0}         # 1: d128 O's rescale skipped when no row of the warp moved its max (warp vote); 0: always
DESC_ADD_D128=${DESC_ADD_D128:-1}                 # 1: d128 wgmma descriptors as the tile's plus a constant (one add per k-step)
EPI_TMA_D64=${EPI_TMA_D64:-1}       # 1: each warp of the d64 kernels stores its staged O rows with TMA (a fourth tensor map; 512 bytes of tmaps scratch per CTA; 0 before issue11h)
DECODE_ONCE_D64=${DECODE_ONCE_D64:-1}   # 1: the d64 consumers decode a tile's m_block once, in next_tile (0 before issue11h)
DECODE_ONCE_D128=${DECODE_ONCE_D128:-1}           # 1: d128 tiles decoded once at the loop head (0: three times a tile, before issue11h-d128)
WG_SKIP_D64=${WG_SKIP_D64:-1}       # 1: each consumer warpgroup of the d64 TMA kernels (not the _static siblings) computes only the key blocks its own rows see (0 before issue11g)
L2_SECTION_KB=${L2_SECTION_KB:-16384}   # causal tile order: sections of heads whose K + V fit this many KiB (0: none, as before 2026-11-26)
L2_SHORT_SK=${L2_SHORT_SK:-512}   # causal problems of at most this many keys take L2_SHORT_KB KiB sections (0: none, as before call al1, 2026-11-27 session 7)
L2_SHORT_KB=${L2_SHORT_KB:-4096}
STATIC_SIBLINGS=${STATIC_SIBLINGS:-1}  # 1: also the _static siblings of the dynamic kernels (d128; d64 with DYN_D64=1)
WINDOW=${WINDOW:-1}             # 1: every kernel takes sliding windows (hopper_fwd_args.window_left / window_right; 0 before issue11g)
SOFTCAP_SIBLINGS=${SOFTCAP_SIBLINGS:-1}   # 1: also the hopper_fwd_<dtype>_d<D>_softcap kernels (softcap > 0; none before issue11g)
TAIL_SPLIT_D64=${TAIL_SPLIT_D64:-1}   # 1: the d64 dynamic kernels split a non-causal last round of few tiles into 64-row pieces (0 before issue11h)
TAIL_ROUNDS_D64=${TAIL_ROUNDS_D64:-8} # ... only with at most this many rounds of tiles
S4_D64=${S4_D64:-1}             # 1: also the hopper_fwd_<dtype>_d64_s4 kernels (the d64 TMA kernel with a 4-deep K / V ring; none before issue11h)
C2_D64=${C2_D64:-1}             # 1: also the hopper_fwd_<dtype>_d64_c2 kernels (d64 in cuDNN's shape: 128-row tiles, two consumer warpgroups; none before issue11j)
C2_STAGES_D64=${C2_STAGES_D64:-3}   # K / V stages of the _c2 kernels
C2_DESC_D64=${C2_DESC_D64:-1}       # 1: the _c2 kernels' wgmma descriptors as the tile's plus a constant (0 before 2026-11-27's call e1)
FK_D128=${FK_D128:-1}           # 1: also the hopper_fwd_<dtype>_d128_fk kernels (fused last turn, K ahead of V; none before 2026-11-27)
DEC1_CAUSAL_D128=${DEC1_CAUSAL_D128:-1}   # 1: the d128 / _fk consumers skip next_tile's empty-tile decode on causal problems with seqlen_k >= seqlen_q (0 before issue11n)
DESC_ADD_D64=${DESC_ADD_D64:-1}     # 1: the three-warpgroup d64 kernels (_d64, _d64_s4) build their wgmma descriptors by adds (0 before call o1, 2026-11-27 session 3)
PDEC_D128=${PDEC_D128:-1}           # 1: the d128 / _fk producer writes each tile's (m_block, head, batch) beside its Q slot for the consumers (0 before call o1)
SMX_TREE_D128=${SMX_TREE_D128:-1}   # 1: the d128 / _fk softmax takes each row max in four partial chains (0 before call r2, 2026-11-27 session 3)
C2_DEFER_D64=${C2_DEFER_D64:-1}     # 1: the _c2 kernels store a tile's O in the next key block's PV wait (0 before call q1, 2026-11-27 session 3)
PV_LATE_D64=${PV_LATE_D64:-2}       # 2: the three-warpgroup d64 kernels keep the PV wait behind the row max (0 before call st, 2026-11-27 session 4; 1 spills)
PARAM_MAPS_C2=${PARAM_MAPS_C2:-1}   # 1: the _c2 kernels take their Q / K / V / O tensor maps from the host, a second kernel parameter (hopper_args.h: hopper_fwd_maps; 0 before call z1, 2026-11-27 session 5)
PARAM_MAPS_FK=${PARAM_MAPS_FK:-1}   # 1: the d128 _fk kernels take host-made tensor maps as the _c2 ones (0 before call af2, 2026-11-27 session 6)
C2_KVWAIT_D64=${C2_KVWAIT_D64:-6}   # the _c2 / _c2q3 mbarrier waits: 6 = the boundary waits Q and V together, the steady block tests K before its PV (0 before call v5, 2026-11-27 session 6)
START_WAIT=${START_WAIT:-1}         # 1: the _c2 producer waits for its first K block before the deeper prefetch (0 before call sw1, 2026-11-27 session 8)
LAZY_RESCALE=${LAZY_RESCALE:-8}     # k > 0: every kernel but _c2 keeps a warp's row maxima while no new max exceeds them by k (exp2 domain): no O / l rescale (0 before call am3, 2026-11-27 session 8)
FAST_RCP=${FAST_RCP:-1}             # 1: a tile's 1 / l by one MUFU.RCP (rcp.approx) instead of the IEEE division (0 before call ak1, 2026-11-27 session 7)
C2_CAUSAL_Q3_D64=${C2_CAUSAL_Q3_D64:-1}   # 1: also the _c2q3 kernels (the _c2 kernel with three Q buffers; the planner runs them for causal _c2 problems; none before call a2, 2026-11-27 session 5)
C2Q3_KAHEAD_D64=${C2Q3_KAHEAD_D64:-1}   # 1: the _c2q3 producer loads K(n - 1) before V(n), as the _fk siblings (0 before call ad1, 2026-11-27 session 5)
UDIV_D64=${UDIV_D64:-1}         # 1: the d64 kernels (not _varlen) decode tile indices with unsigned divisions (0: signed, before 2026-11-27)
VARLEN_SIBLINGS=${VARLEN_SIBLINGS:-1}     # 1: also the hopper_fwd_<dtype>_d<D>[_softcap]_varlen kernels (cu_seqlens; none before issue11h)
L2_SECTION_MODE=${L2_SECTION_MODE:-1}   # 0: per (batch, q head) pair (+1 KiB each); 1: whole KV groups, even sections; 2: whole KV groups
dest=${OUT:-kernels/co/sm_90a}
# -gencode (not -arch=sm_90a): wgmma / setmaxnreg need the sm_90a target alone.
flags=(-cubin -O3 -std=c++17 --fmad=true -Werror all-warnings -gencode=arch=compute_90a,code=sm_90a
       -DHOPPER_STAGES_D64="$STAGES_D64" -DHOPPER_STAGES_D128="$STAGES_D128"
       -DHOPPER_NWG_D64="$NWG_D64" -DHOPPER_Q_STAGES="$Q_STAGES" -DHOPPER_Q_STAGES_D128="$Q_STAGES_D128"
       -DHOPPER_TMA_D128="$TMA_D128" -DHOPPER_TMA_D64="$TMA_D64" -DHOPPER_BN_D128="$BN_D128" -DHOPPER_BN176_D128="$BN176_D128"
       -DHOPPER_BN_D256="$BN_D256" -DHOPPER_D96_COMPUTE="$D96_COMPUTE"
       -DHOPPER_REGS_PRODUCER_2WG="${REGS_2WG%/*}" -DHOPPER_REGS_CONSUMER_2WG="${REGS_2WG#*/}" ${NVCC_EXTRA:-})
flags+=(-DHOPPER_DYN_CAUSAL="$DYN_CAUSAL" -DHOPPER_L2_SECTION_KB="$L2_SECTION_KB" -DHOPPER_L2_SHORT_SK="$L2_SHORT_SK" -DHOPPER_L2_SHORT_KB="$L2_SHORT_KB" -DHOPPER_DYN_D96="$DYN_D96"
        -DHOPPER_DYN_D64="$DYN_D64" -DHOPPER_L2_SECTION_MODE="$L2_SECTION_MODE" -DHOPPER_STATIC_SIBLINGS="$STATIC_SIBLINGS"
        -DHOPPER_EPI_SMEM_D128="$EPI_SMEM_D128" -DHOPPER_EPI_SMEM_D64="$EPI_SMEM_D64" -DHOPPER_EPI_V4_D128="$EPI_V4_D128")
flags+=(-DHOPPER_EPI_TMA_D128="$EPI_TMA_D128" -DHOPPER_RESCALE_IN_TURN_D128="$RESCALE_IN_TURN_D128"
        -DHOPPER_RESCALE_VOTE_D128="$RESCALE_VOTE_D128" -DHOPPER_DESC_ADD_D128="$DESC_ADD_D128" -DHOPPER_DECODE_ONCE_D128="$DECODE_ONCE_D128" -DHOPPER_WG_SKIP_D64="$WG_SKIP_D64"
        -DHOPPER_WINDOW="$WINDOW" -DHOPPER_SOFTCAP_SIBLINGS="$SOFTCAP_SIBLINGS" -DHOPPER_VARLEN_SIBLINGS="$VARLEN_SIBLINGS")
flags+=(-DHOPPER_EPI_TMA_D64="$EPI_TMA_D64" -DHOPPER_DECODE_ONCE_D64="$DECODE_ONCE_D64")
flags+=(-DHOPPER_S4_D64="$S4_D64" -DHOPPER_TAIL_SPLIT_D64="$TAIL_SPLIT_D64" -DHOPPER_TAIL_ROUNDS_D64="$TAIL_ROUNDS_D64" -DHOPPER_UDIV_D64="$UDIV_D64" -DHOPPER_FK_D128="$FK_D128")
flags+=(-DHOPPER_C2_D64="$C2_D64" -DHOPPER_C2_STAGES_D64="$C2_STAGES_D64" -DHOPPER_C2_DESC_D64="$C2_DESC_D64")
flags+=(-DHOPPER_DEC1_CAUSAL_D128="$DEC1_CAUSAL_D128" -DHOPPER_DESC_ADD_D64="$DESC_ADD_D64" -DHOPPER_PDEC_D128="$PDEC_D128" -DHOPPER_SMX_TREE_D128="$SMX_TREE_D128" -DHOPPER_C2_DEFER_D64="$C2_DEFER_D64" -DHOPPER_PV_LATE_D64="$PV_LATE_D64")
flags+=(-DHOPPER_PARAM_MAPS_C2="$PARAM_MAPS_C2" -DHOPPER_PARAM_MAPS_FK="$PARAM_MAPS_FK" -DHOPPER_C2_KVWAIT_D64="$C2_KVWAIT_D64" -DHOPPER_FAST_RCP="$FAST_RCP" -DHOPPER_LAZY_RESCALE="$LAZY_RESCALE" -DHOPPER_START_WAIT="$START_WAIT" -DHOPPER_C2_CAUSAL_Q3_D64="$C2_CAUSAL_Q3_D64" -DHOPPER_C2Q3_KAHEAD_D64="$C2Q3_KAHEAD_D64")
python3 "$src/gen_wgmma.py"
git diff --quiet -- "$src/wgmma_ops.h" 2>/dev/null || echo "hopper.sh: note: $src/wgmma_ops.h changed when regenerated" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$NVCC" "${flags[@]}" -o "$tmp/a.cubin" "$src/hopper_fwd.cu" &
"$NVCC" "${flags[@]}" -o "$tmp/b.cubin" "$src/hopper_fwd.cu" &
wait %1   # (separate lines: set -e stops at a failed compile)
wait %2
if [ "$(sha256sum < "$tmp/a.cubin")" != "$(sha256sum < "$tmp/b.cubin")" ]; then
  echo "hopper.sh: hopper_fwd.cubin differs between two builds (not deterministic)" >&2
  exit 1
fi
mkdir -p "$dest"
cp "$tmp/a.cubin" "$dest/hopper_fwd.cubin"
python3 "$src/make_manifest.py" sm_90a "$dest" "$STAGES_D64" "$STAGES_D128" "$NWG_D64" "$Q_STAGES" \
  "q_stages_d128=$Q_STAGES_D128" "tma_d64=$TMA_D64" "tma_d128=$TMA_D128" "bn_d128=$BN_D128" "regs_2wg=$REGS_2WG" \
  "bn_d256=$BN_D256" "d96_compute=$D96_COMPUTE" "dyn_causal=$DYN_CAUSAL" "dyn_d64=$DYN_D64" "l2_section_kb=$L2_SECTION_KB" "l2_section_mode=$L2_SECTION_MODE" "l2_short_sk=$L2_SHORT_SK" "l2_short_kb=$L2_SHORT_KB" \
  "epi_smem_d128=$EPI_SMEM_D128" "epi_smem_d64=$EPI_SMEM_D64" "epi_v4_d128=$EPI_V4_D128" \
  "epi_tma_d128=$EPI_TMA_D128" "rescale_in_turn_d128=$RESCALE_IN_TURN_D128" "rescale_vote_d128=$RESCALE_VOTE_D128" "desc_add_d128=$DESC_ADD_D128" "decode_once_d128=$DECODE_ONCE_D128" \
  "wg_skip_d64=$WG_SKIP_D64" "window=$WINDOW" "epi_tma_d64=$EPI_TMA_D64" "decode_once_d64=$DECODE_ONCE_D64" \
  "s4_stages_d64=4" "tail_split_d64=$TAIL_SPLIT_D64" "tail_rounds_d64=$TAIL_ROUNDS_D64" \
  "c2_stages_d64=$C2_STAGES_D64" "c2_desc_add_d64=$C2_DESC_D64" "dec1_causal_d128=$DEC1_CAUSAL_D128" "desc_add_d64=$DESC_ADD_D64" "pdec_d128=$PDEC_D128" "smx_tree_d128=$SMX_TREE_D128" "c2_defer_d64=$C2_DEFER_D64" "pv_late_d64=$PV_LATE_D64" "param_maps_c2=$PARAM_MAPS_C2" "c2q3_kahead_d64=$C2Q3_KAHEAD_D64" "param_maps_fk=$PARAM_MAPS_FK" "c2_kvwait_d64=$C2_KVWAIT_D64" "fast_rcp=$FAST_RCP" "lazy_rescale=$LAZY_RESCALE" "start_wait=$START_WAIT"
echo "hopper: $dest/hopper_fwd.cubin ($(stat -c %s "$dest/hopper_fwd.cubin") bytes), stages d64 $STAGES_D64 d128 $STAGES_D128, d64 warpgroups $NWG_D64, Q buffers $Q_STAGES (d128 $Q_STAGES_D128), TMA d64 $TMA_D64 d128 $TMA_D128, BN d128 $BN_D128 (+176 kernels: $BN176_D128), setmaxnreg $REGS_2WG, BN d256 $BN_D256, d96 compute $D96_COMPUTE, dynamic causal $DYN_CAUSAL (d64 $DYN_D64, static siblings $STATIC_SIBLINGS), L2 sections $L2_SECTION_KB KiB (mode $L2_SECTION_MODE), d128 O through shared memory $EPI_SMEM_D128, d64 $EPI_SMEM_D64 (d128 st.global.v4 $EPI_V4_D128, TMA store $EPI_TMA_D128, d64 TMA store $EPI_TMA_D64 decode once $DECODE_ONCE_D64), d128 rescale in turn $RESCALE_IN_TURN_D128 vote $RESCALE_VOTE_D128, descriptors by add $DESC_ADD_D128, d128 decode once $DECODE_ONCE_D128, d64 per-warpgroup key blocks $WG_SKIP_D64, windows $WINDOW, softcap siblings $SOFTCAP_SIBLINGS, varlen siblings $VARLEN_SIBLINGS, d64 unsigned decode $UDIV_D64, d128 _fk siblings $FK_D128, d64 _c2 siblings $C2_D64 ($C2_STAGES_D64 stages, descriptors by add $C2_DESC_D64), d128 causal decode once $DEC1_CAUSAL_D128, d64 descriptors by add $DESC_ADD_D64, d128 producer decode $PDEC_D128, d128 max tree $SMX_TREE_D128, _c2 deferred O store $C2_DEFER_D64, d64 late PV wait $PV_LATE_D64, _c2 host-made maps $PARAM_MAPS_C2, _c2q3 kernels $C2_CAUSAL_Q3_D64 (K ahead $C2Q3_KAHEAD_D64), _fk host-made maps $PARAM_MAPS_FK, _c2 waits $C2_KVWAIT_D64, 1 / l by rcp.approx $FAST_RCP, short causal L2 sections $L2_SHORT_KB KiB to $L2_SHORT_SK keys, kept row maxima $LAZY_RESCALE, _c2 start wait $START_WAIT"

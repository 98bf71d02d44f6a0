// hopper_fwd.cu: attention forward for sm_90a (H100 / H200) with wgmma and warp specialisation.
//
// One CTA = one producer warpgroup + NWG consumer warpgroups ((NWG + 1) * 128 threads), running
// tiles of BM = 64 * NWG query rows of one (batch, q head) in a persistent loop (tile order:
// hopper_args.h); each consumer warpgroup owns 64 rows of a tile.  NWG = 2 (d96, d128, d256), and 2 or 3
// (d64, HOPPER_NWG_D64): the manifest records each kernel's block_m and threads.  Key blocks of
// BN = 128 keys; the _bn176 kernels (long non-causal d128) take 176 with one Q buffer; d256 takes
// HOPPER_BN_D256 with one Q buffer.  d96 tiles hold two 64-column atoms (TMA zero-fills columns 96..127).
//
//   producer  (warpgroup 0, setmaxnreg 24 / 32): TMA (every head dim; d128 / d64 through HOPPER_TMA_D128 /
//             HOPPER_TMA_D64, on by default): one thread loads with TMA
//             (cp.async.bulk.tensor, tensor maps the kernel makes itself: tmap_make), otherwise
//             cp.async 16-byte copies by its 128 threads, of each tile's Q into a
//             ring of HOPPER_Q_STAGES buffers (once the consumers have finished the QK^T of
//             the tile that used the buffer before: q_empty), then K and V
//             tiles (BN keys) into a STAGES-deep ring in shared memory, 128B-swizzled as wgmma
//             reads them; each thread's copies arrive on the tile's "full" mbarrier when they
//             land (cp.async.mbarrier.arrive.noinc), and it waits on the "empty" mbarrier
//             before reusing a slot.  Rows past seqlen are zero-filled (src-size 0).
//   consumers (warpgroups 1.., setmaxnreg 240 / 160): S = Q K^T with wgmma (A and B from shared
//             memory), online softmax in registers (exp2, bottom-right causal / tail masks
//             only on the blocks that need them), P converted to bf16/fp16 A fragments in
//             registers, O += P V with wgmma (A from registers, V read N-major: transposed).
//             Intra-warpgroup overlap: the QK^T of block j and the PV of block j+1 (blocks
//             run from the last key block down) are in flight while the softmax of block j
//             waits only for its own GEMM.  Ping-pong (HOPPER_PINGPONG): the warpgroups take
//             turns issuing their GEMMs (named barriers, round robin), one's softmax under the
//             others' GEMMs.
//   epilogue: O / l, LSE (natural log) when asked; the producer already loads the next tile
//             meanwhile.  d128 (HOPPER_EPI_SMEM_D128, 128-key kernels, _static siblings included) and d64
//             (HOPPER_EPI_SMEM_D64, _static siblings included): O goes through a shared-memory buffer of its
//             own (stmatrix) and out in coalesced row stores (HOPPER_EPI_V4_D128: how; d128 with
//             HOPPER_EPI_TMA_D128: one thread per warpgroup stores the buffer with TMA instead);
//             otherwise 4-byte stores straight from the accumulators.
//   causal tiles (HOPPER_DYN_CAUSAL: the d128 and d64 kernels, the d96 _dyn siblings): dealt out
//             dynamically from a tile counter, in sections of whole KV groups whose K / V fit L2
//             (HOPPER_L2_SECTION_KB, HOPPER_L2_SECTION_MODE), heaviest first within each; the d64
//             kernels deal non-causal tiles from the counter too; see fwd_body.  The _static siblings
//             (HOPPER_STATIC_SIBLINGS) keep the static schedule for the problems where it measured faster.
//
// Kernel arguments: hopper_fwd_args (hopper_args.h), by value.  Requirements the planner
// checks or documents: head_dim == head_dim_v == D of the kernel, strides multiples of 8
// elements, q/k/v/out 16-byte aligned, heads_q % heads_k == 0, softmax_scale > 0.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <stdint.h>

#include <type_traits>

#include "hopper_args.h"
#include "wgmma_ops.h"

#ifndef HOPPER_STAGES_D128
#define HOPPER_STAGES_D128 2
#endif
#ifndef HOPPER_PINGPONG
#define HOPPER_PINGPONG 1
#endif
#ifndef HOPPER_NWG_D64
#define HOPPER_NWG_D64 3
#endif
#ifndef HOPPER_STAGES_D64
#define HOPPER_STAGES_D64 3
#endif
#ifndef HOPPER_Q_STAGES
#define HOPPER_Q_STAGES 2
#endif
#ifndef HOPPER_TMA_D128
#define HOPPER_TMA_D128 1
#endif
#ifndef HOPPER_TMA_D64
#define HOPPER_TMA_D64 1
#endif
#ifndef HOPPER_TMA_STRIDE_SHIFT
#define HOPPER_TMA_STRIDE_SHIFT 0
#endif
// causal tile order: sections of (batch, head) pairs whose K + V fit this many KiB (0: one section)
#ifndef HOPPER_L2_SECTION_KB
#define HOPPER_L2_SECTION_KB 16384
#endif
// causal problems of at most HOPPER_L2_SHORT_SK keys take sections of HOPPER_L2_SHORT_KB KiB instead (call l2, session 7:
// 4096 KiB read 1.012x / 1.009x on causal 32x512 d64 / d128, 0.97-0.99x at 1024-2048 keys; call al1: 0.992-1.026x at
// 256-512 keys, geomean 1.0118); 0: no such rule
#ifndef HOPPER_L2_SHORT_SK
#define HOPPER_L2_SHORT_SK 512
#endif
#ifndef HOPPER_L2_SHORT_KB
#define HOPPER_L2_SHORT_KB 4096
#endif
// 1: TMA kernels deal causal tiles out dynamically (an atomic tile counter; see fwd_body)
// 1: also build hopper_fwd_<dtype>_d96_dyn, the d96 kernels with the dynamic causal schedule (and its 32 / 232
// register split, which costs non-causal d96 problems 6-8%: the planner runs them on causal problems only).
// d256 would spill 8 bytes under that split.
#ifndef HOPPER_DYN_D96
#define HOPPER_DYN_D96 1
#endif
#ifndef HOPPER_DYN_CAUSAL
#define HOPPER_DYN_CAUSAL 1
#endif
// 1: the d64 kernels, when they load with TMA (HOPPER_TMA_D64), take the dynamic causal schedule too (their
// three consumer warpgroups split setmaxnreg 32 / 160 either way, so non-causal problems lose nothing)
#ifndef HOPPER_DYN_D64
#define HOPPER_DYN_D64 1
#endif
// how the L2 sections are sized: 0: (batch, q head) pairs, each counted as its share of its KV head's
// K + V plus 1 KiB (before 2026-11-26's issue11e); 1: whole KV groups (the q heads sharing one KV head's
// K + V, counted once), as many per section as fit, the sections then evened out (the last one is not a
// runt whose heavy tiles start at the end); 2: whole KV groups, as many as fit, no evening out
#ifndef HOPPER_L2_SECTION_MODE
#define HOPPER_L2_SECTION_MODE 1
#endif
// 1: also build the _static siblings (hopper_fwd_<dtype>_d128_static, and _d64_static when the d64 kernels are
// dynamic): the static causal schedule, which measured faster on some causal problems (hopper.STATIC_SIBLING_CAUSAL)
#ifndef HOPPER_STATIC_SIBLINGS
#define HOPPER_STATIC_SIBLINGS 1
#endif
#ifndef HOPPER_BN_D128
#define HOPPER_BN_D128 128
#endif
#ifndef HOPPER_Q_STAGES_D128
#define HOPPER_Q_STAGES_D128 HOPPER_Q_STAGES
#endif
// 1: also build hopper_fwd_<dtype>_d128_bn176 (key block 176, one Q buffer, TMA; the planner runs them
// on long non-causal problems).  Needs setmaxnreg 24 / 240 (HOPPER_REGS_*_2WG): 88 score registers.
#ifndef HOPPER_BN176_D128
#define HOPPER_BN176_D128 1
#endif
// setmaxnreg of the producer / consumer warpgroups with two consumer warpgroups; a CTA starts with
// 168 per thread, so 128 * (168 - PRODUCER) >= 256 * (CONSUMER - 168) must hold (else a deadlock)
#ifndef HOPPER_REGS_PRODUCER_2WG
#define HOPPER_REGS_PRODUCER_2WG 24
#endif
#ifndef HOPPER_REGS_CONSUMER_2WG
#define HOPPER_REGS_CONSUMER_2WG 240
#endif
// d256 (two consumer warpgroups, one Q buffer, TMA): key block, 64 or 80 (FA3's hd256 tile is 128 x 80; here
// 80 spills 72 bytes with setmaxnreg 240, 2026-11-26)
#ifndef HOPPER_BN_D256
#define HOPPER_BN_D256 64
#endif
// d96 (TMA): the width the GEMMs compute.  96: QK^T over 6 k-steps, PV with wgmma N = 96; 128: the d128
// compute on tiles whose columns 96..127 TMA fills with zeros (the fallback).  Either way the tensor
// maps' global dim is 96 and the epilogue stores 96 columns.
#ifndef HOPPER_D96_COMPUTE
#define HOPPER_D96_COMPUTE 96
#endif
// 1: the d128 kernels with 128-key blocks and two Q buffers stage O through shared memory (a 32 KiB
// buffer of their own, stmatrix) and store it with 16-byte coalesced stores (was: 4-byte stores straight
// from the accumulators)
#ifndef HOPPER_EPI_SMEM_D128
#define HOPPER_EPI_SMEM_D128 1
#endif
// the d64 kernels (TMA, two Q buffers; _static siblings included): 0: 4-byte stores straight from the
// accumulators; 1: O through a 24 KiB buffer (192 rows x 128 bytes) as at d128, warpgroup barriers;
// 2: the same buffer, each warp staging and storing only its own 16 rows (stmatrix writes a warp's rows
// only), so __syncwarp instead of the warpgroup barriers (the shipped cubin, 2026-11-26 evening, issue11f: 1 and 2
// measured alike, 1.00-1.12x the 4-byte stores at 512-4096).  (HOPPER_EPI_SMEM_D128 takes 2 the same way; not built.)
#ifndef HOPPER_EPI_SMEM_D64
#define HOPPER_EPI_SMEM_D64 2
#endif
// how the staged O rows go out: the d64 kernels with one st.global.v4 (inline PTX) per 16-byte chunk; d128 the same
// with 1, with 0 through a uint4 store, which NVVM splits into four st.global.u32 (found 2026-11-26 evening: the
// issue11e-short d128 epilogue's "16-byte stores" are four 4-byte STG.E each in its SASS)
#ifndef HOPPER_EPI_V4_D128
#define HOPPER_EPI_V4_D128 0
#endif
// d128 steady loop (issue11g-steady, 2026-11-26 night; the four macros below shipped together, measured together:
// notes/hopper.md): 1: O is rescaled by the previous block's factors inside the warpgroup's GEMM turn, after the
// QK^T is issued and before the PV that accumulates onto it (FA3's RescaleOBeforeGemm order), instead of after the
// wait for the PV; 0: after the wait (before)
#ifndef HOPPER_RESCALE_IN_TURN_D128
#define HOPPER_RESCALE_IN_TURN_D128 1
#endif
// d128: 1: skip O's rescale when no row of the warp moved its max (a warp vote each block; before); 0: always rescale
#ifndef HOPPER_RESCALE_VOTE_D128
#define HOPPER_RESCALE_VOTE_D128 0
#endif
// d128 kernels with the O staging buffer (HOPPER_EPI_SMEM_D128 = 1): 1: one thread per warpgroup stores the buffer
// with TMA (a fourth tensor map, of out; 512 bytes of tmaps scratch per CTA) and waits for the read only before the
// next tile's writes; 0: the warpgroup's threads load it back and store it (before)
#ifndef HOPPER_EPI_TMA_D128
#define HOPPER_EPI_TMA_D128 1
#endif
// d128: 1: each GEMM's wgmma descriptors are its tile's descriptor plus a constant in the address field (one 32-bit
// add per k-step); 0: each k-step's descriptor built from its address (the and / shift / or chain per wgmma in the
// GEMM turn, seen in issue11g-steady's ncu source counters; before)
#ifndef HOPPER_DESC_ADD_D128
#define HOPPER_DESC_ADD_D128 1
#endif
// the d64 kernels with the O staging buffer (HOPPER_EPI_SMEM_D64 = 2; not the _static / _softcap siblings): 1: lane 0 of
// each warp stores the warp's 16 staged rows with TMA (a fourth tensor map, of out, 64 x 16 boxes; 512 bytes of tmaps
// scratch per CTA) and waits for the read only before the warp's next stmatrix; 0: the warp's lanes load the rows back and
// store them with st.global.v4 (before, issue11h)
#ifndef HOPPER_EPI_TMA_D64
#define HOPPER_EPI_TMA_D64 1
#endif
// the d64 consumers (not the _static / _softcap siblings): 1: a tile's m_block is decoded once, where next_tile picks
// it, and kept for the tile's skip turns and loop head (the epilogue still decodes head and batch: keeping them too
// spilled 8 bytes); 0: the skip turns and the loop head decode it again from the tile index (before, issue11h)
#ifndef HOPPER_DECODE_ONCE_D64
#define HOPPER_DECODE_ONCE_D64 1
#endif
// 1: the d128 consumers decode a tile's (m_block, head, batch) once, at the loop head (the epilogue reuses it), and
// next_tile skips its empty-tile check where no row block can be empty (no window, not causal, seqlen_k > 0): one
// decode's integer divisions a tile instead of three (issue11h-d128); 0: three (before)
#ifndef HOPPER_DECODE_ONCE_D128
#define HOPPER_DECODE_ONCE_D128 1
#endif
// 1: also build hopper_fwd_<dtype>_d128_fk, the d128 kernel with a shorter tile boundary (issue11i, helper-29's
// measurements: 1.01-1.05x the d128 kernel at 512-2048 tokens, ~0.975x at 4096; the planner picks them by length):
//  - the fused turn: a tile's last PV and the next tile's first QK^T go out in one ping-pong turn (PV first); the PV
//    alone is waited and the epilogue runs with that QK^T on the tensor cores: n turns a tile of n key blocks instead
//    of n + 1 (cuDNN's count).  With no next tile the QK^T still goes out, over the stale Q slot / K stage (its scores
//    are dropped): issued only under a branch, ptxas serializes every wgmma;
//  - K ahead: the producer loads each V block after the next K block (the next tile's first K included), so a K load
//    never waits for the V slot of the block before it.  A pending V goes out before an empty tile is passed (else: a
//    deadlock under the dynamic schedule when two or more empty tiles follow, the producer waiting for Q slots the
//    consumers free only after that V).
#ifndef HOPPER_FK_D128
#define HOPPER_FK_D128 1
#endif
// 1: each consumer warpgroup of the d64 TMA kernels (not the _static siblings) computes only the key blocks its own
// 64 rows can see (the top block of a causal diagonal tile is fully masked for the lower warpgroups of a 192-row
// tile; a last tile's warpgroup past seqlen_q computes one block), passing its ping-pong turn for the others
// (fwd_body: WG_SKIP)
// 1: the consumers of the d128 kernel and its _fk sibling (HOPPER_DECODE_ONCE_D128) skip next_tile's decode also on causal
// problems with seqlen_k >= seqlen_q and no left window edge, where no row block can be empty (each row sees key 0), as
// they do on non-causal ones without a window (fwd_body: DEC1C): the loop head's decode is then the tile's only one
// (issue11n: 1.02x at 32x512 / 16x1024 16/16 causal); 0: they decode each causal tile there to look for empty row blocks
#ifndef HOPPER_DEC1_CAUSAL_D128
#define HOPPER_DEC1_CAUSAL_D128 1
#endif
#ifndef HOPPER_WG_SKIP_D64
#define HOPPER_WG_SKIP_D64 1
#endif
// 1: every kernel takes the sliding window of hopper_fwd_args (window_left / window_right): key blocks
// [n_min, n_max) of a row block, the mask on the blocks at both window edges only (manifest "window")
#ifndef HOPPER_WINDOW
#define HOPPER_WINDOW 1
#endif
// 1: also build hopper_fwd_<dtype>_d<D>_softcap (D = 64, 96, 128, 256): each head dim's main kernel with
// scores tanh(softmax_scale * s / softcap) (args.softcap_log2), one ex2 and one rcp more per score; the
// planner runs them on softcap problems only, so the plain kernels keep their code (manifest "softcap")
#ifndef HOPPER_SOFTCAP_SIBLINGS
#define HOPPER_SOFTCAP_SIBLINGS 1
#endif
// 1: also build hopper_fwd_<dtype>_d64_s4 (when the d64 kernels load with TMA): the d64 kernel with a 4-deep K / V
// ring (HOPPER_S4_STAGES_D64) instead of HOPPER_STAGES_D64; the planner runs it where it measured faster
// (hopper.S4_SIBLING_D64; manifest "stages" 4)
#ifndef HOPPER_S4_D64
#define HOPPER_S4_D64 1
#endif
#ifndef HOPPER_S4_STAGES_D64
#define HOPPER_S4_STAGES_D64 4
#endif
// 1: the d64 kernels with the dynamic schedule and per-warpgroup key blocks (HOPPER_WG_SKIP_D64; not the _static /
// _softcap siblings) split a non-causal problem's last round into pieces of 64 rows when its tiles fill at most
// 1 / NWG of the grid (tiles % grid <= grid / NWG): each of those tiles becomes NWG pieces, one per warpgroup, in
// which that warpgroup computes every key block and stores its rows, the others compute one block and store
// nothing (fwd_body: TSPLIT); a piece whose rows all lie past seqlen_q loads and computes nothing.  No sliding window.
// Only with at most HOPPER_TAIL_ROUNDS_D64 rounds of tiles (tiles <= that * grid): the gain is at most the part of a
// round a piece saves, so it shrinks with the rounds (measured, issue11h call 1: 1.08-1.11x at 3.2 rounds, 1.20-1.23x
// at 1.3, 0.94-1.02x at 21.3 rounds, within that run's noise)
#ifndef HOPPER_TAIL_SPLIT_D64
#define HOPPER_TAIL_SPLIT_D64 1
#endif
#ifndef HOPPER_TAIL_ROUNDS_D64
#define HOPPER_TAIL_ROUNDS_D64 8
#endif
// 1: the d64 kernels (not _varlen) decode a tile index (decode: in next_tile, the epilogue and the producer) with unsigned
// divisions, every operand being >= 0: no IABS / sign fix-ups around each division (cuobjdump of hopper_fwd_bf16_d64: 65
// IABS -> 15); 0: signed (before, issue11i)
#ifndef HOPPER_UDIV_D64
#define HOPPER_UDIV_D64 1
#endif
// 1: the d64 dynamic kernels' producer, which decodes each tile it deals out anyway, passes (m_block, head, batch) to the
// consumers beside the tile index (a ring of 2 * QS entries of 12 bytes at bars + 160, one per Q slot and phase), so
// next_tile and the epilogue read them instead of decoding (integer divisions at the tile boundary); every consumer
// thread then arrives on q_empty (not lane 0 of each warp), so each one's reads of an entry come before the producer
// rewrites it (helper-28's issue11i patch; 1.02-1.07x on d64 at 512-4096, 2026-11-27); 0: they decode
#ifndef HOPPER_PDEC_D64
#define HOPPER_PDEC_D64 1
#endif
// 1: the d128 kernel and its _fk sibling (not _bn176 / _softcap / _static / _varlen): the producer writes each tile's
// (m_block, head, batch) into a 16-byte entry per Q slot (bars + 160 + 16 * slot) just before that tile's Q load, on
// either schedule (causal: dynamic, non-causal: static), and lane 0 of each consumer warp reads it at the loop head
// and passes it on by shuffles, instead of every thread decoding the tile index (integer divisions; fwd_body: PDEC128);
// 0: they decode (before call o1).  The same pattern as the tile_slot word: lane 0's read is before its own q_empty
// arrival for that slot (4 * NWG arrivals, unchanged), which the producer waits for before it writes the slot's next
// entry.  H100 call o1 (issue11p), same run: 1.010x on the _fk / d128 rows (geomean), bf16 racecheck clean
#ifndef HOPPER_PDEC_D128
#define HOPPER_PDEC_D128 1
#endif
// the d128 kernel and its _fk sibling (as HOPPER_PDEC_D128's set; helper r, issue11r): 1: softmax's row max over a key
// block in four partial maxima (chains of BN / 32 fmax instead of one of BN / 8; the same values, as the _c2 kernels'
// c2_max; H100 call r2, same run: 1.007-1.032x non-causal 512-4096, 1.000-1.005x causal, geomean 1.013); 0: one chain
// (before call r2).  (Two partial row sums as well lost in r2, 1.007: notes/logs/h100-hopper-2026-11-27-r-sums.patch)
#ifndef HOPPER_SMX_TREE_D128
#define HOPPER_SMX_TREE_D128 1
#endif
// 1: also build hopper_fwd_<dtype>_d64_c2 (when the d64 kernels load with TMA and take the dynamic schedule): d64 in
// cuDNN's shape (issue11j): 128-row tiles of two consumer warpgroups at setmaxnreg 40 / 232, one key block at a time
// (QK^T and PV each waited at once), the ping-pong turn around the exponentials only (fwd_body: C2); the d64 kernel's
// producer, dynamic schedule and TMA epilogue.  The planner runs them where they measured faster (hopper.C2_SIBLING_D64)
#ifndef HOPPER_C2_D64
#define HOPPER_C2_D64 1
#endif
// the _c2 kernels' K / V ring (issue11j call 2: 3 stages with HOPPER_C2_B2B_D64; 4 measured alike or slower in call 1)
#ifndef HOPPER_C2_STAGES_D64
#define HOPPER_C2_STAGES_D64 3
#endif
// the _c2 kernels: 1: the QK^T of the next key block issued right behind the PV (the tensor cores get both GEMMs of a
// warpgroup back to back; only the PV waited for before V's release); 0: each GEMM issued and waited for alone (cuDNN's)
#ifndef HOPPER_C2_B2B_D64
#define HOPPER_C2_B2B_D64 1
#endif
// the _c2 kernels: 1: the tile boundary fused (fwd_body; shipped since issue11k, call d4); 0: not
#ifndef HOPPER_C2_FUSE_D64
#define HOPPER_C2_FUSE_D64 1
#endif
// the _c2 kernels' ping-pong turn: 0: the exponentials, row sums and P only (cuDNN's); 1: also O's rescale and the PV issue
// (with HOPPER_C2_B2B_D64 the next QK^T's too)
#ifndef HOPPER_C2_TURN_D64
#define HOPPER_C2_TURN_D64 0
#endif
// the _c2 kernels (issue11l): 1: wgmma descriptors as the tile's plus a constant (desc_add, as HOPPER_DESC_ADD_D128):
// one 32-bit add per k-step instead of a whole descriptor (H100, call e1: 1.007-1.020x at 512-1024); 0: each descriptor
// computed whole
#ifndef HOPPER_C2_DESC_D64
#define HOPPER_C2_DESC_D64 1
#endif
// the _c2 kernels (issue11m): 1: the exponentials of column groups i, i + 1 (i even, >= 2) take their offset through a
// zero made from group i - 2's packed P (a kernel argument's sign bit, unknown to the compiler), so ptxas issues P's
// conversion, the row sums and O's rescale among the 64 MUFU.EX2 instead of after them (21 extra instructions a block;
// H100 call m2, same run: 1.000-1.021x the shipped _c2 at 512-1024, geomean 1.012); 0: as before issue11m
#ifndef HOPPER_C2_ILV_D64
#define HOPPER_C2_ILV_D64 1
#endif
// the _c2 kernels' epilogue (issue11q, fused path): 1: after the last PV's wait only O * (1 / l) packed to 16 registers;
// its stmatrix, proxy fence and TMA store run in the next key block's PV wait (this warpgroup's next c2_step or last
// block; after the loop for the CTA's last tile); 0: all of it at once, before the next tile's first score wait (before
// call q1).  H100 calls q1 / q2 (helper-37), same run: 1.028x / 1.029x the previous _c2 over six d64 rows at 512-1024
// (1.006-1.040x a row); out and LSE bit for bit the previous build's
#ifndef HOPPER_C2_DEFER_D64
#define HOPPER_C2_DEFER_D64 1
#endif
// the _c2 kernels' mbarrier waits (issue11ah; ncu call ah1: each SYNCS.PHASECHK.TRANS64.TRYWAIT costs its round trip even
// when the phase is long complete, and the tile boundary waited four times in a row: q_full in next_tile, q_full again,
// k_full, v_full).  Bit 1: the steady c2_step waits K(n - 1) together with V(n) (one retry loop, both try_waits back to back:
// mbar_wait2), so no wait stands between its PV and its QK^T; bit 2: the fused boundary waits q_full (next tile) and
// v_full (last block) together before the tile slot is read, next_tile skips its own first q_full wait, and only k_full
// follows (if there is a next tile); bit 4 (instead of 1): c2_step tests K(n - 1) (mbarrier.test_wait, never suspends) at
// its start, right after the K(n) release, and after the PV waits for it only if that test failed; bit 8 (instead of 1 / 4):
// the same test right after V(n)'s wait.  0: as before issue11ah.  6 (bits 2 + 4) since call v5 (2026-11-27 session 6,
// H100; call ah2 1.0096x over seven _c2 rows, 1.009-1.014x on the non-causal ones; out / LSE bit for bit)
#ifndef HOPPER_C2_KVWAIT_D64
#define HOPPER_C2_KVWAIT_D64 6
#endif
// k > 0: every kernel but the _c2 siblings keeps a warp's row maxima, the offsets of its exponentials, while no row's
// new max exceeds its kept one by more than k in the exp2 domain (a warp vote a key block; FA4's conditional rescale):
// O and l are then not rescaled (alpha 1, the warp's vote skips the multiply; the d128 kernels vote too), and P stays
// <= 2^k.  A kept max is the one the row's exponentials and l have been relative to since it was set, so out and the
// LSE (kept max + log2 l) are the same numbers up to rounding.  H100 calls am2 / am3 (session 8), same run: 1.012-1.126x
// on the d64 / d96 / d128 / d256 kernels (the _c2 kernels lost 2.5-6% with it, three ways: their rows keep the maxima
// of every block).  0: the maxima follow every block (before)
#ifndef HOPPER_LAZY_RESCALE
#define HOPPER_LAZY_RESCALE 8
#endif
static_assert(HOPPER_LAZY_RESCALE >= 0 && HOPPER_LAZY_RESCALE <= 15, "HOPPER_LAZY_RESCALE: P <= 2^k must fit fp16 (0 .. 15)");
// 1: a tile's 1 / l (the epilogue's O scale) by one MUFU.RCP (rcp.approx.ftz, ~1 ulp), not the IEEE division nvcc emits
// for 1.f / l (a range check, a Newton step and a branch to a slow-path subroutine, on the tile end's critical path)
#ifndef HOPPER_FAST_RCP
#define HOPPER_FAST_RCP 1
#endif
// 1: the _c2 kernels' TMA producer (not _c2q3's, which loads K ahead) waits for its CTA's first K block to land before
// it loads anything past that block's V, so the first key block's data go out ahead of the deeper prefetch: after a
// kernel that leaves L2 full of dirty lines, the whole grid's prefetch competes with the write-backs.  H100 call sw1
// (session 8), same run, / without: 1.012-1.030x after a 192-MiB zero_ (which cost the shipped _c2 3% and cuDNN 0.7%),
// 1.005-1.006x with nothing between calls.  (The d64 kernel's producer spilled 8 bytes with it.)  0: no wait (before)
#ifndef HOPPER_START_WAIT
#define HOPPER_START_WAIT 1
#endif
// the _c2 kernels (issue11z): 1: their Q / K / V / O tensor maps come from the host as a second __grid_constant__ kernel
// parameter (hopper_args.h's hopper_fwd_maps_param; manifest "param_maps"), their TMA loads / O stores take the
// parameter's generic address: no tmap_make / publish / acquire in the prologue (the tile counters below a.tmaps stay);
// 0: the maps made by each CTA's producer as in every other TMA kernel.  1 since call z1 (2026-11-27 session 5, H100,
// same run: 1.006-1.016x the in-kernel maps on six _c2 rows at 512-1024, geomean 1.011; out / LSE bit for bit)
#ifndef HOPPER_PARAM_MAPS_C2
#define HOPPER_PARAM_MAPS_C2 1
#endif
// the _c2 kernels (issue11ac): 1: also the _c2q3 siblings (hopper_fwd_<dtype>_d64_c2q3), the _c2 kernel with three Q
// buffers instead of two (+16 KiB shared memory: 165,632 bytes a CTA), so the producer loads a tile's Q (and, no longer
// held at q_empty, its first K / V blocks) two tiles ahead of the consumers; the planner runs them for the causal
// problems it gives _c2 (short tiles: 32x512 causal has 1-4 key blocks a tile), where the consumers waited at the tile
// boundary for the next tile's Q and first K (ncu call a1: 392 + 223 long-scoreboard samples there, cuDNN's 183 + 204);
// the tile info ring (PDEC) and the tile slots move to bars + 144 / + 216 (the ring is rewritten 2 * QS = 6 tiles on).
// H100 call a2 (same run, 5 paired rounds, three Q buffers in _c2 itself): causal 1.030-1.041x at 256 / 512, 1.001x at
// 1024; non-causal 0.996-0.999x (hence a causal sibling, not _c2 itself); out / LSE bit for bit.  0: no _c2q3 kernels
#ifndef HOPPER_C2_CAUSAL_Q3_D64
#define HOPPER_C2_CAUSAL_Q3_D64 1
#endif
// the _c2q3 siblings (issue11ad): 1: the producer loads K(n - 1) before V(n) (the _fk siblings' order, KAHEAD), so a K
// stage (released at its QK^T) is not held behind the V stage before it (released at its PV), and the next tile's Q and
// first K go out one V block earlier.  H100 call ad1 (same run, 5 paired rounds): causal 1.015x at 32x512 h32, 1.008x
// at 32x512 h16, 1.023x at 32x256 h32, 0.999x at 16x1024 h32 (geomean 1.0111); out / LSE bit for bit.  0: as _c2
// (K(n), V(n)).  1 since call ad1 (2026-11-27 session 5)
#ifndef HOPPER_C2Q3_KAHEAD_D64
#define HOPPER_C2Q3_KAHEAD_D64 1
#endif
// the d64 kernels with three consumer warpgroups (hopper_fwd_<dtype>_d64 and _d64_s4; not the _static / _softcap / _varlen
// siblings) (issue11o): 1: wgmma descriptors as the tile's plus a constant (desc_add, as HOPPER_DESC_ADD_D128 /
// HOPPER_C2_DESC_D64; the steady key block 518 -> 468 SASS instructions, bf16; H100 call o1, same run: 1.039-1.051x at
// 2048-8192); 0: the 12 descriptors of a key block (LOP3 / SHF / IMAD / R2UR) built whole ahead of each GEMM turn
#ifndef HOPPER_DESC_ADD_D64
#define HOPPER_DESC_ADD_D64 1
#endif
// issue11t (helper-40): ptxas (nvcc 13.0) issues the d128 steady loop's PV wait (wgmma_wait<0>, WARPGROUP.DEPBAR.LE
// gsb0, 0x0) right behind the QK^T wait, ahead of the row max, so a warpgroup's softmax never runs under its own PV GEMM.
// 1: a never-taken branch (on a zero ptxas cannot see, ANDed with the new row sums) between the softmax and that wait,
// so the wait stays behind the 64 exponentials (FA3's intra-warpgroup overlap); 2: the branch on the new row maxima
// instead (only the max under the PV; V's stage released earlier).  The arithmetic is unchanged.  For the d128 kernel
// and _fk (HOPPER_SMX_TREE_D128's set).  0: as before.
// HOPPER_PV_LATE_D64: the same for the three-warpgroup d64 kernels (_d64, _d64_s4; HOPPER_DESC_ADD_D64's set); only 2
// fits their 160 registers (1, and a branch after 2 / 4 / 8 of the 16 column groups, spilled 8 bytes: make_manifest
// refuses the build).  H100 call st (2026-11-27, session 4), one paired run of 5 rounds against the build with 0, bf16:
// d128 1 0.958-0.979x, 2 0.976-0.988x on the d128 / _fk rows at 1024-4096 (so the d128 default stays 0); d64 2
// 1.005-1.025x on seven d64 rows at 2048-40000 (geomean 1.016; out / LSE bit for bit), so the d64 default is 2
#ifndef HOPPER_PV_LATE_D128
#define HOPPER_PV_LATE_D128 0
#endif
#ifndef HOPPER_PV_LATE_D64
#define HOPPER_PV_LATE_D64 2
#endif
// 1 (issue11af): the _fk siblings take the host's Q / K / V / O tensor maps (HOPPER_PARAM_MAPS_C2's second parameter,
// hopper_fwd_maps_param; manifest "param_maps", the O map's boxes 64 rows: EPI_TMA's warpgroup store), so their producer
// makes, publishes and acquires no map before its first load (call af1's ncu: the d128 _fk consumers waited ~2x cuDNN's
// time for the first Q / K at 1x128 132/132).  0: the maps made by each CTA's producer (tmap_make / publish / acquire).
// 1 since call af2 (2026-11-27 session 6, H100, same run: 1.004-1.011x on six d128 rows of 512-4096 keys, 1.043-1.093x on
// one-key-block problems; out / LSE bit for bit)
#ifndef HOPPER_PARAM_MAPS_FK
#define HOPPER_PARAM_MAPS_FK 1
#endif
// 1: also build the _varlen siblings, hopper_fwd_<dtype>_d<D>_varlen and _d<D>_softcap_varlen (D = 64, 96, 128, 256):
// each head dim's main / _softcap kernel over packed sequences (hopper_fwd_args' cu_seqlens_q / cu_seqlens_k; manifest
// "varlen"); the d128 ones store O from the staging buffer with row stores (a TMA store would write past a sequence's
// end into the next one's rows).  The planner runs them on varlen problems only, so the other kernels keep their code.
#ifndef HOPPER_VARLEN_SIBLINGS
#define HOPPER_VARLEN_SIBLINGS 1
#endif
static_assert(128 * (168 - HOPPER_REGS_PRODUCER_2WG) >= 256 * (HOPPER_REGS_CONSUMER_2WG - 168),
              "setmaxnreg: the consumers would wait for registers the producer never gives back");

namespace {

constexpr int WG_ROWS = 64;
constexpr float NEG_INF = -__builtin_huge_valf();
constexpr float LN2 = 0.6931471805599453f;

// ------------------------------------------------------------------ PTX helpers

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
    asm volatile(
        "{\n.reg .pred P1;\nLAB_WAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
        "@P1 bra DONE;\nbra LAB_WAIT;\nDONE:\n}\n" ::"r"(bar),
        "r"(parity)
        : "memory");
}

// 1 when the phase of this parity has completed (mbarrier.test_wait: never suspends; HOPPER_C2_KVWAIT_D64 bits 4 / 8)
[[maybe_unused]] __device__ __forceinline__ uint32_t mbar_done(uint32_t bar, uint32_t parity) {
    uint32_t r;
    asm volatile(
        "{\n.reg .pred P1;\nmbarrier.test_wait.parity.shared::cta.b64 P1, [%1], %2;\nselp.u32 %0, 1, 0, P1;\n}\n"
        : "=r"(r)
        : "r"(bar), "r"(parity)
        : "memory");
    return r;
}

// two mbarrier phases in one retry loop (HOPPER_C2_KVWAIT_D64): both try_waits go out before either is branched on
[[maybe_unused]] __device__ __forceinline__ void mbar_wait2(uint32_t bar0, uint32_t parity0, uint32_t bar1, uint32_t parity1) {
    asm volatile(
        "{\n.reg .pred P1, P2;\nLAB_WAIT:\n"
        "mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 P2, [%2], %3;\n"
        "and.pred P1, P1, P2;\n"
        "@P1 bra DONE;\nbra LAB_WAIT;\nDONE:\n}\n" ::"r"(bar0),
        "r"(parity0), "r"(bar1), "r"(parity1)
        : "memory");
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

// Arrive on ``bar`` once every cp.async this thread issued so far has landed.
[[maybe_unused]] __device__ __forceinline__ void cp_async_arrive(uint32_t bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" ::"r"(bar) : "memory");
}

// 16 bytes global -> shared; src_bytes 0 writes zeros (rows past the sequence).
[[maybe_unused]] __device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, uint32_t src_bytes) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(dst), "l"(src), "r"(src_bytes) : "memory");
}

// Consumers run this after an mbarrier wait and before wgmma reads the tile: cp.async wrote it
// through the generic proxy, wgmma reads through the async proxy.
[[maybe_unused]] __device__ __forceinline__ void fence_proxy_async() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

template <int N>
__device__ __forceinline__ void reg_fence(float (&r)[N]) {
#pragma unroll
    for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}
// HOPPER_LAZY_RESCALE: whether every row of the warp keeps its max m for the new max b, whose scores exceed it by at
// most tau in the exp2 domain (a factor 2^tau; sl2: the scores' scale there); false where a kept max is -inf (b - m is
// inf or NaN)
#if HOPPER_LAZY_RESCALE   // (unreferenced otherwise: -Werror)
__device__ __forceinline__ bool keep_max(float b0, float b1, float m0, float m1, float sl2, float tau) {
    return __all_sync(0xffffffffu, (b0 - m0) * sl2 <= tau && (b1 - m1) * sl2 <= tau);
}
#endif

__device__ __forceinline__ void named_sync(int id, int threads) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ float ex2(float x) {
    float y;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

// the sum of x over the 4 lanes of a quad (the 4 threads that hold one accumulator row's columns)
__device__ __forceinline__ float quad_sum(float x) {
    x += __shfl_xor_sync(0xffffffffu, x, 1);
    return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

// a row's natural-log LSE from its max m (scores, scaled by sl2 into the exp2 domain) and sum l; -inf where l <= 0
__device__ __forceinline__ float row_lse(float m, float l, float sl2) {
    return l > 0.f ? (m * sl2 + __log2f(l)) * LN2 : NEG_INF;
}

// 1 / l of a row sum l (0 where l is not positive: a row that saw no key); HOPPER_FAST_RCP: rcp.approx
__device__ __forceinline__ float inv_sum(float l) {
#if HOPPER_FAST_RCP
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(l));
    return l > 0.f ? r : 0.f;
#else
    return l > 0.f ? 1.f / l : 0.f;
#endif
}

// tanh(y) as 1 - 2 / (1 + 2^x), x = 2 * log2(e) * y (the _softcap kernels; tanh.approx's 2^-11 relative
// error would move fp16 results past their tolerance); +-inf scores give +-1
[[maybe_unused]] __device__ __forceinline__ float tanh_of_log2(float x) {
    float r;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(1.f + ex2(x)));
    return fmaf(-2.f, r, 1.f);
}

// ---- TMA (cp.async.bulk.tensor).  The tensor maps are made here, in the kernel, from zeros
// (tensormap.replace of every field), so plans stay pure values and no host driver call is
// needed per launch: one thread writes them in shared memory, its warp copies them to the
// CTA's slot of global scratch (tensormap.cp_fenceproxy, release), and the thread that issues
// the copies acquires them (fence.proxy.tensormap).
template <int ORD>
[[maybe_unused]] __device__ __forceinline__ void tmap_dim(uint32_t m, uint32_t box, uint32_t dim, uint64_t stride_bytes) {
    asm volatile("tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%0], %1, %2;" ::"r"(m), "n"(ORD), "r"(box) : "memory");
    asm volatile("tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%0], %1, %2;" ::"r"(m), "n"(ORD), "r"(dim) : "memory");
    asm volatile("tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%0], %1, 1;" ::"r"(m), "n"(ORD) : "memory");
    if constexpr (ORD > 0)   // global_stride ord i is the byte stride of dimension i + 1
        asm volatile("tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%0], %1, %2;" ::"r"(m), "n"(ORD - 1),
                     "l"(stride_bytes) : "memory");
}

// A 4-d map of 16-bit elements (dims innermost first: D, seq, head, batch; strides in elements),
// boxes of 64 x ``rows`` x 1 x 1, 128-byte swizzle, zero fill out of bounds.  Size-1 dimensions
// get a nominal stride (theirs is never used).
[[maybe_unused]] __device__ __forceinline__ void tmap_make(uint32_t m, uint64_t addr, int d, int seq, int heads, int batch,
                                          int64_t seq_stride, int64_t head_stride, int64_t batch_stride, int rows) {
    asm volatile("tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%0], %1;" ::"r"(m), "l"(addr) : "memory");
    asm volatile("tensormap.replace.tile.rank.shared::cta.b1024.b32 [%0], 3;" ::"r"(m) : "memory");   // rank - 1
    tmap_dim<0>(m, 64, d, 0);
    constexpr int SH = HOPPER_TMA_STRIDE_SHIFT;   // experiments only (0: strides in bytes)
    tmap_dim<1>(m, rows, seq, (seq > 1 ? 2 * seq_stride : 16) >> SH);
    tmap_dim<2>(m, 1, heads, (heads > 1 ? 2 * head_stride : 16) >> SH);
    tmap_dim<3>(m, 1, batch, (batch > 1 ? 2 * batch_stride : 16) >> SH);
    asm volatile("tensormap.replace.tile.elemtype.shared::cta.b1024.b32 [%0], 1;" ::"r"(m) : "memory");          // u16
    asm volatile("tensormap.replace.tile.interleave_layout.shared::cta.b1024.b32 [%0], 0;" ::"r"(m) : "memory");  // none
    asm volatile("tensormap.replace.tile.swizzle_mode.shared::cta.b1024.b32 [%0], 3;" ::"r"(m) : "memory");       // 128B
    asm volatile("tensormap.replace.tile.fill_mode.shared::cta.b1024.b32 [%0], 0;" ::"r"(m) : "memory");          // zeros
}

[[maybe_unused]] __device__ __forceinline__ void tmap_publish(uint64_t gaddr, uint32_t m) {   // whole warp
    asm volatile("tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned [%0], [%1], 128;"
                 ::"l"(gaddr), "r"(m) : "memory");
}

[[maybe_unused]] __device__ __forceinline__ void tmap_acquire(uint64_t gaddr) {
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(gaddr) : "memory");
}

[[maybe_unused]] __device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

// One box (64 columns x rows) at (col, row, head, batch) into the swizzled tile at dst; completes
// on bar.  Rows outside [0, seq) arrive as zeros and still count their bytes.
[[maybe_unused]] __device__ __forceinline__ void tma_load(uint32_t dst, uint64_t map, int col, int row, int head, int batch, uint32_t bar) {
    asm volatile(
        "cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4, %5}], [%6];"
        ::"r"(dst), "l"(map), "r"(col), "r"(row), "r"(head), "r"(batch), "r"(bar) : "memory");
}

// Rows [row, row + ROWS) of one (head, batch) into a tile [ceil(D / 64) atoms][ROWS][128 bytes]
// (D = 96: the second atom's columns 96..127 are past the map's global dim and arrive as zeros).
template <int D, int ROWS>
[[maybe_unused]] __device__ __forceinline__ void tma_tile(uint32_t tile, uint64_t map, int row, int head, int batch, uint32_t bar) {
#pragma unroll
    for (int c = 0; c < (D + 63) / 64; ++c) tma_load(tile + c * (ROWS * 128), map, 64 * c, row, head, batch, bar);
}

// One 64-column x rows box of the swizzled shared tile at src out to (col, row, head, batch) of the map's tensor
// (rows outside [0, seq) are not written), in the thread's bulk group.
[[maybe_unused]] __device__ __forceinline__ void tma_store(uint64_t map, uint32_t src, int col, int row, int head, int batch) {
    asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];"
                 ::"l"(map), "r"(src), "r"(col), "r"(row), "r"(head), "r"(batch) : "memory");
}

// wgmma shared-memory descriptors, 128-byte swizzle (tiles 1024-byte aligned):
// K-major (Q, K): rows of 128 bytes, 8-row groups 1024 bytes apart (SBO); LBO unused.
__device__ __forceinline__ uint64_t desc_k_major(uint32_t addr) {
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)1 << 16) | ((uint64_t)(1024 >> 4) << 32) |
           ((uint64_t)1 << 62);
}
// N-major (V read transposed): 64-element atoms along N are ``atom_bytes`` apart (LBO),
// 8-key groups along K 1024 bytes apart (SBO).
__device__ __forceinline__ uint64_t desc_n_major(uint32_t addr, uint32_t atom_bytes) {
    return (uint64_t)((addr & 0x3FFFF) >> 4) | ((uint64_t)(atom_bytes >> 4) << 16) |
           ((uint64_t)(1024 >> 4) << 32) | ((uint64_t)1 << 62);
}

// ``desc`` with its start address ``bytes`` further on (bytes a multiple of 16, the address staying inside shared
// memory: the 14-bit field cannot carry into the next)
__device__ __forceinline__ uint64_t desc_add(uint64_t desc, uint32_t bytes) {
    return (desc & 0xFFFFFFFF00000000ull) | (uint32_t)((uint32_t)desc + (bytes >> 4));
}

// ------------------------------------------------------------------ element types

// BF16: bf16 inputs, else fp16 (the wgmma wrappers and the P / O conversions follow it).
template <bool BF16>
struct Elem {
    static constexpr bool bf16 = BF16;
    __device__ static __forceinline__ uint32_t pack(float a, float b) {
        uint32_t r;
        if constexpr (BF16) {
            __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
            r = *reinterpret_cast<uint32_t*>(&h);
        } else {
            __half2 h = __floats2half2_rn(a, b);
            r = *reinterpret_cast<uint32_t*>(&h);
        }
        return r;
    }
};
using Bf16 = Elem<true>;
using Fp16 = Elem<false>;

__device__ __forceinline__ int ceil_div(int a, int b) { return (a + b - 1) / b; }

// ------------------------------------------------------------------ producer

// Copy ``ROWS`` rows of D elements (rows row0.., valid below ``limit``) into a swizzled tile:
// [D / 64 atoms][ROWS][128 bytes], 16-byte chunk c of row r at chunk (c ^ (r & 7)).
template <int D, int ROWS>
    [[maybe_unused]] __device__ __forceinline__ void load_tile(uint32_t tile, const uint16_t* base, int64_t row_stride, int row0,
                                          int limit, int ptid) {
    constexpr int CPR = D / 8;            // 16-byte chunks per row
    constexpr int RPP = 128 / CPR;        // rows per pass of 128 threads
    static_assert(RPP % 8 == 0, "rows per pass must keep the swizzle phase");
    const int c = ptid % CPR;
    const int r0 = ptid / CPR;
    const uint32_t dst0 = tile + (c / 8) * (ROWS * 128) + r0 * 128 + (((c % 8) ^ (r0 & 7)) << 4);
    const uint16_t* src = base + (int64_t)(row0 + r0) * row_stride + c * 8;
    const int64_t step = (int64_t)RPP * row_stride;
    int g = row0 + r0;
#pragma unroll 4
    for (int i = 0; i < ROWS / RPP; ++i) {
        const bool ok = g < limit;
        cp_async16(dst0 + i * RPP * 128, ok ? src : base, ok ? 16u : 0u);
        src += step;
        g += RPP;
    }
}

// ------------------------------------------------------------------ the kernel body

// DYN_SIBLING: a _dyn sibling (the dynamic causal schedule where the family's kernel has none); STATIC_SIBLING: a
// _static sibling (the static schedule, and at d128 the 24 / 240 split, where the family's kernel is dynamic)
// SOFTCAP: a _softcap sibling (scores through tanh_of_log2 before the mask and the softmax)
// VARLEN: a _varlen sibling (packed sequences, hopper_fwd_args' cu_seqlens: set_seq)
// FK: a d128 _fk sibling (HOPPER_FK_D128: the fused last turn and K loaded ahead of V)
// C2: a d64 _c2 sibling (HOPPER_C2_D64: 128-row tiles, cuDNN's loop shape; the consumers' c2 loop)
// PMAPS: the tensor maps are the host's, *pm (a __grid_constant__ parameter: HOPPER_PARAM_MAPS_C2 / _FK); else made here
    template <class E, int D, int BN, int STAGES, int NWG, int QS, bool TMA, bool DYN_SIBLING = false,
              bool STATIC_SIBLING = false, bool SOFTCAP = false, bool VARLEN = false, bool FK = false,
              bool C2 = false, bool PMAPS = false>
__device__ __forceinline__ void fwd_body(const hopper_fwd_args& a, [[maybe_unused]] const hopper_fwd_maps* pm = nullptr) {
    static_assert(QS == 1 || QS == 2 || (C2 && QS == 3), "one or two Q buffers (the _c2q3 siblings: three)");
    static_assert(NWG == 2 || NWG == 3, "two or three consumer warpgroups");
    constexpr int BM = 64 * NWG;
    static_assert(D == 64 || D == 96 || D == 128 || D == 256, "head dim 64, 96, 128 or 256");
    static_assert(TMA || D == 64 || D == 128, "the cp.async producer copies 64 / 128 columns");
    static_assert(TMA || !VARLEN, "the _varlen kernels load with TMA");
    static_assert(BN == 64 || BN == 80 || BN == 128 || BN == 176, "key block 64, 80, 128 or 176");
    // DS: columns a shared tile holds (whole 64-column atoms); DC: columns the GEMMs compute (the
    // d96 fallback computes 128, over zeros past 96); D: the problem's head dim (maps, epilogue)
    constexpr int DS = 64 * ((D + 63) / 64);
    constexpr int DC = D == 96 ? HOPPER_D96_COMPUTE : D;
    static_assert(DC % 16 == 0 && D <= DC && DC <= DS, "compute width");
    constexpr int Q_BYTES = BM * DS * 2;
    // the dynamic causal schedule: TMA kernels with 128-key blocks (the _bn176 ones are for non-causal
    // problems); its producer needs 32 registers, so those kernels split 32 / 232 with two consumer
    // warpgroups (the others HOPPER_REGS_*_2WG)
    // (the d128 kernels, and the _dyn siblings of the d96 ones: HOPPER_DYN_D96)
    constexpr bool DYN = TMA && HOPPER_DYN_CAUSAL && BN != 176 && !STATIC_SIBLING &&
                         (D == 128 || DYN_SIBLING || (D == 64 && HOPPER_DYN_D64));
    // (HOPPER_WINDOW: 40 / 232, the producer's K / V loop keeps the window's first block live; 128 * 40 + 256 * 232
    // registers still fit)
    constexpr int REGS_P2 = DYN ? (HOPPER_WINDOW ? 40 : 32) : HOPPER_REGS_PRODUCER_2WG, REGS_C2 = DYN ? 232 : HOPPER_REGS_CONSUMER_2WG;
    static_assert(128 * (168 - REGS_P2) >= 256 * (REGS_C2 - 168), "setmaxnreg: unbalanced split");
    constexpr int KV_BYTES = BN * DS * 2;
    // EPI: O staged through a buffer of its own (BM rows, swizzled like the Q tile) for coalesced stores;
    // EPI_WARP: each warp stages and stores its own 16 rows (no warpgroup barrier)
    constexpr int EPI_MODE =
        TMA && BN == 128 && (QS == 2 || (C2 && QS == 3)) ? (D == 128 ? HOPPER_EPI_SMEM_D128 : D == 64 ? HOPPER_EPI_SMEM_D64 : 0) : 0;
    static_assert(EPI_MODE >= 0 && EPI_MODE <= 2, "HOPPER_EPI_SMEM_D*: 0, 1 or 2");
    constexpr bool EPI = EPI_MODE != 0, EPI_WARP = EPI_MODE == 2;
    constexpr int O_BYTES = EPI ? BM * DS * 2 : 0;
    // EPI_TMA: the buffer goes out with TMA stores (a fourth tensor map, of out; HOPPER_EPI_TMA_D128)
    constexpr bool EPI_TMA = EPI && !EPI_WARP && D == 128 && HOPPER_EPI_TMA_D128 && !VARLEN;
    // EPI_TMA64 (HOPPER_EPI_TMA_D64): the d64 buffer goes out with TMA stores, one per warp (its own 16 rows); not on
    // the _softcap siblings (80 bytes of stack with it) nor the _static ones (16k causal measured 0.95x with it) nor the
    // _varlen ones (a box would write past a sequence's end into the next one's rows)
    constexpr bool EPI_TMA64 = EPI_WARP && D == 64 && !SOFTCAP && !STATIC_SIBLING && !VARLEN && HOPPER_EPI_TMA_D64;
    constexpr int EPI_MAP_ROWS = EPI_TMA64 ? 16 : WG_ROWS;   // box rows of the O map
    constexpr int NMAPS = EPI_TMA || EPI_TMA64 ? 4 : 3;
    // mbarriers, then (TMA) three (EPI_TMA: four) tensor maps at bars + 256
    constexpr uint32_t TAIL = TMA ? 256 + NMAPS * 128 : 8 * (2 * QS + 4 * STAGES);
    static_assert(8 * (2 * QS + 4 * STAGES) <= 208, "mbarriers overlap the tile slots / tensor maps");
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    const uint32_t raw = smem_u32(smem_raw);
    {
        uint32_t dyn;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(dyn));
        if (dyn < (uint32_t)(QS * Q_BYTES + 2 * STAGES * KV_BYTES + O_BYTES) + TAIL + ((1024u - (raw & 1023u)) & 1023u))
            __trap();   // launched with less dynamic shared memory than this layout needs
    }
    const uint32_t s_base = (raw + 1023u) & ~1023u;
    const uint32_t sQ = s_base;
    const uint32_t sK = sQ + QS * Q_BYTES;
    const uint32_t sV = sK + STAGES * KV_BYTES;
    const uint32_t sO = sV + STAGES * KV_BYTES;       // EPI only
    const uint32_t bars = sO + O_BYTES;
    const uint32_t maps = bars + 256;                 // TMA only: Q, K, V (EPI_TMA: and O) tensor maps (128 bytes each)
    // this CTA's slot of global scratch for its maps (TMA only): 384 (EPI_TMA: 512) bytes, 128-byte aligned
    auto map_slot = [&]() { return ((a.tmaps + 127) & ~(uint64_t)127) + (uint64_t)blockIdx.x * (128 * NMAPS); };
    static_assert(!PMAPS || (TMA && (C2 || (FK && HOPPER_PARAM_MAPS_FK)) && !VARLEN), "host-made maps: the _c2 kernels (and _fk: HOPPER_PARAM_MAPS_FK)");
    // the O map of the TMA stores (EPI_TMA / EPI_TMA64): PMAPS the parameter's (generic address), else the CTA's slot's
    [[maybe_unused]] auto o_map = [&]() -> uint64_t {
        if constexpr (PMAPS) {
            return reinterpret_cast<uint64_t>(&pm->o0);
        } else {
            return map_slot() + 384;
        }
    };
    auto q_full = [&](int s) { return bars + 8 * s; };
    auto q_empty = [&](int s) { return bars + 8 * (QS + s); };
    // the _c2q3 siblings (_c2 with three Q buffers, HOPPER_C2_CAUSAL_Q3_D64): the tile info ring at bars + 144 (18 mbarriers end there), the
    // tile slots at bars + 216; else at bars + 160 / + 208
    constexpr uint32_t TINFO0 = C2 && QS == 3 ? 144 : 160, TSLOT0 = C2 && QS == 3 ? 216 : 208;
    static_assert(TSLOT0 + 4 * QS <= 256, "the tile slots overlap the tensor maps");
    auto tile_slot = [&](int s) { return bars + TSLOT0 + 4 * s; };   // dynamic schedule: Q slot s's tile
    auto k_full = [&](int s) { return bars + 8 * (2 * QS + s); };
    auto k_empty = [&](int s) { return bars + 8 * (2 * QS + STAGES + s); };
    auto v_full = [&](int s) { return bars + 8 * (2 * QS + 2 * STAGES + s); };
    auto v_empty = [&](int s) { return bars + 8 * (2 * QS + 3 * STAGES + s); };

    const int warpgroup = threadIdx.x / 128;
    const int tid = threadIdx.x % 128;
    int sq = a.seqlen_q, sk = a.seqlen_k;   // VARLEN: the current tile's sequence's (set_seq); else constant
    // VARLEN: the tile's sequence b: its lengths into sq / sk, its first rows in the packed tensors into q_off / k_off
    // (two int32 pairs read per tile, by the producer thread and by each consumer thread; no host read)
    int q_off = 0, k_off = 0;
    [[maybe_unused]] auto set_seq = [&](int b) {
        if constexpr (VARLEN) {
            const int* cq = reinterpret_cast<const int*>(a.cu_seqlens_q);
            const int* ck = reinterpret_cast<const int*>(a.cu_seqlens_k);
            q_off = __ldg(cq + b);
            sq = __ldg(cq + b + 1) - q_off;
            k_off = __ldg(ck + b);
            sk = __ldg(ck + b + 1) - k_off;
        }
    };
    // the first LSE entry of (b, h): fp32 (B, Hq, Sq), VARLEN (Hq, total_q)
    auto lse_base = [&](int b, int h) {
        return reinterpret_cast<float*>(a.lse) + (VARLEN ? (int64_t)h * a.total_q + q_off : ((int64_t)b * a.heads_q + h) * sq);
    };
    // the window's sides (-1: unbounded); causal problems come with window_right 0 (hopper_args.h)
#if HOPPER_WINDOW
    // read from the kernel parameters at each use (constant bank operands), not held in registers for the
    // whole kernel: the d64 consumers (160 registers, HOPPER_WG_SKIP_D64) spilled 8 bytes with them held
#define win_left (a.window_left)
#define win_right (a.window_right)
#else
    const int win_left = -1, win_right = a.causal ? 0 : -1;
#endif
    const int per_m = a.heads_q * a.batch;
    const int num_tiles = a.m_blocks * per_m;

    // Tile t -> (m_block, h, b).  Causal: the row blocks that see the most keys first (t / per_m
    // counts down from the last block); otherwise m_block fastest, so the CTAs running at once
    // share one head's K / V in L2.
    // HOPPER_L2_SECTION_KB > 0: causal tiles go in sections of hs (batch, q head) pairs whose K and V
    // fit that many KiB (L2), heavy-first within each section, so the CTAs running together read
    // the same heads' K / V (without sections, heavy-first over all heads: when there are more
    // (batch, head) pairs than SMs, no two running tiles share K / V and L2 cannot keep them).
    // Dynamic causal schedule (HOPPER_DYN_CAUSAL, TMA kernels): CTA i runs tile i first, then the
    // producer thread takes G + atomicAdd(counter, 1) while that is below num_tiles, so a CTA that
    // finishes early takes the next heaviest tile; it passes each tile index to the consumers in the
    // Q slot's word (tile_slot), -1 at the end.  The counter and an exit count are the two int32 just
    // below ``tmaps`` (the runtime's workspace keeps zeroed counters there, which kernels leave at 0):
    // the last CTA to finish resets both, so the next launch on the stream starts from 0.
    // the d64 kernels deal non-causal tiles out the same way (in order: the static loop is then not compiled in,
    // which the consumers at 160 registers need to stay clear of spills)
    constexpr bool DYN_ALL = DYN && D == 64;
    const bool dyn = DYN && (DYN_ALL || a.causal);
    // HOPPER_TAIL_SPLIT_D64: work items [0, tail_big) are tiles t, then NWG pieces of each of the last tail_rem tiles
    constexpr bool TSPLIT = HOPPER_TAIL_SPLIT_D64 && HOPPER_WG_SKIP_D64 && DYN_ALL && !SOFTCAP && !VARLEN && !C2;
    const int tail_rem = TSPLIT && !a.causal && win_left < 0 && win_right < 0 && num_tiles > (int)gridDim.x &&
                                 num_tiles <= HOPPER_TAIL_ROUNDS_D64 * (int)gridDim.x &&
                                 NWG * (num_tiles % (int)gridDim.x) <= (int)gridDim.x
                             ? num_tiles % (int)gridDim.x : 0;
    const int tail_big = num_tiles - tail_rem, num_items = num_tiles + (NWG - 1) * tail_rem;
    // item t -> its tile; the warpgroup whose rows a piece holds (-1: a whole tile); a piece with no row below sq
    auto tail_tile = [&](int t) { return t < tail_big ? t : tail_big + (t - tail_big) / NWG; };
    auto tail_wg = [&](int t) { return t < tail_big ? -1 : (t - tail_big) % NWG; };
    auto tail_dead = [&](int t, int m_block) { return tail_wg(t) >= 0 && m_block * BM + tail_wg(t) * 64 >= sq; };
    // hs: (batch, head) pairs per section (per_m: one section, heavy-first over every head).
    // Sections only where tiles are dealt dynamically (this schedule, or one CTA per tile): the
    // snake of a static persistent grid balances only over one heavy-first run (measured: d64 16k
    // causal on the snake with 4-head sections 0.65x of no sections, 2026-11-26)
    int hs = per_m;
    if (HOPPER_L2_SECTION_KB > 0 && a.causal && (dyn || (int)gridDim.x >= num_tiles)) {
        const int64_t l2_kb = HOPPER_L2_SHORT_SK > 0 && sk <= HOPPER_L2_SHORT_SK ? HOPPER_L2_SHORT_KB : HOPPER_L2_SECTION_KB;
        if constexpr (HOPPER_L2_SECTION_MODE == 0) {
            const int64_t kv = (int64_t)sk * D * 4 / 1024 / a.group + 1;   // KiB of K + V (2 bytes each) per q head
            hs = (int)max((int64_t)1, min((int64_t)per_m, l2_kb / kv));
        } else {
            // units of one KV head's group of q heads (consecutive pairs: h / group is the KV head)
            const int64_t kv = max((int64_t)1, ((int64_t)sk * D * 4 + 1023) / 1024);   // KiB of K + V per KV head
            const int units = per_m / a.group;
            int per = (int)max((int64_t)1, min((int64_t)units, l2_kb / kv));
            if (HOPPER_L2_SECTION_MODE == 1) per = ceil_div(units, ceil_div(units, per));   // even sections
            hs = per * a.group;
        }
    }
    // the kernels the per-kernel experiments below apply to (make_manifest.py's d64_main / d128_main): the d64 kernels of
    // three consumer warpgroups on the dynamic schedule (DESC64, PV_LATE), the d128 kernel and its _fk sibling (128-key
    // blocks, TMA: PDEC128, SMX_TREE, PV_LATE); neither _c2, _softcap, _static nor _varlen
    constexpr bool D64_MAIN = DYN_ALL && !C2 && !SOFTCAP && !STATIC_SIBLING && !VARLEN;
    constexpr bool D128_MAIN = D == 128 && BN == 128 && TMA && !SOFTCAP && !STATIC_SIBLING && !VARLEN;
    // LAZY (HOPPER_LAZY_RESCALE): the kernels but _c2 keep a warp's row maxima while none grows by more than LAZY_TAU (exp2)
    constexpr bool LAZY = HOPPER_LAZY_RESCALE > 0 && !C2;
    [[maybe_unused]] constexpr float LAZY_TAU = (float)HOPPER_LAZY_RESCALE;
    // PDEC (HOPPER_PDEC_D64): the producer's decode of the tile in Q slot s (phase parity p) at tile_info(s + QS * p)
    constexpr bool PDEC = HOPPER_PDEC_D64 && DYN_ALL && !SOFTCAP && !STATIC_SIBLING && !VARLEN && HOPPER_DECODE_ONCE_D64;
    static_assert(!PDEC || 8 * (2 * QS + 4 * STAGES) <= TINFO0, "HOPPER_PDEC_D64: the tile info ring starts at bars + TINFO0");
    static_assert(!PDEC || TINFO0 + 12 * 2 * QS <= TSLOT0, "HOPPER_PDEC_D64: the tile info ring ends below the tile slots");
    [[maybe_unused]] auto tile_info = [&](int e) { return bars + TINFO0 + 12 * e; };
    // PDEC128 (HOPPER_PDEC_D128): the producer's decode of the tile in Q slot s at tile_entry(s) (m_block, head, batch, t)
    constexpr bool PDEC128 = HOPPER_PDEC_D128 && D128_MAIN && HOPPER_DECODE_ONCE_D128;
    static_assert(!PDEC128 || 8 * (2 * QS + 4 * STAGES) <= 160, "HOPPER_PDEC_D128: the entries start at bars + 160");
    static_assert(!PDEC128 || 160 + 16 * QS <= 208, "HOPPER_PDEC_D128: the entries end below the tile slots");
    [[maybe_unused]] auto tile_entry = [&](int s) { return bars + 160 + 16 * s; };
    auto decode = [&](int t, int& m_block, int& h, int& b) {
        if constexpr (TSPLIT) t = tail_tile(t);
        if constexpr (HOPPER_UDIV_D64 && D == 64 && !VARLEN) {   // the same decode as below, unsigned
            const unsigned ut = t, mb = a.m_blocks, hq = a.heads_q;
            unsigned r;
            if (a.causal) {
                const unsigned sec_tiles = (unsigned)hs * mb;
                const unsigned sec = ut / sec_tiles;
                const unsigned w = ut - sec * sec_tiles;
                const unsigned nh = min(hs, per_m - (int)sec * hs);
                const unsigned q = w / nh;
                m_block = (int)(mb - 1 - q);
                r = sec * hs + (w - q * nh);
            } else {
                r = ut / mb;
                m_block = (int)(ut - r * mb);
            }
            const unsigned bb = r / hq;
            h = (int)(r - bb * hq);
            b = (int)bb;
            return;
        }
        if (a.causal) {
            const int sec_tiles = hs * a.m_blocks;
            const int sec = t / sec_tiles;
            const int w = t - sec * sec_tiles;
            const int nh = min(hs, per_m - sec * hs);                 // the last section may be smaller
            m_block = a.m_blocks - 1 - w / nh;
            const int r = sec * hs + w % nh;
            h = r % a.heads_q;
            b = r / a.heads_q;
        } else {
            m_block = t % a.m_blocks;
            const int r = t / a.m_blocks;
            h = r % a.heads_q;
            b = r / a.heads_q;
        }
    };
    // The CTA's r-th tile.  Causal: a snake over the persistent grid (CTA i takes tile i of even
    // rounds and G - 1 - i of odd ones), so the heavy-first order spreads evenly over the CTAs;
    // with one CTA per tile (G = tiles) it is tile blockIdx.x.  Otherwise round robin.
    auto tile_of = [&](int r) {
        const int G = gridDim.x, i = blockIdx.x;
        return r * G + ((a.causal && (r & 1)) ? G - 1 - i : i);
    };
    // key blocks [.., n_max) of the row block from m0 (those above, no row sees; which blocks need the mask:
    // needs_mask in the consumers)
    auto key_blocks = [&](int m0) {
        if constexpr (VARLEN) {
            if (m0 >= sq) return 0;   // a tile past its sequence's end (m_blocks is the longest sequence's)
        }
        int n_max = ceil_div(sk, BN);
        if (win_right >= 0) {
            const int lim = min(m0 + BM, sq) + sk - sq + win_right;   // keys < lim are visible to some row
            n_max = min(n_max, lim <= 0 ? 0 : ceil_div(lim, BN));
        }
        return n_max;
    };
    // the window's left edge: key blocks [n_min, ..) of the row block from m0 (those below, no row sees); no left
    // edge: 0.  A row block sees no key when n_max <= n_min.
    auto key_blocks_lo = [&](int m0) {
        int n_min = 0;
        if (win_left >= 0) {
            const int lo_first = m0 + sk - sq - win_left;              // the first row's first key
            n_min = lo_first <= 0 ? 0 : lo_first / BN;
        }
        return n_min;
    };

    if (threadIdx.x == 0) {
        constexpr uint32_t FULL = TMA ? 1 : 128;   // TMA: one expect_tx arrival; else each producer thread's cp.async
        for (int s = 0; s < QS; ++s) {
            mbar_init(q_full(s), FULL);
            mbar_init(q_empty(s), PDEC ? 128 * NWG : 4 * NWG);   // lane 0 of each consumer warp (PDEC: every thread)
        }
        for (int s = 0; s < STAGES; ++s) {
            mbar_init(k_full(s), FULL);
            mbar_init(v_full(s), FULL);
            mbar_init(k_empty(s), 4 * NWG);
            mbar_init(v_empty(s), 4 * NWG);
        }
    }
    __syncthreads();

    if (warpgroup == 0) {
        // ---------------- producer: Q of each tile, then its K / V blocks, last block first
        // registers (of 65536): 128 * 40 + 256 * 232 (NWG 2), 128 * 32 + 384 * 160 (NWG 3); what the
        // producer gives back is all the consumers may take (168 / 128 each at launch)
        if constexpr (NWG == 2) asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(REGS_P2) : "memory");
        else asm volatile("setmaxnreg.dec.sync.aligned.u32 32;\n" ::: "memory");
        int stage = 0, qs = 0;
        uint32_t phase = 0, q_phase = 0;
        uint64_t map_q = 0, map_k = 0, map_v = 0;
        if constexpr (TMA && PMAPS) {
            // the host's maps (HOPPER_PARAM_MAPS_C2), read where they are: the kernel parameter's generic addresses
            // (cp.async.bulk.tensor takes a tensor map in param / const / global space); thread 0 is the whole producer
            if (tid != 0) return;
            map_q = reinterpret_cast<uint64_t>(&pm->q0);
            map_k = reinterpret_cast<uint64_t>(&pm->k0);
            map_v = reinterpret_cast<uint64_t>(&pm->v0);
        }
        if constexpr (TMA && !PMAPS) {
            // warp 0 makes the CTA's three maps (a 384-byte slot of a.tmaps, 128-byte aligned); its
            // thread 0 is then the whole producer, the other producer threads are done
            if (tid >= 32) return;
            const uint64_t slot = map_slot();
            for (int i = tid; i < 32 * NMAPS; i += 32) asm volatile("st.shared.u32 [%0], 0;" ::"r"(maps + 4 * i) : "memory");
            __syncwarp();
            if (tid == 0) {
                // VARLEN: maps over the packed (total, heads, D) tensors, batch 1 (rows past a sequence's end are the next
                // one's: the key masks use each sequence's sk, the O stores its sq)
                const int mb = VARLEN ? 1 : a.batch, mq = VARLEN ? a.total_q : sq, mk = VARLEN ? a.total_k : sk;
                tmap_make(maps, a.q, D, mq, a.heads_q, mb, a.q_seq_stride, a.q_head_stride, a.q_batch_stride, BM);
                const int hk = a.heads_q / a.group;
                tmap_make(maps + 128, a.k, D, mk, hk, mb, a.k_seq_stride, a.k_head_stride, a.k_batch_stride, BN);
                tmap_make(maps + 256, a.v, D, mk, hk, mb, a.v_seq_stride, a.v_head_stride, a.v_batch_stride, BN);
                if constexpr (EPI_TMA || EPI_TMA64)
                    tmap_make(maps + 384, a.out, D, sq, a.heads_q, a.batch, a.o_seq_stride, a.o_head_stride,
                              a.o_batch_stride, EPI_MAP_ROWS);
            }
            __syncwarp();
            for (int i = 0; i < NMAPS; ++i) tmap_publish(slot + 128 * i, maps + 128 * i);
            if (tid != 0) return;
            for (int i = 0; i < 3; ++i) tmap_acquire(slot + 128 * i);
            map_q = slot;
            map_k = slot + 128;
            map_v = slot + 256;
        }
        // ROWS rows from row0 of (head, b) of one of q / k / v into ``tile``, completing on ``bar``:
        // TMA (one thread: expect the bytes, then the boxes) or every producer thread's cp.async
        auto load = [&](auto rows, uint32_t tile, uint32_t bar, uint64_t map, uint64_t base, int64_t batch_stride,
                        int64_t head_stride, int64_t seq_stride, int row0, int limit, int head, int b) {
            constexpr int ROWS = decltype(rows)::value;
            if constexpr (TMA) {
                mbar_expect_tx(bar, ROWS * DS * 2);
                tma_tile<D, ROWS>(tile, map, row0, head, b, bar);
            } else {
                const uint16_t* p = reinterpret_cast<const uint16_t*>(base) + b * batch_stride + head * head_stride;
                load_tile<D, ROWS>(tile, p, seq_stride, row0, limit, tid);
                cp_async_arrive(bar);
            }
        };
        using QRows = std::integral_constant<int, BM>;
        using KVRows = std::integral_constant<int, BN>;
        // KAHEAD (the _fk siblings): the V block loaded after the next K block (-1: none pending), its stage / phase
        // (HOPPER_C2Q3_KAHEAD_D64: also the _c2q3 siblings, the _c2 kernel with QS 3)
        constexpr bool KAHEAD = FK || (C2 && QS == 3 && HOPPER_C2Q3_KAHEAD_D64);
        static_assert(!FK || (TMA && D == 128 && BN == 128 && !VARLEN && !STATIC_SIBLING && !SOFTCAP), "_fk: the d128 kernel");
        [[maybe_unused]] int pv_n = -1, pv_hk = 0, pv_b = 0, pv_stage = 0;
        [[maybe_unused]] uint32_t pv_phase = 0;
        [[maybe_unused]] auto flush_v = [&]() {
            if (pv_n >= 0) {
                mbar_wait(v_empty(pv_stage), pv_phase ^ 1);
                load(KVRows{}, sV + pv_stage * KV_BYTES, v_full(pv_stage), map_v, a.v, a.v_batch_stride, a.v_head_stride,
                     a.v_seq_stride, pv_n * BN, sk, pv_hk, pv_b);
                pv_n = -1;
            }
        };
        int* counter = reinterpret_cast<int*>(a.tmaps) - 1;           // dynamic schedule only
        for (int r = 0;; ++r) {
            int t = dyn ? (r == 0 ? (int)blockIdx.x : (int)gridDim.x + atomicAdd(counter, 1)) : tile_of(r);
            if constexpr (KAHEAD) {   // no tile left: the last V block now
                if (t >= num_tiles) flush_v();
            }
            if (dyn) {
                // every tile index (and -1 at the end) goes to the consumers through the Q slot
                if (t >= (TSPLIT ? num_items : num_tiles)) t = -1;
                mbar_wait(q_empty(qs), q_phase ^ 1);
                asm volatile("st.shared.u32 [%0], %1;" ::"r"(tile_slot(qs)), "r"(t) : "memory");
                if (t < 0) {
                    mbar_arrive(q_full(qs));
                    __threadfence();
                    if (atomicAdd(counter - 1, 1) == (int)gridDim.x - 1) {   // the last CTA: reset both
                        atomicExch(counter, 0);
                        atomicExch(counter - 1, 0);
                    }
                    break;
                }
            } else if (t >= num_tiles) {
                break;
            }
            int m_block, h, b;
            decode(t, m_block, h, b);
            set_seq(b);
            if constexpr (PDEC) {   // before this slot's q_full arrival (every path below makes one)
                const uint32_t e = tile_info(qs + QS * (q_phase & 1));
                asm volatile("st.shared.u32 [%0], %1;" ::"r"(e), "r"(m_block) : "memory");   // (12-byte entries: 4-byte
                asm volatile("st.shared.u32 [%0], %1;" ::"r"(e + 4), "r"(h) : "memory");     // accesses only)
                asm volatile("st.shared.u32 [%0], %1;" ::"r"(e + 8), "r"(b) : "memory");
            }
            const int n_max = key_blocks(m_block * BM), n_min = key_blocks_lo(m_block * BM);
            if (TSPLIT && tail_dead(t, m_block)) {   // a piece past seqlen_q: release the slot's consumers at once
                mbar_arrive(q_full(qs));
                if (++qs == QS) { qs = 0; q_phase ^= 1; }
                continue;
            }
            if constexpr (KAHEAD) {   // an empty tile: the pending V now (the next slot may wait for consumers past it)
                if (n_max <= n_min) flush_v();
            }
            if (n_max <= n_min) {
                if (dyn) {   // nothing to load: release the slot's consumers at once
                    mbar_arrive(q_full(qs));
                    if (++qs == QS) { qs = 0; q_phase ^= 1; }
                }
                continue;
            }
            const int hk = h / a.group;
            // Q slot qs (QS == 2: the next tile's Q loads while this tile's last blocks run)
            if (!dyn) mbar_wait(q_empty(qs), q_phase ^ 1);
            if constexpr (PDEC128) {   // after the slot's q_empty wait (either schedule), before the Q load's q_full arrival
                asm volatile("st.shared.v4.u32 [%0], {%1, %2, %3, %4};" ::"r"(tile_entry(qs)), "r"(m_block), "r"(h), "r"(b),
                             "r"(t) : "memory");
            }
            load(QRows{}, sQ + qs * Q_BYTES, q_full(qs), map_q, a.q, a.q_batch_stride, a.q_head_stride, a.q_seq_stride,
                 q_off + m_block * BM, sq, h, VARLEN ? 0 : b);
            if (++qs == QS) { qs = 0; q_phase ^= 1; }
            if constexpr (KAHEAD) {
                for (int n = n_max - 1; n >= n_min; --n) {
                    mbar_wait(k_empty(stage), phase ^ 1);
                    load(KVRows{}, sK + stage * KV_BYTES, k_full(stage), map_k, a.k, a.k_batch_stride, a.k_head_stride,
                         a.k_seq_stride, n * BN, sk, hk, b);
                    flush_v();   // the block before this one (or the last tile's last block)
                    pv_n = n; pv_hk = hk; pv_b = b; pv_stage = stage; pv_phase = phase;
                    if (++stage == STAGES) { stage = 0; phase ^= 1; }
                }
            } else   // (the loop below: K(n), then V(n))
            for (int n = n_max - 1; n >= n_min; --n) {
                mbar_wait(k_empty(stage), phase ^ 1);
                load(KVRows{}, sK + stage * KV_BYTES, k_full(stage), map_k, a.k, a.k_batch_stride, a.k_head_stride,
                     a.k_seq_stride, k_off + n * BN, sk, hk, VARLEN ? 0 : b);
                mbar_wait(v_empty(stage), phase ^ 1);
                load(KVRows{}, sV + stage * KV_BYTES, v_full(stage), map_v, a.v, a.v_batch_stride, a.v_head_stride,
                     a.v_seq_stride, k_off + n * BN, sk, hk, VARLEN ? 0 : b);
#if HOPPER_START_WAIT
                if constexpr (TMA && C2) {
                    if (r == 0 && n == n_max - 1) mbar_wait(k_full(stage), phase);   // (HOPPER_START_WAIT)
                }
#endif
                if (++stage == STAGES) { stage = 0; phase ^= 1; }
            }
        }
        return;
    }

    // ---------------- consumers
    if constexpr (NWG == 2) asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(REGS_C2) : "memory");
    else asm volatile("setmaxnreg.inc.sync.aligned.u32 160;\n" ::: "memory");
    const int wg = warpgroup - 1;
    const int warp = tid / 32, lane = tid % 32;
    const int row_local = warp * 16 + lane / 4;                 // and row_local + 8
    const float sl2 = a.scale_log2;

    // Ping-pong (HOPPER_PINGPONG): the two consumer warpgroups take turns issuing their GEMMs
    // (named barriers 1 and 2), so one's softmax runs while the other's GEMMs use the tensor cores.
    auto sched_sync = [&]() {
        if (HOPPER_PINGPONG) named_sync(1 + wg, 256);
    };
    auto sched_arrive = [&]() {
        if (HOPPER_PINGPONG) asm volatile("bar.arrive %0, 256;" ::"r"(1 + (wg + 1) % NWG) : "memory");
    };
    if (wg == NWG - 1) sched_arrive();                           // warpgroup 0 goes first

    float s[BN / 2];
    float o[DC / 2];
    uint32_t p[BN / 4];
    int kst = 0, qs = 0;
    uint32_t kph = 0, q_phase = 0;

    // The CTA's tiles in order (tile_of), skipping those no row of which sees a key (their out 0
    // and lse -inf are written on the way); -1 when the CTA has no more tiles.
    int r_next = 0;
    // DECODE_ONCE (HOPPER_DECODE_ONCE_D64): the current tile's m_block, set by next_tile (dead once the loop head
    // has read it; keeping head and batch for the epilogue too spilled 8 bytes, so the epilogue still decodes)
    constexpr bool DECODE_ONCE = D == 64 && !SOFTCAP && !STATIC_SIBLING && HOPPER_DECODE_ONCE_D64;
    int cur_m = 0;
    auto tile_m_block = [&](int t_) {
        int m_block = cur_m, h, b;
        if constexpr (!DECODE_ONCE) decode(t_, m_block, h, b);
        return m_block;
    };
    // DEC1 (HOPPER_DECODE_ONCE_D128): the current tile's (m_block, head, batch), decoded at the loop head
    constexpr bool DEC1 = D == 128 && HOPPER_DECODE_ONCE_D128;
    [[maybe_unused]] int tm = 0, th = 0, tb = 0;
    // DEC1C (HOPPER_DEC1_CAUSAL_D128): next_tile's early return also where a right edge (causal) leaves every row block keys
    constexpr bool DEC1C = DEC1 && HOPPER_DEC1_CAUSAL_D128 && BN == 128 && !SOFTCAP && !STATIC_SIBLING && !VARLEN;
    // PDEC: the producer's decode of the tile in entry e, read by every thread; the producer rewrites it 4 tiles later,
    // after every consumer thread's q_empty arrival for the tile 2 on (q_release).  (A lane-0 read passed on by shuffles
    // spilled 40 bytes at 160 registers; a __syncwarp before lane 0's arrival left compute-sanitizer racecheck reporting
    // hazards on the entries, where per-thread arrivals are clean)
    [[maybe_unused]] auto tile_info_read = [&](int e, int& m_block, int& h, int& b) {
        const uint32_t ad = tile_info(e);
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(m_block) : "r"(ad) : "memory");
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(h) : "r"(ad + 4) : "memory");
        asm volatile("ld.shared.u32 %0, [%1];" : "=r"(b) : "r"(ad + 8) : "memory");
    };
    // the warp is done with Q slot qs: lane 0 arrives on its q_empty (PDEC: every thread)
    auto q_release = [&]() {
        if (PDEC || lane == 0) mbar_arrive(q_empty(qs));
    };
    // PDEC128 (HOPPER_PDEC_D128): the current tile's (m_block, head, batch) from Q slot qs's entry, after that slot's
    // q_full wait: lane 0 reads it and the shuffles pass it on, so the warp's only read of the entry comes before lane
    // 0's q_empty arrival for the slot (q_release), after which the producer may write the slot's next entry
    [[maybe_unused]] auto tile_entry_read = [&](int& m_block, int& h, int& b) {
        int em = 0, eh = 0, eb = 0, et = 0;
        if (lane == 0)
            asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(em), "=r"(eh), "=r"(eb), "=r"(et)
                         : "r"(tile_entry(qs)) : "memory");
        m_block = __shfl_sync(0xffffffffu, em, 0);
        h = __shfl_sync(0xffffffffu, eh, 0);
        b = __shfl_sync(0xffffffffu, eb, 0);
    };
#if HOPPER_C2_KVWAIT_D64 & 2
    bool nt_waited = false;   // next_tile: the caller has waited the first slot's q_full (the _c2 fused boundary)
#endif
    auto next_tile = [&]() -> int {
        for (;;) {
            int t = 0;
            if (dyn) {   // the producer's pick, in the Q slot
#if HOPPER_C2_KVWAIT_D64 & 2
                if (!nt_waited) mbar_wait(q_full(qs), q_phase);
                nt_waited = false;
#else
                mbar_wait(q_full(qs), q_phase);
#endif
                // lane 0 reads it and passes it on: the slot's reads then all come before that lane's
                // q_empty arrival, after which the producer may rewrite it
                if (lane == 0) asm volatile("ld.shared.u32 %0, [%1];" : "=r"(t) : "r"(tile_slot(qs)) : "memory");
                t = __shfl_sync(0xffffffffu, t, 0);
                if (t < 0) return -1;
            } else {
                t = tile_of(r_next++);
                if (t >= num_tiles) return -1;
            }
            if constexpr (DEC1 && !VARLEN) {   // (varlen: the decode below sets the tile's sequence, set_seq)
                if ((win_right < 0 || (DEC1C && sk >= sq)) && win_left < 0 && sk > 0) return t;   // every row block sees keys
            }
            int m_block, h, b;
            if constexpr (PDEC) tile_info_read(qs + QS * (q_phase & 1), m_block, h, b);
            else decode(t, m_block, h, b);
            set_seq(b);
            const int m0 = m_block * BM;
            if (TSPLIT && tail_dead(t, m_block)) {   // a piece past seqlen_q (HOPPER_TAIL_SPLIT_D64): hand the slot back
                q_release();
                if (++qs == QS) { qs = 0; q_phase ^= 1; }
                continue;
            }
            if constexpr (DECODE_ONCE) {
                cur_m = m_block;
            }
            if (key_blocks(m0) > key_blocks_lo(m0)) return t;
            if (dyn) {   // hand the slot back
                q_release();
                if (++qs == QS) { qs = 0; q_phase ^= 1; }
            }
            // no key is visible to any row of this block: out 0, lse -inf
            uint16_t* out = reinterpret_cast<uint16_t*>(a.out) + b * a.o_batch_stride + h * a.o_head_stride +
                            (int64_t)q_off * a.o_seq_stride;
            constexpr int CPR = D / 8, RPP = 128 / CPR;
            if constexpr (128 % CPR == 0) {
                for (int r = tid / CPR; r < WG_ROWS; r += RPP) {
                    const int g = m0 + wg * WG_ROWS + r;
                    if (g < sq)
                        *reinterpret_cast<uint4*>(out + (int64_t)g * a.o_seq_stride + (tid % CPR) * 8) = make_uint4(0, 0, 0, 0);
                }
            } else {   // d96: 12 chunks a row
                for (int i = tid; i < WG_ROWS * CPR; i += 128) {
                    const int g = m0 + wg * WG_ROWS + i / CPR;
                    if (g < sq)
                        *reinterpret_cast<uint4*>(out + (int64_t)g * a.o_seq_stride + (i % CPR) * 8) = make_uint4(0, 0, 0, 0);
                }
            }
            const int e0 = m0 + wg * WG_ROWS + row_local, e1 = e0 + 8;
            if (a.lse && lane % 4 == 0) {
                float* lp = lse_base(b, h);
                if (e0 < sq) lp[e0] = NEG_INF;
                if (e1 < sq) lp[e1] = NEG_INF;
            }
        }
    };

    int t = next_tile();
    if (t < 0) return;
    int row0 = 0, row1 = 0;
    float mx0 = NEG_INF, mx1 = NEG_INF, l0 = 0.f, l1 = 0.f;
    auto q_rows = [&]() { return sQ + qs * Q_BYTES + wg * WG_ROWS * 128; };

    // DESC64 (HOPPER_DESC_ADD_D64): the d64 kernels with three consumer warpgroups
    constexpr bool DESC64 = HOPPER_DESC_ADD_D64 && D64_MAIN;
    constexpr bool DESC_ADD = (D == 128 && HOPPER_DESC_ADD_D128) || (C2 && HOPPER_C2_DESC_D64) || DESC64;
    auto issue_qk = [&](uint32_t k_tile) {
        const uint32_t qr = q_rows();
        const uint64_t da0 = desc_k_major(qr), db0 = desc_k_major(k_tile);   // DESC_ADD
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < DC / 16; ++kk) {
            const uint32_t off = (kk % 4) * 32;     // 16 elements = 32 bytes along K
            const uint64_t da = DESC_ADD ? desc_add(da0, (kk / 4) * (BM * 128) + off)
                                         : desc_k_major(qr + (kk / 4) * (BM * 128) + off);
            const uint64_t db = DESC_ADD ? desc_add(db0, (kk / 4) * (BN * 128) + off)
                                         : desc_k_major(k_tile + (kk / 4) * (BN * 128) + off);
            wgmma_ss<E::bf16, BN>(s, da, db, kk > 0 ? 1 : 0);
        }
        wgmma_commit();
    };
    auto issue_pv = [&](uint32_t v_tile) {
        const uint64_t dv0 = desc_n_major(v_tile, BN * 128);   // DESC_ADD
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < BN / 16; ++kk) {
            const uint32_t frag[4] = {p[4 * kk], p[4 * kk + 1], p[4 * kk + 2], p[4 * kk + 3]};
            wgmma_rs<E::bf16, DC>(o, frag, DESC_ADD ? desc_add(dv0, kk * 16 * 128)
                                                    : desc_n_major(v_tile + kk * 16 * 128, BN * 128));
        }
        wgmma_commit();
    };
    // the _softcap kernels: s = tanh(softmax_scale * s / softcap) (the softmax then scales by softcap * log2(e))
    [[maybe_unused]] auto softcap_scores = [&]() {
        const float c = a.softcap_log2;
#pragma unroll
        for (int i = 0; i < BN / 2; ++i) s[i] = tanh_of_log2(s[i] * c);
    };
    // the window's left edge on key block n: keys left of row0's / row1's window out (a pass of its own, after
    // the right edge's: fewer registers live at once)
    auto window_mask_lo = [&](int n) {
        const int lo0 = row0 + sk - sq - win_left - (n * BN + 2 * (lane % 4));   // columns c < lo0 of s are out
        const int lo1 = lo0 + 8;
#pragma unroll
        for (int i = 0; i < BN / 8; ++i) {
#pragma unroll
            for (int e = 0; e < 2; ++e) {
                if (8 * i + e < lo0) s[4 * i + e] = NEG_INF;
                if (8 * i + e < lo1) s[4 * i + 2 + e] = NEG_INF;
            }
        }
    };
    // Whether key block n needs the mask on this warp's 16 rows (warp-uniform): the causal / window edges and
    // the ragged tail; and the tile's first key block (key_blocks_lo's n_min).  Both recompute from an opaque
    // copy of row0 on each call rather than keep the tile's bounds live through the loop (the d64 consumers'
    // 160 registers have none to spare).
    auto needs_mask = [&](int n) {
        int r = row0;
        asm volatile("" : "+r"(r));
        const int w0 = r - lane / 4 + sk - sq;                 // the warp's first row, in key coordinates
        const int c_lo = n * BN, c_hi = c_lo + BN - 1;
        bool m = c_hi >= sk;
        if (win_right >= 0) m |= c_hi > w0 + win_right;
        if (win_left >= 0) m |= c_lo < w0 + 15 - win_left;
        return m;
    };
    // (first_block: key_blocks_lo of the tile's first row, spelled out on the opaque row0)
    auto first_block = [&]() {
        if (win_left < 0) return 0;
        int r = row0;
        asm volatile("" : "+r"(r));
        const int lo_first = r / BM * BM + sk - sq - win_left;  // the tile's first row's first key
        return lo_first <= 0 ? 0 : lo_first / BN;
    };
    // PV_LATE (HOPPER_PV_LATE_D128 / _D64): a never-taken branch on the new row sums (1) / maxima (2) before the PV wait
    constexpr int PV_LATE = D128_MAIN ? HOPPER_PV_LATE_D128 : D64_MAIN ? HOPPER_PV_LATE_D64 : 0;
    [[maybe_unused]] auto pv_late_fence = [&](float x, float y) {
        const uint32_t z = (uint32_t)a.heads_q >> 31;   // 0 at run time (heads_q > 0), unknown to the compiler
        if ((__float_as_uint(x) | __float_as_uint(y)) & z) asm volatile("membar.cta;" ::: "memory");
    };
    // online softmax of s (raw scores) for key block n; the rescale factors of O
    // SMX_TREE (HOPPER_SMX_TREE_D128): the row maxima in four partial chains
    constexpr int SMX_TREE = D128_MAIN ? HOPPER_SMX_TREE_D128 : 0;
    auto softmax = [&](int n, bool masked, float& alpha0, float& alpha1) {
        if constexpr (SOFTCAP) softcap_scores();
        if (masked) {
            int lim0 = sk, lim1 = sk;
            if (win_right >= 0) {
                lim0 = min(sk, row0 + sk - sq + 1 + win_right);
                lim1 = min(sk, row1 + sk - sq + 1 + win_right);
            }
            const int c0 = n * BN + 2 * (lane % 4);
#pragma unroll
            for (int i = 0; i < BN / 8; ++i) {
#pragma unroll
                for (int e = 0; e < 2; ++e) {
                    const int col = c0 + 8 * i + e;
                    if (col >= lim0) s[4 * i + e] = NEG_INF;
                    if (col >= lim1) s[4 * i + 2 + e] = NEG_INF;
                }
            }
            if (win_left >= 0) window_mask_lo(n);
        }
        float b0 = mx0, b1 = mx1;
        if constexpr (SMX_TREE >= 1) {   // four partial maxima a row (HOPPER_SMX_TREE_D128)
            float x0 = fmaxf(s[0], s[1]), y0 = fmaxf(s[4], s[5]), z0 = fmaxf(s[8], s[9]), w0 = fmaxf(s[12], s[13]);
            float x1 = fmaxf(s[2], s[3]), y1 = fmaxf(s[6], s[7]), z1 = fmaxf(s[10], s[11]), w1 = fmaxf(s[14], s[15]);
#pragma unroll
            for (int i = 4; i < BN / 8; i += 4) {
                x0 = fmaxf(x0, fmaxf(s[4 * i], s[4 * i + 1]));
                x1 = fmaxf(x1, fmaxf(s[4 * i + 2], s[4 * i + 3]));
                y0 = fmaxf(y0, fmaxf(s[4 * i + 4], s[4 * i + 5]));
                y1 = fmaxf(y1, fmaxf(s[4 * i + 6], s[4 * i + 7]));
                z0 = fmaxf(z0, fmaxf(s[4 * i + 8], s[4 * i + 9]));
                z1 = fmaxf(z1, fmaxf(s[4 * i + 10], s[4 * i + 11]));
                w0 = fmaxf(w0, fmaxf(s[4 * i + 12], s[4 * i + 13]));
                w1 = fmaxf(w1, fmaxf(s[4 * i + 14], s[4 * i + 15]));
            }
            b0 = fmaxf(fmaxf(b0, fmaxf(x0, y0)), fmaxf(z0, w0));
            b1 = fmaxf(fmaxf(b1, fmaxf(x1, y1)), fmaxf(z1, w1));
        } else {   // (braces: nvcc took `else #pragma unroll for` as a scope over the statements after the loop)
#pragma unroll
            for (int i = 0; i < BN / 8; ++i) {
                b0 = fmaxf(b0, fmaxf(s[4 * i], s[4 * i + 1]));
                b1 = fmaxf(b1, fmaxf(s[4 * i + 2], s[4 * i + 3]));
            }
        }
        b0 = fmaxf(b0, __shfl_xor_sync(0xffffffffu, b0, 1));
        b0 = fmaxf(b0, __shfl_xor_sync(0xffffffffu, b0, 2));
        b1 = fmaxf(b1, __shfl_xor_sync(0xffffffffu, b1, 1));
        b1 = fmaxf(b1, __shfl_xor_sync(0xffffffffu, b1, 2));
        float ms0, ms1;
#if HOPPER_LAZY_RESCALE   // (keep_max exists only then)
        if (LAZY && keep_max(b0, b1, mx0, mx1, sl2, LAZY_TAU)) {   // the kept maxima, finite here
            ms0 = mx0 * sl2;
            ms1 = mx1 * sl2;
            if constexpr (PV_LATE == 2) pv_late_fence(ms0, ms1);
            alpha0 = 1.f;
            alpha1 = 1.f;
        } else
#endif
        {
            ms0 = b0 == NEG_INF ? 0.f : b0 * sl2;
            ms1 = b1 == NEG_INF ? 0.f : b1 * sl2;
            if constexpr (PV_LATE == 2) pv_late_fence(ms0, ms1);   // (also in a tile's first block: harmless)
            alpha0 = ex2(mx0 * sl2 - ms0);
            alpha1 = ex2(mx1 * sl2 - ms1);
            mx0 = b0;
            mx1 = b1;
        }
        float t0 = 0.f, t1 = 0.f;
#pragma unroll
        for (int i = 0; i < BN / 8; ++i) {
            s[4 * i] = ex2(fmaf(s[4 * i], sl2, -ms0));
            s[4 * i + 1] = ex2(fmaf(s[4 * i + 1], sl2, -ms0));
            s[4 * i + 2] = ex2(fmaf(s[4 * i + 2], sl2, -ms1));
            s[4 * i + 3] = ex2(fmaf(s[4 * i + 3], sl2, -ms1));
            t0 += s[4 * i] + s[4 * i + 1];
            t1 += s[4 * i + 2] + s[4 * i + 3];
        }
        l0 = l0 * alpha0 + t0;
        l1 = l1 * alpha1 + t1;
    };
    auto convert_p = [&]() {
#pragma unroll
        for (int i = 0; i < BN / 4; ++i) p[i] = E::pack(s[2 * i], s[2 * i + 1]);
    };
    auto rescale_o = [&](float alpha0, float alpha1) {
#pragma unroll
        for (int i = 0; i < DC / 8; ++i) {
            o[4 * i] *= alpha0; o[4 * i + 1] *= alpha0;
            o[4 * i + 2] *= alpha1; o[4 * i + 3] *= alpha1;
        }
    };
    // HOPPER_WG_SKIP_D64 (d64 TMA kernels): this warpgroup computes only the key blocks [0, nw) its own 64 rows
    // can see: with BM 192 and BN 128 the top block of a causal diagonal tile is fully masked for the lower
    // warpgroups, and a last tile's warpgroup whose rows are all past seqlen_q computes one block (not n_max;
    // its rows are not stored).  Each block above nw is passed: a ping-pong turn with no GEMM (every warpgroup
    // still takes n_max + 1 turns a tile) and this warpgroup's k_empty / v_empty arrivals at once.  Those come
    // early, but not into the slot's previous round: our turn follows the other warpgroups' turns of the block
    // above (or this block), and each of them arrived for the block STAGES >= 3 above before taking that turn.
    // Some warpgroup (the one with the tile's last row) computes every block, so no slot's round is all early.
    // (not the _static siblings: causal d64 from 16384 keys, long tiles; there it measured 0.94-0.99x, two runs)
    // (nor the _softcap siblings: with the softcap pass its code spilled 88 bytes at 160 registers)
    constexpr bool WG_SKIP = HOPPER_WG_SKIP_D64 && D == 64 && TMA && !STATIC_SIBLING && !SOFTCAP && !C2;
    static_assert(!WG_SKIP || STAGES >= 3, "HOPPER_WG_SKIP_D64's early arrivals need 3 or more stages");
    // the key blocks this warpgroup computes in row block m_block (n_all: the tile's)
    auto wg_blocks = [&](int m_block, int n_all) {
        const int r0 = m_block * BM + wg * WG_ROWS;                  // this warpgroup's first row
        const int lim = min(r0 + WG_ROWS, sq) + sk - sq;             // keys < lim are visible to some row of it
        return r0 >= sq ? 1 : win_right >= 0 ? min(n_all, max(1, ceil_div(lim + win_right, BN))) : n_all;
    };
    int nw = 0;
    auto wg_skip_turns = [&]() {
        const int m_block = tile_m_block(t);
        const int n_all = key_blocks(m_block * BM);
        // never below the tile's first block (a sliding window's n_min): every warpgroup takes the same turns
        const int n_min = key_blocks_lo(m_block * BM);
        nw = max(wg_blocks(m_block, n_all), n_min + 1);
        if (TSPLIT && tail_wg(t) >= 0 && tail_wg(t) != wg) nw = n_min + 1;   // another warpgroup's piece: one block
        for (int i = n_all - nw; i > 0; --i) {
            sched_sync();
            sched_arrive();
            if (lane == 0) {
                mbar_arrive(k_empty(kst));
                mbar_arrive(v_empty(kst));
            }
            if (++kst == STAGES) { kst = 0; kph ^= 1; }
        }
    };
    // the first QK^T of the current tile (Q slot qs, K stage kst), in this warpgroup's turn
    auto first_qk = [&]() {
        if constexpr (WG_SKIP) wg_skip_turns();
        mbar_wait(q_full(qs), q_phase);
        mbar_wait(k_full(kst), kph);
        if constexpr (!TMA) fence_proxy_async();
        sched_sync();
        issue_qk(sK + kst * KV_BYTES);
        sched_arrive();
    };

    // RIT (HOPPER_RESCALE_IN_TURN_D128): O's pending rescale factors (those of the last softmax), applied in the
    // next GEMM turn between the QK^T and the PV issue; VOTE (HOPPER_RESCALE_VOTE_D128): skip it when 1 for the warp
    constexpr bool RIT = D == 128 && HOPPER_RESCALE_IN_TURN_D128;
    constexpr bool VOTE = D != 128 || HOPPER_RESCALE_VOTE_D128 || LAZY;
    float pa0 = 1.f, pa1 = 1.f;
    auto rescale_pending = [&]() {
        if (!VOTE || !__all_sync(0xffffffffu, pa0 == 1.f && pa1 == 1.f)) rescale_o(pa0, pa1);
    };
    if constexpr (EPI_TMA && !PMAPS) {   // the O map, published by the producer before its first load (see tmap_make)
        if (tid == 0) tmap_acquire(map_slot() + 384);
    }
    if constexpr (EPI_TMA64 && !PMAPS) {   // every warp's lane 0 issues its own stores
        if (lane == 0) tmap_acquire(map_slot() + 384);
    }
    // FUSE (the _fk siblings): the next tile (-1: none), picked before the current tile's last turn, and its Q slot /
    // first K stage waited for (the QK^T in that turn reads them either way: with none, stale but allocated smem)
    constexpr bool FUSE = FK;
    [[maybe_unused]] auto fuse_next = [&]() {
        const int tn = next_tile();
        if (tn >= 0) {
            mbar_wait(q_full(qs), q_phase);
            mbar_wait(k_full(kst), kph);
        }
        return tn;
    };

    // ---------------- the _c2 siblings (HOPPER_C2_D64): cuDNN's d64 loop shape.  Two consumer warpgroups of 64 rows
    // (128-row tiles, setmaxnreg 40 / 232), one key block at a time with no intra-warpgroup overlap: wait K, QK^T, wait
    // for it at once, the row max, then the ping-pong turn (named barriers 1 / 2, as sched_sync / sched_arrive) around
    // the exponentials, the row sums and P's conversion only, so one warpgroup's exponentials run under the other's
    // GEMMs; then O's rescale, wait V, PV, wait for it at once, release V.  Every warpgroup takes one turn per key block
    // of the tile (n_max and first_block are the tile's, not the warpgroup's: no WG_SKIP, no tail split), so both take
    // the same turns; empty tiles are passed in next_tile by both alike.  The epilogue is EPI_TMA64's (each warp its 16
    // rows, out with TMA), outside the turns.
    static_assert(!C2 || (D == 64 && NWG == 2 && BN == 128 && (QS == 2 || QS == 3) && TMA && DYN_ALL && EPI_TMA64 && !WG_SKIP &&
                          !TSPLIT && !FK && !SOFTCAP && !VARLEN && !STATIC_SIBLING),
                  "_c2: the d64 TMA kernel's producer / schedule / epilogue with two consumer warpgroups");
    if constexpr (C2) {
        float ms0 = 0.f, ms1 = 0.f;   // the current block's row maxima, scaled (the exponentials' offsets)
        // masks as softmax's; the row max; O's rescale factors
        auto c2_max = [&](int n, bool masked, float& alpha0, float& alpha1) {
            if (masked) {
                int lim0 = sk, lim1 = sk;
                if (win_right >= 0) {
                    lim0 = min(sk, row0 + sk - sq + 1 + win_right);
                    lim1 = min(sk, row1 + sk - sq + 1 + win_right);
                }
                const int c0 = n * BN + 2 * (lane % 4);
#pragma unroll
                for (int i = 0; i < BN / 8; ++i) {
#pragma unroll
                    for (int e = 0; e < 2; ++e) {
                        const int col = c0 + 8 * i + e;
                        if (col >= lim0) s[4 * i + e] = NEG_INF;
                        if (col >= lim1) s[4 * i + 2 + e] = NEG_INF;
                    }
                }
                if (win_left >= 0) window_mask_lo(n);
            }
            // four partial maxima a row (chains of BN / 32 instead of one of BN / 8: the other warpgroup's GEMMs wait
            // for this one's turn)
            float p0[4], p1[4];
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                p0[j] = fmaxf(s[4 * j], s[4 * j + 1]);
                p1[j] = fmaxf(s[4 * j + 2], s[4 * j + 3]);
            }
#pragma unroll
            for (int i = 4; i < BN / 8; ++i) {
                p0[i % 4] = fmaxf(p0[i % 4], fmaxf(s[4 * i], s[4 * i + 1]));
                p1[i % 4] = fmaxf(p1[i % 4], fmaxf(s[4 * i + 2], s[4 * i + 3]));
            }
            float b0 = fmaxf(fmaxf(mx0, fmaxf(p0[0], p0[1])), fmaxf(p0[2], p0[3]));
            float b1 = fmaxf(fmaxf(mx1, fmaxf(p1[0], p1[1])), fmaxf(p1[2], p1[3]));
            b0 = fmaxf(b0, __shfl_xor_sync(0xffffffffu, b0, 1));
            b0 = fmaxf(b0, __shfl_xor_sync(0xffffffffu, b0, 2));
            b1 = fmaxf(b1, __shfl_xor_sync(0xffffffffu, b1, 1));
            b1 = fmaxf(b1, __shfl_xor_sync(0xffffffffu, b1, 2));
            ms0 = b0 == NEG_INF ? 0.f : b0 * sl2;
            ms1 = b1 == NEG_INF ? 0.f : b1 * sl2;
            alpha0 = ex2(mx0 * sl2 - ms0);
            alpha1 = ex2(mx1 * sl2 - ms1);
            mx0 = b0;
            mx1 = b1;
        };
        // the exponentials (in the turn), P, the row sums
        auto c2_exp = [&](float& t0, float& t1) {
            t0 = 0.f;
            t1 = 0.f;
            float n0 = -ms0, n1 = -ms1;
#pragma unroll
            for (int i = 0; i < BN / 8; ++i) {
                if constexpr (HOPPER_C2_ILV_D64) {
                    if (i >= 2 && i % 2 == 0) {   // (convert_p packs the same values again: one conversion after CSE)
                        p[2 * (i - 2)] = E::pack(s[4 * (i - 2)], s[4 * (i - 2) + 1]);
                        const float z = __uint_as_float(p[2 * (i - 2)] & ((uint32_t)a.heads_q >> 31));   // +0
                        n0 += z;
                        n1 += z;
                    }
                }
                s[4 * i] = ex2(fmaf(s[4 * i], sl2, n0));
                s[4 * i + 1] = ex2(fmaf(s[4 * i + 1], sl2, n0));
                s[4 * i + 2] = ex2(fmaf(s[4 * i + 2], sl2, n1));
                s[4 * i + 3] = ex2(fmaf(s[4 * i + 3], sl2, n1));
                t0 += s[4 * i] + s[4 * i + 1];
                t1 += s[4 * i + 2] + s[4 * i + 3];
            }
            convert_p();
        };
        // the current tile's (m_block, head, batch), before its Q slot is released: PDEC's entry, else decoded
        auto c2_tile = [&](int& cm, int& ch, int& cb) {
            if constexpr (PDEC) tile_info_read(qs + QS * (q_phase & 1), cm, ch, cb);
            else decode(t, cm, ch, cb);
        };
        // HOPPER_C2_DEFER_D64: this warp's packed O rows of the last tile (stmatrix x4 order) and their TMA row /
        // head / batch, stored in the next key block's PV wait (c2_flush) while c2_pend
        [[maybe_unused]] uint32_t po[D / 4];
        [[maybe_unused]] int prow = 0, phd = 0, pbt = 0;
        [[maybe_unused]] bool c2_pend = false;
        [[maybe_unused]] float inv0 = 0.f, inv1 = 0.f;
        // l's row sums, 1 / l and the LSE (HOPPER_C2_DEFER_D64: before the last PV's wait)
        [[maybe_unused]] auto c2_lse = [&](int ch, int cb) {
            l0 = quad_sum(l0);
            l1 = quad_sum(l1);
            inv0 = inv_sum(l0);
            inv1 = inv_sum(l1);
            if (a.lse && lane % 4 == 0) {
                float* lse_ptr = lse_base(cb, ch);
                if (row0 < sq) lse_ptr[row0] = row_lse(mx0, l0, sl2);
                if (row1 < sq) lse_ptr[row1] = row_lse(mx1, l1, sl2);
            }
        };
        // O * (1 / l) into po (after the last PV's wait)
        [[maybe_unused]] auto c2_pack = [&](int cm, int ch, int cb) {
#pragma unroll
            for (int i = 0; i < D / 8; i += 2) {
                po[2 * i] = E::pack(o[4 * i] * inv0, o[4 * i + 1] * inv0);
                po[2 * i + 1] = E::pack(o[4 * i + 2] * inv1, o[4 * i + 3] * inv1);
                po[2 * i + 2] = E::pack(o[4 * i + 4] * inv0, o[4 * i + 5] * inv0);
                po[2 * i + 3] = E::pack(o[4 * i + 6] * inv1, o[4 * i + 7] * inv1);
            }
            prow = cm * BM + wg * WG_ROWS + warp * 16;
            phd = ch;
            pbt = cb;
            c2_pend = true;
        };
        // po into this warp's 16 rows of the staging buffer, out with one TMA store
        [[maybe_unused]] auto c2_flush = [&]() {
            if (lane == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
            __syncwarp();
            const uint32_t so = sO + wg * (WG_ROWS * DS * 2);
            const int mj = lane / 8;
            const int sr = warp * 16 + (mj & 1) * 8 + lane % 8;
#pragma unroll
            for (int i = 0; i < D / 8; i += 2) {
                const int cg = i + (mj >> 1);
                const uint32_t addr = so + sr * 128 + ((cg ^ (sr & 7)) << 4);
                asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                             ::"r"(addr), "r"(po[2 * i]), "r"(po[2 * i + 1]), "r"(po[2 * i + 2]), "r"(po[2 * i + 3])
                             : "memory");
            }
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            __syncwarp();
            if (lane == 0) {
                tma_store(o_map(), so + warp * (16 * 128), 0, prow, phd, pbt);
                asm volatile("cp.async.bulk.commit_group;" ::: "memory");
            }
            c2_pend = false;
        };
        // O / l into this warp's 16 rows of the staging buffer (stmatrix), out with one TMA store (EPI_TMA64's
        // epilogue), all at once (HOPPER_C2_DEFER_D64 0, and the unfused boundary)
        auto c2_epilogue = [&](int cm, int ch, int cb) {
            c2_lse(ch, cb);
            c2_pack(cm, ch, cb);
            c2_flush();
        };
        // HOPPER_C2_B2B_D64: key block n (its K / V in stage vst, its QK^T in flight) from the wait for its scores to the
        // release of V; with NEXT the QK^T of block n - 1 (stage kst) goes out right behind the PV, and only the PV is
        // waited for.  (Two instances, the last block's without the QK^T: a wgmma under a branch serialises them all.)
        [[maybe_unused]] auto c2_step = [&](int n, int vst, uint32_t vph, auto next) {
            constexpr bool NEXT = decltype(next)::value;
            wgmma_wait<0>();
            reg_fence(s);
            if (lane == 0) mbar_arrive(k_empty(vst));
            static_assert((HOPPER_C2_KVWAIT_D64 & 13) != 5 && (HOPPER_C2_KVWAIT_D64 & 13) != 9 &&
                          (HOPPER_C2_KVWAIT_D64 & 12) != 12, "HOPPER_C2_KVWAIT_D64: one of bits 1, 4, 8");
            [[maybe_unused]] uint32_t k_ok = 0;
            if constexpr ((HOPPER_C2_KVWAIT_D64 & 4) && NEXT) {
                k_ok = mbar_done(k_full(kst), kph);
            }
            float a0, a1, t0, t1;
            c2_max(n, needs_mask(n), a0, a1);
            sched_sync();
            c2_exp(t0, t1);
            if constexpr (!HOPPER_C2_TURN_D64) sched_arrive();
            l0 = l0 * a0 + t0;
            l1 = l1 * a1 + t1;
            rescale_o(a0, a1);
            if constexpr ((HOPPER_C2_KVWAIT_D64 & 1) && NEXT) {
                mbar_wait2(v_full(vst), vph, k_full(kst), kph);
            } else {
                mbar_wait(v_full(vst), vph);
            }
            if constexpr ((HOPPER_C2_KVWAIT_D64 & 8) && NEXT) {
                k_ok = mbar_done(k_full(kst), kph);
            }
            issue_pv(sV + vst * KV_BYTES);
            if constexpr (NEXT) {
                if constexpr (HOPPER_C2_KVWAIT_D64 & 12) {
                    if (!k_ok) mbar_wait(k_full(kst), kph);
                } else if constexpr (!(HOPPER_C2_KVWAIT_D64 & 1)) {
                    mbar_wait(k_full(kst), kph);
                }
                issue_qk(sK + kst * KV_BYTES);
            }
            if constexpr (HOPPER_C2_TURN_D64) sched_arrive();
            if constexpr (HOPPER_C2_DEFER_D64 && HOPPER_C2_FUSE_D64 && NEXT) {
                if (c2_pend) c2_flush();
            }
            if constexpr (NEXT) wgmma_wait<1>();
            else wgmma_wait<0>();
            reg_fence(o);
            if (lane == 0) mbar_arrive(v_empty(vst));
        };
        // HOPPER_C2_FUSE_D64: a tile's last PV and the next tile's first QK^T go out back to back (as
        // the d128 _fk siblings' fused turn), the epilogue then runs with that QK^T on the tensor cores.  With no next
        // tile the QK^T still goes out, over the stale Q slot / K stage (its scores are dropped): a wgmma under a
        // branch would serialise them all.
        if constexpr (HOPPER_C2_FUSE_D64) {
            static_assert(HOPPER_C2_B2B_D64, "HOPPER_C2_FUSE_D64 builds on HOPPER_C2_B2B_D64's c2_step");
            mbar_wait(q_full(qs), q_phase);
            mbar_wait(k_full(kst), kph);
            issue_qk(sK + kst * KV_BYTES);   // the first tile's first key block
            for (;;) {
                const int n_max = key_blocks(tile_m_block(t) * BM);
                row0 = tile_m_block(t) * BM + wg * WG_ROWS + row_local;
                row1 = row0 + 8;
#pragma unroll
                for (int i = 0; i < DC / 2; ++i) o[i] = 0.f;
                mx0 = NEG_INF; mx1 = NEG_INF; l0 = 0.f; l1 = 0.f;
                const int lo = first_block();
                int n = n_max - 1;
                for (; n > lo; --n) {
                    const int vst = kst;
                    const uint32_t vph = kph;
                    if (++kst == STAGES) { kst = 0; kph ^= 1; }
                    c2_step(n, vst, vph, std::true_type{});
                }
                // the tile's last key block
                const int vst = kst;
                const uint32_t vph = kph;
                if (++kst == STAGES) { kst = 0; kph ^= 1; }
                wgmma_wait<0>();
                reg_fence(s);
                if (lane == 0) mbar_arrive(k_empty(vst));
                int cm, ch, cb;
                c2_tile(cm, ch, cb);
                q_release();   // every QK^T of this tile is done: the Q slot too
                if (++qs == QS) { qs = 0; q_phase ^= 1; }
                float a0, a1, t0, t1;
                c2_max(n, needs_mask(n), a0, a1);
                sched_sync();
                c2_exp(t0, t1);
                sched_arrive();
                l0 = l0 * a0 + t0;
                l1 = l1 * a1 + t1;
                rescale_o(a0, a1);
#if HOPPER_C2_KVWAIT_D64 & 2
                mbar_wait2(q_full(qs), q_phase, v_full(vst), vph);   // (the producer arrives on q_full with no next tile too)
                nt_waited = true;
                const int t_next = next_tile();
                if (t_next >= 0) {
                    mbar_wait(k_full(kst), kph);
                }
#else
                const int t_next = next_tile();   // (its Q slot is qs now; empty tiles zero-filled on the way)
                if (t_next >= 0) {
                    mbar_wait(q_full(qs), q_phase);
                    mbar_wait(k_full(kst), kph);
                }
                mbar_wait(v_full(vst), vph);
#endif
                issue_pv(sV + vst * KV_BYTES);
                issue_qk(sK + kst * KV_BYTES);
                if constexpr (HOPPER_C2_DEFER_D64) {
                    c2_lse(ch, cb);
                    if (c2_pend) c2_flush();
                }
                wgmma_wait<1>();
                reg_fence(o);
                if (lane == 0) mbar_arrive(v_empty(vst));
                if constexpr (HOPPER_C2_DEFER_D64) c2_pack(cm, ch, cb);
                else c2_epilogue(cm, ch, cb);   // (row0 / row1, l, mx: still this tile's)
                t = t_next;
                if (t < 0) {
                    wgmma_wait<0>();
                    reg_fence(s);
                    if constexpr (HOPPER_C2_DEFER_D64) c2_flush();
                    break;
                }
            }
        } else
        for (;;) {
            const int n_max = key_blocks(tile_m_block(t) * BM);
            row0 = tile_m_block(t) * BM + wg * WG_ROWS + row_local;
            row1 = row0 + 8;
#pragma unroll
            for (int i = 0; i < DC / 2; ++i) o[i] = 0.f;
            mx0 = NEG_INF; mx1 = NEG_INF; l0 = 0.f; l1 = 0.f;
            mbar_wait(q_full(qs), q_phase);
            if constexpr (HOPPER_C2_B2B_D64) {   // (c2_step: QK^T(n - 1) right behind PV(n))
                const int lo = first_block();
                int n = n_max - 1;
                mbar_wait(k_full(kst), kph);
                issue_qk(sK + kst * KV_BYTES);
                for (; n > lo; --n) {
                    const int vst = kst;
                    const uint32_t vph = kph;
                    if (++kst == STAGES) { kst = 0; kph ^= 1; }
                    c2_step(n, vst, vph, std::true_type{});
                }
                const int vst = kst;
                const uint32_t vph = kph;
                if (++kst == STAGES) { kst = 0; kph ^= 1; }
                c2_step(n, vst, vph, std::false_type{});
            } else
            for (int n = n_max - 1; n >= first_block(); --n) {
                mbar_wait(k_full(kst), kph);
                issue_qk(sK + kst * KV_BYTES);
                wgmma_wait<0>();
                reg_fence(s);
                if (lane == 0) mbar_arrive(k_empty(kst));
                float a0, a1, t0, t1;
                c2_max(n, needs_mask(n), a0, a1);
                sched_sync();
                c2_exp(t0, t1);
                if constexpr (!HOPPER_C2_TURN_D64) sched_arrive();
                l0 = l0 * a0 + t0;
                l1 = l1 * a1 + t1;
                rescale_o(a0, a1);
                mbar_wait(v_full(kst), kph);
                issue_pv(sV + kst * KV_BYTES);
                if constexpr (HOPPER_C2_TURN_D64) sched_arrive();
                wgmma_wait<0>();
                reg_fence(o);
                if (lane == 0) mbar_arrive(v_empty(kst));
                if (++kst == STAGES) { kst = 0; kph ^= 1; }
            }
            // every QK^T of this tile is done: the producer may load the Q slot again
            int cm, ch, cb;
            c2_tile(cm, ch, cb);
            q_release();
            if (++qs == QS) { qs = 0; q_phase ^= 1; }
            c2_epilogue(cm, ch, cb);
            t = next_tile();
            if (t < 0) break;
        }
        // the buffer stays allocated until this warp's last TMA store has read it
        if (lane == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
        return;
    }

    first_qk();
    for (;;) {
        int n_max;
        {
            int m_block, h, b;
            if constexpr (DEC1) {
                if constexpr (PDEC128) tile_entry_read(m_block, h, b); else decode(t, m_block, h, b);
                tm = m_block; th = h; tb = b;
            } else {
                m_block = tile_m_block(t);
            }
            n_max = key_blocks(m_block * BM);
            row0 = m_block * BM + wg * WG_ROWS + row_local;
            row1 = row0 + 8;
            if constexpr (WG_SKIP) n_max = nw;   // this warpgroup's blocks (wg_skip_turns)
        }
#pragma unroll
        for (int i = 0; i < DC / 2; ++i) o[i] = 0.f;
        mx0 = NEG_INF; mx1 = NEG_INF; l0 = 0.f; l1 = 0.f;

        int n = n_max - 1;
        wgmma_wait<0>();
        reg_fence(s);
        if (lane == 0) mbar_arrive(k_empty(kst));
        {
            float a0, a1;
            softmax(n, needs_mask(n), a0, a1);
        }
        convert_p();
        int vst = kst;
        uint32_t vph = kph;
        if (++kst == STAGES) { kst = 0; kph ^= 1; }

        for (n = n_max - 2; n >= first_block(); --n) {
            mbar_wait(k_full(kst), kph);
            mbar_wait(v_full(vst), vph);
            if constexpr (!TMA) fence_proxy_async();
            sched_sync();
            issue_qk(sK + kst * KV_BYTES);
            if constexpr (RIT) rescale_pending();
            issue_pv(sV + vst * KV_BYTES);
            sched_arrive();
            wgmma_wait<1>();
            reg_fence(s);
            if (lane == 0) mbar_arrive(k_empty(kst));
            float a0, a1;
            softmax(n, needs_mask(n), a0, a1);
            if constexpr (PV_LATE == 1) pv_late_fence(l0, l1);
            wgmma_wait<0>();
            reg_fence(o);
            if (lane == 0) mbar_arrive(v_empty(vst));
            // the running max of a warp's 16 rows rarely moves after the first blocks: skip the
            // multiply when no row's max moved (alpha == ex2(0) == 1 exactly)
            if constexpr (RIT) {
                pa0 = a0;
                pa1 = a1;
            } else if (!VOTE || !__all_sync(0xffffffffu, a0 == 1.f && a1 == 1.f)) {
                rescale_o(a0, a1);
            }
            convert_p();
            if (++kst == STAGES) { kst = 0; kph ^= 1; }
            if (++vst == STAGES) { vst = 0; vph ^= 1; }
        }
        // every QK^T of this tile is done: the producer may load the next tile's Q
        q_release();
        if (++qs == QS) { qs = 0; q_phase ^= 1; }
        if constexpr (RIT) {   // the last block's factors (none when the tile had one block)
            rescale_pending();
            pa0 = 1.f;
            pa1 = 1.f;
        }
        mbar_wait(v_full(vst), vph);
        if constexpr (!TMA) fence_proxy_async();
        [[maybe_unused]] int t_next = -1;
        if constexpr (FUSE) t_next = fuse_next();
        sched_sync();
        issue_pv(sV + vst * KV_BYTES);
        if constexpr (FUSE) issue_qk(sK + kst * KV_BYTES);   // the next tile's first QK^T, under this tile's epilogue
        sched_arrive();
        if constexpr (FUSE) wgmma_wait<1>();
        else wgmma_wait<0>();
        reg_fence(o);
        if (lane == 0) mbar_arrive(v_empty(vst));
        if constexpr (TSPLIT) {   // another warpgroup's piece (HOPPER_TAIL_SPLIT_D64): nothing of this one's to store
            static_assert(!TSPLIT || WG_SKIP, "HOPPER_TAIL_SPLIT_D64 needs HOPPER_WG_SKIP_D64's per-warpgroup key blocks");
            if (tail_wg(t) >= 0 && tail_wg(t) != wg) {
                t = next_tile();
                if (t < 0) break;
                first_qk();
                continue;
            }
        }

        // ---------------- epilogue: O / l, LSE
        l0 = quad_sum(l0);
        l1 = quad_sum(l1);
        const float inv0 = inv_sum(l0);
        const float inv1 = inv_sum(l1);
        int cm, ch, cb;
        if constexpr (DEC1) { cm = tm; ch = th; cb = tb; }
        else if constexpr (PDEC) tile_info_read((qs + QS * (q_phase & 1) + 2 * QS - 1) % (2 * QS), cm, ch, cb);   // the slot before qs
        else decode(t, cm, ch, cb);
        if (a.lse && lane % 4 == 0) {
            float* lse_ptr = lse_base(cb, ch);
            if (row0 < sq) lse_ptr[row0] = row_lse(mx0, l0, sl2);
            if (row1 < sq) lse_ptr[row1] = row_lse(mx1, l1, sl2);
        }
        uint16_t* out = reinterpret_cast<uint16_t*>(a.out) + cb * a.o_batch_stride + ch * a.o_head_stride +
                        (int64_t)q_off * a.o_seq_stride;
        if constexpr (EPI) {
            // O into this warpgroup's 64 rows of the staging buffer ([DS / 64 atoms][64 rows][128 bytes], 16-byte
            // chunk c of row r at c ^ (r & 7)) with stmatrix (lanes 8j..8j+7 address the rows of matrix j:
            // rows +8 for odd j, the next 8 columns for j >= 2), then 16-byte coalesced stores, D / 8 threads a row.
            // stmatrix writes only the warp's own 16 rows (warp * 16 ..): EPI_WARP reads back and stores just
            // those (__syncwarp orders it), else the warpgroup stores its 64 rows (named barriers).  The first
            // sync orders the reads of the last tile before these writes.
            constexpr int CPR = D / 8;                                      // 16-byte chunks per row
            static_assert(D == 64 || D == 128, "the O buffer's layout: whole 64-column atoms, 8 or 16 chunks a row");
            if constexpr (EPI_TMA) {   // the last tile's TMA store has read the buffer
                if (tid == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
            }
            if constexpr (EPI_TMA64) {   // this warp's last TMA store has read its rows (the __syncwarp below orders it)
                if (lane == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
            }
            if constexpr (EPI_WARP) __syncwarp();
            else named_sync(NWG + 1 + wg, 128);
            const uint32_t so = sO + wg * (WG_ROWS * DS * 2);
            const int mj = lane / 8;
            const int sr = warp * 16 + (mj & 1) * 8 + lane % 8;          // the row this lane addresses
#pragma unroll
            for (int i = 0; i < D / 8; i += 2) {
                const int cg = i + (mj >> 1);                              // its 8-column group
                const uint32_t addr = so + (cg / 8) * (WG_ROWS * 128) + sr * 128 + (((cg % 8) ^ (sr & 7)) << 4);
                const uint32_t r0 = E::pack(o[4 * i] * inv0, o[4 * i + 1] * inv0);
                const uint32_t r1 = E::pack(o[4 * i + 2] * inv1, o[4 * i + 3] * inv1);
                const uint32_t r2 = E::pack(o[4 * i + 4] * inv0, o[4 * i + 5] * inv0);
                const uint32_t r3 = E::pack(o[4 * i + 6] * inv1, o[4 * i + 7] * inv1);
                asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};"
                             ::"r"(addr), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
            }
            const int g0 = cm * BM + wg * WG_ROWS;
            auto store_row = [&](int r, int c) {                           // chunk c of buffer row r
                uint4 v4;
                asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];"
                             : "=r"(v4.x), "=r"(v4.y), "=r"(v4.z), "=r"(v4.w)
                             : "r"(so + (c / 8) * (WG_ROWS * 128) + r * 128 + (((c % 8) ^ (r & 7)) << 4)) : "memory");
                if (g0 + r < sq) {
                    uint16_t* dst = out + (int64_t)(g0 + r) * a.o_seq_stride + c * 8;
                    if constexpr (D == 64 || HOPPER_EPI_V4_D128)
                        asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};"
                                     ::"l"(dst), "r"(v4.x), "r"(v4.y), "r"(v4.z), "r"(v4.w) : "memory");
                    else
                        *reinterpret_cast<uint4*>(dst) = v4;
                }
            };
            if constexpr (EPI_TMA) {
                // the stmatrix writes (generic proxy) before the TMA's reads (async proxy), then one thread
                // stores the warpgroup's 64 rows (rows >= sq are not written)
                asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
                named_sync(NWG + 1 + wg, 128);
                if (tid == 0) {
#pragma unroll
                    for (int c = 0; c < DS / 64; ++c) tma_store(o_map(), so + c * (WG_ROWS * 128), 64 * c, g0, ch, cb);
                    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
                }
            } else if constexpr (EPI_TMA64) {
                // the warp's stmatrix writes (generic proxy) before the TMA's reads (async proxy); lane 0 stores the
                // warp's 16 rows (rows >= sq are not written)
                asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
                __syncwarp();
                if (lane == 0) {
                    tma_store(o_map(), so + warp * (16 * 128), 0, g0 + warp * 16, ch, cb);
                    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
                }
            } else if constexpr (EPI_WARP) {
                __syncwarp();
                constexpr int RPI = 32 / CPR;                              // rows per warp instruction
#pragma unroll
                for (int it = 0; it < 16 / RPI; ++it) store_row(warp * 16 + it * RPI + lane / CPR, lane % CPR);
            } else {
                named_sync(NWG + 1 + wg, 128);
                constexpr int RPP = 128 / CPR;                             // rows per pass of the warpgroup
#pragma unroll
                for (int it = 0; it < WG_ROWS / RPP; ++it) store_row(it * RPP + tid / CPR, tid % CPR);
            }
        } else {
            // 4-byte stores straight from the accumulators
            uint16_t* o0 = out + (int64_t)row0 * a.o_seq_stride + 2 * (lane % 4);
            uint16_t* o1 = o0 + 8 * a.o_seq_stride;
#pragma unroll
            for (int i = 0; i < D / 8; ++i) {
                if (row0 < sq) *reinterpret_cast<uint32_t*>(o0 + 8 * i) = E::pack(o[4 * i] * inv0, o[4 * i + 1] * inv0);
                if (row1 < sq) *reinterpret_cast<uint32_t*>(o1 + 8 * i) = E::pack(o[4 * i + 2] * inv1, o[4 * i + 3] * inv1);
            }
        }
        if constexpr (FUSE) {   // the next tile's first QK^T is in flight (the loop head waits for it)
            t = t_next;
            if (t < 0) {
                wgmma_wait<0>();
                break;
            }
            continue;
        }
        t = next_tile();
        if (t < 0) break;
        first_qk();
    }
    if constexpr (EPI_TMA) {   // the buffer stays allocated until the last TMA store has read it
        if (tid == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
    if constexpr (EPI_TMA64) {
        if (lane == 0) asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
}

#if HOPPER_WINDOW
#undef win_left
#undef win_right
#endif
}  // namespace

// a kernel's parameter list and the maps pointer its fwd_body takes, by PM (0 / 1, a literal: HOPPER_PARAM_MAPS_C2 / _FK):
// 1 the host's Q / K / V / O tensor maps as a second __grid_constant__ parameter (hopper_args.h: hopper_fwd_maps_param),
// 0 hopper_fwd_args alone (the maps made in the kernel)
#if (HOPPER_PARAM_MAPS_C2 != 0 && HOPPER_PARAM_MAPS_C2 != 1) || (HOPPER_PARAM_MAPS_FK != 0 && HOPPER_PARAM_MAPS_FK != 1)
#error "HOPPER_PARAM_MAPS_C2 / HOPPER_PARAM_MAPS_FK: 0 or 1"
#endif
#define HOPPER_CAT_(x, y) x##y
#define HOPPER_CAT(x, y) HOPPER_CAT_(x, y)
#define HOPPER_PARAMS_0 const __grid_constant__ hopper_fwd_args a
#define HOPPER_PARAMS_1 const __grid_constant__ hopper_fwd_args a, const __grid_constant__ hopper_fwd_maps_param m
#define HOPPER_PMAPS_0 nullptr
#define HOPPER_PMAPS_1 &m.m
#define HOPPER_PARAMS(PM) HOPPER_CAT(HOPPER_PARAMS_, PM)
#define HOPPER_PMAPS(PM) HOPPER_CAT(HOPPER_PMAPS_, PM)
#define HOPPER_KERNEL_XS(NAME, E, D, BN, S, NWG, QS, TMA, DYN_SIB, STATIC_SIB, SOFTCAP)              \
    extern "C" __global__ void __launch_bounds__((NWG + 1) * 128, 1) NAME(const __grid_constant__ hopper_fwd_args a) { \
        fwd_body<E, D, BN, S, NWG, QS, TMA, DYN_SIB, STATIC_SIB, SOFTCAP>(a);                        \
    }
#define HOPPER_KERNEL_X(NAME, E, D, BN, S, NWG, QS, TMA, DYN_SIB, STATIC_SIB) \
    HOPPER_KERNEL_XS(NAME, E, D, BN, S, NWG, QS, TMA, DYN_SIB, STATIC_SIB, false)
#define HOPPER_KERNEL(NAME, E, D, BN, S, NWG, QS, TMA) HOPPER_KERNEL_X(NAME, E, D, BN, S, NWG, QS, TMA, false, false)
#if HOPPER_FK_D128 && HOPPER_TMA_D128 && HOPPER_BN_D128 == 128
// the _fk siblings (HOPPER_FK_D128): the d128 kernel with the fused last turn and K ahead of V
#define HOPPER_KERNEL_FK(NAME, E)                                                                                  \
    extern "C" __global__ void __launch_bounds__(3 * 128, 1) NAME(HOPPER_PARAMS(HOPPER_PARAM_MAPS_FK)) {            \
        fwd_body<E, 128, 128, HOPPER_STAGES_D128, 2, HOPPER_Q_STAGES_D128, true, false, false, false, false, true, false, \
                 HOPPER_PARAM_MAPS_FK != 0>(a, HOPPER_PMAPS(HOPPER_PARAM_MAPS_FK));                                \
    }
HOPPER_KERNEL_FK(hopper_fwd_bf16_d128_fk, Bf16)
HOPPER_KERNEL_FK(hopper_fwd_fp16_d128_fk, Fp16)
#endif

HOPPER_KERNEL(hopper_fwd_bf16_d128, Bf16, 128, HOPPER_BN_D128, HOPPER_STAGES_D128, 2, HOPPER_Q_STAGES_D128, HOPPER_TMA_D128)
HOPPER_KERNEL(hopper_fwd_fp16_d128, Fp16, 128, HOPPER_BN_D128, HOPPER_STAGES_D128, 2, HOPPER_Q_STAGES_D128, HOPPER_TMA_D128)
#if HOPPER_BN176_D128
HOPPER_KERNEL(hopper_fwd_bf16_d128_bn176, Bf16, 128, 176, HOPPER_STAGES_D128, 2, 1, true)
HOPPER_KERNEL(hopper_fwd_fp16_d128_bn176, Fp16, 128, 176, HOPPER_STAGES_D128, 2, 1, true)
#endif
HOPPER_KERNEL(hopper_fwd_bf16_d64, Bf16, 64, 128, HOPPER_STAGES_D64, HOPPER_NWG_D64, HOPPER_Q_STAGES, HOPPER_TMA_D64)
HOPPER_KERNEL(hopper_fwd_fp16_d64, Fp16, 64, 128, HOPPER_STAGES_D64, HOPPER_NWG_D64, HOPPER_Q_STAGES, HOPPER_TMA_D64)
#if HOPPER_C2_D64 && HOPPER_TMA_D64 && HOPPER_DYN_D64 && HOPPER_DYN_CAUSAL
// the _c2 siblings (HOPPER_C2_D64): d64, 128-row tiles of two consumer warpgroups, cuDNN's loop shape (fwd_body: C2)
#define HOPPER_KERNEL_C2(NAME, E, QS)                                                                              \
    extern "C" __global__ void __launch_bounds__(3 * 128, 1) NAME(HOPPER_PARAMS(HOPPER_PARAM_MAPS_C2)) {            \
        fwd_body<E, 64, 128, HOPPER_C2_STAGES_D64, 2, QS, true, false, false, false, false, false, true,                \
                 HOPPER_PARAM_MAPS_C2 != 0>(a, HOPPER_PMAPS(HOPPER_PARAM_MAPS_C2));                                \
    }
HOPPER_KERNEL_C2(hopper_fwd_bf16_d64_c2, Bf16, 2)
HOPPER_KERNEL_C2(hopper_fwd_fp16_d64_c2, Fp16, 2)
#if HOPPER_C2_CAUSAL_Q3_D64
// the _c2q3 siblings: the _c2 kernel with three Q buffers (HOPPER_C2_CAUSAL_Q3_D64; the planner's causal _c2 problems)
HOPPER_KERNEL_C2(hopper_fwd_bf16_d64_c2q3, Bf16, 3)
HOPPER_KERNEL_C2(hopper_fwd_fp16_d64_c2q3, Fp16, 3)
#endif
#endif
#if HOPPER_S4_D64 && HOPPER_TMA_D64
HOPPER_KERNEL(hopper_fwd_bf16_d64_s4, Bf16, 64, 128, HOPPER_S4_STAGES_D64, HOPPER_NWG_D64, HOPPER_Q_STAGES, true)
HOPPER_KERNEL(hopper_fwd_fp16_d64_s4, Fp16, 64, 128, HOPPER_S4_STAGES_D64, HOPPER_NWG_D64, HOPPER_Q_STAGES, true)
#endif
#if HOPPER_STATIC_SIBLINGS && HOPPER_DYN_CAUSAL
// the _static siblings of the kernels with the dynamic schedule: the same tile on the static schedule (the planner
// runs them on the causal problems hopper.STATIC_SIBLING_CAUSAL names)
HOPPER_KERNEL_X(hopper_fwd_bf16_d128_static, Bf16, 128, HOPPER_BN_D128, HOPPER_STAGES_D128, 2, HOPPER_Q_STAGES_D128,
                HOPPER_TMA_D128, false, true)
HOPPER_KERNEL_X(hopper_fwd_fp16_d128_static, Fp16, 128, HOPPER_BN_D128, HOPPER_STAGES_D128, 2, HOPPER_Q_STAGES_D128,
                HOPPER_TMA_D128, false, true)
#if HOPPER_TMA_D64 && HOPPER_DYN_D64
HOPPER_KERNEL_X(hopper_fwd_bf16_d64_static, Bf16, 64, 128, HOPPER_STAGES_D64, HOPPER_NWG_D64, HOPPER_Q_STAGES, true, false, true)
HOPPER_KERNEL_X(hopper_fwd_fp16_d64_static, Fp16, 64, 128, HOPPER_STAGES_D64, HOPPER_NWG_D64, HOPPER_Q_STAGES, true, false, true)
#endif
#endif
// d96: the d128 kernel's tile (128 x 128 keys, two Q buffers, 2 stages), TMA, computing HOPPER_D96_COMPUTE columns
HOPPER_KERNEL(hopper_fwd_bf16_d96, Bf16, 96, 128, 2, 2, 2, true)
HOPPER_KERNEL(hopper_fwd_fp16_d96, Fp16, 96, 128, 2, 2, 2, true)
#if HOPPER_DYN_D96
HOPPER_KERNEL_X(hopper_fwd_bf16_d96_dyn, Bf16, 96, 128, 2, 2, 2, true, true, false)
HOPPER_KERNEL_X(hopper_fwd_fp16_d96_dyn, Fp16, 96, 128, 2, 2, 2, true, true, false)
#endif
// d256: 128 query rows x HOPPER_BN_D256 keys, one Q buffer (64 KiB), 2 stages, TMA; O is 128 registers per thread
HOPPER_KERNEL(hopper_fwd_bf16_d256, Bf16, 256, HOPPER_BN_D256, 2, 2, 1, true)
HOPPER_KERNEL(hopper_fwd_fp16_d256, Fp16, 256, HOPPER_BN_D256, 2, 2, 1, true)
#if HOPPER_SOFTCAP_SIBLINGS
// the _softcap siblings: each head dim's main kernel (the planner's default pick) with the softcap scores
#define HOPPER_KERNEL_SOFTCAP(NAME, E, D, BN, S, NWG, QS, TMA) \
    HOPPER_KERNEL_XS(NAME, E, D, BN, S, NWG, QS, TMA, false, false, true)
HOPPER_KERNEL_SOFTCAP(hopper_fwd_bf16_d128_softcap, Bf16, 128, HOPPER_BN_D128, HOPPER_STAGES_D128, 2, HOPPER_Q_STAGES_D128,
                      HOPPER_TMA_D128)
HOPPER_KERNEL_SOFTCAP(hopper_fwd_fp16_d128_softcap, Fp16, 128, HOPPER_BN_D128, HOPPER_STAGES_D128, 2, HOPPER_Q_STAGES_D128,
                      HOPPER_TMA_D128)
HOPPER_KERNEL_SOFTCAP(hopper_fwd_bf16_d64_softcap, Bf16, 64, 128, HOPPER_STAGES_D64, HOPPER_NWG_D64, HOPPER_Q_STAGES,
                      HOPPER_TMA_D64)
HOPPER_KERNEL_SOFTCAP(hopper_fwd_fp16_d64_softcap, Fp16, 64, 128, HOPPER_STAGES_D64, HOPPER_NWG_D64, HOPPER_Q_STAGES,
                      HOPPER_TMA_D64)
HOPPER_KERNEL_SOFTCAP(hopper_fwd_bf16_d96_softcap, Bf16, 96, 128, 2, 2, 2, true)
HOPPER_KERNEL_SOFTCAP(hopper_fwd_fp16_d96_softcap, Fp16, 96, 128, 2, 2, 2, true)
HOPPER_KERNEL_SOFTCAP(hopper_fwd_bf16_d256_softcap, Bf16, 256, HOPPER_BN_D256, 2, 2, 1, true)
HOPPER_KERNEL_SOFTCAP(hopper_fwd_fp16_d256_softcap, Fp16, 256, HOPPER_BN_D256, 2, 2, 1, true)
#endif
#if HOPPER_VARLEN_SIBLINGS
// the _varlen siblings: each head dim's main kernel and its _softcap sibling over packed sequences (cu_seqlens)
// (DYN_SIB: the _dyn_varlen ones below)
#define HOPPER_KERNEL_VARLEN_X(NAME, E, D, BN, S, NWG, QS, DYN_SIB, SOFTCAP)                                          \
    extern "C" __global__ void __launch_bounds__((NWG + 1) * 128, 1) NAME(const __grid_constant__ hopper_fwd_args a) { \
        fwd_body<E, D, BN, S, NWG, QS, true, DYN_SIB, false, SOFTCAP, true>(a);                                        \
    }
#define HOPPER_KERNEL_VARLEN(NAME, E, D, BN, S, NWG, QS, SOFTCAP) \
    HOPPER_KERNEL_VARLEN_X(NAME, E, D, BN, S, NWG, QS, false, SOFTCAP)
HOPPER_KERNEL_VARLEN(hopper_fwd_bf16_d128_varlen, Bf16, 128, HOPPER_BN_D128, HOPPER_STAGES_D128, 2, HOPPER_Q_STAGES_D128, false)
HOPPER_KERNEL_VARLEN(hopper_fwd_fp16_d128_varlen, Fp16, 128, HOPPER_BN_D128, HOPPER_STAGES_D128, 2, HOPPER_Q_STAGES_D128, false)
HOPPER_KERNEL_VARLEN(hopper_fwd_bf16_d64_varlen, Bf16, 64, 128, HOPPER_STAGES_D64, HOPPER_NWG_D64, HOPPER_Q_STAGES, false)
HOPPER_KERNEL_VARLEN(hopper_fwd_fp16_d64_varlen, Fp16, 64, 128, HOPPER_STAGES_D64, HOPPER_NWG_D64, HOPPER_Q_STAGES, false)
HOPPER_KERNEL_VARLEN(hopper_fwd_bf16_d96_varlen, Bf16, 96, 128, 2, 2, 2, false)
HOPPER_KERNEL_VARLEN(hopper_fwd_fp16_d96_varlen, Fp16, 96, 128, 2, 2, 2, false)
HOPPER_KERNEL_VARLEN(hopper_fwd_bf16_d256_varlen, Bf16, 256, HOPPER_BN_D256, 2, 2, 1, false)
HOPPER_KERNEL_VARLEN(hopper_fwd_fp16_d256_varlen, Fp16, 256, HOPPER_BN_D256, 2, 2, 1, false)
#if HOPPER_DYN_D96
// the d96 _dyn siblings over packed sequences: the planner runs them on causal varlen problems (the d96 main kernel's
// static schedule deals heavy causal tiles out unevenly, as on uniform batches)
HOPPER_KERNEL_VARLEN_X(hopper_fwd_bf16_d96_dyn_varlen, Bf16, 96, 128, 2, 2, 2, true, false)
HOPPER_KERNEL_VARLEN_X(hopper_fwd_fp16_d96_dyn_varlen, Fp16, 96, 128, 2, 2, 2, true, false)
#endif
#if HOPPER_SOFTCAP_SIBLINGS
HOPPER_KERNEL_VARLEN(hopper_fwd_bf16_d128_softcap_varlen, Bf16, 128, HOPPER_BN_D128, HOPPER_STAGES_D128, 2, HOPPER_Q_STAGES_D128,
                     true)
HOPPER_KERNEL_VARLEN(hopper_fwd_fp16_d128_softcap_varlen, Fp16, 128, HOPPER_BN_D128, HOPPER_STAGES_D128, 2, HOPPER_Q_STAGES_D128,
                     true)
HOPPER_KERNEL_VARLEN(hopper_fwd_bf16_d64_softcap_varlen, Bf16, 64, 128, HOPPER_STAGES_D64, HOPPER_NWG_D64, HOPPER_Q_STAGES, true)
HOPPER_KERNEL_VARLEN(hopper_fwd_fp16_d64_softcap_varlen, Fp16, 64, 128, HOPPER_STAGES_D64, HOPPER_NWG_D64, HOPPER_Q_STAGES, true)
HOPPER_KERNEL_VARLEN(hopper_fwd_bf16_d96_softcap_varlen, Bf16, 96, 128, 2, 2, 2, true)
HOPPER_KERNEL_VARLEN(hopper_fwd_fp16_d96_softcap_varlen, Fp16, 96, 128, 2, 2, 2, true)
HOPPER_KERNEL_VARLEN(hopper_fwd_bf16_d256_softcap_varlen, Bf16, 256, HOPPER_BN_D256, 2, 2, 1, true)
HOPPER_KERNEL_VARLEN(hopper_fwd_fp16_d256_softcap_varlen, Fp16, 256, HOPPER_BN_D256, 2, 2, 1, true)
#endif
#endif

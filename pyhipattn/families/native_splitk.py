"""Native split-K attention (HIP C++ over MFMA) on gfx942 / gfx950.

Kernels: ``kernels/src/native`` (one source for this family, :mod:`.wmma`, and an sm_90a /
sm_80 build that tests the shared logic on NVIDIA), built into ``kernels/co/<arch>/
native_fwd.*`` and ``native_combine.*``.  A call is one producer launch
(``native_fwd_<dtype>_d<D>_<mask|nomask>_m<BM>_n<BN>``, grid ``(batch * heads_k,
ceil(seqlen_q * group / BM), G)``) and, when split (G >= 2), one combine launch folding the
fp32 partials in ``workspace`` (O ``[G][B][Hq][Sq][Dv]`` then LSE ``[G][B][Hq][Sq]``).

What it runs: bf16 / fp16, head_dim == head_dim_v in {64, 128}, GQA / MQA, bottom-right
causal and sliding windows (FlashAttention >= 2.1), rows that see no key give 0 and LSE
-inf.  Not: varlen, softcap, strides that are not multiples of 8 elements (rows move in
16-byte pieces, so q / k / v / out must also be 16-byte aligned).

The planning below is shared with :mod:`.wmma` (same kernels, other arches); the two
modules differ only in NAME, PRIORITY and the arches their gates accept.  On sm_90a / sm_80
the gate refuses (the portable family is the NVIDIA path) but :func:`plan` accepts, so that
tests can run the CUDA build of the shared logic.
"""

from __future__ import annotations

import math
from functools import lru_cache

from ..arch import arch_info, canonical_arch
from ..kernels_dir import header, kernels_dir
from ..plan import LaunchPlan
from .base import Problem, gqa_refusal, stride_refusal

NAME = "native_splitk"
PRIORITY = 30
MAX_SPLITS = 16          # the seed's {2, 4, 8, 16}; any count in 2..16 is accepted
ARCHES = ("gfx942", "gfx950")

#: Arches the CUDA build of the same source exists for: plan() only, never chosen by dispatch.
TEST_ARCHES = ("sm_90a", "sm_80")
#: Every arch kernels/co carries native objects for (scripts/build/native.sh).
BUILT_ARCHES = ("gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1102", "gfx1200", "gfx1201") + TEST_ARCHES

HEAD_DIMS = (64, 128)
DTYPES = ("bf16", "fp16")
#: Tile shapes, as kernels/src/native/backend.h builds them.
WAVES = 4
BM_PREFILL, BN_PREFILL, BN_DECODE = 64, 32, 64
#: Packed rows (seqlen_q * group) up to which the decode tiles (BM = one fragment) are used.
DECODE_ROWS = 32
COMBINE_THREADS = 256
_GRID_Y_MAX = 65535

_HEADER = header("native/native_args.h")
_POINTERS = ("q", "k", "v", "out", "lse", "workspace")


def bm_decode(arch: str) -> int:
    """Rows of a decode tile: one MFMA fragment (32) on wave64, one WMMA / mma fragment (16) else."""
    return 32 if arch_info(arch).wave_size == 64 else 16


def threads(arch: str) -> int:
    return WAVES * arch_info(arch).wave_size


def check_problem(p: Problem) -> str | None:
    """Why the native kernels cannot run ``p`` on any arch, or None."""
    if p.dtype not in DTYPES:
        return f"dtype {p.dtype!r} is not supported (accepted: {', '.join(DTYPES)})"
    if p.head_dim not in HEAD_DIMS or p.head_dim_v != p.head_dim:
        return (f"head_dim {p.head_dim} / head_dim_v {p.head_dim_v}: the native kernels are built for "
                f"head_dim == head_dim_v in {HEAD_DIMS}")
    if p.varlen:
        return "varlen (cu_seqlens) is not supported by the native kernels"
    if p.softcap > 0:
        return f"softcap {p.softcap} is not supported by the native kernels"
    if why := gqa_refusal(p):
        return why
    if why := stride_refusal(p, "the native kernels move 16-byte pieces"):
        return why
    if p.batch * p.heads_k >= 2**31 or math.ceil(p.seqlen_q * p.group_size / BM_PREFILL) > _GRID_Y_MAX:
        return f"the problem is too large for the native grid (batch * heads_k < 2^31, seqlen_q * group <= {_GRID_Y_MAX * BM_PREFILL})"
    if p.seqlen_q >= 2**30 or p.seqlen_k >= 2**30:
        return "sequence lengths must be below 2^30 for the native kernels"
    return None


def _arch_refusal(arch: str, accepted: tuple[str, ...]) -> str | None:
    if arch in accepted:
        return None
    if arch in TEST_ARCHES:
        return (f"{arch}: the portable family is the NVIDIA path; this family's CUDA build is a test vehicle "
                "for its shared logic (call plan() directly)")
    return f"arch {arch} is not supported (accepted: {', '.join(accepted)})"


def gate(problem: Problem, arch: str, compute_units: int | None = None) -> str | None:
    return _arch_refusal(canonical_arch(arch), ARCHES) or check_problem(problem)


def tiles(problem: Problem, arch: str) -> tuple[int, int]:
    """(BM, BN) of the producer that runs ``problem`` on ``arch``."""
    if problem.seqlen_q * problem.group_size <= DECODE_ROWS:
        return bm_decode(arch), BN_DECODE
    return BM_PREFILL, BN_PREFILL


def split_work(problem: Problem, arch: str) -> tuple[int, int]:
    """(work items, KV blocks) for dispatch's split heuristic: workgroups of one split, and
    the KV tiles a split count can divide."""
    bm, bn = tiles(problem, canonical_arch(arch))
    m_tiles = math.ceil(problem.seqlen_q * problem.group_size / bm)
    return problem.batch * problem.heads_k * m_tiles, max(1, math.ceil(problem.seqlen_k / bn))


def masked(problem: Problem, bn: int) -> bool:
    """True when some key of some tile is invisible to some row: causal, a window, or a tail."""
    return problem.causal or problem.window != (-1, -1) or problem.seqlen_k % bn != 0


def window(problem: Problem) -> tuple[int, int]:
    """(left, right), causal folded in (right <= 0), -1 = unbounded."""
    left, right = problem.window
    if problem.causal:
        right = 0 if right < 0 else min(right, 0)
    return left, right


def producer_name(problem: Problem, bm: int, bn: int) -> str:
    mask = "mask" if masked(problem, bn) else "nomask"
    return f"native_fwd_{problem.dtype}_d{problem.head_dim}_{mask}_m{bm}_n{bn}"


def workspace_bytes(problem: Problem, splits: int) -> int:
    """fp32 O partials [G][B][Hq][Sq][Dv] then LSE partials [G][B][Hq][Sq]; 0 unsplit."""
    if splits <= 1:
        return 0
    rows = problem.batch * problem.heads_q * problem.seqlen_q
    return 4 * splits * rows * (problem.head_dim_v + 1)


def plan(problem: Problem, arch: str, compute_units: int, num_splits: int) -> list[LaunchPlan]:
    """The producer (and, for num_splits >= 2, the combine) launches; pointer slots q, k, v,
    out, lse (0 when not wanted), workspace left unbound.  Accepts every arch the native
    kernels are built for, sm_90a / sm_80 included (see the module docstring)."""
    return plan_native(problem, arch, num_splits, BUILT_ARCHES)


def plan_native(problem: Problem, arch: str, num_splits: int, accepted: tuple[str, ...]) -> list[LaunchPlan]:
    arch = canonical_arch(arch)
    why = (None if arch in accepted else f"arch {arch} is not supported (accepted: {', '.join(accepted)})")
    why = why or check_problem(problem)
    if why:
        raise ValueError(f"native kernels cannot plan this problem: {why}")
    if num_splits < 1:
        raise ValueError(f"num_splits is {num_splits}; plan() takes the decided count, >= 1")
    if problem.seqlen_q == 0 or problem.batch == 0 or problem.heads_q == 0:
        return []
    bm, bn = tiles(problem, arch)
    kv_blocks = max(1, math.ceil(problem.seqlen_k / bn))
    splits = max(1, min(num_splits, MAX_SPLITS, kv_blocks))
    ext = "cubin" if arch_info(arch).platform == "nvidia" else "co"
    left, right = window(problem)
    fwd = _layout("native_fwd_args")
    values = dict.fromkeys(fwd.names, 0)
    values.update(
        batch=problem.batch, seqlen_q=problem.seqlen_q, seqlen_k=problem.seqlen_k,
        heads_q=problem.heads_q, heads_k=problem.heads_k, num_splits=splits,
        window_left=left, window_right=right, scale_log2=problem.softmax_scale * math.log2(math.e),
    )
    for name, strides in (("q", problem.q_strides), ("k", problem.k_strides), ("v", problem.v_strides),
                          ("o", problem.o_strides)):
        for axis, s in zip(("batch", "seq", "head"), strides):
            values[f"{name}_{axis}_stride"] = s
    ws = workspace_bytes(problem, splits)
    m_tiles = math.ceil(problem.seqlen_q * problem.group_size / bm)
    plans = [LaunchPlan(
        code_object=str(kernels_dir() / arch / f"native_fwd.{ext}"),
        kernel=producer_name(problem, bm, bn),
        grid=(problem.batch * problem.heads_k, m_tiles, splits),
        block=(threads(arch), 1, 1),
        shared_mem=0,                               # static LDS, in the code object
        kernargs=fwd.packer().pack(**values),
        workspace_bytes=ws,
        pointer_slots=_slots(fwd, _POINTERS),
    )]
    if splits > 1:
        comb = _layout("native_combine_args")
        cvalues = dict.fromkeys(comb.names, 0)
        cvalues.update(batch=problem.batch, seqlen_q=problem.seqlen_q, heads_q=problem.heads_q,
                       head_dim_v=problem.head_dim_v, num_splits=splits,
                       o_batch_stride=problem.o_strides[0], o_seq_stride=problem.o_strides[1],
                       o_head_stride=problem.o_strides[2])
        elements = problem.batch * problem.heads_q * problem.seqlen_q * problem.head_dim_v
        plans.append(LaunchPlan(
            code_object=str(kernels_dir() / arch / f"native_combine.{ext}"),
            kernel=f"native_combine_{problem.dtype}",
            grid=(math.ceil(elements / COMBINE_THREADS), 1, 1),
            block=(COMBINE_THREADS, 1, 1),
            shared_mem=0,
            kernargs=comb.packer().pack(**cvalues),
            workspace_bytes=ws,
            pointer_slots=_slots(comb, ("workspace", "out", "lse")),
        ))
    return plans


@lru_cache(maxsize=None)
def _layout(struct_name: str):
    from ..kernargs import layout_from_header

    return layout_from_header(_HEADER, struct_name)


def _slots(layout, names: tuple[str, ...]) -> tuple[tuple[str, int], ...]:
    return tuple((n, layout[n].offset) for n in names)

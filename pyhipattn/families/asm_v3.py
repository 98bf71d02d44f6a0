"""ASM v3: AITER's hand-written bf16 forward kernels for gfx942 / gfx950, found at run time.

The code objects are never bundled.  They come from an installed ``amd-aiter``
(``aiter_meta/hsa/<arch>/fmha_v3_fwd/``, located without importing aiter) or from
``AITER_ASM_DIR``, which may point at the ``hsa`` directory or, as AITER itself sets it, at
``hsa/<arch>/``.  Kernel arguments are packed by the names the object's metadata gives, so a
layout change in a later AITER is refused by name instead of launched wrong.

Facts used here (see notes/asm_v3.md), read from amd-aiter 0.1.7.post2.dev18 and ROCm/aiter:
- ``aiter_meta/csrc/include/mha_fwd.h``: ``struct fmha_fwd_v3_args`` (packed, every field padded
  to 16 bytes, 512 bytes; AITER's current ``csrc/include/mha_fwd.h`` appends fp8 descale
  pointers and strides: 656 bytes).
- ``aiter_meta/hsa/gfx942/fmha_v3_fwd/codegen.py`` and ``.../gfx950/fmha_v3_fwd/codegen.py``:
  ``fmha_fwd_v3_dispatcher`` / ``fmha_fwd_v3_group_dispatcher`` (what each field holds: strides
  are element strides * 2, i.e. bytes; ``lse_Hs`` = LSE head stride * 4; ``scalar`` = the plain
  softmax scale; ``msk_opt`` = 5, or 3 when causal and (hq % 8 != 0 or seqlen_q > 16384)), the
  launch (batch grid ``(ceil(ceil(sq / ts_qo) / tg), hq, b)``, group grid
  ``(hq, b, ceil(ceil(sq / ts_qo) / tg))``, tg = 2 when causal else 1, no dynamic LDS) and the
  gates of ``fmha_fwd_v3`` (bf16, no bias / dropout, mask none or bottom-right causal with
  window (-1, 0), LSE batch-major).
- ``aiter_meta/csrc/py_itfs_cu/asm_mha_fwd.cu`` / ``asm_mha_varlen_fwd.cu``: batch strides from
  BSHD tensors, LSE ``[b, hq, sq]`` (batch) / ``[hq, total_q]`` (varlen), and in group mode
  ``seqlen_q`` / ``seqlen_k`` = total_q / total_k with int32 ``cu_seqlens`` as ``ptr_qseq`` /
  ``ptr_kseq`` (the padding pointers repeat them).
- ``aiter/ops/mha.py`` (``_flash_attn_forward``): ASM v3 only when ``seqlen_q > 128`` in batch
  mode (query length; "prefer CK for decode"), hdim_v 128, hdim_q 128 (192 on gfx950),
  hq % hk == 0, no sliding window; the varlen path has no length condition.
Pointer fields are left as slots: ``q``, ``k``, ``v``, ``out``, ``lse`` (only with
``return_lse``) and, in group mode, ``cu_seqlens_q`` / ``cu_seqlens_k`` (int32, batch + 1).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import math
import os
import re
from functools import lru_cache
from pathlib import Path

from .. import codeobj
from ..arch import arch_info, canonical_arch
from ..codeobj.model import KernelInfo
from ..errors import CodeObjectError, KernargMismatchError, UnsupportedError
from ..kernargs import arg_packer, pack_by_names
from ..plan import LaunchPlan
from . import asm_v3_table as table
from .base import Problem, gqa_refusal

NAME = "asm_v3"
PRIORITY = 100          # above the portable family on the arches it runs on
ARCHES = ("gfx942", "gfx950")

#: Directory holding ``<arch>/fmha_v3_fwd/`` (or, AITER's own spelling, ``<arch>/`` itself).
ENV_ASM_DIR = "AITER_ASM_DIR"
#: gfx942 fp32 -> bf16 rounding: ``rtne`` (default), ``rtna``, ``rtz`` or AITER's 0 / 1 / 2.
ENV_BF16_CVT = "PYHIPATTN_ASM_V3_BF16_CVT"
DEFAULT_BF16_CVT = table.BF16_CVT["rtne"]

#: AITER (aiter/ops/mha.py) takes ASM v3 in batch mode only for seqlen_q > 128.
MIN_BATCH_SEQLEN_Q = 128

_ELEM = 2               # bytes per bf16 element: every stride field is in bytes
_LSE_ELEM = 4           # LSE is fp32
_U32_MAX = 2**32 - 1

#: Metadata argument -> pointer slot.  Group-mode sequence starts go to both the plain and
#: the "padding" pointer, as AITER does when no padded layout is given.
_POINTER_SLOTS = {
    "R": "out", "Q": "q", "K": "k", "V": "v", "LSE": "lse",
    "ptr_qseq": "cu_seqlens_q", "ptr_qseq_padding": "cu_seqlens_q",
    "ptr_kseq": "cu_seqlens_k", "ptr_kseq_padding": "cu_seqlens_k",
}
#: Arguments a later AITER adds for fp8 only; AITER fills them with null / 0 for bf16.
_ZERO_FOR_BF16 = re.compile(r".*descale.*")


# ----------------------------------------------------------------------------- finding objects

def find_asm_dir() -> Path | None:
    """The ``hsa`` directory (``<dir>/<arch>/fmha_v3_fwd/``) to load AITER's objects from.

    ``AITER_ASM_DIR`` first (the ``hsa`` dir, or an ``hsa/<arch>`` dir as ``import aiter``
    sets it: its parent is returned), then an installed ``amd-aiter``'s ``aiter_meta/hsa``.
    None when neither holds an ``fmha_v3_fwd`` directory.
    """
    env = os.environ.get(ENV_ASM_DIR)
    if env:
        d = Path(env).expanduser()
        if _holds_v3(d):
            return d.resolve()
        if (d / "fmha_v3_fwd").is_dir() and d.name.startswith("gfx"):
            return d.resolve().parent
    return _installed_hsa_dir()


def _holds_v3(hsa: Path) -> bool:
    return any((hsa / arch / "fmha_v3_fwd").is_dir() for arch in ARCHES)


@lru_cache(maxsize=1)
def _installed_hsa_dir() -> Path | None:
    """``aiter_meta/hsa`` of an installed amd-aiter, found without importing aiter."""
    candidates = []
    spec = importlib.util.find_spec("aiter_meta")   # a namespace package: imports nothing
    if spec is not None:
        candidates += [Path(p) / "hsa" for p in (spec.submodule_search_locations or ())]
    try:
        dist = importlib.metadata.distribution("amd-aiter")
    except importlib.metadata.PackageNotFoundError:
        pass
    else:
        candidates.append(Path(str(dist.locate_file("aiter_meta/hsa"))))
    for hsa in candidates:
        if _holds_v3(hsa):
            return hsa.resolve()
    return None


def bf16_cvt() -> int:
    """gfx942 rounding mode from ``PYHIPATTN_ASM_V3_BF16_CVT`` (AITER's how_v3_bf16_cvt).

    Raises ValueError naming the variable for a value outside rtne / rtna / rtz / 0 / 1 / 2.
    """
    raw = os.environ.get(ENV_BF16_CVT, "").strip().lower()
    if not raw:
        return DEFAULT_BF16_CVT
    if raw in table.BF16_CVT:
        return table.BF16_CVT[raw]
    if raw in ("0", "1", "2"):
        return int(raw)
    raise ValueError(f"{ENV_BF16_CVT}={raw!r}; accepted: rtne (0, default), rtna (1), rtz (2)")


def _subdirs(arch: str, compute_units: int | None) -> tuple[str, ...] | str:
    """Subfolders to look in, or the reason none fits the device."""
    if arch != "gfx942":
        return ("",)
    if compute_units is None:
        return table.GFX942_SUBDIRS
    sub = table.GFX942_SUBDIR_BY_CUS.get(compute_units)
    if sub is None:
        known = ", ".join(f"{cus} CUs -> {s}" for cus, s in table.GFX942_SUBDIR_BY_CUS.items())
        return (f"AITER has gfx942 ASM v3 objects tuned for {known}; this device has {compute_units} CUs")
    return (sub,)


def _variant(problem: Problem, arch: str) -> table.Variant | None:
    return table.lookup(arch, problem.head_dim, problem.head_dim_v, problem.causal, problem.varlen,
                        bf16_cvt() if arch == "gfx942" else DEFAULT_BF16_CVT)


# ----------------------------------------------------------------------------- gate

def gate(problem: Problem, arch: str, compute_units: int | None = None) -> str | None:
    """None when an AITER ASM v3 object can run ``problem`` on ``arch``, else why not.

    ``compute_units`` (optional) also checks that gfx942 has an object tuned for that CU count.
    """
    try:
        arch = canonical_arch(arch)
    except ValueError as e:
        return str(e)
    if arch not in ARCHES:
        return f"AITER's ASM v3 kernels exist for {' and '.join(ARCHES)} only; arch is {arch}"
    p = problem
    if p.dtype != "bf16":
        return f"AITER's ASM v3 forward kernels are bf16 only; dtype is {p.dtype}"
    if (p.head_dim, p.head_dim_v) not in table.head_dims(arch):
        ok = ", ".join(f"({dq}, {dv})" for dq, dv in table.head_dims(arch))
        return f"head dims (q/k {p.head_dim}, v {p.head_dim_v}) have no ASM v3 kernel on {arch}; accepted: {ok}"
    if p.softcap:
        return f"softcap={p.softcap}: the ASM v3 kernels have no logit soft-capping"
    if p.has_window:
        return f"window {p.window}: the ASM v3 kernels do no sliding window (only no mask or causal)"
    if why := gqa_refusal(p):
        return why
    if p.num_splits >= 2:
        return f"num_splits={p.num_splits}: the ASM v3 kernels do not split the KV sequence"
    if p.varlen:
        if p.total_q < 1 or p.total_k < 1:
            return f"varlen problem with total_q={p.total_q}, total_k={p.total_k}: both must be >= 1"
    else:
        # The query length, as AITER's batch path tests it; sk plays no part in this rule.
        if p.seqlen_q <= MIN_BATCH_SEQLEN_Q:
            return (f"seqlen_q is {p.seqlen_q}; ASM v3 is used for seqlen_q > {MIN_BATCH_SEQLEN_Q} only "
                    "(AITER leaves decode and short queries to other kernels)")
        if p.seqlen_k < 1:
            return f"seqlen_k is {p.seqlen_k}; the ASM v3 kernels need at least one key"
    try:
        variant = _variant(p, arch)
    except ValueError as e:
        return str(e)
    if variant is None:
        return f"AITER has no ASM v3 kernel for {arch} {p.head_dim}/{p.head_dim_v}"
    too_big = _stride_overflow(p, variant)
    if too_big:
        return too_big
    hsa = find_asm_dir()
    if hsa is None:
        return (f"no AITER ASM directory: install amd-aiter, or set {ENV_ASM_DIR} to its aiter_meta/hsa "
                "directory (holding <arch>/fmha_v3_fwd/)")
    subs = _subdirs(arch, compute_units)
    if isinstance(subs, str):
        return subs
    if not any(_object_path(hsa, arch, sub, variant).is_file() for sub in subs):
        where = " or ".join(str(_object_path(hsa, arch, sub, variant)) for sub in subs)
        return f"AITER ASM directory has no {variant.file_name} (looked for {where})"
    return None


def _stride_overflow(p: Problem, variant: table.Variant) -> str | None:
    """The kernel's stride fields are u32 byte counts: refuse what would wrap."""
    strides = _strides(p)
    for name, (b, s, h) in strides.items():
        for what, elems in (("batch", b), ("seq", s), ("head", h)):
            if elems * _ELEM > _U32_MAX:
                return (f"{name} {what} stride is {elems * _ELEM} bytes; the ASM v3 kernels take strides as "
                        "32-bit byte counts (< 4 GiB)")
    if variant.ts_qo * strides["q"][1] * _ELEM > _U32_MAX:
        return (f"q seq stride times the {variant.ts_qo}-row query tile exceeds the ASM v3 kernels' 32-bit "
                "byte offsets")
    return None


def _strides(p: Problem) -> dict[str, tuple[int, int, int]]:
    """Element strides (batch, seq, head) of q, k, v, out; contiguous BSHD when not given."""
    def default(seqlen: int, heads: int, dim: int) -> tuple[int, int, int]:
        return (0 if p.varlen else seqlen * heads * dim, heads * dim, dim)

    given = {"q": p.q_strides, "k": p.k_strides, "v": p.v_strides, "out": p.o_strides}
    shapes = {"q": (p.seqlen_q, p.heads_q, p.head_dim), "k": (p.seqlen_k, p.heads_k, p.head_dim),
              "v": (p.seqlen_k, p.heads_k, p.head_dim_v), "out": (p.seqlen_q, p.heads_q, p.head_dim_v)}
    return {n: (given[n] if any(given[n]) else default(*shapes[n])) for n in given}


def _object_path(hsa: Path, arch: str, sub: str, variant: table.Variant) -> Path:
    d = hsa / arch / "fmha_v3_fwd"
    return (d / sub if sub else d) / variant.file_name


# ----------------------------------------------------------------------------- planning

def plan(problem: Problem, arch: str, compute_units: int, num_splits: int = 1) -> list[LaunchPlan]:
    """One launch of the AITER object that fits ``problem``; pointer fields left as slots.

    Raises UnsupportedError with the gate's reason, CodeObjectError / KernargMismatchError
    naming the file when the object is unreadable or its arguments are not the ones expected.
    """
    arch = canonical_arch(arch)
    compute_units = compute_units or (arch_info(arch).default_cus if arch in ARCHES else None)
    why = gate(problem, arch, compute_units)
    if why is not None:
        raise UnsupportedError(f"{NAME}: {why}")
    if num_splits not in (0, 1):
        raise ValueError(f"num_splits={num_splits}: the {NAME} family does not split the KV sequence")
    variant = _variant(problem, arch)
    (sub,) = _subdirs(arch, compute_units)
    path = _object_path(find_asm_dir(), arch, sub, variant)
    kernel = _kernel(str(path), arch, variant.symbol)
    kernargs, slots = pack_kernargs(problem, kernel, variant, str(path))
    block = kernel.reqd_workgroup_size or (variant.threads, 1, 1)
    return [LaunchPlan(code_object=str(path), kernel=variant.symbol, grid=grid(problem, variant),
                       block=block, shared_mem=0, kernargs=kernargs, pointer_slots=slots)]


def grid(problem: Problem, variant: table.Variant) -> tuple[int, int, int]:
    """AITER's launch grid.  Causal kernels pair a head and a tail query tile per workgroup."""
    pair = 2 if problem.causal else 1
    rows = problem.total_q if problem.varlen else problem.seqlen_q
    tiles = math.ceil(math.ceil(rows / variant.ts_qo) / pair)
    if problem.varlen:
        return (problem.heads_q, problem.batch, tiles)
    return (tiles, problem.heads_q, problem.batch)


def kernarg_values(problem: Problem, variant: table.Variant) -> dict[str, int | float]:
    """Values of the named kernel arguments (metadata names); pointers are 0 (slots)."""
    p = problem
    st = _strides(p)
    rows_q = p.total_q if p.varlen else p.seqlen_q      # AITER group mode: a.seqlen_q = total_q
    rows_k = p.total_k if p.varlen else p.seqlen_k
    opt = 5
    if p.causal and (p.heads_q % 8 or rows_q > 16384):
        opt -= 2                                       # AITER's tune_opt downgrade
    values: dict[str, int | float] = {name: 0 for name in _POINTER_SLOTS}
    values.update({
        "scalar": float(p.softmax_scale),
        "seq_len": rows_q,
        "Seqs": st["q"][1] * _ELEM, "Ts": variant.ts_qo * st["q"][1] * _ELEM,
        "Hs": st["q"][2] * _ELEM, "Bs": st["q"][0] * _ELEM,
        "gqa": p.heads_q // p.heads_k,
        "k_Seqs": st["k"][1] * _ELEM, "k_Hs": st["k"][2] * _ELEM, "k_Bs": st["k"][0] * _ELEM,
        "msk_opt": opt,
        "lse": 1 if p.return_lse else 0,
        "kv_seq_len": rows_k,
        "qk_head_dim": p.head_dim, "v_head_dim": p.head_dim_v, "q_head_num": p.heads_q,
        "v_Seqs": st["v"][1] * _ELEM, "v_Hs": st["v"][2] * _ELEM, "v_Bs": st["v"][0] * _ELEM,
        "r_Seqs": st["out"][1] * _ELEM, "r_Hs": st["out"][2] * _ELEM, "r_Bs": st["out"][0] * _ELEM,
        # LSE is [b, hq, sq] (batch) or [hq, total_q] (varlen), fp32: its head stride is rows_q.
        "lse_Hs": rows_q * _LSE_ELEM if p.return_lse else 0,
    })
    return values


def pack_kernargs(problem: Problem, kernel: KernelInfo, variant: table.Variant,
                  source: str) -> tuple[bytes, tuple[tuple[str, int], ...]]:
    """Kernarg bytes (``kernel.kernarg_size`` long) and pointer slots, by metadata names.

    Raises KernargMismatchError naming ``source`` when the metadata lacks a name asm_v3 needs,
    carries one it does not know, or gives a known name another size.
    """
    values = kernarg_values(problem, variant)
    names = arg_packer(kernel).names
    args = {a.name: a for a in kernel.explicit_args if a.name in values}
    where = f"{source}: kernel {kernel.name}"
    missing = [n for n in values if n not in args]
    if missing:
        raise KernargMismatchError(f"{where}: its metadata lacks {', '.join(map(repr, missing))}; the {NAME} "
                                   f"family needs {', '.join(values)} (an AITER layout it does not know)")
    for n in names:
        if n not in values:
            if not _ZERO_FOR_BF16.fullmatch(n):
                raise KernargMismatchError(f"{where}: its metadata has argument {n!r}, which the {NAME} family "
                                           "does not know how to fill (an AITER layout it does not know)")
            values[n] = 0
    wrong = [f"{n} ({a.size} bytes, {a.kind})" for n, a in args.items()
             if (a.size, a.kind == "global_buffer") != ((8, True) if n in _POINTER_SLOTS else (4, False))]
    if wrong:
        raise KernargMismatchError(f"{where}: unexpected argument sizes {', '.join(wrong)}; pointers must be "
                                   "8-byte global buffers, scalars 4 bytes")
    buf = pack_by_names(kernel, values)
    if len(buf) != kernel.kernarg_size:
        raise KernargMismatchError(f"{where}: packed {len(buf)} bytes, metadata says .kernarg_segment_size "
                                   f"{kernel.kernarg_size}")
    used = {"q", "k", "v", "out"}
    if problem.return_lse:
        used.add("lse")
    if problem.varlen:
        used |= {"cu_seqlens_q", "cu_seqlens_k"}
    slots = tuple((_POINTER_SLOTS[n], a.offset) for n, a in args.items()
                  if n in _POINTER_SLOTS and _POINTER_SLOTS[n] in used)
    return buf, slots


@lru_cache(maxsize=64)
def _kernel_cached(path: str, arch: str, symbol: str, stamp: tuple[int, int]) -> KernelInfo:
    co = codeobj.read_for_arch(path, arch)
    kernel = co.kernels.get(symbol)
    if kernel is None:
        raise CodeObjectError(f"{path} has no kernel {symbol}; it has: {', '.join(sorted(co.kernels)) or 'none'}")
    return kernel


def _kernel(path: str, arch: str, symbol: str) -> KernelInfo:
    """The kernel's metadata, parsed once per file version."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise CodeObjectError(f"{path}: cannot read code object ({e.strerror or e})") from None
    return _kernel_cached(path, arch, symbol, (st.st_mtime_ns, st.st_size))

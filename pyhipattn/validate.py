"""Argument checks for mha_fwd / mha_varlen_fwd, turning tensor views into a Problem.

Every check raises an exception that names the argument, what was wrong and what is
accepted.  Nothing here touches device memory or a driver: views carry shapes, strides,
dtypes and devices only.  The one exception is opt-in: ``validate_cu_seqlens`` reads the
cu_seqlens back to the host (a stream synchronisation) to check their values.
"""

from __future__ import annotations

import math

from .families.base import Problem

DTYPES = ("bf16", "fp16")
MAX_HEAD_DIM = 256
INT32_MAX = 2**31 - 1


def _check_dtype(name: str, view, dtype: str) -> None:
    if view.dtype not in DTYPES:
        raise TypeError(f"{name} has dtype {view.dtype}; accepted: bf16, fp16")
    if view.dtype != dtype:
        raise TypeError(f"{name} has dtype {view.dtype} but q has {dtype}; q, k and v must share one dtype")


def _check_rank(name: str, view, rank: int, layout: str) -> None:
    if len(view.shape) != rank:
        raise ValueError(f"{name} has shape {tuple(view.shape)}; expected {rank} dims {layout}")


def _check_last_contiguous(name: str, view) -> None:
    if view.shape[-1] > 1 and view.strides[-1] != 1:
        raise ValueError(f"{name} has stride {view.strides[-1]} in its last dim; the head dim must be contiguous (stride 1)")


def check_devices(views: dict, device_types: tuple[int, ...]) -> int:
    """All views on one GPU of the platform; returns its device id."""
    first_name, first = next(iter(views.items()))
    for name, v in views.items():
        if v.device_type not in device_types:
            kind = "the CPU" if v.device_type in (1, 3) else f"device type {v.device_type}"
            raise ValueError(f"{name} is on {kind}; pyhipattn needs GPU arrays (DLPack device type {' or '.join(map(str, device_types))})")
        if v.device_id != first.device_id:
            raise ValueError(f"{name} is on GPU {v.device_id} but {first_name} is on GPU {first.device_id}; all arrays must be on one GPU")
    return first.device_id


def normalize_scale(softmax_scale, head_dim: int) -> float:
    if softmax_scale is None:
        return 1.0 / math.sqrt(head_dim)
    try:
        s = float(softmax_scale)
    except (TypeError, ValueError):
        raise TypeError(f"softmax_scale is {softmax_scale!r}; accepted: None or a finite float >= 0") from None
    if not math.isfinite(s) or s < 0:
        raise ValueError(f"softmax_scale is {s}; accepted: None (1/sqrt(head_dim)) or a finite float >= 0")
    return s


def normalize_window(window_size, causal: bool) -> tuple[int, int]:
    try:
        left, right = (int(x) for x in window_size)
    except (TypeError, ValueError):
        raise TypeError(f"window_size is {window_size!r}; accepted: a pair (left, right) of ints, -1 = unbounded") from None
    if left < -1 or right < -1:
        raise ValueError(f"window_size is {(left, right)}; each side must be >= -1 (-1 = unbounded)")
    if causal:
        right = 0 if right < 0 else min(right, 0)
    return left, right


def normalize_softcap(softcap) -> float:
    c = float(softcap)
    if not math.isfinite(c) or c < 0:
        raise ValueError(f"softcap is {softcap}; accepted: 0 (off) or a finite float > 0")
    return c


def normalize_splits(num_splits) -> int:
    if not isinstance(num_splits, int) or isinstance(num_splits, bool):
        raise TypeError(f"num_splits is {num_splits!r}; accepted: an int (0 heuristic, 1 never split, >= 2 force)")
    if num_splits < 0:
        raise ValueError(f"num_splits is {num_splits}; accepted: 0 (heuristic), 1 (never split), >= 2 (force)")
    return num_splits


def check_sinks(view, heads_q: int, name: str = "sinks") -> bool:
    """``sinks``: float32 ``(heads_q,)`` contiguous, or None; True when given."""
    if view is None:
        return False
    if view.dtype != "fp32" or tuple(view.shape) != (heads_q,):
        raise ValueError(f"{name} has dtype {view.dtype} and shape {tuple(view.shape)}; expected float32 ({heads_q},), "
                         "one logit per query head")
    if heads_q > 1 and view.strides[-1] != 1:
        raise ValueError(f"{name} must be contiguous (stride {view.strides[-1]} given)")
    return True


def alibi_mode(view, batch: int, heads_q: int, name: str = "alibi_slopes") -> int:
    """0 without slopes, 1 for ``(heads_q,)``, 2 for ``(batch, heads_q)`` float32 slopes."""
    if view is None:
        return 0
    if view.dtype != "fp32":
        raise TypeError(f"{name} has dtype {view.dtype}; accepted: float32")
    if tuple(view.shape) == (heads_q,):
        if heads_q > 1 and view.strides[-1] != 1:
            raise ValueError(f"{name} must be contiguous (stride {view.strides[-1]} given)")
        return 1
    if tuple(view.shape) == (batch, heads_q):
        if tuple(view.strides) != (heads_q, 1):
            raise ValueError(f"{name} must be contiguous (strides {tuple(view.strides)} given)")
        return 2
    raise ValueError(f"{name} has shape {tuple(view.shape)}; expected ({heads_q},) or ({batch}, {heads_q})")


def with_serving(problem: Problem, views: dict) -> Problem:
    """``problem`` with the sinks / ALiBi of ``views`` (keys ``sinks``, ``alibi``) checked and recorded."""
    from dataclasses import replace

    sinks = check_sinks(views.get("sinks"), problem.heads_q)
    alibi = alibi_mode(views.get("alibi"), problem.batch, problem.heads_q)
    if not (sinks or alibi):
        return problem
    return replace(problem, sinks=sinks, alibi=alibi)


def _check_head_dims(d: int, dv: int) -> None:
    for name, x in (("q/k head dim", d), ("v head dim", dv)):
        if not 1 <= x <= MAX_HEAD_DIM:
            raise ValueError(f"{name} is {x}; accepted: 1..{MAX_HEAD_DIM}")


def batch_problem(q, k, v, *, softmax_scale, causal, window_size, softcap, return_lse, num_splits) -> Problem:
    """Check BSHD views q ``(b, sq, hq, d)``, k ``(b, sk, hk, d)``, v ``(b, sk, hk, dv)``."""
    for name, view in (("q", q), ("k", k), ("v", v)):
        _check_rank(name, view, 4, "(batch, seqlen, heads, head_dim)")
    _check_common(q, k, v, batch_axes=1)
    b, sq, hq, d = q.shape
    sk, hk, dv = k.shape[1], k.shape[2], v.shape[3]
    return Problem(
        batch=b, seqlen_q=sq, seqlen_k=sk, heads_q=hq, heads_k=hk, head_dim=d, head_dim_v=dv,
        dtype=q.dtype, softmax_scale=normalize_scale(softmax_scale, d), causal=bool(causal),
        window=normalize_window(window_size, causal), softcap=normalize_softcap(softcap),
        return_lse=bool(return_lse), num_splits=normalize_splits(num_splits),
        q_strides=tuple(q.strides[:3]), k_strides=tuple(k.strides[:3]), v_strides=tuple(v.strides[:3]),
        o_strides=(sq * hq * dv, hq * dv, dv),
    )


def varlen_problem(q, k, v, cu_q, cu_k, max_seqlen_q: int, max_seqlen_k: int, *, softmax_scale, causal,
                   window_size, softcap, return_lse, num_splits) -> Problem:
    """Check packed views q ``(total_q, hq, d)``, k ``(total_k, hk, d)``, v ``(total_k, hk, dv)``
    and cu_seqlens views ``(batch + 1,)`` int32."""
    for name, view in (("q", q), ("k", k), ("v", v)):
        _check_rank(name, view, 3, "(total_tokens, heads, head_dim)")
    for name, view in (("cu_seqlens_q", cu_q), ("cu_seqlens_k", cu_k)):
        _check_rank(name, view, 1, "(batch + 1,)")
        if view.dtype != "int32":
            raise TypeError(f"{name} has dtype {view.dtype}; accepted: int32")
        if view.shape[0] > 1 and view.strides[0] != 1:
            raise ValueError(f"{name} must be contiguous")
    if cu_q.shape[0] != cu_k.shape[0] or cu_q.shape[0] < 1:
        raise ValueError(f"cu_seqlens_q has {cu_q.shape[0]} entries and cu_seqlens_k {cu_k.shape[0]}; both need batch + 1 >= 1")
    for name, x in (("max_seqlen_q", max_seqlen_q), ("max_seqlen_k", max_seqlen_k)):
        if not isinstance(x, int) or x < 0:
            raise ValueError(f"{name} is {x!r}; accepted: an int >= 0 (the longest sequence)")
    _check_common(q, k, v, batch_axes=0)
    tq, hq, d = q.shape
    tk, hk, dv = k.shape[0], k.shape[1], v.shape[2]
    for name, total in (("q", tq), ("k", tk)):
        if total > INT32_MAX:   # the cu_seqlens are int32: more tokens cannot be addressed
            raise ValueError(f"{name} has {total} tokens; int32 cu_seqlens address at most {INT32_MAX}")
    return Problem(
        batch=cu_q.shape[0] - 1, seqlen_q=max_seqlen_q, seqlen_k=max_seqlen_k, heads_q=hq, heads_k=hk,
        head_dim=d, head_dim_v=dv, dtype=q.dtype, softmax_scale=normalize_scale(softmax_scale, d),
        causal=bool(causal), window=normalize_window(window_size, causal), softcap=normalize_softcap(softcap),
        return_lse=bool(return_lse), num_splits=normalize_splits(num_splits), varlen=True, total_q=tq, total_k=tk,
        q_strides=(0,) + tuple(q.strides[:2]), k_strides=(0,) + tuple(k.strides[:2]),
        v_strides=(0,) + tuple(v.strides[:2]), o_strides=(0, hq * dv, dv),
    )


def _check_common(q, k, v, batch_axes: int) -> None:
    """Shared checks of the batch and varlen forms (batch_axes = 1 for BSHD, 0 for packed)."""
    dtype = q.dtype
    for name, view in (("q", q), ("k", k), ("v", v)):
        _check_dtype(name, view, dtype)
        _check_last_contiguous(name, view)
    if batch_axes and not (q.shape[0] == k.shape[0] == v.shape[0]):
        raise ValueError(f"batch sizes differ: q {q.shape[0]}, k {k.shape[0]}, v {v.shape[0]}")
    seq, heads = batch_axes, batch_axes + 1
    if k.shape[seq] != v.shape[seq]:
        raise ValueError(f"k has {k.shape[seq]} tokens and v {v.shape[seq]}; they must match")
    hq, hk, hv = q.shape[heads], k.shape[heads], v.shape[heads]
    if hk != hv:
        raise ValueError(f"k has {hk} heads and v {hv}; they must match")
    if hk == 0 or hq % hk:
        raise ValueError(f"k has {hk} heads, which does not divide q's {hq} heads (GQA needs hq % hk == 0)")
    d, dk = q.shape[-1], k.shape[-1]
    if d != dk:
        raise ValueError(f"q has head dim {d} and k {dk}; they must match")
    _check_head_dims(d, v.shape[-1])


def check_out(out, shape: tuple[int, ...], dtype: str, device_id: int, device_types: tuple[int, ...], name: str = "out") -> None:
    """``out=`` must have exactly the output's shape and dtype, be compact-in-head-dim and on
    the inputs' GPU."""
    if tuple(out.shape) != tuple(shape):
        raise ValueError(f"{name} has shape {tuple(out.shape)}; expected {tuple(shape)}")
    if out.dtype != dtype:
        raise TypeError(f"{name} has dtype {out.dtype}; expected {dtype}")
    check_devices({"q": _DeviceOnly(device_types[0], device_id), name: out}, device_types)
    expected = _compact(shape)
    if tuple(out.strides) != expected and math.prod(shape) > 0:
        raise ValueError(f"{name} has strides {tuple(out.strides)}; expected a contiguous array (strides {expected})")


def check_cu_seqlens(name: str, values, total: int, max_seqlen: int | None = None) -> None:
    """Check host values of one cu_seqlens array: starts at 0, never decreases, ends at ``total``
    (the packed array's token count), and no sequence is longer than ``max_seqlen`` (a longer
    one would leave rows of the output unwritten)."""
    values = [int(x) for x in values]
    if not values:
        raise ValueError(f"{name} is empty; it needs batch + 1 >= 1 entries")
    if values[0] != 0:
        raise ValueError(f"{name}[0] is {values[0]}; cu_seqlens are prefix sums starting at 0")
    for i in range(1, len(values)):
        if values[i] < values[i - 1]:
            raise ValueError(f"{name}[{i}] = {values[i]} is less than {name}[{i - 1}] = {values[i - 1]}; "
                             "cu_seqlens must be sorted (non-decreasing prefix sums)")
    if values[-1] != total:
        raise ValueError(f"{name}[-1] is {values[-1]} but the packed array has {total} tokens; they must be equal")
    if max_seqlen is not None:
        longest = max((b - a for a, b in zip(values, values[1:])), default=0)
        if longest > max_seqlen:
            i = next(i for i in range(len(values) - 1) if values[i + 1] - values[i] == longest)
            raise ValueError(f"sequence {i} of {name} has {longest} tokens, more than max_seqlen "
                             f"{max_seqlen}; pass the longest length (rows beyond it would not be computed)")


def validate_cu_seqlens(cu_seqlens_q, cu_seqlens_k, total_q: int, total_k: int, *,
                        max_seqlen_q: int | None = None, max_seqlen_k: int | None = None, stream=None) -> None:
    """Check cu_seqlens_q / cu_seqlens_k (see ``check_cu_seqlens``) by reading a host copy.

    The arrays may be GPU arrays (torch, cupy, jax, any DLPack producer; int32, 1-D), host arrays
    or sequences of ints.  Reading GPU memory synchronises: the copy is queued on ``stream`` (None:
    the array's framework's current stream, else the default stream) and waited for, so this is
    the opt-in check of ``mha_varlen_fwd(check_inputs=True)``, never done per call by default,
    and not usable under graph capture.  Raises ValueError naming the array and the entry.
    """
    q = _host_ints(cu_seqlens_q, "cu_seqlens_q", stream)
    k = _host_ints(cu_seqlens_k, "cu_seqlens_k", stream)
    if len(q) != len(k):
        raise ValueError(f"cu_seqlens_q has {len(q)} entries and cu_seqlens_k {len(k)}; both need batch + 1")
    check_cu_seqlens("cu_seqlens_q", q, total_q, max_seqlen_q)
    check_cu_seqlens("cu_seqlens_k", k, total_k, max_seqlen_k)


def _host_ints(obj, name: str, stream) -> list[int]:
    """Values of a 1-D int32 array as a list (a device-to-host copy for GPU arrays)."""
    if not (hasattr(obj, "__dlpack__") or type(obj).__module__.split(".", 1)[0] in ("torch", "cupy")):
        return [int(x) for x in obj]
    import ctypes
    import struct

    from .dlpack import view

    tv = view(obj, argname=name)
    if len(tv.shape) != 1 or tv.dtype != "int32":
        raise TypeError(f"{name} has shape {tuple(tv.shape)} and dtype {tv.dtype}; expected a 1-D int32 array")
    n = tv.shape[0]
    if n and tv.strides[0] != 1:
        raise ValueError(f"{name} must be contiguous")
    if n == 0:
        return []
    if tv.device_type in (1, 3, 11):       # host memory (CPU, CUDA / ROCm pinned host)
        raw = ctypes.string_at(tv.ptr, 4 * n)
    else:
        from .runtime import get_backend, memory, streams
        from .runtime.base import on_device

        handle = streams.resolve(stream, like=obj, device=tv.device_id)
        with on_device(get_backend(), tv.device_id):
            raw = memory.copy_to_host(tv.ptr, 4 * n, handle)
    del tv
    return list(struct.unpack(f"<{n}i", raw))


#: dtype spellings users type, as pyhipattn names them
DTYPE_ALIASES = {"bf16": "bf16", "bfloat16": "bf16", "fp16": "fp16", "float16": "fp16", "half": "fp16", "f16": "fp16"}


def plan_dtype(dtype) -> str:
    """``"bf16"`` / ``"fp16"`` from the spellings users type: those names, ``"bfloat16"``,
    ``"float16"``, numpy / ml_dtypes dtypes, torch dtypes; TypeError otherwise."""
    text = str(dtype).lower().removeprefix("torch.")
    if "'" in text:                                  # <class 'numpy.float16'>
        text = text.split("'")[1].rsplit(".", 1)[-1]
    if text not in DTYPE_ALIASES:
        try:                                         # np.dtype("float16"), ml_dtypes.bfloat16, ...
            import numpy as np

            text = np.dtype(dtype).name
        except TypeError:
            pass
    if text not in DTYPE_ALIASES:
        raise TypeError(f"dtype is {dtype!r}; accepted: bf16, fp16 (or bfloat16, float16, numpy / torch dtypes)")
    return DTYPE_ALIASES[text]


def plan_shape(name: str, shape, rank: int, layout: str, min_extent=1) -> tuple[int, ...]:
    """A planning shape: a sequence of ``rank`` ints (bools and floats refused), each at least
    ``min_extent`` (an int, or a per-axis tuple); ValueError / TypeError naming ``name``."""
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError(f"{name} is {shape!r}; accepted: a shape tuple {layout}") from None
    if len(dims) != rank:
        raise ValueError(f"{name} is {dims}; accepted: {rank} dimensions {layout}")
    out = []
    mins = min_extent if isinstance(min_extent, tuple) else (min_extent,) * rank
    for i, x in enumerate(dims):
        if isinstance(x, bool) or not hasattr(x, "__index__"):
            raise TypeError(f"{name} is {dims}; dimension {i} ({x!r}) is not an int")
        x = int(x.__index__())
        if x < mins[i]:
            raise ValueError(f"{name} is {dims}; dimension {i} is {x}, accepted: >= {mins[i]} {layout}")
        out.append(x)
    return tuple(out)


def plan_int(name: str, x, minimum: int, what: str) -> int:
    """One planning integer (bools and floats refused) of at least ``minimum``."""
    if isinstance(x, bool) or not hasattr(x, "__index__") or int(x.__index__()) < minimum:
        raise ValueError(f"{name} is {x!r}; accepted: an int >= {minimum} ({what})")
    return int(x.__index__())


def plan_compute_units(compute_units) -> int | None:
    if compute_units is None:
        return None
    if isinstance(compute_units, bool) or not hasattr(compute_units, "__index__") or int(compute_units) < 1:
        raise ValueError(f"compute_units is {compute_units!r}; accepted: None (the arch's part) or an int >= 1")
    return int(compute_units)


class ShapeView:
    """Shape, dtype and compact strides of an array that does not exist (planning without a GPU)."""

    device_type, device_id, ptr = 0, 0, 0

    def __init__(self, shape, dtype: str) -> None:
        self.shape = tuple(int(x) for x in shape)
        self.dtype = dtype
        self.strides = _compact(self.shape)


class _DeviceOnly:
    def __init__(self, device_type: int, device_id: int) -> None:
        self.device_type, self.device_id = device_type, device_id


def _compact(shape) -> tuple[int, ...]:
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= max(n, 1)
    return tuple(reversed(strides))

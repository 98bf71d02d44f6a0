"""``mha_fwd_kvcache``: attention over KV caches, FlashAttention's ``flash_attn_with_kvcache``.

    out = mha_fwd_kvcache(q, k_cache, v_cache, cache_seqlens=lens, block_table=table,
                          k_new=k, v_new=v, causal=True, sinks=sinks)

Caches are contiguous ``(batch, seqlen_cache, heads_k, d)`` or paged ``(num_blocks,
block_size, heads_k, d)`` with ``block_table (batch, max_blocks)`` int32; ``cache_seqlens``
(int32 ``(batch,)``) stays on the GPU and is never read by the host (unless
``check_inputs=True``).  ``k_new`` / ``v_new`` are written into the caches at
``cache_seqlens[b]`` in the same call (the caller advances ``cache_seqlens`` afterwards, as with
FlashAttention).  Differences from FlashAttention: no ``cache_batch_idx`` (contiguous caches have
exactly ``batch`` rows), no rotary embedding, block sizes must be multiples of 16, head dims
multiples of 8 up to 256 (caches cannot be padded in place).

Every shape, dtype and block-size rule is checked before anything is launched;
``check_inputs=True`` also reads host copies of ``cache_seqlens`` and ``block_table`` (a stream
synchronisation: not under graph capture) and checks block ids and lengths against the cache.
"""

from __future__ import annotations

from . import percall, validate
from .dlpack import view
from .families import serve
from .families.base import Problem
from .runtime.base import on_device

SERVING_SLOTS = ("cache_seqlens", "block_table", "k_new", "v_new", "sinks", "alibi")


def mha_fwd_kvcache(q, k_cache, v_cache, *, cache_seqlens=None, block_table=None, k_new=None, v_new=None,
                    softmax_scale: float | None = None, causal: bool = False, window_size: tuple[int, int] = (-1, -1),
                    softcap: float = 0.0, sinks=None, alibi_slopes=None, return_lse: bool = False, num_splits: int = 0,
                    out=None, stream=None, check_inputs: bool = False):
    """Attention of q over KV caches (see the module docstring for the layouts).

    q: ``(batch, seqlen_q, heads_q, head_dim)`` bf16/fp16 (decode seqlen_q = 1, speculative
    decode and chunked prefill more); the queries are the last seqlen_q positions of each
    sequence, whose length is ``cache_seqlens[b] + seqlen_new`` (``seqlen_cache`` or the block
    table's capacity when cache_seqlens is None).  sinks: float32 ``(heads_q,)``; alibi_slopes:
    float32 ``(heads_q,)`` or ``(batch, heads_q)``.  Other arguments as ``mha_fwd``.

    Returns out ``(batch, seqlen_q, heads_q, head_dim_v)`` [, lse float32 ``(batch, heads_q,
    seqlen_q)``] in q's framework.
    """
    backend = percall.backend()
    arrays = {"q": q, "k_cache": k_cache, "v_cache": v_cache, "cache_seqlens": cache_seqlens,
              "block_table": block_table, "k_new": k_new, "v_new": v_new, "sinks": sinks,
              "alibi_slopes": alibi_slopes}
    views = {n: view(a, argname=n) for n, a in arrays.items() if a is not None}
    device = validate.check_devices(views, (backend.dlpack_device_type,))
    problem = kvcache_problem(views, softmax_scale=softmax_scale, causal=causal, window_size=window_size,
                              softcap=softcap, return_lse=return_lse, num_splits=num_splits)
    if check_inputs:
        check_cache_values(problem, views, cache_seqlens, block_table, stream)
    p = problem
    out_shape = (p.batch, p.seqlen_q, p.heads_q, p.head_dim_v)
    return _execute(backend, problem, views, device, q, out, (out_shape, (p.batch, p.heads_q, p.seqlen_q)), stream)


def _execute(backend, problem: Problem, views: dict, device: int, like, out, shapes, stream):
    """Run the call with ``device`` current; the caller's device is current again after it
    (module loads, scratch and output allocations make the kernels' device current)."""
    with on_device(backend, device):
        dtype = views["q"].dtype
        if out is not None:
            percall.bind_out(backend, views, out, shapes[0], dtype, device)
        percall.check_alignment({"q": views["q"], "k": views["k_cache"], "v": views["v_cache"], "out": views.get("out")})
        prep = percall.prepared(backend, problem, device)
        handle = percall.stream_for(backend, stream, like, device, "q, k_cache, v_cache")
        out_obj, out_ptr, lse_obj, lse_ptr = percall.outputs_for(like, out, views, shapes, dtype, device, handle,
                                                                 problem.return_lse)
        ptr = {n: v.ptr for n, v in views.items()}
        values = (ptr["q"], ptr["k_cache"], ptr["v_cache"], out_ptr, lse_ptr, 0, 0)
        extra = tuple(ptr.get("alibi_slopes" if n == "alibi" else n, 0) for n in SERVING_SLOTS)
        capturing = bool(prep.workspace_bytes) and backend.stream_is_capturing(handle, device)
        percall.launch(prep, values, handle, like, capturing, extra)
        return percall.results(out_obj, lse_obj, handle, problem.return_lse)


# ---- the checks --------------------------------------------------------------------------------

def _rank(name: str, v, rank: int, layout: str) -> None:
    if len(v.shape) != rank:
        raise ValueError(f"{name} has shape {tuple(v.shape)}; expected {rank} dims {layout}")


def _contiguous(name: str, v) -> None:
    if v.shape and v.shape[-1] > 1 and v.strides[-1] != 1:
        raise ValueError(f"{name} must be contiguous in its last dim (stride {v.strides[-1]} given)")


def _i32_vector(name: str, v, n: int) -> None:
    if v.dtype != "int32":
        raise TypeError(f"{name} has dtype {v.dtype}; accepted: int32")
    if tuple(v.shape) != (n,):
        raise ValueError(f"{name} has shape {tuple(v.shape)}; expected ({n},), one entry per sequence")
    _contiguous(name, v)


def kvcache_problem(views: dict, *, softmax_scale, causal, window_size, softcap, return_lse, num_splits) -> Problem:
    """Check the views of an ``mha_fwd_kvcache`` call and describe it as a Problem."""
    q, kc, vc = views["q"], views["k_cache"], views["v_cache"]
    _rank("q", q, 4, "(batch, seqlen_q, heads_q, head_dim)")
    validate._check_dtype("q", q, q.dtype)
    validate._check_last_contiguous("q", q)
    for name, c in (("k_cache", kc), ("v_cache", vc)):
        _rank(name, c, 4, "(batch, seqlen_cache, heads_k, head_dim) or paged (num_blocks, block_size, heads_k, head_dim)")
        validate._check_dtype(name, c, q.dtype)
        validate._check_last_contiguous(name, c)
    b, sq, hq, d = q.shape
    n0, s0, hk, dk = kc.shape
    dv = vc.shape[3]
    if tuple(vc.shape[:3]) != tuple(kc.shape[:3]):
        raise ValueError(f"v_cache has shape {tuple(vc.shape)} but k_cache {tuple(kc.shape)}; they must match but "
                         "for the last dim")
    if dk != d:
        raise ValueError(f"q has head dim {d} and k_cache {dk}; they must match")
    if hk == 0 or hq % hk:
        raise ValueError(f"k_cache has {hk} heads, which does not divide q's {hq} heads (GQA needs hq % hk == 0)")
    for name, x in (("head_dim", d), ("head_dim_v", dv)):
        if not 8 <= x <= validate.MAX_HEAD_DIM or x % 8:
            raise ValueError(f"{name} is {x}; KV caches need a multiple of 8 in 8..{validate.MAX_HEAD_DIM} "
                             "(a cache cannot be padded in place)")
    bt = views.get("block_table")
    if bt is None:
        if n0 != b:
            raise ValueError(f"k_cache holds {n0} sequences but q has batch {b}; a contiguous cache needs one row "
                             "per sequence (cache_batch_idx is not supported)")
        layout, page, capacity, bt_stride = "cache", 0, s0, 0
    else:
        _rank("block_table", bt, 2, "(batch, max_blocks)")
        if bt.dtype != "int32":
            raise TypeError(f"block_table has dtype {bt.dtype}; accepted: int32")
        if bt.shape[0] != b:
            raise ValueError(f"block_table has {bt.shape[0]} rows but q has batch {b}; one row per sequence")
        _contiguous("block_table", bt)
        if s0 < serve.PAGE_MULTIPLE or s0 % serve.PAGE_MULTIPLE:
            raise ValueError(f"block size {s0} (k_cache.shape[1]) is not supported; accepted: multiples of "
                             f"{serve.PAGE_MULTIPLE} (16, 32, 64, 128, 256, ...)")
        layout, page, capacity, bt_stride = "paged", s0, bt.shape[1] * s0, bt.strides[0]
    lens = views.get("cache_seqlens")
    if lens is not None:
        _i32_vector("cache_seqlens", lens, b)
    kn, vn = views.get("k_new"), views.get("v_new")
    if (kn is None) != (vn is None):
        raise ValueError("pass k_new and v_new together (the new tokens' keys and values)")
    n_new = 0
    if kn is not None:
        if lens is None:
            raise ValueError("k_new / v_new need cache_seqlens: the new tokens are written at cache_seqlens[b]")
        for name, x, last in (("k_new", kn, d), ("v_new", vn, dv)):
            _rank(name, x, 4, "(batch, seqlen_new, heads_k, head_dim)")
            validate._check_dtype(name, x, q.dtype)
            validate._check_last_contiguous(name, x)
            if (x.shape[0], x.shape[2], x.shape[3]) != (b, hk, last):
                raise ValueError(f"{name} has shape {tuple(x.shape)}; expected ({b}, seqlen_new, {hk}, {last})")
        if kn.shape[1] != vn.shape[1]:
            raise ValueError(f"k_new has {kn.shape[1]} tokens and v_new {vn.shape[1]}; they must match")
        n_new = kn.shape[1]
        if n_new > capacity:
            raise ValueError(f"k_new has {n_new} tokens but the cache holds {capacity} per sequence")
    sinks = validate.check_sinks(views.get("sinks"), hq)
    alibi = validate.alibi_mode(views.get("alibi_slopes"), b, hq)
    strides = lambda v: tuple(v.strides[:3])  # noqa: E731
    return Problem(
        batch=b, seqlen_q=sq, seqlen_k=capacity, heads_q=hq, heads_k=hk, head_dim=d, head_dim_v=dv, dtype=q.dtype,
        softmax_scale=validate.normalize_scale(softmax_scale, d), causal=bool(causal),
        window=validate.normalize_window(window_size, causal), softcap=validate.normalize_softcap(softcap),
        return_lse=bool(return_lse), num_splits=validate.normalize_splits(num_splits),
        q_strides=strides(q), k_strides=strides(kc), v_strides=strides(vc), o_strides=(sq * hq * dv, hq * dv, dv),
        kv_layout=layout, page_size=page, kv_append=n_new, cache_seqlens=lens is not None,
        sinks=sinks, alibi=alibi, block_table_stride=bt_stride,
        new_k_strides=strides(kn) if kn is not None else (0, 0, 0),
        new_v_strides=strides(vn) if vn is not None else (0, 0, 0))


def check_cache_values(p: Problem, views: dict, cache_seqlens, block_table, stream) -> None:
    """``check_inputs=True``: read host copies and check every length and used block id."""
    capacity = p.seqlen_k
    if cache_seqlens is not None:
        lens = validate._host_ints(cache_seqlens, "cache_seqlens", stream)
        for i, n in enumerate(lens):
            if n < 0 or n + p.kv_append > capacity:
                raise ValueError(f"cache_seqlens[{i}] = {n}" + (f" plus {p.kv_append} new tokens" if p.kv_append else "")
                                 + f" does not fit the cache of {capacity} tokens per sequence")
    else:
        lens = [capacity] * p.batch
    if block_table is not None:
        rows = _host_rows(block_table, views["block_table"], stream)
        pages = views["k_cache"].shape[0]
        for i, n in enumerate(lens):
            used = -(-(n + p.kv_append) // p.page_size)
            for j in range(used):
                if not 0 <= rows[i][j] < pages:
                    raise ValueError(f"block_table[{i}, {j}] = {rows[i][j]} is not a block of the cache (0..{pages - 1}); "
                                     f"sequence {i} uses blocks 0..{used - 1} of its row")


def _host_rows(obj, v, stream) -> list[list[int]]:
    """The block table's rows as lists of ints (a device-to-host copy of its rows)."""
    import struct

    b, width = v.shape
    span = (b - 1) * v.strides[0] + width if b else 0
    flat = _host_span(obj, v, span, stream)
    return [list(struct.unpack_from(f"<{width}i", flat, 4 * i * v.strides[0])) for i in range(b)]


def _host_span(obj, v, n: int, stream) -> bytes:
    import ctypes

    if n == 0:
        return b""
    if v.device_type in (1, 3, 11):
        return ctypes.string_at(v.ptr, 4 * n)
    from .runtime import get_backend, memory, streams

    handle = streams.resolve(stream, like=obj, device=v.device_id)
    with on_device(get_backend(), v.device_id):
        return memory.copy_to_host(v.ptr, 4 * n, handle)


def plan_mha_fwd_kvcache(q_shape, k_cache_shape, v_cache_shape, *, arch: str, dtype: str = "bf16",
                         block_table_shape=None, cache_seqlens: bool = True, seqlen_new: int = 0, sinks: bool = False,
                         alibi_slopes_shape=None, compute_units: int | None = None, softmax_scale: float | None = None,
                         causal: bool = False, window_size=(-1, -1), softcap: float = 0.0, return_lse: bool = False,
                         num_splits: int = 0, explain: bool = False):
    """Plan ``mha_fwd_kvcache`` without a GPU (compact strides assumed): the LaunchPlans, or the
    dispatch Decision with ``explain=True``.  ``block_table_shape`` ``(batch, max_blocks)`` makes
    the caches paged; ``seqlen_new`` > 0 appends that many tokens."""
    from .arch import arch_info, canonical_arch

    dtype = validate.plan_dtype(dtype)
    compute_units = validate.plan_compute_units(compute_units)
    q_shape = validate.plan_shape("q_shape", q_shape, 4, "(batch, seqlen_q, heads, head_dim)", min_extent=(0, 0, 1, 1))
    cache = "(num_blocks, block_size, heads_k, head_dim)" if block_table_shape is not None else \
        "(batch, seqlen_cache, heads_k, head_dim)"
    k_cache_shape = validate.plan_shape("k_cache_shape", k_cache_shape, 4, cache, min_extent=(0, 0, 1, 1))
    v_cache_shape = validate.plan_shape("v_cache_shape", v_cache_shape, 4, cache, min_extent=(0, 0, 1, 1))
    if block_table_shape is not None:
        block_table_shape = validate.plan_shape("block_table_shape", block_table_shape, 2, "(batch, max_blocks)",
                                                min_extent=0)
    seqlen_new = validate.plan_int("seqlen_new", seqlen_new, 0, "tokens appended; 0 for none")
    shape = validate.ShapeView
    views = {"q": shape(q_shape, dtype), "k_cache": shape(k_cache_shape, dtype), "v_cache": shape(v_cache_shape, dtype)}
    b, hk = q_shape[0], k_cache_shape[2]
    if block_table_shape is not None:
        views["block_table"] = shape(block_table_shape, "int32")
    if cache_seqlens:
        views["cache_seqlens"] = shape((b,), "int32")
    if seqlen_new:
        views["k_new"] = shape((b, seqlen_new, hk, q_shape[3]), dtype)
        views["v_new"] = shape((b, seqlen_new, hk, v_cache_shape[3]), dtype)
    if sinks:
        views["sinks"] = shape((q_shape[2],), "fp32")
    if alibi_slopes_shape is not None:
        views["alibi_slopes"] = shape(alibi_slopes_shape, "fp32")
    problem = kvcache_problem(views, softmax_scale=softmax_scale, causal=causal, window_size=window_size,
                              softcap=softcap, return_lse=return_lse, num_splits=num_splits)
    a = canonical_arch(arch)
    decision = percall.decide(problem, a, compute_units or arch_info(a).default_cus)
    return decision if explain else list(decision.plans)

"""Public attention calls: mha_fwd, mha_varlen_fwd, plan_mha_fwd.

The whole data path in one screen:

    views   = dlpack.view(q, k, v)              zero-copy facts: ptr, shape, strides, dtype, device
    problem = validate.batch_problem(views)     checks, normalised arguments -> hashable Problem
    plans   = dispatch.decide(problem, arch)    family gate + split count -> LaunchPlans (cached)
    out     = outputs.empty_like(q, ...)        in the caller's framework (or ``out=``)
    runtime.launch(plan.bind(pointers), stream) one driver call per kernel, on the caller's stream

Arguments use FlashAttention's names and BSHD layout.  Work is queued on ``stream``, or on the
current stream of the framework the inputs come from (torch / cupy), or the platform's legacy
default stream; nothing here synchronises the host or allocates outside the stream order.
"""

from __future__ import annotations

from . import fastpath, padding, percall, validate
from .arch import arch_info, canonical_arch
from .dlpack import view
from .families.base import Problem
from .plan import LaunchPlan
from .prepared import pointer_values
from .runtime.base import on_device


def mha_fwd(q, k, v, *, softmax_scale: float | None = None, causal: bool = False,
            window_size: tuple[int, int] = (-1, -1), softcap: float = 0.0, return_lse: bool = False,
            num_splits: int = 0, out=None, stream=None, sinks=None, alibi_slopes=None):
    """Attention forward, FlashAttention's semantics.

    q: ``(batch, seqlen_q, heads_q, head_dim)``; k: ``(batch, seqlen_k, heads_k, head_dim)``;
    v: ``(batch, seqlen_k, heads_k, head_dim_v)``; bf16 or fp16, on one GPU, any strides with a
    contiguous last dim; ``heads_q % heads_k == 0`` (MQA / GQA); head dims 1..256.
    causal: mask aligned bottom-right (FlashAttention >= 2.1); window_size ``(left, right)``
    sliding window, -1 = unbounded; softcap: ``softcap * tanh(scores / softcap)`` when > 0.
    num_splits: 0 heuristic, 1 never split the KV range, >= 2 force that many splits.
    sinks: float32 ``(heads_q,)``, one logit per query head that joins the softmax denominator
    (gpt-oss); alibi_slopes: float32 ``(heads_q,)`` or ``(batch, heads_q)``, bias
    ``-slope * |i + seqlen_k - seqlen_q - j|`` (FlashAttention's); both run the serving kernels.
    Rows that see no key (e.g. causal with seqlen_q > seqlen_k) give output 0 and LSE -inf
    (LSE = the sink with sinks).

    Returns out ``(batch, seqlen_q, heads_q, head_dim_v)`` in q's dtype and framework (zero
    copy), or ``(out, lse)`` with lse float32 ``(batch, heads_q, seqlen_q)`` if ``return_lse``.
    ``out=`` writes into a given contiguous array instead.
    """
    fast_key = None
    if out is None and stream is None:
        fw = type(q).__module__
        ws = tuple(window_size) if type(window_size) is list else window_size
        options = (softmax_scale, causal, ws, softcap, return_lse, num_splits)
        if fw == "torch":           # the common case first
            if sinks is None and alibi_slopes is None:
                fast_key, res = fastpath.torch_call(q, k, v, options, return_lse)
                if res is not None:
                    return res
        elif fw.startswith(("jax", "jaxlib")):      # a jitted custom call on XLA's stream (fastpath.py)
            return fastpath.jax_call(q, k, v, options, sinks, alibi_slopes)
        elif fw.startswith("cupy") and sinks is None and alibi_slopes is None:
            fast_key, res = fastpath.cupy_call(q, k, v, options, return_lse)
            if res is not None:
                return res
    backend = percall.backend()
    views = _serving_views({"q": view(q, argname="q"), "k": view(k, argname="k"), "v": view(v, argname="v")},
                           sinks, alibi_slopes)
    device = validate.check_devices(views, (backend.dlpack_device_type,))
    problem = validate.with_serving(validate.batch_problem(
        views["q"], views["k"], views["v"], softmax_scale=softmax_scale, causal=causal,
        window_size=window_size, softcap=softcap, return_lse=return_lse, num_splits=num_splits), views)
    p = problem
    if padding.needs_padding(p.head_dim, p.head_dim_v):
        return _padded_call(mha_fwd, q, k, v, (), out, p, causal=causal, window_size=window_size,
                            softcap=softcap, return_lse=return_lse, num_splits=num_splits, stream=stream,
                            sinks=sinks, alibi_slopes=alibi_slopes)
    shapes = ((p.batch, p.seqlen_q, p.heads_q, p.head_dim_v), (p.batch, p.heads_q, p.seqlen_q))
    return _execute(backend, problem, views, device, q, out, shapes, stream, fast_key)


def mha_varlen_fwd(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q: int, max_seqlen_k: int, *,
                   softmax_scale: float | None = None, causal: bool = False,
                   window_size: tuple[int, int] = (-1, -1), softcap: float = 0.0,
                   return_lse: bool = False, num_splits: int = 0, out=None, stream=None,
                   check_inputs: bool = False, sinks=None, alibi_slopes=None):
    """Attention forward over packed variable-length sequences.

    q: ``(total_q, heads_q, head_dim)``, k: ``(total_k, heads_k, head_dim)``, v: ``(total_k,
    heads_k, head_dim_v)``; cu_seqlens_q / cu_seqlens_k: int32 ``(batch + 1,)`` prefix sums on
    the same GPU (sequence i is rows ``cu[i]:cu[i+1]``; zero-length sequences allowed);
    max_seqlen_q / max_seqlen_k: the longest lengths (ints, so no device read is needed).
    The cu_seqlens must be sorted and end at total_q / total_k; they live on the GPU and are not
    read by the host, so the caller guarantees this; ``check_inputs=True`` checks a host copy
    first (``validate_cu_seqlens``: it synchronises the stream, so not under graph capture).
    Other arguments as ``mha_fwd`` (alibi_slopes ``(batch, heads_q)`` has one row per sequence).
    Returns out ``(total_q, heads_q, head_dim_v)`` [, lse float32 ``(heads_q, total_q)``].
    """
    backend = percall.backend()
    views = _serving_views({"q": view(q, argname="q"), "k": view(k, argname="k"), "v": view(v, argname="v"),
                            "cu_seqlens_q": view(cu_seqlens_q, argname="cu_seqlens_q"),
                            "cu_seqlens_k": view(cu_seqlens_k, argname="cu_seqlens_k")}, sinks, alibi_slopes)
    device = validate.check_devices(views, (backend.dlpack_device_type,))
    problem = validate.with_serving(validate.varlen_problem(
        views["q"], views["k"], views["v"], views["cu_seqlens_q"], views["cu_seqlens_k"], max_seqlen_q,
        max_seqlen_k, softmax_scale=softmax_scale, causal=causal, window_size=window_size, softcap=softcap,
        return_lse=return_lse, num_splits=num_splits), views)
    if check_inputs:   # opt-in: reads the cu_seqlens back (a stream synchronisation)
        validate.validate_cu_seqlens(cu_seqlens_q, cu_seqlens_k, problem.total_q, problem.total_k,
                                     max_seqlen_q=max_seqlen_q, max_seqlen_k=max_seqlen_k, stream=stream)
    p = problem
    if padding.needs_padding(p.head_dim, p.head_dim_v):
        return _padded_call(mha_varlen_fwd, q, k, v, (cu_seqlens_q, cu_seqlens_k, max_seqlen_q, max_seqlen_k),
                            out, p, causal=causal, window_size=window_size, softcap=softcap,
                            return_lse=return_lse, num_splits=num_splits, stream=stream,
                            sinks=sinks, alibi_slopes=alibi_slopes)
    shapes = ((p.total_q, p.heads_q, p.head_dim_v), (p.heads_q, p.total_q))
    return _execute(backend, problem, views, device, q, out, shapes, stream)


def plan_mha_fwd(q_shape, k_shape, v_shape, *, dtype: str = "bf16", arch: str, compute_units: int | None = None,
                 softmax_scale: float | None = None, causal: bool = False, window_size=(-1, -1),
                 softcap: float = 0.0, return_lse: bool = False, num_splits: int = 0,
                 cu_seqlens_len: int | None = None, max_seqlen_q: int | None = None,
                 max_seqlen_k: int | None = None, explain: bool = False, sinks: bool = False,
                 alibi_slopes_shape=None):
    """Plan ``mha_fwd`` (or, with ``cu_seqlens_len``, ``mha_varlen_fwd``) without a GPU.

    Shapes as the calls take them (BSHD, or packed ``(total, heads, dim)`` for varlen; compact
    strides assumed); ``arch`` e.g. "gfx942", "gfx1100", "sm_90a"; ``compute_units`` defaults to
    the arch's reference part; ``sinks`` / ``alibi_slopes_shape`` plan the call with sinks /
    ALiBi slopes of that shape.  Returns the LaunchPlans (pointers unbound), or the dispatch
    Decision (family, split count, refusals) with ``explain=True``.
    """
    kw = dict(softmax_scale=softmax_scale, causal=causal, window_size=window_size, softcap=softcap,
              return_lse=return_lse, num_splits=num_splits)
    dtype = validate.plan_dtype(dtype)
    compute_units = validate.plan_compute_units(compute_units)
    rank, layout = (4, "(batch, seqlen, heads, head_dim)") if cu_seqlens_len is None else \
        (3, "(total_tokens, heads, head_dim)")
    mins = (0, 0, 1, 1) if rank == 4 else (0, 1, 1)        # empty batches / sequences plan empty launches
    q_shape, k_shape, v_shape = (validate.plan_shape(n, s, rank, layout, min_extent=mins)
                                 for n, s in (("q_shape", q_shape), ("k_shape", k_shape), ("v_shape", v_shape)))
    d, dk, dv = q_shape[-1], k_shape[-1], v_shape[-1]
    if d != dk:
        raise ValueError(f"q has head dim {d} and k {dk}; they must match")
    validate._check_head_dims(d, dv)             # on the dims given, before any padding
    if softmax_scale is None:
        kw["softmax_scale"] = validate.normalize_scale(None, d)
    # unusual head dims run zero-padded to multiples of 8 (pyhipattn/padding.py)
    pad = lambda s, n: tuple(s[:-1]) + (padding.padded(n),)  # noqa: E731
    q, k, v = (validate.ShapeView(s, dtype) for s in (pad(q_shape, d), pad(k_shape, dk), pad(v_shape, dv)))
    if cu_seqlens_len is None:
        problem = validate.batch_problem(q, k, v, **kw)
    else:
        cu_len = validate.plan_int("cu_seqlens_len", cu_seqlens_len, 1, "batch + 1")
        for name, x in (("max_seqlen_q", max_seqlen_q), ("max_seqlen_k", max_seqlen_k)):
            if x is None:
                raise ValueError(f"{name} is None; planning varlen (cu_seqlens_len given) needs the longest sequence")
            validate.plan_int(name, x, 0, "the longest sequence")
        cu = validate.ShapeView((cu_len,), "int32")
        problem = validate.varlen_problem(q, k, v, cu, cu, int(max_seqlen_q), int(max_seqlen_k), **kw)
    serving = {"sinks": validate.ShapeView((q_shape[-2],), "fp32") if sinks else None,
               "alibi": None if alibi_slopes_shape is None else validate.ShapeView(alibi_slopes_shape, "fp32")}
    problem = validate.with_serving(problem, serving)
    arch = canonical_arch(arch)
    decision = percall.decide(problem, arch, compute_units or arch_info(arch).default_cus)
    return decision if explain else list(decision.plans)


def _serving_views(views: dict, sinks, alibi_slopes) -> dict:
    """``views`` plus the sinks / ALiBi slopes views (under "sinks" / "alibi") when given."""
    if sinks is not None:
        views["sinks"] = view(sinks, argname="sinks")
    if alibi_slopes is not None:
        views["alibi"] = view(alibi_slopes, argname="alibi_slopes")
    return views


def _padded_call(fn, q, k, v, extra: tuple, out, problem: Problem, **kw):
    """Run ``fn`` on head dims zero-padded to multiples of 8 and slice the output back
    (pyhipattn/padding.py says why this is exact).  ``problem`` is the validated original
    call: its scale is 1/sqrt of the original head dim unless the caller gave one."""
    dv = problem.head_dim_v
    pd, pdv = padding.padded(problem.head_dim), padding.padded(dv)
    res = fn(padding.pad_last(q, pd), padding.pad_last(k, pd), padding.pad_last(v, pdv), *extra,
             softmax_scale=problem.softmax_scale, **kw)
    o, lse = res if problem.return_lse else (res, None)
    o = padding.slice_last(o, dv)
    if out is not None:
        ov, qv = view(out, argname="out"), view(q, argname="q")
        validate.check_out(ov, tuple(o.shape), qv.dtype, qv.device_id, (qv.device_type,))
        padding.copy_into(out, o)
        o = out
    return (o, lse) if problem.return_lse else o


# -- the per-call path -----------------------------------------------------------------------

def _execute(backend, problem: Problem, views: dict, device: int, like, out, shapes, stream, fast_key=None):
    """Run the call with ``device`` current; the caller's device is current again after it
    (module loads, scratch and output allocations make the kernels' device current)."""
    with on_device(backend, device):
        dtype = views["q"].dtype
        if out is not None:
            percall.bind_out(backend, views, out, shapes[0], dtype, device)
        percall.check_alignment(views)
        prep = percall.prepared(backend, problem, device)
        handle = percall.stream_for(backend, stream, like, device, "q, k, v")
        out_obj, out_ptr, lse_obj, lse_ptr = percall.outputs_for(like, out, views, shapes, dtype, device, handle,
                                                                 problem.return_lse)
        ptrs = {name: v.ptr for name, v in views.items()}
        ptrs["out"], ptrs["lse"] = out_ptr, lse_ptr
        percall.launch(prep, pointer_values(ptrs), handle, like,
                       bool(prep.workspace_bytes) and backend.stream_is_capturing(handle, device),
                       (0, 0, 0, 0, ptrs.get("sinks", 0), ptrs.get("alibi", 0)) if problem.serving else ())
        if fast_key is not None:
            # torch: the output is like q (same shape, contiguous) when dv == d and q is contiguous:
            # then torch.empty_like(q) makes it, cheaper than new_empty(shape); the key fixes both facts
            like_q = fast_key[0] != "cupy" and tuple(like.shape) == shapes[0] and like.is_contiguous()
            fastpath.remember(fast_key, prep, shapes[0], shapes[1], like_q)
        return percall.results(out_obj, lse_obj, handle, problem.return_lse)


__all__ = ["mha_fwd", "mha_varlen_fwd", "plan_mha_fwd", "LaunchPlan"]

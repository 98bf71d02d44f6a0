"""``pyhipattn.jax``: ``mha_fwd`` and ``mha_varlen_fwd`` as JAX operations (``jax.jit``, ``vmap``).

    import jax, pyhipattn.jax
    f = jax.jit(lambda q, k, v: pyhipattn.jax.mha_fwd(q, k, v, causal=True))

Each call becomes one XLA custom call (``jax.ffi.ffi_call``) to the target ``pyhipattn_mha``,
whose handler is a Python function behind a ctypes trampoline (``pyhipattn.xla_ffi``): no C or
C++ compiler at install or first call.  When XLA executes it, the handler reads XLA's stream
and device from the call frame, plans the problem once per (problem, device) exactly as
``pyhipattn.mha_fwd`` does (same kernels, so the same bits) and queues the kernels on XLA's
stream.  The problem (shapes, dtypes, options) travels as a string attribute of the custom
call, so a compiled executable carries everything the handler needs.

- Split-K scratch is a third result of the custom call (uint8), so XLA allocates it with the
  computation's other temporaries: no host synchronisation and no allocation by pyhipattn.
  Its arrival counters are zeroed by a memset queued before the kernels.
- The handler declares itself command-buffer compatible: XLA may record its launches into a
  CUDA / HIP graph and replay them (the kernels, the memset and the pointers are all that is
  recorded; the code objects are loaded at trace time, never during capture).
- ``jax.vmap`` over extra leading axes folds them into the batch (one launch); batched sinks or
  ALiBi slopes, and varlen calls, map sequentially instead.
- Shapes are checked at trace time, so ``jax.eval_shape`` with ``jax.ShapeDtypeStruct``
  arguments works on any machine.  Forward only: ``jax.grad`` through these calls is not defined.

Limits: CUDA (NVIDIA) and ROCm (AMD) devices only; the handler holds the GIL for a few
microseconds per execution (a jitted step whose launches XLA replays from a graph does not
call it at all); arrays are dense row-major as JAX's always are.

Run on hardware: tests/gpu/test_jax_gpu.py (H100); tests/test_jax_ffi.py runs the same lowering
on JAX's CPU platform with a NumPy executor in place of the GPU kernels.
"""

from __future__ import annotations

import dataclasses
import json
import threading
from typing import Callable

import jax
import jax.numpy as jnp
import numpy as np

from . import padding, percall, validate
from .families.base import Problem
from .kvcache import kvcache_problem
from .runtime.memory import COUNTER_BYTES
from .runtime.modules import on_unload
from .xla_ffi import COMMAND_BUFFER_COMPATIBLE, FfiCall, Handler

TARGET = "pyhipattn_mha"
_DTYPES = {"bfloat16": "bf16", "float16": "fp16"}
_SERVING_DTYPES = {"float32": "fp32"}

__all__ = ["mha_fwd", "mha_varlen_fwd", "mha_fwd_kvcache", "TARGET"]

#: the kvcache call's optional operands, in the order they follow q, k_cache, v_cache
KVCACHE_OPERANDS = ("cache_seqlens", "block_table", "k_new", "v_new", "sinks", "alibi_slopes")


def mha_fwd(q, k, v, *, softmax_scale: float | None = None, causal: bool = False,
            window_size: tuple[int, int] = (-1, -1), softcap: float = 0.0, return_lse: bool = False,
            num_splits: int = 0, sinks=None, alibi_slopes=None):
    """``pyhipattn.mha_fwd`` on JAX arrays or tracers, usable inside ``jax.jit`` and ``jax.vmap``.

    q ``(batch, seqlen_q, heads_q, d)``, k ``(batch, seqlen_k, heads_k, d)``, v ``(batch,
    seqlen_k, heads_k, dv)``, bf16 or fp16; sinks float32 ``(heads_q,)``; alibi_slopes float32
    ``(heads_q,)`` or ``(batch, heads_q)``.  Returns out ``(batch, seqlen_q, heads_q, dv)`` in
    q's dtype, or ``(out, lse)`` with lse float32 ``(batch, heads_q, seqlen_q)``.  Arguments and
    semantics as ``pyhipattn.mha_fwd``; extra leading axes under ``jax.vmap`` are folded into
    the batch.
    """
    opts = dict(softmax_scale=softmax_scale, causal=causal, window_size=tuple(window_size), softcap=softcap,
                return_lse=return_lse, num_splits=num_splits)
    extras = tuple(x for x in (sinks, alibi_slopes) if x is not None)
    fn = _batch_op(_options_key(opts), sinks is not None, alibi_slopes is not None)
    return fn(q, k, v, *extras)


def mha_varlen_fwd(q, k, v, cu_seqlens_q, cu_seqlens_k, max_seqlen_q: int, max_seqlen_k: int, *,
                   softmax_scale: float | None = None, causal: bool = False,
                   window_size: tuple[int, int] = (-1, -1), softcap: float = 0.0, return_lse: bool = False,
                   num_splits: int = 0, sinks=None, alibi_slopes=None):
    """``pyhipattn.mha_varlen_fwd`` on JAX arrays or tracers (``jax.jit``; ``vmap`` maps
    sequentially).  q ``(total_q, heads_q, d)``, k / v ``(total_k, heads_k, d / dv)``,
    cu_seqlens int32 ``(batch + 1,)`` (not read by the host: the caller guarantees they are
    sorted and end at the totals), max_seqlen_q / max_seqlen_k Python ints.  Returns out
    ``(total_q, heads_q, dv)`` [, lse float32 ``(heads_q, total_q)``]."""
    for name, x in (("max_seqlen_q", max_seqlen_q), ("max_seqlen_k", max_seqlen_k)):
        if isinstance(x, jax.core.Tracer):
            raise TypeError(f"{name} is traced; pass a Python int (it fixes the launch grid at trace time)")
    opts = dict(softmax_scale=softmax_scale, causal=causal, window_size=tuple(window_size), softcap=softcap,
                return_lse=return_lse, num_splits=num_splits, max_seqlen_q=int(max_seqlen_q),
                max_seqlen_k=int(max_seqlen_k))
    extras = tuple(x for x in (sinks, alibi_slopes) if x is not None)
    fn = _varlen_op(_options_key(opts), sinks is not None, alibi_slopes is not None)
    return fn(q, k, v, cu_seqlens_q, cu_seqlens_k, *extras)


def mha_fwd_kvcache(q, k_cache, v_cache, *, cache_seqlens=None, block_table=None, k_new=None, v_new=None,
                    softmax_scale: float | None = None, causal: bool = False,
                    window_size: tuple[int, int] = (-1, -1), softcap: float = 0.0, sinks=None, alibi_slopes=None,
                    return_lse: bool = False, num_splits: int = 0):
    """``pyhipattn.mha_fwd_kvcache`` as a JAX operation (``jax.jit``; ``vmap`` maps sequentially).

    Layouts and semantics as ``pyhipattn.mha_fwd_kvcache``: caches ``(batch, seqlen_cache,
    heads_k, d)`` or paged ``(num_blocks, block_size, heads_k, d)`` with ``block_table`` int32
    ``(batch, max_blocks)``; ``cache_seqlens`` int32 ``(batch,)``; ``k_new`` / ``v_new``
    ``(batch, seqlen_new, heads_k, d)`` written into the caches at ``cache_seqlens``.

    JAX arrays are immutable, so with ``k_new`` the call returns the updated caches as well:
    ``out`` [, ``lse``], then ``k_cache``, ``v_cache``.  They alias the input caches (the custom
    call's input_output_aliases): donate the caches to the jitted function
    (``jax.jit(f, donate_argnums=...)``) and the append happens in place; without donation XLA
    copies each cache once per call first.  Without ``k_new`` it returns ``out`` [, ``lse``].
    """
    opts = dict(softmax_scale=softmax_scale, causal=causal, window_size=tuple(window_size), softcap=softcap,
                return_lse=return_lse, num_splits=num_splits)
    given = dict(cache_seqlens=cache_seqlens, block_table=block_table, k_new=k_new, v_new=v_new, sinks=sinks,
                 alibi_slopes=alibi_slopes)
    views = {"q": _view("q", q, _DTYPES), "k_cache": _view("k_cache", k_cache, _DTYPES),
             "v_cache": _view("v_cache", v_cache, _DTYPES)}
    tables = {"cache_seqlens": {"int32": "int32"}, "block_table": {"int32": "int32"}, "k_new": _DTYPES,
              "v_new": _DTYPES, "sinks": _SERVING_DTYPES, "alibi_slopes": _SERVING_DTYPES}
    for name, x in given.items():
        if x is not None:
            views[name] = _view(name, x, tables[name])
    problem = kvcache_problem(views, **opts)
    operands = (q, k_cache, v_cache) + tuple(x for x in given.values() if x is not None)
    res = _custom_call(problem, operands, q, aliased=(1, 2) if problem.kv_append else ())
    return res[0] if len(res) == 1 else tuple(res)


# -- trace time: validate, plan the scratch, emit the custom call ------------------------------

def _options_key(opts: dict) -> tuple:
    return tuple(sorted(opts.items()))


def _dtype(name: str, x, table: dict) -> str:
    dt = np.dtype(x.dtype).name
    try:
        return table[dt]
    except KeyError:
        raise TypeError(f"{name} has dtype {dt}; accepted: {', '.join(table)}") from None


def _view(name: str, x, table: dict) -> validate.ShapeView:
    return validate.ShapeView(x.shape, _dtype(name, x, table))


def _problem(q, k, v, cu, extras: tuple, has_sinks: bool, has_alibi: bool, opts: dict) -> Problem:
    """The validated Problem of a call on abstract arrays (shapes and dtypes only)."""
    views = [_view(n, x, _DTYPES) for n, x in (("q", q), ("k", k), ("v", v))]
    kw = {n: opts[n] for n in ("softmax_scale", "causal", "window_size", "softcap", "return_lse", "num_splits")}
    if cu is None:
        problem = validate.batch_problem(*views, **kw)
    else:
        cuv = [validate.ShapeView(c.shape, _dtype(n, c, {"int32": "int32"})) for n, c in
               (("cu_seqlens_q", cu[0]), ("cu_seqlens_k", cu[1]))]
        problem = validate.varlen_problem(*views, *cuv, opts["max_seqlen_q"], opts["max_seqlen_k"], **kw)
    serving, rest = {}, list(extras)
    if has_sinks:
        serving["sinks"] = _view("sinks", rest.pop(0), _SERVING_DTYPES)
    if has_alibi:
        a = rest.pop(0)
        serving["alibi"] = _view("alibi_slopes", a, _SERVING_DTYPES)
    return validate.with_serving(problem, serving)


def _gpu_count() -> int:
    """How many GPUs pyhipattn's backend sees; 0 when none is usable (then only shapes are
    computed: eval_shape, the CPU tests)."""
    global _GPUS
    if _GPUS is None:
        try:
            _GPUS = percall.backend().device_count()
        except Exception:
            _GPUS = 0
    return _GPUS


_GPUS: int | None = None


def _scratch_bytes(problem: Problem) -> int:
    """Split-K scratch (arrival counters + partials) the problem needs on the largest of this
    process's GPUs; 0 when it is not split.  Prepares the problem on every GPU now, at trace
    time, so no module is loaded while XLA captures a graph."""
    need = 0
    for d in range(_gpu_count()):
        need = max(need, percall.prepared(percall.backend(), problem, d).workspace_bytes)
    return COUNTER_BYTES + need if need else 0


def _encode(problem: Problem, scratch: int) -> str:
    d = dataclasses.asdict(problem)
    d["scratch"] = scratch
    return json.dumps(d, sort_keys=True, separators=(",", ":"))


def _decode(text: bytes) -> tuple[Problem, int]:
    d = json.loads(text)
    scratch = d.pop("scratch")
    for name, value in d.items():
        if isinstance(value, list):
            d[name] = tuple(value)
    unknown = set(d) - {f.name for f in dataclasses.fields(Problem)}
    if unknown:
        raise ValueError(f"custom call attribute names unknown Problem fields {sorted(unknown)} "
                         "(compiled by another pyhipattn version?)")
    return Problem(**d), scratch


def _custom_call(problem: Problem, operands: tuple, like, aliased: tuple = ()) -> list:
    """Emit the custom call: results out [, lse], then the operands at the indices in
    ``aliased`` (updated in place: input_output_aliases), then the split-K scratch if any.
    Returns the results without the scratch."""
    _ensure_registered()
    scratch = _scratch_bytes(problem)
    p = problem
    out_shape = (p.total_q, p.heads_q, p.head_dim_v) if p.varlen else (p.batch, p.seqlen_q, p.heads_q, p.head_dim_v)
    lse_shape = (p.heads_q, p.total_q) if p.varlen else (p.batch, p.heads_q, p.seqlen_q)
    results = [jax.ShapeDtypeStruct(out_shape, like.dtype)]
    if p.return_lse:
        results.append(jax.ShapeDtypeStruct(lse_shape, jnp.float32))
    aliases = {i: len(results) + n for n, i in enumerate(aliased)}
    results += [jax.ShapeDtypeStruct(operands[i].shape, operands[i].dtype) for i in aliased]
    n = len(results)
    if scratch:
        results.append(jax.ShapeDtypeStruct((scratch,), jnp.uint8))
    res = jax.ffi.ffi_call(TARGET, results, input_output_aliases=aliases, vmap_method="sequential")(
        *operands, problem=_encode(p, scratch))
    return list(res[:n])


def _forward(q, k, v, cu, extras: tuple, has_sinks: bool, has_alibi: bool, opts: dict):
    problem = _problem(q, k, v, cu, extras, has_sinks, has_alibi, opts)
    if padding.needs_padding(problem.head_dim, problem.head_dim_v):
        d, dv = problem.head_dim, problem.head_dim_v
        pd, pdv = padding.padded(d), padding.padded(dv)
        qp, kp, vp = padding.pad_last(q, pd), padding.pad_last(k, pd), padding.pad_last(v, pdv)
        sub = dict(opts, softmax_scale=problem.softmax_scale)
        res = _forward(qp, kp, vp, cu, extras, has_sinks, has_alibi, sub)
        out, lse = res if problem.return_lse else (res, None)
        out = out[..., :dv]
        return (out, lse) if problem.return_lse else out
    operands = (q, k, v) + (tuple(cu) if cu is not None else ()) + tuple(extras)
    res = _custom_call(problem, operands, q)
    return tuple(res) if problem.return_lse else res[0]


_OPS: dict = {}
_OPS_LOCK = threading.Lock()


def _cached(kind: str, key: tuple, has_sinks: bool, has_alibi: bool, make: Callable) -> Callable:
    """The op of ``kind`` for one set of options: ``make(options dict)`` once, then the cache."""
    k = (kind, key, has_sinks, has_alibi)
    op = _OPS.get(k)
    if op is None:
        op = make(dict(key))
        with _OPS_LOCK:
            op = _OPS.setdefault(k, op)
    return op


def _batch_op(key: tuple, has_sinks: bool, has_alibi: bool) -> Callable:
    """The custom_vmap'd batch op for one set of options (cached)."""
    return _cached("batch", key, has_sinks, has_alibi, lambda opts: _make_batch_op(opts, has_sinks, has_alibi))


def _make_batch_op(opts: dict, has_sinks: bool, has_alibi: bool) -> Callable:
    @jax.custom_batching.custom_vmap
    def op(q, k_, v, *extras):
        return _forward(q, k_, v, None, extras, has_sinks, has_alibi, opts)

    @op.def_vmap
    def _rule(axis_size, in_batched, q, k_, v, *extras):
        if any(in_batched[3:]):        # per-element sinks / slopes: one call per element
            res = jax.lax.map(lambda a: op(*a), tuple(
                x if b else jnp.broadcast_to(x, (axis_size,) + x.shape) for x, b in zip((q, k_, v) + extras, in_batched)))
            return res, jax.tree.map(lambda _: True, res)
        qkv = [x if b else jnp.broadcast_to(x, (axis_size,) + x.shape) for x, b in zip((q, k_, v), in_batched[:3])]
        merged = [x.reshape((axis_size * x.shape[1],) + x.shape[2:]) for x in qkv]
        if has_alibi and extras[-1].ndim == 2:      # (batch, heads) slopes repeat for every element
            extras = extras[:-1] + (jnp.tile(extras[-1], (axis_size, 1)),)
        res = op(*merged, *extras)
        split = lambda x: x.reshape((axis_size, x.shape[0] // axis_size) + x.shape[1:])  # noqa: E731
        res = jax.tree.map(split, res)
        return res, jax.tree.map(lambda _: True, res)

    return op


def _varlen_op(key: tuple, has_sinks: bool, has_alibi: bool) -> Callable:
    def make(opts: dict) -> Callable:
        def op(q, k_, v, cu_q, cu_k, *extras):
            return _forward(q, k_, v, (cu_q, cu_k), extras, has_sinks, has_alibi, opts)
        return op

    return _cached("varlen", key, has_sinks, has_alibi, make)


# -- run time: the handler ---------------------------------------------------------------------

_PROBLEMS: dict = {}               # attribute bytes -> _Entry
_HANDLERS: dict = {}               # platform -> Handler (kept alive for XLA)
_REGISTER_LOCK = threading.Lock()
#: what the "cpu" platform's handler runs (tests): ``f(problem, call)``; None -> an error
cpu_executor: Callable | None = None


def _ensure_registered() -> None:
    if _HANDLERS:
        return
    with _REGISTER_LOCK:
        if _HANDLERS:
            return
        platforms = {p.platform for p in jax.devices()} | {jax.default_backend()}
        gpu = {"cuda": "CUDA", "rocm": "ROCM", "gpu": "CUDA"}
        for p in sorted(platforms):
            if p in gpu and gpu[p] not in _HANDLERS:
                h = Handler(_execute_gpu, traits=COMMAND_BUFFER_COMPATIBLE)
                _register(h, gpu[p], COMMAND_BUFFER_COMPATIBLE)
                _HANDLERS[gpu[p]] = h
        h = Handler(_execute_cpu)
        jax.ffi.register_ffi_target(TARGET, h.capsule(), platform="cpu")
        _HANDLERS["cpu"] = h


class _Entry:
    """A custom call's problem, its traced scratch size and its Prepared per device."""

    __slots__ = ("problem", "scratch", "prepared")

    def __init__(self, problem: Problem, scratch: int) -> None:
        self.problem, self.scratch, self.prepared = problem, scratch, {}


def _register(handler: Handler, platform: str, traits: int) -> None:
    """Register ``handler`` for ``platform``; its traits go with the registration (where XLA
    reads them) and its answer to XLA's metadata query."""
    try:
        from jax._src.lib import xla_client

        flags = xla_client.CustomCallTargetTraits(traits)
    except (ImportError, AttributeError):
        flags = traits
    try:
        jax.ffi.register_ffi_target(TARGET, handler.capsule(), platform=platform, traits=flags)
    except TypeError:      # a jax whose register_ffi_target passes no traits on
        jax.ffi.register_ffi_target(TARGET, handler.capsule(), platform=platform)


def _forget_kernels() -> None:
    """``unload_all`` ran: the entries' Prepared launches name unloaded kernels."""
    for entry in list(_PROBLEMS.values()):
        entry.prepared.clear()


on_unload(_forget_kernels)


def _lookup(call: FfiCall) -> _Entry:
    text = call.string_attr()
    entry = _PROBLEMS.get(text)
    if entry is None:
        if text is None:
            raise ValueError(f"custom call {TARGET} needs exactly one attribute, the string 'problem'")
        entry = _PROBLEMS[text] = _Entry(*_decode(text))
    return entry


def _execute_gpu(call: FfiCall) -> None:
    """Queue the problem's kernels on XLA's stream: about 15 us of Python on the H100's host
    (frame decoding, stream query, one memset when split, one driver launch per kernel)."""
    entry = _lookup(call)
    backend = percall.backend()
    device = 0 if backend.device_count() == 1 else call.device()   # no ordinal query on one GPU
    if device is None:
        device = backend.pointer_device(call.args[0]) or 0
    prep = entry.prepared.get(device)
    if prep is None:
        prep = entry.prepared[device] = percall.prepared(backend, entry.problem, device)
    problem = entry.problem
    stream = call.stream()
    a, r = call.args, call.rets
    ws = None
    if prep.workspace_bytes and backend.stream_is_capturing(stream, device):
        # XLA is recording a command buffer: the scratch must be the custom call's own result
        # (pyhipattn's per-stream workspace may grow and free what the graph would replay),
        # and the graph must zero its counters on every replay
        if COUNTER_BYTES + prep.workspace_bytes > entry.scratch:
            raise ValueError(f"device {device} plans {prep.workspace_bytes} bytes of split-K scratch; the custom call "
                             f"was traced with {entry.scratch} (GPUs of another kind?): pass num_splits=1")
        backend.memset_async(r[-1], 0, COUNTER_BYTES, stream, device)
        ws = r[-1] + COUNTER_BYTES
    # else ws None: the stream's own workspace (zeroed, self-resetting counters), as for torch
    if problem.kv_layout != "dense":
        _run_kvcache(prep, problem, a, r, stream, ws)
    elif problem.varlen or problem.serving or problem.return_lse:
        cu_q, cu_k, i = (a[3], a[4], 5) if problem.varlen else (0, 0, 3)
        sinks = a[i] if problem.sinks else 0
        alibi = a[i + problem.sinks] if problem.alibi else 0
        extra = (0, 0, 0, 0, sinks, alibi) if problem.serving else ()
        prep.run((a[0], a[1], a[2], r[0], r[1] if problem.return_lse else 0, cu_q, cu_k), stream, ws, extra)
    else:
        prep.run((a[0], a[1], a[2], r[0], 0, 0, 0), stream, ws)


def kvcache_pointers(problem: Problem, args: list, rets: list) -> tuple[tuple, tuple]:
    """(the seven first launch pointers, the six serving pointers) of a kvcache custom call:
    operands q, k_cache, v_cache, then those of KVCACHE_OPERANDS the problem has; results out
    [, lse] [, k_cache, v_cache when appending: the buffers the kernels write the new tokens into]."""
    present = (problem.cache_seqlens, problem.kv_layout == "paged", bool(problem.kv_append), bool(problem.kv_append),
               problem.sinks, bool(problem.alibi))
    it = iter(args[3:])
    extra = tuple(next(it) if has else 0 for has in present)
    lse = rets[1] if problem.return_lse else 0
    if problem.kv_append:
        k, v = rets[1 + problem.return_lse], rets[2 + problem.return_lse]
    else:
        k, v = args[1], args[2]
    return (args[0], k, v, rets[0], lse, 0, 0), extra


def _run_kvcache(prep, problem: Problem, a: list, r: list, stream: int, ws) -> None:
    values, extra = kvcache_pointers(problem, a, r)
    prep.run(values, stream, ws, extra)


def _execute_cpu(call: FfiCall) -> None:
    entry = _lookup(call)
    if cpu_executor is None:
        raise ValueError("pyhipattn.jax runs on CUDA and ROCm devices; this computation was placed on the CPU")
    cpu_executor(entry.problem, call)

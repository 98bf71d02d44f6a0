"""What every entry point's per-call path shares, below the entry points themselves.

``mha_fwd`` / ``mha_varlen_fwd`` (``api``), ``mha_fwd_kvcache`` (``kvcache``), the torch ops
(``torch_ops``), the fast paths (``fastpath``) and the XLA handler (``jax``) all need the
process's GPU backend, the device's (arch, compute units), the dispatch decision of a problem
and its ``Prepared`` launches, cached per (problem, device), the 16-byte alignment rule of the
kernels' loads, the checks of ``out`` and ``stream``, the output arrays, and one launch routine that gives a split-K call captured into a graph scratch
the graph owns.  They live here so that none of those modules imports another entry point
(no import circle: api -> fastpath -> jax -> kvcache -> percall).
"""

from __future__ import annotations

from functools import lru_cache

from . import dispatch
from .families.base import Problem
from .prepared import Prepared, prepare
from .runtime.base import on_device
from .runtime.modules import on_unload

_BACKEND = None
_PREPARED: dict = {}            # (problem, device) -> Prepared


def backend():
    """The process's GPU backend (``runtime.get_backend()``), looked up once."""
    global _BACKEND
    if _BACKEND is None:
        from .runtime import get_backend

        _BACKEND = get_backend()
    return _BACKEND


@lru_cache(maxsize=4096)
def decide(problem: Problem, arch: str, compute_units: int) -> dispatch.Decision:
    """``dispatch.decide``, cached (problems are frozen values)."""
    return dispatch.decide(problem, arch, compute_units)


@lru_cache(maxsize=None)
def device_facts(backend, device: int) -> tuple[str, int]:
    """(arch, compute units) of ``device``."""
    info = backend.device_info(device)
    return info.arch, info.compute_units


def prepared(backend, problem: Problem, device: int) -> Prepared:
    """The problem's launches on ``device``, planned and bound once per (problem, device)."""
    key = (problem, device)
    prep = _PREPARED.get(key)
    if prep is None:
        arch, cus = device_facts(backend, device)
        with on_device(backend, device):    # module loads make the device current: give it back
            prep = _PREPARED[key] = prepare(decide(problem, arch, cus).plans, device)
    return prep


def check_alignment(views: dict) -> None:
    """ValueError naming the first of q, k, v, out in ``views`` whose address is not 16-byte aligned."""
    for name in ("q", "k", "v", "out"):
        v = views.get(name)
        if v is not None and v.ptr % 16:
            raise ValueError(f"{name}'s data pointer 0x{v.ptr:x} is not 16-byte aligned (an offset view?); "
                             f"the kernels load 16 bytes at a time: pass {name}.contiguous() or an aligned view")


def bind_out(backend, views: dict, out, shape: tuple[int, ...], dtype: str, device: int) -> None:
    """Check the caller's ``out`` (shape ``shape``, ``dtype``, on ``device``, writable) and put its view in
    ``views["out"]``; ValueError / TypeError naming ``out`` otherwise."""
    from . import validate
    from .dlpack import view

    views["out"] = view(out, argname="out")
    validate.check_out(views["out"], shape, dtype, device, (backend.dlpack_device_type,))
    if getattr(views["out"], "readonly", False):
        raise ValueError("out is read-only; pass a writable array")


def stream_for(backend, stream, like, device: int, arrays: str) -> int:
    """The stream handle to launch on (``streams.resolve``); ValueError when the caller's ``stream``
    belongs to another GPU than ``device``, where ``arrays`` (e.g. "q, k, v") live."""
    from .runtime import streams

    handle = streams.resolve(stream, like=like, device=device, backend=backend)
    if stream is not None:
        sdev = backend.stream_device(handle)
        if sdev is not None and sdev != device:
            raise ValueError(f"stream belongs to GPU {sdev} but {arrays} are on GPU {device}; "
                             f"pass a stream of GPU {device}")
    return handle


def outputs_for(like, out, views: dict, shapes: tuple, dtype: str, device: int, stream: int,
                return_lse: bool) -> tuple:
    """(out object, out pointer, lse object, lse pointer): the caller's ``out`` (bound by
    :func:`bind_out`) or a new array like ``like`` of ``shapes[0]`` / ``dtype``, and with ``return_lse``
    a new fp32 array of ``shapes[1]`` (else (None, 0)), allocated in stream order on ``stream``."""
    from . import outputs

    out_shape, lse_shape = shapes
    out_obj, out_ptr = (outputs.empty_like(like, out_shape, dtype, device, stream) if out is None
                        else (out, views["out"].ptr))
    lse_obj, lse_ptr = (outputs.empty_like(like, lse_shape, "fp32", device, stream) if return_lse else (None, 0))
    return out_obj, out_ptr, lse_obj, lse_ptr


def results(out_obj, lse_obj, stream: int, return_lse: bool):
    """The call's return value: out, or (out, lse), handed to their framework (``outputs.finish``)."""
    from . import outputs

    out_obj = outputs.finish(out_obj, stream)
    return (out_obj, outputs.finish(lse_obj, stream)) if return_lse else out_obj


def launch(prep: Prepared, values: tuple, stream: int, like, capturing: bool, extra: tuple = ()) -> None:
    """``prep.run``, except that a split-K call being captured into a graph (``capturing``: the
    caller asked, for problems that need scratch) gets scratch the graph owns
    (``outputs.capture_scratch``) instead of the stream's shared workspace, which may grow
    (free + alloc) after the capture."""
    if capturing:
        from .outputs import capture_scratch

        scratch = capture_scratch(like, prep.workspace_bytes, stream, prep.device, prep.backend)
        prep.run(values, stream, scratch.address, extra)
        scratch.release()   # queued: the graph keeps the memory for every replay
    else:
        prep.run(values, stream, None, extra)


on_unload(_PREPARED.clear)      # unload_all: the Prepared launches name unloaded kernels

"""What every entry point's per-call path shares, below the entry points themselves.

``mha_fwd`` / ``mha_varlen_fwd`` (``api``), ``mha_fwd_kvcache`` (``kvcache``), the torch ops
(``torch_ops``), the fast paths (``fastpath``) and the XLA handler (``jax``) all need the
process's GPU backend, the device's (arch, compute units), the dispatch decision of a problem
and its ``Prepared`` launches, cached per (problem, device), the 16-byte alignment rule of the
kernels' loads, and one launch routine that gives a split-K call captured into a graph scratch
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

"""The hopper family forced, for the GPU tests: plan with the gate's ``force=True`` (dispatch's speed preference
dropped) and launch through pyhipattn's runtime (test_hopper_gpu.py, test_hopper_varlen_gpu.py)."""

from __future__ import annotations

import dataclasses

import torch

from pyhipattn.families import hopper
from pyhipattn.families.base import Problem
from pyhipattn.prepared import prepare


def launch_forced(p: Problem, views: dict, out, lse_shape: tuple[int, ...], grid_cap: int | None = None):
    """Run ``p`` on the hopper kernels of sm_90a: ``views`` (slot name -> DLPack view: q, k, v, and cu_seqlens_q /
    cu_seqlens_k for varlen) and ``out`` (a torch tensor, written in place) on torch's current stream, with a
    NaN-filled fp32 lse of ``lse_shape`` ((batch, heads_q, seqlen_q), or (heads_q, total_q) for varlen).  ``grid_cap``
    caps the plan's grid (a persistent grid of that many CTAs, whatever the plan chose).  Returns ``(out, lse)``."""
    dev = out.device
    cus = torch.cuda.get_device_properties(dev).multi_processor_count
    why = hopper.gate(p, "sm_90a", cus, force=True)
    assert why is None, why
    lse = torch.full(lse_shape, float("nan"), device=dev, dtype=torch.float32)
    plans = hopper.plan(p, "sm_90a", cus, 1)
    if grid_cap:
        plans = [dataclasses.replace(pl, grid=(min(pl.grid[0], grid_cap), 1, 1)) for pl in plans]
    prep = prepare(plans, dev.index)
    ptrs = {n: vw.ptr for n, vw in views.items()}
    ptrs.update(out=out.data_ptr(), lse=lse.data_ptr())
    prep.launch(ptrs, torch.cuda.current_stream().cuda_stream)
    return out, lse

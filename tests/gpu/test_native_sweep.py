"""The mha_fwd issue's numeric sweep, run through the native split-K family's CUDA build.

``kernels/src/native`` is one source for MFMA (gfx942/gfx950), WMMA (gfx11/12) and mma.sync
(sm_90a/sm_80).  Dispatch never picks it on NVIDIA, so this test forces it: every case of
``pyhipattn.tools.sweep.make_cases`` the native kernels support (head dim 64 or 128, d == dv, no
softcap, batch mode) is planned by ``native_splitk.plan`` for the device's arch and launched
through pyhipattn's own runtime, with the sweep's rules (poisoned output, 1.5x SDPA's error or
the absolute tolerance, exact -inf LSE rows).  Splits come from dispatch's heuristic, plus a
forced split per case so the combine runs on every shape.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from pyhipattn import validate  # noqa: E402

from pyhipattn.tools import sweep  # noqa: E402
from pyhipattn.dispatch import resolve_splits  # noqa: E402
from pyhipattn.dlpack import view  # noqa: E402
from pyhipattn.families import native_splitk  # noqa: E402
from pyhipattn.prepared import prepare  # noqa: E402

CASES = [c for c in sweep.make_cases(150)
         if c["d"] == c["dv"] and c["d"] in (64, 128) and "softcap" not in c["feature"]]


def _arch() -> str:
    return "sm_90a" if torch.cuda.get_device_capability() == (9, 0) else "sm_80"


def native_mha_fwd(forced_splits: int):
    """An ``mha_fwd(q, k, v, out=..., **kw) -> (out, lse)`` that runs the native family."""

    def run(q, k, v, *, out, causal=False, window_size=(-1, -1), softcap=0.0, return_lse=True):
        views = {"q": view(q, argname="q"), "k": view(k, argname="k"), "v": view(v, argname="v")}
        p = validate.batch_problem(views["q"], views["k"], views["v"], softmax_scale=None, causal=causal,
                                   window_size=window_size, softcap=softcap, return_lse=True, num_splits=0)
        arch = _arch()
        splits = forced_splits or resolve_splits(p, native_splitk, arch, torch.cuda.get_device_properties(0).multi_processor_count)
        lse = torch.full((p.batch, p.heads_q, p.seqlen_q), float("nan"), device=q.device, dtype=torch.float32)
        prep = prepare(native_splitk.plan(p, arch, 132, splits), q.device.index)
        ptrs = {n: vw.ptr for n, vw in views.items()}
        ptrs.update(out=out.data_ptr(), lse=lse.data_ptr())
        prep.launch(ptrs, torch.cuda.current_stream().cuda_stream)
        return out, lse

    return run


@pytest.mark.gpu
@pytest.mark.parametrize("forced", [0, 3], ids=["heuristic", "split3"])
@pytest.mark.parametrize("case", CASES, ids=sweep.case_id)
def test_native_family_passes_the_mha_fwd_sweep(case, forced):
    why = sweep.check_case(case, mha_fwd=native_mha_fwd(forced))
    assert why is None, why

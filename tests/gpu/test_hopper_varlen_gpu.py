"""The hopper family's ``_varlen`` kernels (cu_seqlens) on an H100 / H200: forced, and where dispatch sends them.

Forced: :func:`hopper_varlen_fwd` plans with ``hopper.plan`` (the gate with ``force=True``: dispatch's speed preference
dropped) and launches through pyhipattn's runtime, on ragged packed sequences: lengths that are not multiples of the
128 / 192-row tiles or the 64 / 128-key blocks, sequences with 0 query or 0 key tokens, sq > sk and sq < sk within one
batch (causal is bottom-right aligned per sequence), GQA / MQA, every head dim (64, 96, 128, 256), bf16 and fp16,
sliding windows and softcap (the ``_softcap_varlen`` kernels), and a persistent grid of 5 CTAs (several tiles a CTA).
Checks: out against the float64 reference sequence by sequence (``attention_varlen_ref``), poisoned rows of out outside
the packed rows untouched (the O stores clip at each sequence's end), LSE ``(heads_q, total_q)`` -inf exactly on rows
that see no key and close elsewhere.  Dispatched: ``mha_varlen_fwd`` on a problem the planner gives hopper.
"""

from __future__ import annotations

import zlib

import pytest

torch = pytest.importorskip("torch")

import pyhipattn  # noqa: E402
from pyhipattn import percall, validate  # noqa: E402
from pyhipattn.dlpack import view  # noqa: E402
from pyhipattn.families import hopper  # noqa: E402
from pyhipattn.reference import attention_varlen_ref, lse_error, rel_error  # noqa: E402

from hopper_launch import launch_forced  # noqa: E402  (tests/gpu/hopper_launch.py)

TOL = {"bf16": 1e-2, "fp16": 2e-3}
_DT = {"bf16": torch.bfloat16, "fp16": torch.float16}

# (lens_q, lens_k, hq, hk, d, dtype, kw)
_RAGGED_Q = [300, 0, 129, 1, 1000, 64, 257, 5]
_RAGGED_K = [300, 5, 0, 700, 1000, 64, 129, 900]
CASES = []
for _d in (64, 96, 128, 256):
    for _dt in ("bf16", "fp16"):
        CASES += [(_RAGGED_Q, _RAGGED_K, 8, 2, _d, _dt, dict(causal=True)),
                  (_RAGGED_Q, _RAGGED_K, 8, 8, _d, _dt, dict(causal=False))]
    CASES += [([777, 1, 0, 2049], [777, 3000, 7, 2000], 4, 1, _d, "bf16", dict(causal=True, window_size=(200, 0))),
              ([777, 64, 2049], [777, 0, 2000], 4, 2, _d, "fp16", dict(window_size=(100, 37))),
              ([511, 0, 1500], [700, 9, 1200], 4, 2, _d, "bf16", dict(causal=True, softcap=30.0)),
              ([383, 1025], [383, 1024], 4, 4, _d, "fp16", dict(softcap=20.0))]


def _sm90() -> bool:
    return torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0)


def _cu(lens: list[int]):
    return torch.tensor([0] + torch.tensor(lens).cumsum(0).tolist(), dtype=torch.int32, device="cuda")


def hopper_varlen_fwd(q, k, v, cu_q, cu_k, max_q: int, max_k: int, *, out, grid_cap: int | None = None,
                      causal=False, window_size=(-1, -1), softcap=0.0, return_lse=True):
    """``mha_varlen_fwd`` through the hopper family, forced; q ``(total_q, hq, d)``, k / v ``(total_k, hk, d)``, out like
    q (written in place).  Returns (out, lse ``(hq, total_q)`` fp32, NaN-filled before the launch)."""
    views = {"q": view(q, argname="q"), "k": view(k, argname="k"), "v": view(v, argname="v"),
             "cu_seqlens_q": view(cu_q, argname="cu_seqlens_q"), "cu_seqlens_k": view(cu_k, argname="cu_seqlens_k")}
    p = validate.varlen_problem(views["q"], views["k"], views["v"], views["cu_seqlens_q"], views["cu_seqlens_k"],
                                max_q, max_k, softmax_scale=None, causal=causal, window_size=window_size,
                                softcap=softcap, return_lse=return_lse, num_splits=0)
    return launch_forced(p, views, out, (p.heads_q, p.total_q), grid_cap)


def check_varlen_case(lens_q, lens_k, hq, hk, d, dtype, kw, grid_cap=None, seed=0) -> str | None:
    """Run one case through :func:`hopper_varlen_fwd`; None when it passes, else what failed."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    dt = _DT[dtype]
    tq, tk = sum(lens_q), sum(lens_k)
    q = torch.randn(tq, hq, d, generator=g, device="cuda", dtype=dt)
    k = torch.randn(tk, hk, d, generator=g, device="cuda", dtype=dt)
    v = torch.randn(tk, hk, d, generator=g, device="cuda", dtype=dt)
    cq, ck = _cu(lens_q), _cu(lens_k)
    # out inside a poisoned buffer with 64 guard rows either side: rows outside the packed ones must stay NaN
    buf = torch.full((tq + 128, hq, d), float("nan"), device="cuda", dtype=dt)
    out = buf[64:64 + tq]
    out, lse = hopper_varlen_fwd(q, k, v, cq, ck, max(lens_q), max(lens_k), out=out, grid_cap=grid_cap, **kw)
    torch.cuda.synchronize()
    if not (torch.isnan(buf[:64]).all() and torch.isnan(buf[64 + tq:]).all()):
        return "out rows outside the packed sequences were written"
    ref, ref_lse = attention_varlen_ref(q.double(), k.double(), v.double(), cq.tolist(), ck.tolist(),
                                        causal=kw.get("causal", False), window=kw.get("window_size", (-1, -1)),
                                        softcap=kw.get("softcap", 0.0))
    err = rel_error(out, ref)
    if not err <= TOL[dtype]:
        return f"rel error {err:.3e} > {TOL[dtype]:.0e}"
    if why := lse_error(lse, ref_lse):
        return why
    empty = torch.isneginf(ref_lse).T                      # (total_q, hq): rows that see no key give out 0
    if empty.any() and not (out[empty] == 0).all():
        return "rows that see no key are not 0"
    return None


def case_id(c) -> str:
    lens_q, lens_k, hq, hk, d, dtype, kw = c
    extra = ",".join(f"{k}={v}" for k, v in kw.items())
    return f"{dtype}-d{d}-{hq}/{hk}-n{len(lens_q)}-{sum(lens_q)}x{sum(lens_k)}-{extra}"


pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not _sm90(), reason="the hopper kernels need an sm_90a GPU (H100 / H200)")]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_hopper_varlen_forced(case):
    why = check_varlen_case(*case, seed=zlib.crc32(case_id(case).encode()) % 1000)
    assert why is None, why


@pytest.mark.parametrize("case", [c for c in CASES if c[6].get("causal")], ids=case_id)
def test_hopper_varlen_on_a_small_persistent_grid(case):
    why = check_varlen_case(*case, grid_cap=5, seed=3)
    assert why is None, why


@pytest.mark.parametrize("d, causal", [(128, True), (128, False), (64, False), (64, True), (96, True), (256, False)])
def test_dispatch_runs_preferred_varlen_problems_on_hopper(monkeypatch, request, d, causal):
    """16 sequences of 600-3000 tokens, with the varlen rule covering them (set here, so the test holds whatever the
    shipped hopper.VARLEN_PREFERRED says; PREFERRED does not apply to varlen): the planner picks the hopper
    ``_varlen`` kernel and ``mha_varlen_fwd`` matches the reference."""
    monkeypatch.setitem(hopper.VARLEN_PREFERRED, (d, causal), (0, 1 << 30))
    percall.decide.cache_clear()                       # dispatch decisions are cached per problem
    request.addfinalizer(percall.decide.cache_clear)   # (and the rule goes back after the test)
    g = torch.Generator().manual_seed(d + causal)
    lens = torch.randint(600, 3000, (16,), generator=g).tolist()
    lens[3] = 2500          # max_seqlen above the preferred minimum
    plan = pyhipattn.plan_mha_fwd((sum(lens), 8, d), (sum(lens), 8, d), (sum(lens), 8, d), dtype="bf16", arch="sm_90a",
                                  cu_seqlens_len=len(lens) + 1, max_seqlen_q=max(lens), max_seqlen_k=max(lens),
                                  causal=causal)
    assert [pl.kernel for pl in plan] == [f"hopper_fwd_bf16_d{d}{'_dyn' if (d, causal) == (96, True) else ''}_varlen"]
    q, k, v = (torch.randn(sum(lens), 8, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    cu = _cu(lens)
    out, lse = pyhipattn.mha_varlen_fwd(q, k, v, cu, cu, max(lens), max(lens), causal=causal, return_lse=True)
    ref, ref_lse = attention_varlen_ref(q.double(), k.double(), v.double(), cu.tolist(), cu.tolist(), causal=causal)
    assert rel_error(out, ref) <= TOL["bf16"]
    assert torch.allclose(lse.double(), ref_lse, rtol=1e-3, atol=2e-3)

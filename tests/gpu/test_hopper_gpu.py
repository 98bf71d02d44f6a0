"""The hopper family (sm_90a, wgmma) forced on the mha_fwd numeric sweep, on an H100 / H200.

Every case of ``pyhipattn.tools.sweep.make_cases(150)`` that the hopper kernels can run (head dim 64,
96, 128 or 256, d == dv; windows and softcap since issue11g) is planned by ``hopper.plan`` (the gate with
``force=True``: dispatch's speed preference dropped) and launched through pyhipattn's own
runtime, with the sweep's rules: poisoned output, error <= 1.5x torch SDPA's on the same inputs
(or the absolute tolerance where SDPA cannot express the case), LSE -inf exactly on rows with
no visible key and close elsewhere.  Targeted cases add GQA / MQA, ragged lengths around the
128-row and 128-key tiles, sq > sk and sq < sk causal, long sequences (the persistent loop runs
several tiles per CTA), d96 and d256 with ragged tails, the 176-key kernels of long non-causal d128 problems, strided (packed qkv)
inputs and a padded output; sliding windows with and without causal (left edges inside and on key blocks, whole
tiles and rows that see no key, sq < sk and sq > sk, the _dyn / _static / _bn176 siblings) and softcap (the _softcap
kernels of every head dim, with windows too).
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from pyhipattn import validate  # noqa: E402

from pyhipattn.tools import sweep  # noqa: E402
from pyhipattn.dlpack import view  # noqa: E402
from pyhipattn.families import hopper  # noqa: E402
from pyhipattn.reference import attention_ref, rel_error  # noqa: E402

from hopper_launch import launch_forced  # noqa: E402  (tests/gpu/hopper_launch.py)

_SWEEP = [c for c in sweep.make_cases(150) if c["d"] == c["dv"] and c["d"] in hopper.HEAD_DIMS]
_TARGETED = []
for _i, (_b, _sq, _sk, _hq, _hk, _d, _dt, _f) in enumerate([
        (2, 1000, 1000, 8, 2, 128, "bf16", "causal+lse"), (1, 7, 1000, 4, 1, 64, "fp16", "causal+lse"),
        (2, 1000, 7, 8, 2, 64, "bf16", "causal+lse"), (1, 4097, 4097, 4, 4, 128, "fp16", "none"),
        (3, 255, 129, 8, 1, 64, "bf16", "none"), (2, 129, 255, 8, 2, 128, "fp16", "causal+lse"),
        (1, 1, 300, 8, 8, 128, "bf16", "none"), (2, 3000, 3000, 4, 4, 64, "fp16", "causal+lse"),
        (1, 600, 4000, 8, 8, 128, "bf16", "causal+lse"), (4, 2048, 2048, 16, 2, 128, "bf16", "causal"),
        (1, 8192, 8192, 4, 1, 64, "bf16", "causal+lse"), (2, 384, 129, 32, 8, 128, "fp16", "none"),
        (1, 127, 128, 8, 2, 64, "fp16", "causal"), (1, 129, 127, 8, 2, 128, "bf16", "causal+lse"),
        # long non-causal d128: the 176-key kernels (hopper.WIDE_BLOCK_NONCAUSAL), ragged key tail
        (1, 300, 8200, 4, 2, 128, "bf16", "none"), (2, 1000, 8192, 2, 1, 128, "fp16", "none"),
        # d96 (96 columns computed on 128-wide tiles) and d256 (64-key blocks, one Q buffer): multi-tile,
        # ragged tails, GQA / MQA, sq != sk causal, both dtypes
        (2, 1000, 1000, 8, 2, 96, "bf16", "causal+lse"), (1, 4097, 4097, 4, 4, 96, "fp16", "none"),
        (2, 129, 255, 8, 2, 96, "fp16", "causal+lse"), (1, 600, 3000, 8, 8, 96, "bf16", "none"),
        (1, 3000, 600, 4, 1, 96, "bf16", "causal+lse"), (2, 2048, 2048, 16, 2, 96, "fp16", "causal"),
        (2, 1000, 1000, 8, 2, 256, "bf16", "causal+lse"), (1, 4097, 4097, 4, 4, 256, "fp16", "none"),
        (2, 129, 255, 8, 1, 256, "fp16", "causal+lse"), (1, 600, 3000, 8, 8, 256, "bf16", "causal+lse"),
        (2, 300, 77, 8, 2, 256, "bf16", "none"), (2, 2048, 2048, 16, 2, 256, "fp16", "causal"),
        # causal L2 sections of several KV groups (8192 keys: 2 MiB of K + V per KV head at d64, 4 MiB at d128),
        # the last one smaller at d128 with whole-group sections; rows of 1024 queries keep the reference small
        (1, 1024, 8192, 40, 10, 64, "bf16", "causal+lse"), (1, 1024, 8192, 40, 10, 128, "fp16", "causal+lse"),
        # d64 warpgroups computing only their own rows' key blocks (HOPPER_WG_SKIP_D64): the second 192-row tile's
        # warpgroups 1 and 2 past seqlen_q pass 23 of 24 blocks; causal with keys 100 past the queries (diagonal
        # tiles whose lower warpgroups pass their top block, and ones that do not)
        (2, 200, 3000, 4, 2, 64, "bf16", "none"), (1, 2100, 2200, 4, 1, 64, "fp16", "causal+lse")]):
    _TARGETED.append(dict(b=_b, sq=_sq, sk=_sk, hq=_hq, hk=_hk, d=_d, dv=_d, dtype=_dt, feature=_f,
                          window=(-1, -1), seed=700 + _i))
# windows and softcap (issue11g): (b, sq, sk, hq, hk, d, dtype, feature, window)
for _i, (_b, _sq, _sk, _hq, _hk, _d, _dt, _f, _w) in enumerate([
        (2, 1000, 1000, 8, 2, 128, "bf16", "causal+window", (200, 0)),
        (1, 3000, 3000, 4, 1, 64, "fp16", "causal+window", (128, 0)),          # left edge on a key block boundary
        (2, 700, 1500, 8, 2, 96, "bf16", "window", (300, 50)),
        (2, 1500, 700, 8, 8, 256, "fp16", "window", (0, 0)),                   # whole tiles and rows with no key
        (1, 4097, 4097, 4, 4, 128, "bf16", "window", (1000, 1000)),
        (1, 300, 8200, 4, 2, 128, "bf16", "window", (4096, 100)),              # the _bn176 kernel
        (1, 129, 2000, 8, 2, 128, "fp16", "window", (5, -1)),
        (1, 2000, 129, 8, 2, 64, "bf16", "window", (-1, 3)),
        (1, 8192, 8192, 4, 1, 64, "bf16", "causal+window", (1024, 0)),
        (2, 2048, 2048, 16, 2, 96, "bf16", "causal+window", (300, 0)),         # the d96 _dyn sibling
        (1, 2048, 2048, 8, 2, 128, "bf16", "causal+window", (700, 0)),         # the d128 _fk sibling (_static before session 7)
        (1, 1024, 8192, 40, 10, 128, "fp16", "causal+window", (2048, 0)),      # L2 sections
        (2, 1000, 1000, 8, 2, 64, "bf16", "softcap", (-1, -1)),
        (1, 1000, 3000, 4, 1, 96, "fp16", "causal+softcap", (-1, -1)),
        (2, 777, 777, 8, 2, 256, "bf16", "window+softcap", (64, 64)),
        (2, 2048, 2048, 16, 2, 128, "fp16", "causal+window+softcap", (512, 0)),
        (1, 600, 4000, 8, 8, 64, "fp16", "causal+softcap", (-1, -1)),
        (2, 300, 77, 8, 2, 256, "fp16", "causal+softcap", (-1, -1))]):
    _TARGETED.append(dict(b=_b, sq=_sq, sk=_sk, hq=_hq, hk=_hk, d=_d, dv=_d, dtype=_dt, feature=_f,
                          window=_w, seed=760 + _i))
CASES = _SWEEP + _TARGETED


def _sm90() -> bool:
    return torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0)


def hopper_mha_fwd(grid_cap: int | None = None):
    """An ``mha_fwd(q, k, v, out=..., **kw) -> (out, lse)`` that runs the hopper family; ``grid_cap``
    caps the plan's grid (a persistent grid of that many CTAs, whatever the plan chose)."""

    def run(q, k, v, *, out, causal=False, window_size=(-1, -1), softcap=0.0, return_lse=True):
        views = {"q": view(q, argname="q"), "k": view(k, argname="k"), "v": view(v, argname="v")}
        p = validate.batch_problem(views["q"], views["k"], views["v"], softmax_scale=None, causal=causal,
                                   window_size=window_size, softcap=softcap, return_lse=return_lse, num_splits=0)
        p = _with_out_strides(p, out)
        return launch_forced(p, views, out, (p.batch, p.heads_q, p.seqlen_q), grid_cap)

    return run


def _with_out_strides(p, out):
    import dataclasses

    return dataclasses.replace(p, o_strides=tuple(out.stride()[:3]))


@pytest.mark.gpu
@pytest.mark.skipif(not _sm90(), reason="the hopper kernels need an sm_90a GPU (H100 / H200)")
@pytest.mark.parametrize("case", CASES, ids=sweep.case_id)
def test_hopper_family_passes_the_mha_fwd_sweep(case):
    why = sweep.check_case(case, mha_fwd=hopper_mha_fwd())
    assert why is None, why


@pytest.mark.gpu
@pytest.mark.skipif(not _sm90(), reason="the hopper kernels need an sm_90a GPU (H100 / H200)")
@pytest.mark.parametrize("d, causal", [(128, True), (64, False), (128, False), (64, True), (96, True), (96, False),
                                       (256, True), (256, False)])
def test_hopper_strided_inputs_and_padded_output(d, causal):
    """q, k, v as slices of one packed (b, s, 3, h, d) tensor; out a slice of a wider buffer."""
    qkv = torch.randn(2, 777, 3, 8, d, device="cuda", dtype=torch.bfloat16)
    q, k, v = qkv.unbind(2)
    wide = torch.full((2, 777, 8, d + 64), float("nan"), device="cuda", dtype=torch.bfloat16)
    out = wide[..., :d]
    res, lse = hopper_mha_fwd()(q, k, v, out=out, causal=causal)
    torch.cuda.synchronize()
    ref, ref_lse = attention_ref(q, k, v, causal=causal)
    assert rel_error(out, ref) <= sweep.ABS_TOL["bf16"]
    assert torch.isnan(wide[..., d:]).all(), "the kernel wrote past head_dim into the padding"
    assert torch.allclose(lse.double(), ref_lse, rtol=1e-3, atol=2e-3)


@pytest.mark.gpu
@pytest.mark.skipif(not _sm90(), reason="the hopper kernels need an sm_90a GPU (H100 / H200)")
@pytest.mark.parametrize("grid_cap", [132, 5])
@pytest.mark.parametrize("case", [c for c in _TARGETED if c["feature"] != "none"], ids=sweep.case_id)
def test_hopper_causal_on_a_persistent_grid(case, grid_cap):
    """Causal tiles on a persistent grid (the snake order over the CTAs), whatever grid the plan picks."""
    why = sweep.check_case(case, mha_fwd=hopper_mha_fwd(grid_cap))
    assert why is None, why


def _dynamic_causal(dtype: str, d: int) -> bool:
    m = hopper.manifest("sm_90a")
    obj = m["by_name"].get(hopper.variant_name(dtype, d)) if m else None
    return bool(obj and obj.get("dynamic_causal"))


@pytest.mark.gpu
@pytest.mark.skipif(not _sm90(), reason="the hopper kernels need an sm_90a GPU (H100 / H200)")
@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
@pytest.mark.parametrize("sq, sk", [(1000, 1000), (700, 300), (300, 900)])
@pytest.mark.parametrize("d, causal", [(128, True), (64, True), (64, False)])
def test_hopper_dynamic_causal_schedule_back_to_back(dtype, sq, sk, d, causal):
    """The dynamic causal schedule (manifest ``dynamic_causal``): CTAs take tiles from a counter below
    the workspace's ``tmaps`` that the last CTA resets.  Launches back to back on one stream with
    different grids (1, 3, 5, 132 CTAs and the plan's) each give the reference; a counter left
    non-zero would skip tiles of the next launch and leave NaN rows.  GQA 4:1, LSE, rows with no
    visible key (sq > sk), ragged tails.  The d64 kernels with the schedule deal non-causal tiles out
    from the counter too."""
    if not _dynamic_causal(dtype, d):
        pytest.skip(f"the shipped d{d} kernel has no dynamic causal schedule")
    torch.manual_seed(11)
    dt = torch.bfloat16 if dtype == "bf16" else torch.float16
    q = torch.randn(2, sq, 8, d, device="cuda", dtype=dt)
    k = torch.randn(2, sk, 2, d, device="cuda", dtype=dt)
    v = torch.randn(2, sk, 2, d, device="cuda", dtype=dt)
    ref, ref_lse = attention_ref(q, k, v, causal=causal)
    ref_lse = torch.as_tensor(ref_lse, device=q.device)
    for cap in (5, None, 1, 132, 3):
        out = torch.full_like(q, float("nan"))
        _, lse = hopper_mha_fwd(cap)(q, k, v, out=out, causal=causal)
        torch.cuda.synchronize()
        assert rel_error(out, ref) <= sweep.ABS_TOL[dtype], f"grid cap {cap}"
        seen = torch.isfinite(ref_lse)
        assert torch.equal(torch.isfinite(lse), seen), f"grid cap {cap}: -inf LSE rows differ"
        assert torch.allclose(lse[seen].double(), ref_lse[seen].double(), rtol=1e-3, atol=2e-3), f"grid cap {cap}"


@pytest.mark.gpu
@pytest.mark.skipif(not _sm90(), reason="the hopper kernels need an sm_90a GPU (H100 / H200)")
@pytest.mark.parametrize("grid_cap", [None, 5])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("b, sq, sk, hq, hk, dtype", [(2, 1000, 1000, 8, 2, "bf16"), (1, 700, 300, 4, 1, "fp16"),
                                                      (2, 300, 900, 8, 8, "bf16")])
def test_hopper_static_siblings(monkeypatch, b, sq, sk, hq, hk, dtype, d, grid_cap):
    """The ``_static`` siblings (hopper.STATIC_SIBLING_CAUSAL) on every causal problem: the rule widened to all
    lengths and sizes so that small problems reach them; the plan's grid and a persistent grid of 5 CTAs."""
    by = hopper.manifest("sm_90a")["by_name"]
    if hopper.variant_name(dtype, d) + "_static" not in by:
        pytest.skip(f"the shipped cubin has no d{d} _static sibling")
    monkeypatch.setitem(hopper.STATIC_SIBLING_CAUSAL, d, (0, 1 << 30, 1 << 62))
    monkeypatch.setattr(hopper, "C2_SIBLING_D64", {})   # (the d64 _c2 sibling comes first where its rule applies)
    monkeypatch.setattr(hopper, "C2_FEW_ROUNDS_D64", 0)   # (nor on few rounds of tiles: call st)
    monkeypatch.setattr(hopper, "FK_SIBLING_D128", {})   # (nor the d128 _fk sibling: before _static since session 7)
    case = dict(b=b, sq=sq, sk=sk, hq=hq, hk=hk, d=d, dv=d, dtype=dtype, feature="causal+lse", window=(-1, -1),
                seed=900 + sq)
    why = sweep.check_case(case, mha_fwd=hopper_mha_fwd(grid_cap))
    assert why is None, why


def _tail_split(tiles: int, grid: int, nwg: int = 3, rounds: int = 8) -> bool:
    """hopper_fwd.cu's HOPPER_TAIL_SPLIT_D64 rule (non-causal, no window; at most HOPPER_TAIL_ROUNDS_D64 rounds): the
    last round's tiles become pieces."""
    return grid < tiles <= rounds * grid and nwg * (tiles % grid) <= grid and tiles % grid > 0


@pytest.mark.gpu
@pytest.mark.skipif(not _sm90(), reason="the hopper kernels need an sm_90a GPU (H100 / H200)")
@pytest.mark.parametrize("suffix", ["", "_s4"])
@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
@pytest.mark.parametrize("b, sq, sk, hq, hk, cap", [
    (1, 1000, 1000, 2, 2, 11),    # 12 tiles on 11 CTAs: the last tile (rows 960..999) split, two of its pieces past sq
    (1, 1152, 700, 2, 1, 11),     # whole tiles split; GQA; ragged keys
    (2, 700, 1300, 8, 2, 21),     # 64 tiles on 21 CTAs: one split, its third piece past sq
    (1, 2000, 513, 4, 4, 14),     # 44 tiles on 14: 2 split, one of them with a piece past sq
])
def test_hopper_d64_tail_split(monkeypatch, b, sq, sk, hq, hk, cap, dtype, suffix):
    """HOPPER_TAIL_SPLIT_D64 (manifest ``tail_split``): a non-causal last round of few tiles goes out as 64-row pieces,
    one warpgroup's rows each; grids chosen so the rule applies (checked here); out and LSE against the reference,
    every row written (out starts NaN), for the d64 kernel and its ``_s4`` sibling."""
    by = hopper.manifest("sm_90a")["by_name"]
    name = hopper.variant_name(dtype, 64) + suffix
    if name not in by or not by[name].get("tail_split"):
        pytest.skip(f"the shipped cubin has no {name} with tail_split")
    tiles = -(-sq // by[name]["block_m"]) * hq * b
    assert _tail_split(tiles, cap, by[name]["block_m"] // 64, by[name]["tail_split_rounds"]), (tiles, cap)
    monkeypatch.setitem(hopper.S4_SIBLING_D64, False, (0, 1 << 30) if suffix else (0, -1))
    monkeypatch.setattr(hopper, "C2_SIBLING_D64", {})   # (the _c2 sibling, which has no tail split, comes first)
    monkeypatch.setattr(hopper, "C2_FEW_ROUNDS_D64", 0)   # (nor on few rounds of tiles: call st)
    torch.manual_seed(sq + cap)
    dt = torch.bfloat16 if dtype == "bf16" else torch.float16
    q = torch.randn(b, sq, hq, 64, device="cuda", dtype=dt)
    k = torch.randn(b, sk, hk, 64, device="cuda", dtype=dt)
    v = torch.randn(b, sk, hk, 64, device="cuda", dtype=dt)
    ref, ref_lse = attention_ref(q, k, v, causal=False)
    ref_lse = torch.as_tensor(ref_lse, device=q.device)
    for _ in range(2):      # back to back: the tile counter is reset for the next launch
        out = torch.full_like(q, float("nan"))
        _, lse = hopper_mha_fwd(cap)(q, k, v, out=out, causal=False)
        torch.cuda.synchronize()
        assert not torch.isnan(out).any(), "rows left unwritten"
        assert rel_error(out, ref) <= sweep.ABS_TOL[dtype]
        assert torch.allclose(lse.double(), ref_lse.double(), rtol=1e-3, atol=2e-3)


def _feature(causal: bool, window: tuple[int, int]) -> str:
    """sweep.check_case's feature name for a causal flag and a (left, right) window (left -1: none)."""
    return {(True, True): "causal+window", (True, False): "causal+lse", (False, True): "window",
            (False, False): "none"}[(causal, window[0] >= 0)]


@pytest.mark.gpu
@pytest.mark.skipif(not _sm90(), reason="the hopper kernels need an sm_90a GPU (H100 / H200)")
@pytest.mark.parametrize("grid_cap", [None, 5])
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("b, sq, sk, hq, hk, dtype, window", [(2, 1000, 1000, 8, 2, "bf16", (-1, -1)),
                                                              (1, 700, 300, 4, 1, "fp16", (-1, -1)),
                                                              (2, 300, 900, 8, 8, "bf16", (-1, -1)),
                                                              (1, 900, 900, 4, 2, "bf16", (200, 100))])
def test_hopper_d64_s4_sibling(monkeypatch, b, sq, sk, hq, hk, dtype, window, causal, grid_cap):
    """The d64 ``_s4`` sibling (4-deep K / V ring, hopper.S4_SIBLING_D64) on every problem: the rule widened to all
    lengths, both causal flags; the plan's grid and a persistent grid of 5 CTAs; LSE; a sliding window."""
    by = hopper.manifest("sm_90a")["by_name"]
    if hopper.variant_name(dtype, 64) + "_s4" not in by:
        pytest.skip("the shipped cubin has no d64 _s4 sibling")
    monkeypatch.setitem(hopper.S4_SIBLING_D64, causal, (0, 1 << 30))
    monkeypatch.setitem(hopper.STATIC_SIBLING_CAUSAL, 64, (0, -1, 0))
    monkeypatch.setattr(hopper, "C2_SIBLING_D64", {})
    monkeypatch.setattr(hopper, "C2_FEW_ROUNDS_D64", 0)   # (nor on few rounds of tiles: call st)
    feature = _feature(causal, window)
    case = dict(b=b, sq=sq, sk=sk, hq=hq, hk=hk, d=64, dv=64, dtype=dtype, feature=feature, window=window,
                seed=1700 + sq)
    why = sweep.check_case(case, mha_fwd=hopper_mha_fwd(grid_cap))
    assert why is None, why


@pytest.mark.gpu
@pytest.mark.skipif(not _sm90(), reason="the hopper kernels need an sm_90a GPU (H100 / H200)")
@pytest.mark.parametrize("grid_cap", [None, 5, 1])
@pytest.mark.parametrize("causal", [True, False])
@pytest.mark.parametrize("b, sq, sk, hq, hk, dtype, window", [(2, 1000, 1000, 8, 2, "bf16", (-1, -1)),
                                                              (1, 700, 300, 4, 1, "fp16", (-1, -1)),
                                                              (2, 300, 900, 8, 8, "bf16", (-1, -1)),
                                                              (1, 900, 900, 4, 2, "bf16", (200, 100)),
                                                              (3, 129, 127, 2, 1, "fp16", (-1, -1)),
                                                              (1, 64, 4100, 2, 2, "bf16", (-1, -1))])
@pytest.mark.parametrize("sibling", ["_c2", "_c2q3"])
def test_hopper_d64_c2_sibling(monkeypatch, b, sq, sk, hq, hk, dtype, window, causal, grid_cap, sibling):
    """The d64 ``_c2`` sibling (128-row tiles in cuDNN's loop shape, hopper.C2_SIBLING_D64) and its ``_c2q3`` sibling
    (three Q buffers, hopper.C2Q3_SIBLING_D64) on every problem: the rules widened to all lengths, both causal flags;
    the plan's grid, 5 CTAs and one (every tile of the problem through one CTA's ping-pong turns); LSE; a sliding window;
    rows past seqlen_q in a tile, rows that see no key (sq > sk causal), one row block over many key blocks; twice back
    to back (the tile counter is reset for the next launch)."""
    by = hopper.manifest("sm_90a")["by_name"]
    if hopper.variant_name(dtype, 64) + sibling not in by:
        pytest.skip(f"the shipped cubin has no d64 {sibling} sibling")
    monkeypatch.setattr(hopper, "C2_SIBLING_D64", {True: (0, 1 << 30), False: (0, 1 << 30)})
    everywhere = {True: (0, 1 << 30), False: (0, 1 << 30)}
    monkeypatch.setattr(hopper, "C2Q3_SIBLING_D64", everywhere if sibling == "_c2q3" else {})
    p = validate.batch_problem(view(torch.empty(b, sq, hq, 64, dtype=torch.bfloat16), argname="q"),
                               view(torch.empty(b, sk, hk, 64, dtype=torch.bfloat16), argname="k"),
                               view(torch.empty(b, sk, hk, 64, dtype=torch.bfloat16), argname="v"), softmax_scale=None,
                               causal=causal, window_size=window, softcap=0.0, return_lse=True, num_splits=1)
    assert hopper.kernel_name(p, by).endswith("_d64" + sibling)
    feature = _feature(causal, window)
    case = dict(b=b, sq=sq, sk=sk, hq=hq, hk=hk, d=64, dv=64, dtype=dtype, feature=feature, window=window,
                seed=2300 + sq)
    for _ in range(2):
        why = sweep.check_case(case, mha_fwd=hopper_mha_fwd(grid_cap))
        assert why is None, why


@pytest.mark.gpu
@pytest.mark.skipif(not _sm90(), reason="the hopper kernels need an sm_90a GPU (H100 / H200)")
@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
@pytest.mark.parametrize("grow", [3.0, 20.0, -3.0])
@pytest.mark.parametrize("b, s, d, causal", [(2, 2048, 64, False), (2, 2048, 64, True), (2, 2048, 96, False),
                                             (2, 2048, 96, True), (2, 2048, 128, False), (2, 2048, 128, True),
                                             (2, 2048, 256, False), (2, 2048, 256, True), (1, 8192, 128, False),
                                             (1, 8192, 64, True)])
def test_hopper_row_maxima_that_move_along_the_keys(b, s, d, causal, grow, dtype):
    """HOPPER_LAZY_RESCALE (the kernels but _c2 keep a warp's row maxima while no row's grows by more than 8 in the exp2
    domain): scores that grow along the keys by ``grow`` (exp2 domain) a 128-key block -- by 3, kept two blocks and then
    rescaled, so P reaches 2^8 -- or by 20 (a rescale every block), or fall (the first block's maxima kept to the end);
    out and LSE against the reference.  The LSE bound is relative too: at 8192 keys growing by 20 it is about 890."""
    import math

    torch.manual_seed(int(100 * grow) + d + s + causal)
    dt = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtype]
    h = 4
    u = torch.randn(d, device="cuda")
    u = u / u.norm()
    t = torch.arange(s, device="cuda", dtype=torch.float32) * (grow / 128 / math.log2(math.e))
    t = t - t.min()
    q = (u * math.sqrt(d)).expand(b, s, h, d) + 0.3 * torch.randn(b, s, h, d, device="cuda")
    k = u * t[None, :, None, None] + 0.3 * torch.randn(b, s, h, d, device="cuda")
    v = torch.randn(b, s, h, d, device="cuda")
    q, k, v = (x.to(dt).contiguous() for x in (q, k, v))
    out = torch.full_like(q, float("nan"))
    _, lse = hopper_mha_fwd()(q, k, v, out=out, causal=causal)
    torch.cuda.synchronize()
    ref, ref_lse = attention_ref(q, k, v, causal=causal)
    assert torch.isfinite(out).all()
    assert rel_error(out, ref) <= sweep.ABS_TOL[dtype]
    assert torch.allclose(lse.double(), ref_lse, rtol=1e-5, atol=2e-3), float((lse.double() - ref_lse).abs().max())

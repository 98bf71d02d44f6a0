"""Planning for the native split-K (gfx942 / gfx950) and WMMA (gfx11 / gfx12) families: gates,
tile choice, grids, kernargs, workspace, split counts.  CPU only."""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

from pyhipattn.kernels_dir import kernels_dir

from pyhipattn.dispatch import resolve_splits
from pyhipattn.families import native_splitk, wmma
from pyhipattn.families.base import Problem

CO = Path(__file__).resolve().parents[1] / "kernels" / "co"


def problem(b=2, sq=128, sk=1024, hq=8, hk=2, d=128, dtype="bf16", **kw) -> Problem:
    """A BSHD-contiguous problem."""
    return Problem(b, sq, sk, hq, hk, d, kw.pop("dv", d), dtype, 1 / math.sqrt(d),
                   q_strides=(sq * hq * d, hq * d, d), k_strides=(sk * hk * d, hk * d, d),
                   v_strides=(sk * hk * d, hk * d, d), o_strides=(sq * hq * d, hq * d, d), **kw)


def fields(plan, struct):
    return native_splitk._layout(struct).packer().unpack(plan.kernargs)


# ----------------------------------------------------------------------------- gates

def test_native_splitk_accepts_cdna_only():
    p = problem()
    assert native_splitk.gate(p, "gfx942") is None
    assert native_splitk.gate(p, "gfx950") is None
    assert "not supported" in native_splitk.gate(p, "gfx1100")


def test_wmma_accepts_rdna3_and_rdna4_only():
    p = problem()
    for arch in ("gfx1100", "gfx1101", "gfx1102", "gfx1200", "gfx1201"):
        assert wmma.gate(p, arch) is None
    assert "not supported" in wmma.gate(p, "gfx942")


@pytest.mark.parametrize("family", [native_splitk, wmma])
@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_gates_refuse_nvidia_where_the_portable_family_runs(family, arch):
    assert "portable family" in family.gate(problem(), arch)


@pytest.mark.parametrize("change,words", [
    (dict(dtype="fp32"), "dtype"),
    (dict(head_dim=96, head_dim_v=96), "head_dim"),
    (dict(head_dim_v=64), "head_dim_v"),
    (dict(varlen=True), "varlen"),
    (dict(softcap=30.0), "softcap"),
    (dict(heads_k=3), "does not divide"),
    (dict(q_strides=(128 * 8 * 128, 8 * 128, 132)), "strides"),
])
@pytest.mark.parametrize("family,arch", [(native_splitk, "gfx942"), (wmma, "gfx1100")])
def test_gates_refuse_what_the_kernels_lack(family, arch, change, words):
    why = family.gate(replace(problem(), **change), arch)
    assert why is not None and words in why


def test_gate_accepts_causal_windows_gqa_mqa_and_cross_lengths():
    for kw in (dict(causal=True), dict(window=(64, 0)), dict(window=(16, 16)), dict(hk=1), dict(hk=8),
               dict(sq=1000, sk=17), dict(sq=1, sk=131071)):
        assert native_splitk.gate(problem(**kw), "gfx942") is None, kw


def test_plan_refuses_an_arch_without_objects_and_bad_split_counts():
    with pytest.raises(ValueError, match="gfx90a"):
        native_splitk.plan(problem(), "gfx90a", 104, 1)
    with pytest.raises(ValueError, match="num_splits"):
        native_splitk.plan(problem(), "gfx942", 304, 0)
    with pytest.raises(ValueError, match="gfx942"):
        wmma.plan(problem(), "gfx942", 304, 1)


# ----------------------------------------------------------------------------- plans over a sweep

ARCHES = ("gfx942", "gfx950", "gfx1100", "gfx1201", "sm_90a")
SWEEP = list(itertools.product(
    (1, 3),                       # batch
    (1, 7, 129, 2048),            # seqlen_q
    (3, 64, 1000, 4096),          # seqlen_k
    ((8, 8), (32, 8), (8, 1)),    # heads
    (64, 128),
    ("bf16", "fp16"),
    (False, True),                # causal
    (1, 2, 5, 16, 64),            # num_splits asked
))


def _manifest(arch):
    path = CO / arch / "native_manifest.json"
    if not path.exists():
        pytest.skip(f"{path} not built")
    return {e["name"]: e for e in json.loads(path.read_text())["kernels"]}


@pytest.mark.parametrize("arch", ARCHES)
def test_plans_over_a_sweep(arch):
    manifest = _manifest(arch)
    family = native_splitk if arch in ("gfx942", "gfx950", "sm_90a") else wmma
    for b, sq, sk, (hq, hk), d, dtype, causal, splits in SWEEP:
        p = problem(b, sq, sk, hq, hk, d, dtype, causal=causal)
        plans = family.plan(p, arch, 100, splits)
        fwd = plans[0]
        entry = manifest[fwd.kernel]                       # the kernel exists for this arch
        bm, bn = entry["tile_m"], entry["tile_n"]
        rows = sq * (hq // hk)
        assert bm == (native_splitk.bm_decode(arch) if rows <= native_splitk.DECODE_ROWS else 64)
        assert entry["masked"] == (causal or sk % bn != 0)
        assert (entry["dtype"], entry["head_dim"]) == (dtype, d)
        g = min(splits, 16, math.ceil(sk / bn))
        assert fwd.grid == (b * hk, math.ceil(rows / bm), g)
        assert fwd.block == (entry["threads"], 1, 1) and fwd.shared_mem == 0
        # absolute, so that pyhipattn.load(plan.code_object) works from any directory (issue 10)
        assert fwd.code_object == str(kernels_dir() / arch / f"native_fwd.{'cubin' if arch.startswith('sm') else 'co'}")
        assert dict(fwd.pointer_slots).keys() == {"q", "k", "v", "out", "lse", "workspace"}
        f = fields(fwd, "native_fwd_args")
        assert (f["batch"], f["seqlen_q"], f["seqlen_k"], f["heads_q"], f["heads_k"], f["num_splits"]) == (b, sq, sk, hq, hk, g)
        assert (f["window_left"], f["window_right"]) == ((-1, 0) if causal else (-1, -1))
        assert f["scale_log2"] == pytest.approx(math.log2(math.e) / math.sqrt(d), rel=1e-6)
        assert f["q_seq_stride"] == hq * d and f["k_batch_stride"] == sk * hk * d
        if g == 1:
            assert len(plans) == 1 and fwd.workspace_bytes == 0
        else:
            comb = plans[1]
            assert comb.kernel == f"native_combine_{dtype}" and comb.kernel in manifest
            assert fwd.workspace_bytes == comb.workspace_bytes == 4 * g * b * hq * sq * (d + 1)
            assert comb.grid == (math.ceil(b * hq * sq * d / 256), 1, 1) and comb.block == (256, 1, 1)
            assert dict(comb.pointer_slots).keys() == {"workspace", "out", "lse"}
            cf = fields(comb, "native_combine_args")
            assert (cf["num_splits"], cf["head_dim_v"], cf["o_seq_stride"]) == (g, d, hq * d)


def test_pointer_slots_are_where_the_struct_puts_them():
    plan = native_splitk.plan(problem(), "gfx942", 304, 4)[0]
    bound = plan.bind({"q": 1, "k": 2, "v": 3, "out": 4, "lse": 5, "workspace": 6})
    f = fields(bound, "native_fwd_args")
    assert [f[n] for n in ("q", "k", "v", "out", "lse", "workspace")] == [1, 2, 3, 4, 5, 6]


def test_window_is_folded_with_causal_bottom_right():
    f = fields(native_splitk.plan(problem(causal=True, window=(32, -1)), "gfx942", 304, 1)[0], "native_fwd_args")
    assert (f["window_left"], f["window_right"]) == (32, 0)
    f = fields(native_splitk.plan(problem(window=(8, 4)), "gfx942", 304, 1)[0], "native_fwd_args")
    assert (f["window_left"], f["window_right"]) == (8, 4)


def test_window_or_tail_picks_the_masked_producer_and_aligned_full_kv_the_unmasked():
    assert "_nomask_" in native_splitk.plan(problem(sk=1024), "gfx942", 304, 1)[0].kernel
    assert "_mask_" in native_splitk.plan(problem(sk=1023), "gfx942", 304, 1)[0].kernel
    assert "_mask_" in native_splitk.plan(problem(window=(64, 64)), "gfx942", 304, 1)[0].kernel


def test_decode_packs_the_gqa_group_into_one_tile():
    # (1, 32, 8, 1, 131072, 128): 4 q heads per kv head -> 4 rows in one decode tile per kv head
    p = problem(1, 1, 131072, 32, 8, 128)
    fwd = wmma.plan(p, "gfx1100", 96, 8)[0]
    assert fwd.kernel == "native_fwd_bf16_d128_nomask_m16_n64" and fwd.grid == (8, 1, 8)
    fwd = native_splitk.plan(p, "gfx942", 304, 8)[0]
    assert fwd.kernel == "native_fwd_bf16_d128_nomask_m32_n64" and fwd.grid == (8, 1, 8)


def test_split_work_feeds_the_dispatch_heuristic():
    long_kv = replace(problem(1, 128, 65535, 16, 16, 64), num_splits=0)
    work, blocks = native_splitk.split_work(long_kv, "gfx942")
    assert (work, blocks) == (16 * 2, math.ceil(65535 / 32))
    g = resolve_splits(long_kv, native_splitk, "gfx942", 304)
    assert 2 <= g <= native_splitk.MAX_SPLITS
    saturated = replace(problem(8, 8192, 8192, 16, 16, 64), num_splits=0)
    assert resolve_splits(saturated, native_splitk, "gfx942", 304) == 1
    forced = replace(long_kv, num_splits=64)
    assert resolve_splits(forced, wmma, "gfx1100", 96) == 16


def test_empty_query_plans_nothing():
    assert native_splitk.plan(problem(sq=0), "gfx942", 304, 1) == []


def test_every_family_names_an_absolute_object_that_loads_from_anywhere(tmp_path, monkeypatch):
    """LaunchPlan.code_object was relative for native/WMMA plans, so pyhipattn.load(plan.code_object)
    failed outside the checkout (issue 10)."""
    import pyhipattn

    monkeypatch.chdir(tmp_path)
    for arch in ("gfx942", "gfx1100", "gfx1200", "sm_90a"):
        for sq, sk in ((1024, 1024), (1, 8192)):
            for p in pyhipattn.plan_mha_fwd((2, sq, 32, 128), (2, sk, 8, 128), (2, sk, 8, 128), arch=arch):
                assert Path(p.code_object).is_absolute(), p.code_object
                assert p.kernel in pyhipattn.load(p.code_object).kernel_names

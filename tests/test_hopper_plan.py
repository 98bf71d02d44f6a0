"""The hopper family on the CPU: gates, dispatch order, plans, and static checks of its cubin.

No GPU needed.  The static checks read kernels/co/sm_90a/hopper_fwd.cubin and its manifest
(kernarg layout vs hopper_args.h, no local memory / spills, shared memory within 227 KiB, HGMMA
in the SASS: skipped with the probe's reason when no cuobjdump / nvdisasm is found); the build
test rebuilds the cubin with nvcc and compares bytes (skipped when nvcc is missing).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from pyhipattn import dispatch
from pyhipattn.api import plan_mha_fwd
from pyhipattn.families import hopper, portable
from pyhipattn.families.base import Problem

ROOT = Path(__file__).resolve().parents[1]
CO = ROOT / "kernels" / "co" / "sm_90a"
SRC = ROOT / "kernels" / "src" / "hopper"
REQUIRE_TOOLS = os.environ.get("PYHIPATTN_REQUIRE_TOOLS") == "1"


def problem(b=2, sq=1024, sk=1024, hq=8, hk=2, d=128, dtype="bf16", causal=False, **kw) -> Problem:
    q = (sq * hq * d, hq * d, d)
    k = (sk * hk * d, hk * d, d)
    base = dict(batch=b, seqlen_q=sq, seqlen_k=sk, heads_q=hq, heads_k=hk, head_dim=d, head_dim_v=d, dtype=dtype,
                softmax_scale=d ** -0.5, causal=causal, window=(-1, 0) if causal else (-1, -1),
                q_strides=q, k_strides=k, v_strides=k, o_strides=q)
    base.update(kw)
    return Problem(**base)


def _skip_or_fail(why: str):
    if REQUIRE_TOOLS:
        pytest.fail(f"{why} (PYHIPATTN_REQUIRE_TOOLS=1)")
    pytest.skip(why)


# ----------------------------------------------------------------------------- gates


@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
@pytest.mark.parametrize("d", [64, 96, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
def test_gate_accepts_what_the_kernels_run(dtype, d, causal):
    assert hopper.gate(problem(d=d, dtype=dtype, causal=causal), "sm_90a", force=True) is None


@pytest.mark.parametrize("change, words", [
    (dict(d=80), "head_dim"), (dict(d=192), "head_dim"), (dict(d=32), "head_dim"), (dict(head_dim_v=64), "head_dim"),
    (dict(d=96, head_dim_v=128), "head_dim"), (dict(d=256, head_dim_v=128), "head_dim"),
    (dict(window=(16, 16), sq=1 << 29, sk=1 << 29), "2^29"), (dict(window=(-1, 0), sk=1 << 29), "window"),
    (dict(num_splits=4), "split"),
    (dict(sinks=True), "sinks"), (dict(alibi=1), "ALiBi"), (dict(hq=6, hk=4), "GQA"),
    (dict(q_strides=(1024 * 8 * 132, 8 * 132, 132)), "multiples of 8"), (dict(dtype="fp32"), "dtype"),
    (dict(softmax_scale=-1.0), "softmax_scale"),
])
def test_gate_refuses_what_the_kernels_do_not_run(change, words):
    kw = dict(change)
    args = {k: kw.pop(k) for k in ("d", "dtype", "causal", "hq", "hk") if k in kw}
    why = hopper.gate(problem(**args, **kw), "sm_90a", force=True)
    assert why is not None and words.lower() in why.lower(), why


@pytest.mark.parametrize("arch", ["sm_80", "gfx942", "gfx1100"])
def test_gate_is_sm90a_only(arch):
    assert "sm_90a" in hopper.gate(problem(), arch, force=True)


def test_decode_and_short_queries_are_left_to_portable():
    assert hopper.gate(problem(sq=1, sk=4096), "sm_90a", force=True) is None
    assert hopper.gate(problem(sq=1, sk=4096), "sm_90a") is not None
    assert hopper.gate(problem(sq=64, sk=4096), "sm_90a") is not None


# ----------------------------------------------------------------------------- dispatch


def test_family_is_registered_ahead_of_portable():
    names = [f.NAME for f in dispatch.families()]
    assert "hopper" in names and names.index("hopper") < names.index("portable")


@pytest.mark.parametrize("shape, causal, family", [
    ((1, 8192, 32, 8, 128), True, "hopper"), ((2, 4096, 64, 8, 128), True, "hopper"),
    ((1, 16384, 16, 16, 128), False, "hopper"), ((32, 512, 16, 16, 128), False, "hopper"),
    ((8, 2048, 32, 32, 64), False, "hopper"), ((1, 16384, 16, 16, 128), True, "hopper"),
    ((8, 2048, 16, 16, 128), True, "hopper"), ((32, 512, 16, 16, 128), True, "hopper"),
    ((16, 1024, 16, 16, 128), True, "hopper"), ((4, 2048, 32, 8, 128), True, "hopper"),
    ((1, 256, 16, 16, 128), True, "portable"), ((32, 512, 16, 16, 64), False, "hopper"),
    # d64 non-causal from 512 since the O epilogue through shared memory (issue11f); causal from 512 since the
    # producer's tile decode (HOPPER_PDEC_D64, 2026-11-27; from 2048 before)
    ((16, 1024, 12, 12, 64), False, "hopper"), ((32, 512, 32, 32, 64), True, "hopper"),
    ((8, 256, 32, 32, 64), True, "portable"),
    ((1, 256, 16, 16, 64), False, "portable"),
    ((4, 4096, 32, 32, 64), True, "hopper"), ((16, 1024, 32, 32, 64), True, "hopper"),
    ((1, 1, 32, 8, 128), False, "portable"),
    # d256 / d96 (2026-11-26, branch issue11d-dims): hopper wherever it measured faster than portable
    ((1, 4096, 16, 8, 256), True, "hopper"), ((4, 2048, 32, 32, 96), True, "hopper"),
    ((32, 512, 16, 16, 256), True, "hopper"), ((32, 512, 16, 16, 256), False, "hopper"),
    ((1, 16384, 16, 16, 256), False, "hopper"), ((32, 512, 32, 32, 96), False, "hopper"),
    ((32, 512, 32, 32, 96), True, "hopper"), ((16, 1024, 32, 32, 96), True, "hopper"),   # the _dyn siblings
    ((1, 16384, 32, 32, 96), True, "hopper"), ((1, 1, 16, 8, 256), False, "portable"),
])
def test_dispatch_on_sm90a_follows_the_measurements(shape, causal, family):
    b, s, hq, hk, d = shape
    dec = plan_mha_fwd((b, s, hq, d), (b, s, hk, d), (b, s, hk, d), dtype="bf16", arch="sm_90a", causal=causal,
                       explain=True)
    assert dec.family == family, dec.refused


def test_preferred_table_names_only_built_head_dims():
    assert {d for d, _ in hopper.PREFERRED} <= set(hopper.HEAD_DIMS)
    assert all(lo <= hi for lo, hi in hopper.PREFERRED.values())


@pytest.mark.parametrize("kw", [dict(num_splits=3), dict(window_size=(128, 0), num_splits=2)])
def test_features_hopper_lacks_fall_back_to_portable(kw):
    dec = plan_mha_fwd((1, 4096, 16, 128), (1, 4096, 16, 128), (1, 4096, 16, 128), dtype="bf16", arch="sm_90a",
                       explain=True, **kw)
    assert dec.family == "portable"
    assert any(name == "hopper" for name, _ in dec.refused)


# ----------------------------------------------------------------------------- windows and softcap (issue11g)


@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
@pytest.mark.parametrize("d", [64, 96, 128, 256])
@pytest.mark.parametrize("causal, window, softcap", [
    (False, (64, 64), 0.0), (True, (256, 0), 0.0), (False, (-1, 0), 0.0), (False, (0, -1), 0.0),
    (False, (-1, -1), 30.0), (True, (-1, 0), 5.0), (False, (100, 3), 50.0)])
def test_gate_accepts_windows_and_softcap(dtype, d, causal, window, softcap):
    p = problem(d=d, dtype=dtype, causal=causal, window=window, softcap=softcap)
    assert hopper.gate(p, "sm_90a", force=True) is None
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    assert pl.kernel.endswith("_softcap") == (softcap > 0)


def _patched_manifest(monkeypatch, edit):
    """hopper.manifest patched to the shipped manifest with its objects replaced by ``edit(objects)`` (which may also
    change them in place and return them), ``by_name`` rebuilt; returns the patched manifest."""
    m = json.loads((CO / "hopper_manifest.json").read_text())
    m["objects"] = edit(m["objects"])
    m["by_name"] = {o["name"]: o for o in m["objects"]}
    monkeypatch.setattr(hopper, "manifest", lambda arch: m)
    return m


def _manifest_without(monkeypatch, drop: str):
    if drop == "softcap":
        _patched_manifest(monkeypatch, lambda objs: [o for o in objs if not o.get("softcap")])
    else:
        _patched_manifest(monkeypatch, lambda objs: [{k: v for k, v in o.items() if k != drop} for o in objs])


def test_a_cubin_without_windows_or_softcap_kernels_refuses_them(monkeypatch):
    _manifest_without(monkeypatch, "window")
    why = hopper.gate(problem(window=(64, 0), causal=True), "sm_90a", force=True)
    assert why is not None and "HOPPER_WINDOW=0" in why and "(64, 0)" in why
    assert hopper.gate(problem(causal=True), "sm_90a", force=True) is None      # plain causal is no window
    _manifest_without(monkeypatch, "softcap")
    why = hopper.gate(problem(d=96, softcap=30.0), "sm_90a", force=True)
    assert why is not None and "fwd_bf16_d96_softcap" in why
    assert hopper.gate(problem(d=96), "sm_90a", force=True) is None


def _i32(pl, name):
    lay = hopper.layout()
    return int.from_bytes(pl.kernargs[lay[name].offset:lay[name].offset + 4], "little", signed=True)


@pytest.mark.parametrize("causal, window, sq, sk, want", [
    (False, (-1, -1), 1000, 777, (-1, -1)),    # no window: both sides unbounded
    (True, (-1, 0), 1000, 777, (-1, 0)),       # causal: right 0
    (True, (64, 0), 1000, 777, (64, 0)),
    (False, (3, 5), 1000, 777, (3, 5)),
    (False, (777, 999), 1000, 777, (-1, 999)),  # left >= seqlen_k: unbounded; right < seqlen_q kept
    (False, (776, 1000), 1000, 777, (776, -1)),  # right >= seqlen_q: unbounded
    (False, (10**12, 10**12), 1000, 777, (-1, -1)),   # huge sides never reach the kernels' int32
])
def test_plan_packs_the_window(causal, window, sq, sk, want):
    p = problem(b=1, sq=sq, sk=sk, causal=causal, window=window)
    assert hopper.window_args(p) == want
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    assert (_i32(pl, "window_left"), _i32(pl, "window_right")) == want
    assert _i32(pl, "causal") == int(causal)


def test_plan_packs_softcap_scales():
    import math
    import struct

    p = problem(d=64, softcap=30.0, softmax_scale=0.125)
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    lay = hopper.layout()
    get = lambda n: struct.unpack_from("<f", pl.kernargs, lay[n].offset)[0]  # noqa: E731
    assert pl.kernel == "hopper_fwd_bf16_d64_softcap"
    assert abs(get("scale_log2") - 30.0 * math.log2(math.e)) < 1e-5
    assert abs(get("softcap_log2") - 2 * math.log2(math.e) * 0.125 / 30.0) < 1e-7
    (plain,) = hopper.plan(problem(d=64, softmax_scale=0.125), "sm_90a", 132, 1)
    off = lay["softcap_log2"].offset
    # (the plain problem's kernel: the d64 kernel or, at its length, the _c2 sibling: hopper.C2_SIBLING_D64)
    assert plain.kernel in ("hopper_fwd_bf16_d64", "hopper_fwd_bf16_d64_c2") and plain.kernargs[off:off + 4] == bytes(4)


def test_softcap_problems_skip_the_schedule_siblings():
    by = hopper.manifest("sm_90a")["by_name"]
    for p in (problem(b=1, sq=8192, sk=8192, hq=16, hk=16), problem(b=4, sq=2048, sk=2048, d=96, causal=True),
              problem(b=2, sq=2048, sk=2048, causal=True, hq=16, hk=16)):
        sc = dataclasses.replace(p, softcap=20.0)
        assert hopper.kernel_name(sc, by) == hopper.variant_name(p.dtype, p.head_dim) + "_softcap"
        assert by[hopper.kernel_name(sc, by)]["softcap"]


def test_window_and_softcap_rules_name_only_built_head_dims():
    for table in (hopper.WINDOW_PREFERRED, hopper.SOFTCAP_PREFERRED):
        assert set(table) <= set(hopper.HEAD_DIMS)
        assert all(lo <= hi for lo, hi in table.values())


def test_window_and_softcap_dispatch_follows_the_rule(monkeypatch):
    def fam(d, s, **kw):
        return plan_mha_fwd((2, s, 16, d), (2, s, 16, d), (2, s, 16, d), dtype="bf16", arch="sm_90a",
                            explain=True, **kw).family
    monkeypatch.setattr(hopper, "WINDOW_PREFERRED", {128: (1024, 1 << 30), 64: (0, 1 << 30)})
    monkeypatch.setattr(hopper, "SOFTCAP_PREFERRED", {128: (2048, 1 << 30)})
    assert fam(128, 4096, window_size=(256, 256)) == "hopper"
    assert fam(128, 4096, causal=True, softcap=30.0) == "hopper"
    assert fam(128, 4096, window_size=(256, 0), causal=True, softcap=30.0) == "hopper"
    assert fam(128, 512, window_size=(256, 256)) == "portable"      # below the window rule's range
    assert fam(128, 1024, window_size=(256, 256), softcap=30.0) == "portable"   # window yes, softcap below its range
    assert fam(64, 4096, softcap=30.0) == "portable"                 # no softcap rule for d64
    assert fam(64, 4096, window_size=(256, 0), causal=True) == "hopper"
    assert fam(64, 384, window_size=(128, 0), causal=True) == "portable"    # PREFERRED: causal d64 from 512
    assert fam(64, 4096, causal=True) == "hopper"                            # plain problems: PREFERRED only


@pytest.mark.parametrize("shape, kw, family", [
    ((2, 8192, 32, 8, 128), dict(causal=True, window_size=(4096, 0)), "hopper"),
    ((32, 512, 16, 16, 128), dict(causal=True, window_size=(256, 0)), "hopper"),
    ((8, 2048, 32, 32, 64), dict(causal=True, window_size=(512, 0)), "hopper"),
    ((32, 512, 32, 32, 64), dict(window_size=(128, 128)), "portable"),
    ((4, 2048, 32, 32, 96), dict(causal=True, window_size=(512, 0)), "hopper"),
    ((32, 512, 16, 16, 256), dict(window_size=(128, 128)), "hopper"),
    ((2, 8192, 16, 16, 128), dict(causal=True, softcap=30.0), "hopper"),
    ((16, 1024, 32, 32, 64), dict(softcap=30.0), "portable"),
    ((8, 2048, 32, 32, 64), dict(softcap=30.0), "hopper"),
    ((16, 1024, 32, 32, 64), dict(window_size=(256, 256)), "portable"),
    ((8, 2048, 32, 32, 64), dict(window_size=(256, 256)), "hopper"),
    ((32, 512, 32, 32, 96), dict(causal=True, window_size=(256, 0)), "hopper"),
    ((16, 1024, 32, 32, 96), dict(softcap=30.0), "hopper"),
    ((32, 512, 32, 32, 96), dict(softcap=30.0), "portable"),    # d96 softcap not timed below 1024
    ((32, 512, 16, 16, 128), dict(causal=True, softcap=30.0), "hopper"),
    ((32, 512, 16, 16, 256), dict(causal=True, softcap=30.0), "hopper"),
    ((4, 4096, 16, 16, 256), dict(causal=True, softcap=30.0), "hopper"),
    ((2, 8192, 16, 8, 256), dict(causal=True, window_size=(4096, 0), softcap=50.0), "hopper"),
])
def test_window_and_softcap_dispatch_follows_the_measurements(shape, kw, family):
    b, s, hq, hk, d = shape
    dec = plan_mha_fwd((b, s, hq, d), (b, s, hk, d), (b, s, hk, d), dtype="bf16", arch="sm_90a", explain=True, **kw)
    assert dec.family == family, dec.refused


def test_other_arches_never_see_hopper():
    for arch in ("sm_80", "gfx942"):
        dec = plan_mha_fwd((1, 4096, 16, 128), (1, 4096, 16, 128), (1, 4096, 16, 128), dtype="bf16", arch=arch,
                           causal=True, explain=True)
        assert dec.family != "hopper"


# ----------------------------------------------------------------------------- plans


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 96, 128, 256])
def test_plan_launch_shape(causal, d):
    p = problem(b=3, sq=1000, sk=777, hq=8, hk=2, d=d, causal=causal, return_lse=True)
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    by = hopper.manifest("sm_90a")["by_name"]
    obj = by[hopper.kernel_name(p, by)]
    m_blocks = -(-1000 // obj["block_m"])
    tiles = m_blocks * 8 * 3
    lo, hi = hopper.CAUSAL_PERSISTENT.get(d, (0, -1))
    persistent = not causal or obj.get("dynamic_causal") or lo <= 777 <= hi
    assert pl.grid == ((min(tiles, 132), 1, 1) if persistent else (tiles, 1, 1))
    assert pl.block == (obj["threads"], 1, 1) and obj["threads"] == 128 * (obj["block_m"] // 64 + 1)
    assert pl.shared_mem == obj["shared"] <= 227 * 1024
    tma = obj.get("tma")
    assert pl.workspace_bytes == (tma["align"] + tma["bytes_per_cta"] * pl.grid[0] if tma else 0)
    lo4, hi4 = hopper.S4_SIBLING_D64.get(causal, (0, -1)) if d == 64 else (0, -1)
    lof, hif = hopper.FK_SIBLING_D128.get(causal, (0, -1)) if d == 128 else (0, -1)
    loc, hic = hopper.C2_SIBLING_D64.get(causal, (0, -1)) if d == 64 else (0, -1)
    q3 = hopper._in_sibling_range(hopper.C2Q3_SIBLING_D64, 64, p)
    suffix = ("_dyn" if causal and d in hopper.DYN_SIBLING_CAUSAL else ("_c2q3" if q3 else "_c2") if loc <= 777 <= hic
              else "_s4" if lo4 <= 777 <= hi4 else "_fk" if lof <= 777 <= hif else "")
    assert pl.kernel == f"hopper_fwd_bf16_d{d}" + suffix
    assert Path(pl.code_object).name == "hopper_fwd.cubin"
    lay = hopper.layout()
    pm = obj.get("param_maps")      # the _c2 / _fk kernels (PARAM_MAPS_C2=1, PARAM_MAPS_FK=1): hopper_fwd_maps after the args
    assert len(pl.kernargs) == (pm["offset"] + hopper.maps_layout().size if pm else lay.size)
    assert bool(pm) == pl.kernel.endswith(("_c2", "_c2q3", "_d128_fk"))
    i32 = lambda n: int.from_bytes(pl.kernargs[lay[n].offset:lay[n].offset + 4], "little", signed=True)  # noqa: E731
    assert (i32("seqlen_q"), i32("seqlen_k"), i32("group"), i32("heads_q")) == (1000, 777, 4, 8)
    assert (i32("m_blocks"), i32("causal"), i32("batch")) == (m_blocks, int(causal), 3)
    want = {n: lay[n].offset for n in ("q", "k", "v", "out", "lse")}
    if tma:
        want["workspace"] = lay["tmaps"].offset
    maps = {(n, pm["offset"] + 128 * i) for i, n in enumerate(("q", "k", "v", "out"))} if pm else set()
    assert set(pl.pointer_slots) == set(want.items()) | maps


def test_plan_without_lse_leaves_the_lse_pointer_zero():
    (pl,) = hopper.plan(problem(return_lse=False), "sm_90a", 132, 1)
    assert "lse" not in dict(pl.pointer_slots)
    off = hopper.layout()["lse"].offset
    assert pl.kernargs[off:off + 8] == bytes(8)


def test_plan_packs_strides_and_scale():
    import math
    import struct

    p = problem(q_strides=(999_424, 1024, 128), o_strides=(2_000_000, 4096, 256))
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    lay = hopper.layout()
    get = lambda n, fmt: struct.unpack_from(fmt, pl.kernargs, lay[n].offset)[0]  # noqa: E731
    assert get("q_batch_stride", "<q") == 999_424 and get("q_seq_stride", "<q") == 1024
    assert get("o_batch_stride", "<q") == 2_000_000 and get("o_head_stride", "<q") == 256
    assert abs(get("scale_log2", "<f") - 128 ** -0.5 * math.log2(math.e)) < 1e-6


def test_empty_problem_plans_no_launch():
    assert hopper.plan(problem(sq=0), "sm_90a", 132, 1) == []


def test_plan_refuses_splits_and_unsupported():
    with pytest.raises(ValueError, match="unsplit"):
        hopper.plan(problem(), "sm_90a", 132, 2)
    with pytest.raises(ValueError, match="head_dim"):
        hopper.plan(problem(d=192), "sm_90a", 132, 1)


def test_pure_planning_through_the_api():
    plans = plan_mha_fwd((2, 4096, 32, 128), (2, 4096, 8, 128), (2, 4096, 8, 128), dtype="fp16", arch="sm_90a",
                         causal=True)
    assert len(plans) == 1 and plans[0].kernel.startswith(("hopper_fwd_fp16", "attn_fwd"))


# ----------------------------------------------------------------------------- the cubin, statically


def test_manifest_lists_every_kernel_of_the_cubin():
    from pyhipattn import codeobj

    m = json.loads((CO / "hopper_manifest.json").read_text())
    data = (CO / "hopper_fwd.cubin").read_bytes()
    assert m["sha256"]["hopper_fwd.cubin"] == hashlib.sha256(data).hexdigest()
    (co,) = codeobj.read(data)
    assert co.arch == "sm_90a"
    assert sorted(o["kernel"] for o in m["objects"]) == sorted(co.kernels)
    assert {(o["dtype"], o["head_dim"]) for o in m["objects"]} == {(t, d) for t in hopper.DTYPES for d in hopper.HEAD_DIMS}


def test_static_check_of_the_hopper_cubin():
    """Kernarg layout vs the header, no spills / local memory, shared <= 227 KiB, HGMMA."""
    from pyhipattn.tools.check import check_entry
    from pyhipattn.codeobj.isa import ToolNotFoundError, mnemonics
    from pyhipattn.manifest import read_manifest

    entries = read_manifest(CO / "hopper_manifest.json")
    assert len(entries) == len(json.loads((CO / "hopper_manifest.json").read_text())["objects"]) >= 4
    cache: dict = {}
    for e in entries:
        assert check_entry(e, cache) == [], e.kernel
    try:
        ops = mnemonics(CO / "hopper_fwd.cubin", "sm_90a")
    except ToolNotFoundError as err:
        _skip_or_fail(f"HGMMA not checked: {err}")
    for e in entries:
        names = {op.upper() for op in ops[e.kernel]}
        assert any(n.startswith("HGMMA") for n in names), f"{e.kernel}: no HGMMA"
        assert not any(n.startswith(("STL", "LDL")) for n in names), f"{e.kernel}: local memory"


def test_d96_and_d256_kernels_layout():
    """The d96 / d256 kernels: TMA, two consumer warpgroups, tiles of whole 64-column atoms within 227 KiB,
    and the wgmma shapes they need in the SASS (d96: N = compute_dim for PV; d256: N = 256 for PV, N =
    block_n for QK^T)."""
    m = json.loads((CO / "hopper_manifest.json").read_text())
    by_name = {o["name"]: o for o in m["objects"]}
    for t in hopper.DTYPES:
        d96, d256 = by_name[f"fwd_{t}_d96"], by_name[f"fwd_{t}_d256"]
        for o, width, q_stages in ((d96, 128, 2), (d256, 256, 1)):
            assert "tma" in o and o["block_m"] == 128 and o["threads"] == 384 and o["q_stages"] == q_stages
            tiles = o["q_stages"] * o["block_m"] * width * 2 + 2 * o["stages"] * o["block_n"] * width * 2
            assert o["shared"] == tiles + 256 + 3 * 128 + 1024 <= 227 * 1024
        assert d96["compute_dim"] in (96, 128) and d256["block_n"] in (64, 80)
    shapes = _hgmma_shapes()
    for t in hopper.DTYPES:
        n = by_name[f"fwd_{t}_d96"]["compute_dim"]
        assert f"64x{n}x16" in shapes[f"hopper_fwd_{t}_d96"], shapes[f"hopper_fwd_{t}_d96"]
        bn = by_name[f"fwd_{t}_d256"]["block_n"]
        assert {"64x256x16", f"64x{bn}x16"} <= shapes[f"hopper_fwd_{t}_d256"], shapes[f"hopper_fwd_{t}_d256"]


def test_d128_epilogue_buffer_and_options():
    """The d128 kernels' shared memory: Q / K / V tiles, the mbarriers and tensor maps, 1 KiB of alignment slack,
    and with ``epilogue_smem`` the block_m x 128 O staging buffer, within 227 KiB; ``epilogue_smem`` only on
    the 128-key TMA kernels with two Q buffers (hopper_fwd.cu's EPI), never on the ``_bn176`` ones."""
    m = json.loads((CO / "hopper_manifest.json").read_text())
    by_name = {o["name"]: o for o in m["objects"]}
    for t in hopper.DTYPES:
        for name in (f"fwd_{t}_d128", f"fwd_{t}_d128_bn176"):
            o = by_name[name]
            if o.get("epilogue_smem"):
                assert "tma" in o and o["block_n"] == 128 and o["q_stages"] == 2, name
            tiles = o["q_stages"] * o["block_m"] * 256 + 2 * o["stages"] * o["block_n"] * 256
            o_buf = o["block_m"] * 256 if o.get("epilogue_smem") else 0
            maps = 4 if o.get("epilogue_tma") else 3      # the O tensor map of HOPPER_EPI_TMA_D128
            assert o["shared"] == tiles + o_buf + 256 + maps * 128 + 1024 <= 227 * 1024, name


def test_d128_tma_store_and_loop_options():
    """The shipped d128 kernels (issue11g-steady, 2026-11-26 night): the 128-key ones (and their ``_static``
    siblings) store O's staging buffer with TMA (``epilogue_tma``: a fourth tensor map, 512 bytes of scratch per CTA);
    every d128 kernel rescales O inside its GEMM turn without a warp vote and builds its wgmma descriptors by adding
    constants; since issue11h-d128 each d128 consumer decodes a tile once (``decode_once``); the other head dims carry
    none of these marks.  A plan's workspace follows the kernel's scratch."""
    m = json.loads((CO / "hopper_manifest.json").read_text())
    for o in m["objects"]:
        if o["head_dim"] != 128:   # (the d64 kernels' epilogue_tma / decode_once: test_d64_tma_store_and_decode_once)
            d64 = {"epilogue_tma", "decode_once"} if o["head_dim"] == 64 else set()
            d64 |= {"desc_add"} if o["name"].endswith(("_d64_c2", "_d64_c2q3")) else set()   # (HOPPER_C2_DESC_D64: call e1)
            d64 |= {"desc_add"} if o["name"].endswith(("_d64", "_d64_s4")) else set()   # (HOPPER_DESC_ADD_D64: call o1)
            assert not ({"epilogue_tma", "rescale_in_turn", "rescale_vote", "desc_add", "decode_once"} - d64) & set(o), o["name"]
            continue
        store = o["name"].endswith(("_d128", "_d128_static", "_d128_softcap", "_d128_fk"))   # (_softcap, _fk: the main kernel's code)
        assert bool(o.get("epilogue_tma")) == store and (not store or o.get("epilogue_smem")), o["name"]
        assert o["tma"]["bytes_per_cta"] == (512 if store else 384), o["name"]
        assert o.get("rescale_in_turn") is True and o.get("rescale_vote") is False and o.get("desc_add") is True, o["name"]
        assert o.get("decode_once") is True, o["name"]      # HOPPER_DECODE_ONCE_D128 (issue11h-d128)
    for sk, per_cta in ((4096, 512), (16384, 384)):    # the 128-key kernel; the _bn176 one (no O buffer)
        (pl,) = hopper.plan(problem(b=1, sq=sk, sk=sk, hq=16, hk=16), "sm_90a", 132, 1)
        assert pl.workspace_bytes == 128 + per_cta * pl.grid[0], (sk, pl.kernel)


def test_d128_decode_once_causal_mark():
    """HOPPER_DEC1_CAUSAL_D128 (issue11n): the d128 kernel and its ``_fk`` sibling (128-key blocks, not ``_softcap`` /
    ``_static`` / ``_varlen`` / ``_bn176``) skip next_tile's empty-tile decode on causal problems too, and only they carry
    ``decode_once_causal`` (on top of ``decode_once``)."""
    marked = sorted(o["name"] for o in hopper.manifest("sm_90a")["objects"] if o.get("decode_once_causal"))
    assert marked == sorted(f"fwd_{dt}_d128{s}" for dt in hopper.DTYPES for s in ("", "_fk")), marked
    by = hopper.manifest("sm_90a")["by_name"]
    assert all(by[n].get("decode_once") is True and by[n]["block_n"] == 128 for n in marked)


def test_d64_desc_add_and_d128_producer_decode_marks():
    """Calls o1 / r2 / q2 (2026-11-27, session 3) and st (session 4): HOPPER_DESC_ADD_D64 marks ``desc_add`` on the three-warpgroup d64 kernels (``_d64``,
    ``_d64_s4``; ``_c2`` has its own since call e1), none of their ``_static`` / ``_softcap`` / ``_varlen`` siblings;
    HOPPER_PDEC_D128 marks ``producer_decode`` on the d128 kernel and its ``_fk`` sibling only."""
    objs = hopper.manifest("sm_90a")["objects"]
    added = sorted(o["name"] for o in objs if o.get("desc_add") and o["head_dim"] == 64)
    assert added == sorted(f"fwd_{dt}_d64{s}" for dt in hopper.DTYPES for s in ("", "_s4", "_c2", "_c2q3")), added
    pdec = sorted(o["name"] for o in objs if o.get("producer_decode"))
    assert pdec == sorted(f"fwd_{dt}_d128{s}" for dt in hopper.DTYPES for s in ("", "_fk")), pdec
    # call r2 (helper r): HOPPER_SMX_TREE_D128 marks ``max_tree`` on the same two d128 kernels, no other
    tree = sorted(o["name"] for o in objs if o.get("max_tree"))
    assert tree == pdec, tree
    # call q2 (helper-37): HOPPER_C2_DEFER_D64 marks ``deferred_store`` on the _c2 kernels only
    defer = sorted(o["name"] for o in objs if o.get("deferred_store"))
    assert defer == sorted(f"fwd_{dt}_d64{s}" for dt in hopper.DTYPES for s in ("_c2", "_c2q3")), defer
    # call st (session 4): HOPPER_PV_LATE_D64 = 2 marks ``pv_late`` 2 on the desc_add d64 kernels (_d64, _d64_s4) only
    late = sorted(o["name"] for o in objs if o.get("pv_late"))
    assert late == sorted(f"fwd_{dt}_d64{s}" for dt in hopper.DTYPES for s in ("", "_s4")), late
    assert {o["pv_late"] for o in objs if o.get("pv_late")} == {2}


def test_tma_store_refuses_out_strides_a_tensor_map_cannot_hold():
    """Kernels that store O with TMA (``epilogue_tma``) check out's strides as those of q / k / v; the others
    (d64 here) do not need to."""
    far = dict(o_strides=(1 << 40, 8 * 128, 128))
    why = hopper.gate(problem(sq=4096, sk=4096, **far), "sm_90a", force=True)
    assert why is not None and "out batch stride" in why and "store with TMA" in why, why
    assert hopper.gate(problem(sq=4096, sk=4096), "sm_90a", force=True) is None
    assert hopper.gate(problem(sq=4096, sk=4096, d=96, o_strides=(1 << 40, 8 * 96, 96)), "sm_90a", force=True) is None
    # the d64 kernels store with TMA too since issue11h (HOPPER_EPI_TMA_D64)
    why = hopper.gate(problem(sq=4096, sk=4096, d=64, o_strides=(1 << 40, 8 * 64, 64)), "sm_90a", force=True)
    assert why is not None and "out batch stride" in why, why


def test_d64_tma_store_and_decode_once():
    """issue11h: the d64 kernels with the per-warp O buffer (not the ``_static`` / ``_softcap`` siblings, whose code
    stays as before: 16k causal on the ``_static`` one measured 0.95x with it) store it with TMA (``epilogue_tma``: a fourth tensor map, 512 bytes of scratch per CTA) and decode a tile's
    row block once (``decode_once``); a plan's workspace follows the scratch."""
    m = json.loads((CO / "hopper_manifest.json").read_text())
    for o in m["objects"]:
        if o["head_dim"] != 64:   # (d128's decode_once: test_d128_tma_store_and_loop_options)
            assert o["head_dim"] == 128 or "decode_once" not in o, o["name"]
            continue
        store = o["name"].endswith(("_d64", "_d64_s4", "_d64_c2", "_d64_c2q3"))   # (_s4: the d64 kernel's code, 4 stages; _c2, _c2q3: its epilogue)
        assert bool(o.get("epilogue_tma")) == store and (not store or o.get("epilogue_smem_per_warp")), o["name"]
        # the _varlen sibling decodes once too but stores with rows clipped at the sequence's end (no TMA store)
        assert bool(o.get("decode_once")) == (store or o["name"].endswith("_d64_varlen")), o["name"]
        assert o["tma"]["bytes_per_cta"] == (512 if store else 384), o["name"]
    (pl,) = hopper.plan(problem(b=1, sq=4096, sk=4096, hq=16, hk=16, d=64), "sm_90a", 132, 1)
    assert pl.workspace_bytes == 128 + 512 * pl.grid[0], pl.kernel


def test_d64_epilogue_buffer_and_options():
    """The d64 kernels (and their ``_static`` siblings): with ``epilogue_smem`` a block_m x 64-column O staging
    buffer (192 x 128 bytes = 24 KiB) on top of the Q / K / V tiles, tensor maps and alignment slack, within 227
    KiB; only on TMA kernels with two Q buffers; ``epilogue_smem_per_warp`` and ``epilogue_v4`` only with it.
    The shipped cubin (issue11f, 2026-11-26 evening) stages O per warp and stores it with st.global.v4."""
    m = json.loads((CO / "hopper_manifest.json").read_text())
    by_name = {o["name"]: o for o in m["objects"]}
    for t in hopper.DTYPES:
        for name in (f"fwd_{t}_d64", f"fwd_{t}_d64_static"):
            o = by_name.get(name)
            if o is None:
                continue
            if o.get("epilogue_smem"):
                assert "tma" in o and o["block_n"] == 128 and o["q_stages"] == 2, name
            else:
                assert not o.get("epilogue_smem_per_warp") and not o.get("epilogue_v4"), name
            tiles = o["q_stages"] * o["block_m"] * 128 + 2 * o["stages"] * o["block_n"] * 128
            o_buf = o["block_m"] * 128 if o.get("epilogue_smem") else 0
            maps = 4 if o.get("epilogue_tma") else 3      # the O tensor map of HOPPER_EPI_TMA_D64
            assert o["shared"] == tiles + o_buf + 256 + maps * 128 + 1024 <= 227 * 1024, name
        shipped = by_name[f"fwd_{t}_d64"]
        assert shipped.get("epilogue_smem") and shipped.get("epilogue_smem_per_warp")
        assert bool(shipped.get("epilogue_v4")) != bool(shipped.get("epilogue_tma"))   # st.global.v4 or TMA stores
        assert shipped["shared"] == 173_824   # 173,696 + the O map (issue11h)


def test_d64_wg_skip_flag():
    """``wg_skip`` (HOPPER_WG_SKIP_D64, issue11g): each consumer warpgroup computes only the key blocks its own rows
    see.  Only on the d64 TMA kernels other than the ``_static`` siblings, which have the 3 or more stages the early
    slot releases need; the shipped cubin has it on both dynamic d64 kernels and their ``_s4`` siblings (issue11h), on
    nothing else."""
    m = json.loads((CO / "hopper_manifest.json").read_text())
    for o in m["objects"]:
        if o.get("wg_skip"):
            assert o["head_dim"] == 64 and "tma" in o and o["stages"] >= 3 and not o["name"].endswith("_static"), o["name"]
    flagged = sorted(o["name"] for o in m["objects"] if o.get("wg_skip"))
    # (and on their _s4 siblings, and on their _varlen siblings, the same tile over packed sequences: issue11h)
    assert flagged == sorted(f"fwd_{t}_d64{s}" for t in hopper.DTYPES for s in ("", "_s4", "_varlen")), flagged


def test_d64_epilogue_sass_stores_16_bytes():
    """The d64 epilogue's row stores are 16-byte STG.E.128 in the SASS (a uint4 store through a generic pointer came
    out of NVVM as four 4-byte stores at d128), or with ``epilogue_tma`` (issue11h) TMA stores (UTMASTG) and no
    STG for O; stmatrix writes the buffer, and nothing spills."""
    import re
    import tempfile

    from pyhipattn.codeobj.isa import NVIDIA_TOOLS, find_tool

    tool = find_tool(NVIDIA_TOOLS)
    if tool is None or not Path(tool).name.startswith("cuobjdump"):
        _skip_or_fail("SASS not checked: no cuobjdump")
    by_kernel = {o["kernel"]: o for o in json.loads((CO / "hopper_manifest.json").read_text())["objects"]}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hopper_fwd.cubin"
        path.write_bytes((CO / "hopper_fwd.cubin").read_bytes())
        for t in hopper.DTYPES:
            for k in (f"hopper_fwd_{t}_d64", f"hopper_fwd_{t}_d64_static", f"hopper_fwd_{t}_d64_s4"):
                text = subprocess.run([tool, "-sass", "-fun", k, str(path)], capture_output=True, text=True,
                                      check=True).stdout
                ops = re.findall(r"\b(STG\.E(?:\.128)?|STSM\.[\w.]+|STL|LDL|UTMASTG)\b", text)
                if by_kernel[k].get("epilogue_tma"):   # 16-byte stores of zero rows only (out of tiles no key reaches:
                    # 4 per inlined next_tile), the LSE's 4-byte ones, TMA stores of O
                    wide = re.findall(r"STG\.E\.128 [^;]*;", text)
                    assert wide and all(w.rstrip(" ;").endswith("RZ") for w in wide), (k, wide)
                    assert len(wide) % 4 == 0 and ops.count("STG.E") <= 8 and "UTMASTG" in ops, (k, ops)
                    assert sum(op.startswith("STSM") for op in ops) == 4, k
                    assert "STL" not in ops and "LDL" not in ops, k
                    continue
                # 16-byte stores: the zero rows of tiles no key reaches (8, as before) + the 4 O row stores per
                # thread; 4-byte stores: the LSE only (6; the 4-byte O epilogue had 16 more, split v4 stores 16 too)
                assert ops.count("STG.E.128") >= 12 and ops.count("STG.E") <= 8, (k, ops.count("STG.E.128"),
                                                                                ops.count("STG.E"))
                assert sum(op.startswith("STSM") for op in ops) == 4, k
                assert "STL" not in ops and "LDL" not in ops, k


def _hgmma_shapes() -> dict[str, set[str]]:
    """{kernel: {"64x96x16", ...}}: the wgmma shapes in each kernel's SASS (skip without a disassembler)."""
    import re
    import tempfile

    from pyhipattn.codeobj.isa import NVIDIA_TOOLS, find_tool

    tool = find_tool(NVIDIA_TOOLS)
    if tool is None:
        _skip_or_fail("SASS not checked: no cuobjdump / nvdisasm")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hopper_fwd.cubin"
        path.write_bytes((CO / "hopper_fwd.cubin").read_bytes())
        flag = "-sass" if Path(tool).name.startswith("cuobjdump") else "-c"
        text = subprocess.run([tool, flag, str(path)], capture_output=True, text=True, check=True).stdout
    out: dict[str, set[str]] = {}
    cur = None
    for line in text.splitlines():
        m = re.search(r"(?:Function : |^\s*\.text\.)(hopper_fwd_\w+?):?\s*$", line)
        if m:
            cur = out.setdefault(m[1], set())
        elif cur is not None and (h := re.search(r"HGMMA\.(\d+x\d+x\d+)", line)):
            cur.add(h[1])
    return out


def test_generated_wgmma_header_is_current(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_wgmma", SRC / "gen_wgmma.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.render() == (SRC / "wgmma_ops.h").read_text()


def test_build_is_reproducible(tmp_path):
    """scripts/build/hopper.sh into a temporary folder gives the shipped bytes (and manifest)."""
    from pyhipattn.codeobj.isa import find_tool

    nvcc = find_tool(("nvcc",))
    if not nvcc:
        _skip_or_fail("nvcc is not installed")
    if not shutil.which("git"):
        _skip_or_fail("git is not installed")
    env = dict(os.environ, OUT=str(tmp_path), NVCC=nvcc)
    m = json.loads((CO / "hopper_manifest.json").read_text())
    by_name = {o["name"]: o for o in m["objects"]}
    d64, d128 = by_name["fwd_bf16_d64"], by_name["fwd_bf16_d128"]
    env.update(STAGES_D64=str(d64["stages"]), STAGES_D128=str(d128["stages"]),
               NWG_D64=str(d64["block_m"] // 64), Q_STAGES=str(d64.get("q_stages", 1)),
               Q_STAGES_D128=str(d128.get("q_stages", 1)), TMA_D64=str(int("tma" in d64)),
               TMA_D128=str(int("tma" in d128)), BN_D128=str(d128["block_n"]),
               BN176_D128=str(int("fwd_bf16_d128_bn176" in by_name)),
               REGS_2WG=by_name.get("fwd_bf16_d128_bn176", d128).get("setmaxnreg", "40/232"),
               BN_D256=str(by_name["fwd_bf16_d256"]["block_n"]), D96_COMPUTE=str(by_name["fwd_bf16_d96"]["compute_dim"]),
               DYN_CAUSAL=str(int(bool(d128.get("dynamic_causal")))), L2_SECTION_KB=str(d128.get("l2_section_kb", 0)),
               DYN_D96=str(int("fwd_bf16_d96_dyn" in by_name)), DYN_D64=str(int(bool(d64.get("dynamic_causal")))),
               L2_SECTION_MODE=str(d128.get("l2_section_mode", 0)),
               STATIC_SIBLINGS=str(int("fwd_bf16_d128_static" in by_name)),
               EPI_SMEM_D128=str(int(bool(d128.get("epilogue_smem")))),
               EPI_SMEM_D64=str(2 if d64.get("epilogue_smem_per_warp") else int(bool(d64.get("epilogue_smem")))),
               EPI_V4_D128=str(int(bool(d128.get("epilogue_v4")))),
               EPI_TMA_D128=str(int(bool(d128.get("epilogue_tma")))),
               RESCALE_IN_TURN_D128=str(int(bool(d128.get("rescale_in_turn")))),
               RESCALE_VOTE_D128=str(int(d128.get("rescale_vote", True))), DESC_ADD_D128=str(int(bool(d128.get("desc_add")))),
               DECODE_ONCE_D128=str(int(bool(d128.get("decode_once")))),
               WG_SKIP_D64=str(int(bool(d64.get("wg_skip")))), S4_D64=str(int("fwd_bf16_d64_s4" in by_name)),
               TAIL_SPLIT_D64=str(int(bool(d64.get("tail_split")))), TAIL_ROUNDS_D64=str(d64.get("tail_split_rounds", 8)),
               EPI_TMA_D64=str(int(bool(d64.get("epilogue_tma")))), DECODE_ONCE_D64=str(int(bool(d64.get("decode_once")))),
               VARLEN_SIBLINGS=str(int("fwd_bf16_d128_varlen" in by_name)), FK_D128=str(int("fwd_bf16_d128_fk" in by_name)),
               C2_D64=str(int("fwd_bf16_d64_c2" in by_name)),
               C2_STAGES_D64=str(by_name.get("fwd_bf16_d64_c2", {}).get("stages", 3)),
               C2_DESC_D64=str(int(bool(by_name.get("fwd_bf16_d64_c2", {}).get("desc_add")))),
               DEC1_CAUSAL_D128=str(int(bool(d128.get("decode_once_causal")))),
               DESC_ADD_D64=str(int(bool(d64.get("desc_add")))), PDEC_D128=str(int(bool(d128.get("producer_decode")))),
               SMX_TREE_D128=str(int(bool(d128.get("max_tree")))),
               C2_DEFER_D64=str(int(bool(by_name.get("fwd_bf16_d64_c2", {}).get("deferred_store")))),
               PV_LATE_D64=str(d64.get("pv_late", 0)),
               PARAM_MAPS_C2=str(int(bool(by_name.get("fwd_bf16_d64_c2", {}).get("param_maps")))),
               C2_CAUSAL_Q3_D64=str(int("fwd_bf16_d64_c2q3" in by_name)),
               C2Q3_KAHEAD_D64=str(int(bool(by_name.get("fwd_bf16_d64_c2q3", {}).get("k_ahead")))),
               PARAM_MAPS_FK=str(int(bool(by_name.get("fwd_bf16_d128_fk", {}).get("param_maps")))),
               C2_KVWAIT_D64=str(by_name.get("fwd_bf16_d64_c2", {}).get("kv_wait", 0)),
               LAZY_RESCALE=str(d64.get("lazy_rescale", 0)),
               START_WAIT=str(int(bool(by_name.get("fwd_bf16_d64_c2", {}).get("start_wait")))))
    r = subprocess.run(["bash", str(ROOT / "scripts" / "build" / "hopper.sh")], env=env, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]
    assert (tmp_path / "hopper_fwd.cubin").read_bytes() == (CO / "hopper_fwd.cubin").read_bytes()
    assert (tmp_path / "hopper_manifest.json").read_text() == (CO / "hopper_manifest.json").read_text()


def test_replace_keeps_problems_hashable():
    p = problem()
    assert hash(dataclasses.replace(p, return_lse=True)) != 0
    assert portable.gate(p, "sm_90a") is None      # portable still runs everything hopper does


def _manifest_with(monkeypatch, dynamic: bool):
    """The shipped manifest with ``dynamic_causal`` set on (``dynamic``) or removed from every TMA kernel
    with 128-key blocks."""
    def edit(objs):
        for o in objs:
            o.pop("dynamic_causal", None)
            if dynamic and "tma" in o and o["block_n"] == 128:
                o["dynamic_causal"] = True
        return objs
    return _patched_manifest(monkeypatch, edit)


@pytest.mark.parametrize("d, sk, persistent", [(64, 512, True), (64, 16384, True), (128, 1024, False),
                                               (128, 2048, True), (128, 4096, True), (128, 8192, False),
                                               (96, 512, True), (96, 16384, True), (256, 2048, False),
                                               (256, 4096, True), (256, 8192, True), (256, 16384, False)])
def test_causal_grid_follows_the_measurements(monkeypatch, d, sk, persistent):
    """Kernels without the dynamic causal schedule: CAUSAL_PERSISTENT picks the grid."""
    m = _manifest_with(monkeypatch, dynamic=False)
    p = problem(b=2, sq=sk, sk=sk, hq=16, hk=16, d=d, causal=True)
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    bm = m["by_name"][hopper.kernel_name(p, m["by_name"])]["block_m"]   # (d64 up to 1024 keys: the _c2 sibling's 128)
    tiles = -(-sk // bm) * 16 * 2
    assert pl.grid == ((min(tiles, 132), 1, 1) if persistent else (tiles, 1, 1))


@pytest.mark.parametrize("sk", [512, 1024, 8192, 16384])
def test_dynamic_causal_kernels_run_on_a_persistent_grid(monkeypatch, sk):
    """A ``dynamic_causal`` kernel deals causal tiles out itself: min(tiles, SMs) CTAs at every length,
    with the TMA workspace (whose zeroed counters the kernel counts in)."""
    m = _manifest_with(monkeypatch, dynamic=True)
    (pl,) = hopper.plan(problem(b=2, sq=sk, sk=sk, hq=16, hk=16, d=128, causal=True), "sm_90a", 132, 1)
    obj = m["by_name"]["fwd_bf16_d128"]
    tiles = -(-sk // obj["block_m"]) * 16 * 2
    assert pl.grid == (min(tiles, 132), 1, 1)
    assert dict(pl.pointer_slots)["workspace"] == hopper.layout()["tmaps"].offset
    assert pl.workspace_bytes == obj["tma"]["align"] + obj["tma"]["bytes_per_cta"] * pl.grid[0]


def test_shipped_d128_kernels_have_the_dynamic_causal_schedule():
    """The shipped build (2026-11-26): dynamic causal schedule and 16 MiB L2 sections on the 128-key
    d128 kernels, setmaxnreg 40 / 232 there (32 / 232 before issue11g); the _bn176 ones keep 24 / 240 and the static schedule."""
    by = hopper.manifest("sm_90a")["by_name"]
    for dt in hopper.DTYPES:
        o = by[hopper.variant_name(dt, 128)]
        # 40 / 232 since issue11g's windows (the producer keeps the window's first key block live)
        assert o.get("dynamic_causal") and o["setmaxnreg"] == "40/232" and o["l2_section_kb"] == 16384
        w = by.get(hopper.variant_name(dt, 128) + "_bn176")
        assert w is None or (not w.get("dynamic_causal") and w["setmaxnreg"] == "24/240")


# ----------------------------------------------------------------------------- TMA and the 176-key kernels


def _tma_manifest(monkeypatch, bn176=True):
    """The shipped manifest with every kernel marked TMA (and, with ``bn176``, the 176-key d128 kernels)."""
    def edit(objects):
        objs = [o for o in objects if not o["name"].endswith("_bn176")]
        for o in objs:
            o["tma"] = {"bytes_per_cta": 384, "align": 128}
        if bn176:
            for o in [o for o in objs if o["head_dim"] == 128]:
                objs.append({k: v for k, v in dict(o, name=o["name"] + "_bn176", kernel=o["kernel"] + "_bn176",
                                                   block_n=176, q_stages=1).items() if k != "dynamic_causal"})
        return objs
    m = _patched_manifest(monkeypatch, edit)
    return m


@pytest.mark.parametrize("causal, sk, kernel", [
    (False, 8192, "hopper_fwd_bf16_d128_bn176"), (False, 16384, "hopper_fwd_bf16_d128_bn176"),
    (False, 6144, "hopper_fwd_bf16_d128"), (True, 16384, "hopper_fwd_bf16_d128_fk")])   # (4096 / causal: _fk, FK_SIBLING_D128)
def test_long_non_causal_d128_runs_the_176_key_kernel(monkeypatch, causal, sk, kernel):
    _tma_manifest(monkeypatch)
    (pl,) = hopper.plan(problem(b=1, sq=sk, sk=sk, hq=16, hk=16, causal=causal), "sm_90a", 132, 1)
    assert pl.kernel == kernel


def test_without_176_key_kernels_the_plan_keeps_the_128_key_one(monkeypatch):
    _tma_manifest(monkeypatch, bn176=False)
    (pl,) = hopper.plan(problem(b=1, sq=16384, sk=16384, hq=16, hk=16), "sm_90a", 132, 1)
    assert pl.kernel == "hopper_fwd_bf16_d128"


def test_tma_plan_binds_the_tensor_map_scratch(monkeypatch):
    _tma_manifest(monkeypatch)
    (pl,) = hopper.plan(problem(b=3, sq=1000, sk=777, causal=True), "sm_90a", 132, 1)
    off = hopper.layout()["tmaps"].offset
    assert dict(pl.pointer_slots)["workspace"] == off
    assert pl.workspace_bytes == 128 + 384 * pl.grid[0]
    assert pl.kernargs[off:off + 8] == bytes(8)


@pytest.mark.parametrize("change, words", [
    (dict(k_strides=(0, 256, 128)), "k batch stride 0"),                      # expanded batch
    (dict(q_strides=(1024 * 8 * 128, -8 * 128, 128)), "q seq stride"),         # flipped sequence
    (dict(v_strides=(1024 * 2 * 128, 2 * 128, 1 << 40)), "v head stride"),      # beyond a tensor map
])
def test_tma_kernels_refuse_strides_a_tensor_map_cannot_hold(monkeypatch, change, words):
    _tma_manifest(monkeypatch)
    why = hopper.gate(problem(**change), "sm_90a", force=True)
    assert why is not None and words in why and "TMA" in why, why


def test_size_one_axes_may_have_any_stride_with_tma(monkeypatch):
    _tma_manifest(monkeypatch)
    assert hopper.gate(problem(b=1, k_strides=(0, 256, 128), v_strides=(0, 256, 128)), "sm_90a", force=True) is None


@pytest.mark.parametrize("causal, sk, suffix", [(True, 512, "_dyn"), (True, 2048, "_dyn"), (True, 4096, "_dyn"),
                                                (True, 8192, ""), (True, 16384, ""), (False, 2048, ""),
                                                (False, 16384, "")])
def test_d96_dynamic_sibling_runs_causal_problems_up_to_4096(causal, sk, suffix):
    """d96 causal problems with seqlen_k in DYN_SIBLING_CAUSAL run ``fwd_<dtype>_d96_dyn`` (the dynamic causal
    schedule, on a persistent grid); the others the static d96 kernel."""
    by = hopper.manifest("sm_90a")["by_name"]
    p = problem(b=2, sq=sk, sk=sk, hq=16, hk=16, d=96, causal=causal)
    assert hopper.kernel_name(p, by) == "fwd_bf16_d96" + suffix
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    obj = by["fwd_bf16_d96" + suffix]
    assert pl.kernel == obj["kernel"]
    assert bool(obj.get("dynamic_causal")) == (suffix == "_dyn")
    if suffix == "_dyn":
        tiles = -(-sk // obj["block_m"]) * 16 * 2
        assert pl.grid == (min(tiles, 132), 1, 1)
        assert obj["setmaxnreg"] == "40/232" and by["fwd_bf16_d96"]["setmaxnreg"] == "24/240"  # 32/232 before issue11g


# ----------------------------------------------------------------------------- d64 TMA / dynamic, _static siblings


def test_shipped_d64_kernels_load_with_tma_and_deal_tiles_dynamically():
    """The shipped build (issue11e, 2026-11-26): the d64 kernels load with TMA and take the dynamic causal schedule
    (three consumer warpgroups: no setmaxnreg field, 32 / 160 fixed), the sections are sized in whole KV groups
    (l2_section_mode 1), and both dynamic kernels have a ``_static`` sibling on the static schedule."""
    by = hopper.manifest("sm_90a")["by_name"]
    for dt in hopper.DTYPES:
        d64, d128 = by[hopper.variant_name(dt, 64)], by[hopper.variant_name(dt, 128)]
        assert d64["tma"] and d64.get("dynamic_causal") and d64["block_m"] == 192 and d64["threads"] == 512
        assert d64["l2_section_mode"] == 1 and d128["l2_section_mode"] == 1
        for o, base in ((by[hopper.variant_name(dt, 64) + "_static"], d64),
                        (by[hopper.variant_name(dt, 128) + "_static"], d128)):
            assert o["tma"] and not o.get("dynamic_causal")
            assert all(o[k] == base[k] for k in ("block_m", "block_n", "threads", "stages", "q_stages"))
            # the O tensor map (128 bytes) where one stores with TMA and the other not (d64 since issue11h)
            assert o["shared"] + 128 * bool(base.get("epilogue_tma")) == base["shared"] + 128 * bool(o.get("epilogue_tma"))
        assert by[hopper.variant_name(dt, 128) + "_static"]["setmaxnreg"] == "24/240"


@pytest.mark.parametrize("shape, causal, suffix", [
    ((2, 64, 8, 4096, 128), True, "_static"),      # 32 MiB of K + V, 4096 keys: the static schedule
    ((4, 32, 8, 2048, 128), True, "_static"),
    ((4, 32, 8, 4096, 128), True, ""),             # 64 MiB: L2 sections (dynamic)
    ((1, 32, 8, 8192, 128), True, ""),             # 8192 keys: dynamic
    ((8, 16, 16, 2048, 128), True, ""),            # 128 MiB
    ((2, 64, 8, 4096, 128), False, ""),            # non-causal: never a _static sibling
    ((1, 32, 32, 16384, 64), True, "_static"),     # d64 from 16384 keys
    ((2, 32, 32, 8192, 64), True, ""),
    ((1, 32, 32, 16384, 64), False, ""),
])
def test_static_sibling_runs_where_it_measured_faster(shape, causal, suffix):
    """hopper.STATIC_SIBLING_CAUSAL: the ``_static`` sibling for causal problems in its seqlen_k range whose K + V fit
    its bytes; on CAUSAL_PERSISTENT's grid (both persistent here), without the dynamic schedule's counters.  The d128
    ``_fk`` sibling comes first where FK_SIBLING_D128 takes the problem (session 7), so the d128 rows of the static gate
    are checked in a manifest without ``_fk``."""
    b, hq, hk, s, d = shape
    by = hopper.manifest("sm_90a")["by_name"]
    p = problem(b=b, sq=s, sk=s, hq=hq, hk=hk, d=d, causal=causal)
    lo4, hi4 = hopper.S4_SIBLING_D64.get(causal, (0, -1))
    if suffix == "" and d == 64 and lo4 <= s <= hi4:   # the d64 _s4 sibling (issue11h): dynamic too
        suffix = "_s4"
    without_fk = {k: v for k, v in by.items() if not k.endswith("_fk")}
    assert hopper.kernel_name(p, without_fk) == f"fwd_bf16_d{d}" + suffix
    lof, hif = hopper.FK_SIBLING_D128.get(causal, (0, -1))
    if d == 128 and lof <= s <= hif:   # the d128 _fk sibling (issue11i; before _static since session 7): dynamic too
        suffix = "_fk"
    assert hopper.kernel_name(p, by) == f"fwd_bf16_d{d}" + suffix
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    obj = by[f"fwd_bf16_d{d}" + suffix]
    assert pl.kernel == obj["kernel"] and pl.grid == (132, 1, 1)
    assert bool(obj.get("dynamic_causal")) == (suffix != "_static")


def test_without_static_siblings_the_plan_keeps_the_dynamic_kernel(monkeypatch):
    _patched_manifest(monkeypatch, lambda objs: [o for o in objs if not o["name"].endswith("_static")])
    (pl,) = hopper.plan(problem(b=2, sq=4096, sk=4096, hq=64, hk=8, d=128, causal=True), "sm_90a", 132, 1)
    lo, hi = hopper.FK_SIBLING_D128[True]   # (the dynamic kernel, or its _fk sibling where the gate says)
    assert pl.kernel == "hopper_fwd_bf16_d128" + ("_fk" if lo <= 4096 <= hi else "")


# ----------------------------------------------------------------------------- d64 _s4 sibling, tail split (issue11h)


def test_shipped_d64_s4_siblings_are_the_d64_kernel_with_four_stages():
    """The ``_s4`` siblings (HOPPER_S4_D64): the d64 kernel's tile, schedule and epilogue with a 4-deep K / V ring;
    their shared memory is the d64 kernel's plus one K and one V stage (2 x 128 keys x 64 columns x 2 bytes)."""
    by = hopper.manifest("sm_90a")["by_name"]
    for dt in hopper.DTYPES:
        base, s4 = by[hopper.variant_name(dt, 64)], by[hopper.variant_name(dt, 64) + "_s4"]
        assert base["stages"] == 3 and s4["stages"] == 4
        assert s4["shared"] == base["shared"] + 2 * 128 * 64 * 2 <= 227 * 1024
        same = ("block_m", "block_n", "threads", "q_stages", "tma", "dynamic_causal", "wg_skip", "tail_split",
                "epilogue_smem", "epilogue_smem_per_warp", "window", "l2_section_kb", "l2_section_mode")
        assert all(s4.get(k) == base.get(k) for k in same), [k for k in same if s4.get(k) != base.get(k)]
        assert s4["kernel"] == base["kernel"] + "_s4"


def test_shipped_tail_split_only_on_the_dynamic_d64_kernels():
    """``tail_split`` (HOPPER_TAIL_SPLIT_D64) needs the dynamic schedule and per-warpgroup key blocks: the d64 kernel and
    its ``_s4`` sibling, not the ``_static`` / ``_softcap`` siblings nor another head dim."""
    for o in hopper.manifest("sm_90a")["objects"]:
        # (not _varlen: issue11h-next; not _c2, whose warpgroups take every key block of a tile: issue11j)
        want = o["head_dim"] == 64 and not o["name"].endswith(("_static", "_softcap", "_varlen", "_c2", "_c2q3"))
        assert bool(o.get("tail_split")) == want, o["name"]
        if want:
            assert o.get("wg_skip") and o.get("dynamic_causal") and o["tail_split_rounds"] == 8


@pytest.mark.parametrize("shape, causal", [((4, 32, 32, 4096), True), ((2, 32, 32, 8192), True),
                                           ((1, 32, 32, 16384), True), ((1, 2, 2, 40000), False),
                                           ((8, 16, 16, 8192), False), ((16, 32, 32, 1024), True)])
def test_s4_sibling_runs_where_the_gate_says(shape, causal):
    """hopper.S4_SIBLING_D64 picks the ``_s4`` sibling by causal flag and seqlen_k; the ``_static`` sibling
    (STATIC_SIBLING_CAUSAL) comes first; the plan takes the sibling's shared memory."""
    b, h, hk, s = shape
    by = hopper.manifest("sm_90a")["by_name"]
    p = problem(b=b, sq=s, sk=s, hq=h, hk=hk, d=64, causal=causal)
    lo, hi = hopper.S4_SIBLING_D64.get(causal, (0, -1))
    static = hopper._runs_static_sibling(p)
    # (the _c2 sibling comes first: issue11j; also on few rounds of 132 SMs: call st)
    c2 = hopper._in_sibling_range(hopper.C2_SIBLING_D64, 64, p) or hopper._c2_few_rounds(p, by, 132)
    c2s = "_c2q3" if hopper._in_sibling_range(hopper.C2Q3_SIBLING_D64, 64, p) else "_c2"
    want = "fwd_bf16_d64" + (c2s if c2 else "_static" if static else "_s4" if lo <= s <= hi else "")
    assert hopper.kernel_name(p, by, 132) == want
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    assert pl.kernel == by[want]["kernel"] and pl.shared_mem == by[want]["shared"]
    for d in (128, 96, 256):   # other head dims never
        assert not hopper.kernel_name(problem(b=b, sq=s, sk=s, hq=h, hk=hk, d=d, causal=causal), by).endswith("_s4")
    names = {k: v for k, v in by.items() if not k.endswith("_s4")}   # a manifest without it: the d64 kernel
    assert hopper.kernel_name(p, names, 132) == "fwd_bf16_d64" + (c2s if c2 else "_static" if static else "")


# ----------------------------------------------------------------------------- d128 _fk sibling (issue11i)


def test_shipped_d128_fk_siblings_are_the_d128_kernel():
    """The ``_fk`` siblings (HOPPER_FK_D128): the d128 kernel's tile, schedule, epilogue and resources, marked
    ``fused_turn`` / ``k_ahead`` (and, since call af2, ``param_maps``: HOPPER_PARAM_MAPS_FK); no other kernel carries the
    first two marks."""
    by = hopper.manifest("sm_90a")["by_name"]
    for dt in hopper.DTYPES:
        base, fk = by[hopper.variant_name(dt, 128)], by[hopper.variant_name(dt, 128) + "_fk"]
        assert {k: v for k, v in fk.items() if k not in ("name", "kernel", "fused_turn", "k_ahead", "param_maps")} == \
            {k: v for k, v in base.items() if k not in ("name", "kernel")}
        assert "param_maps" not in base and fk["param_maps"]["offset"] == _MAPS_OFFSET
        assert fk["kernel"] == base["kernel"] + "_fk" and fk["fused_turn"] and fk["k_ahead"]
    assert sorted(o["name"] for o in hopper.manifest("sm_90a")["objects"] if o.get("fused_turn")) == \
        ["fwd_bf16_d128_fk", "fwd_fp16_d128_fk"]
    # k_ahead: the _fk siblings and, since call ad1 (HOPPER_C2Q3_KAHEAD_D64), the _c2q3 ones
    assert sorted(o["name"] for o in hopper.manifest("sm_90a")["objects"] if o.get("k_ahead")) == \
        ["fwd_bf16_d128_fk", "fwd_bf16_d64_c2q3", "fwd_fp16_d128_fk", "fwd_fp16_d64_c2q3"]


@pytest.mark.parametrize("shape, causal", [((32, 16, 16, 512), False), ((32, 16, 16, 512), True),
                                           ((16, 16, 16, 1024), True), ((8, 16, 16, 2048), False),
                                           ((8, 16, 16, 2048), True), ((4, 16, 16, 4096), False),
                                           ((1, 32, 8, 8192), True), ((1, 16, 16, 16384), False),
                                           ((2, 64, 8, 4096), True), ((1, 16, 16, 32768), True)])
def test_fk_sibling_runs_where_the_gate_says(shape, causal):
    """hopper.FK_SIBLING_D128 picks the ``_fk`` sibling by causal flag and seqlen_k, after the ``_bn176`` sibling and
    before ``_static``; not for softcap, varlen or other head dims; a manifest without it keeps the d128 kernel (or its
    ``_static`` sibling)."""
    b, h, hk, s = shape
    by = hopper.manifest("sm_90a")["by_name"]
    p = problem(b=b, sq=s, sk=s, hq=h, hk=hk, d=128, causal=causal)
    lo, hi = hopper.FK_SIBLING_D128[causal]
    bn176 = not causal and hopper.WIDE_BLOCK_NONCAUSAL[0] <= s <= hopper.WIDE_BLOCK_NONCAUSAL[1]
    other = "_bn176" if bn176 else "_static" if hopper._runs_static_sibling(p) else ""
    want = "fwd_bf16_d128" + ("_bn176" if bn176 else "_fk" if lo <= s <= hi else other)
    assert hopper.kernel_name(p, by) == want
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    assert pl.kernel == by[want]["kernel"] and pl.shared_mem == by[want]["shared"]
    for d in (64, 96, 256):
        assert not hopper.kernel_name(problem(b=b, sq=s, sk=s, hq=h, hk=hk, d=d, causal=causal), by).endswith("_fk")
    assert not hopper.kernel_name(dataclasses.replace(p, softcap=30.0), by).endswith("_fk")
    names = {k: v for k, v in by.items() if not k.endswith("_fk")}
    assert hopper.kernel_name(p, names) == "fwd_bf16_d128" + other


# ----------------------------------------------------------------------------- d64 _c2 sibling (issue11j)


def test_shipped_d64_c2_siblings():
    """The ``_c2`` siblings (HOPPER_C2_D64): d64 on 128-row tiles of two consumer warpgroups (384 threads, setmaxnreg
    40 / 232) in cuDNN's loop shape (``exp_turn``), TMA with two Q buffers and the d64 kernel's dynamic schedule, TMA
    epilogue and one tile decode; no per-warpgroup key blocks / tail split (both warpgroups take every key block of a
    tile); shared memory: Q, the K / V ring, the 128-row O buffer, mbarriers and four tensor maps; no other kernel is
    marked ``exp_turn``."""
    by = hopper.manifest("sm_90a")["by_name"]
    for dt in hopper.DTYPES:
        base, c2 = by[hopper.variant_name(dt, 64)], by[hopper.variant_name(dt, 64) + "_c2"]
        assert c2["kernel"] == base["kernel"] + "_c2"
        assert (c2["block_m"], c2["block_n"], c2["threads"], c2["q_stages"]) == (128, 128, 384, 2)
        assert c2["exp_turn"] and c2["setmaxnreg"] == "40/232" and c2["registers"] <= 168
        same = ("tma", "dynamic_causal", "epilogue_smem", "epilogue_smem_per_warp", "epilogue_tma", "decode_once", "window",
                "l2_section_kb", "l2_section_mode")
        assert all(c2.get(k) == base.get(k) for k in same), [k for k in same if c2.get(k) != base.get(k)]
        assert not c2.get("wg_skip") and not c2.get("tail_split") and not c2.get("softcap") and not c2.get("varlen")
        tiles = 2 * 128 * 128 + 2 * c2["stages"] * 128 * 128
        assert c2["shared"] == tiles + 128 * 128 + 256 + 4 * 128 + 1024 <= 227 * 1024
    assert sorted(o["name"] for o in hopper.manifest("sm_90a")["objects"] if o.get("exp_turn")) == \
        ["fwd_bf16_d64_c2", "fwd_bf16_d64_c2q3", "fwd_fp16_d64_c2", "fwd_fp16_d64_c2q3"]


def test_shipped_d64_c2q3_siblings():
    """The ``_c2q3`` siblings (HOPPER_C2_CAUSAL_Q3_D64, call a2): the ``_c2`` kernel with three Q buffers, so one more
    128 x 64 Q tile (16 KiB) of shared memory and q_stages 3, and (HOPPER_C2Q3_KAHEAD_D64, call ad1) K loaded ahead of V,
    ``k_ahead``; every other fact as ``_c2``'s."""
    by = hopper.manifest("sm_90a")["by_name"]
    for dt in hopper.DTYPES:
        c2, q3 = by[hopper.variant_name(dt, 64) + "_c2"], by[hopper.variant_name(dt, 64) + "_c2q3"]
        assert q3["kernel"] == c2["kernel"] + "q3" and q3["q_stages"] == 3 and c2["q_stages"] == 2
        assert q3["shared"] == c2["shared"] + 128 * 64 * 2 <= 227 * 1024
        assert q3.get("k_ahead") is True and "k_ahead" not in c2
        # (HOPPER_START_WAIT, session 8: the _c2 producer's first K block first; _c2q3's loads K ahead, no start wait)
        assert c2.get("start_wait") is True and "start_wait" not in q3
        assert {k: v for k, v in q3.items() if k not in ("name", "kernel", "shared", "q_stages", "k_ahead")} == \
            {k: v for k, v in c2.items() if k not in ("name", "kernel", "shared", "q_stages", "start_wait")}


@pytest.mark.parametrize("shape, causal, want", [((32, 32, 32, 512), True, "_c2q3"), ((32, 16, 16, 256), True, "_c2q3"),
                                                 ((16, 32, 32, 1024), True, "_c2q3"), ((32, 32, 32, 512), False, "_c2"),
                                                 ((16, 12, 12, 1024), False, "_c2"), ((2, 8, 8, 4096), False, "_c2"),
                                                 ((8, 32, 32, 2048), True, ""), ((3, 8, 2, 100), True, "_c2q3")])
def test_c2q3_sibling_runs_the_causal_c2_problems(shape, causal, want):
    """hopper.C2Q3_SIBLING_D64: of the problems given ``_c2``, the causal ones up to 1024 keys run ``_c2q3`` (call a2:
    1.03-1.04x causal at 256 / 512, 1.00x at 1024; non-causal 0.996-0.999x, so not those); the plan takes its shared
    memory and host-made maps; the encoder's refusal (strides >= 64 GiB) sends it to the d64 kernel as for ``_c2``."""
    b, h, hk, s = shape
    by = hopper.manifest("sm_90a")["by_name"]
    p = problem(b=b, sq=s, sk=s, hq=h, hk=hk, d=64, causal=causal)
    got = hopper.kernel_name(p, by, 132)
    if want:
        assert got == "fwd_bf16_d64" + want
    else:
        assert not got.endswith(("_c2", "_c2q3")), got
    if want:
        (pl,) = hopper.plan(p, "sm_90a", 132, 1)
        obj = by["fwd_bf16_d64" + want]
        assert pl.kernel == obj["kernel"] and pl.shared_mem == obj["shared"] and len(pl.kernargs) == 240 + 512
    if want == "_c2q3":
        big = problem(b=b, sq=s, sk=s, hq=h, hk=hk, d=64, causal=causal, q_strides=(1 << 35, h * 64, 64))
        assert hopper.kernel_name(big, by, 132) == "fwd_bf16_d64"


@pytest.mark.parametrize("shape, causal", [((32, 16, 16, 512), False), ((32, 32, 32, 512), True),
                                           ((16, 12, 12, 1024), False), ((16, 32, 32, 1024), True),
                                           ((8, 32, 32, 2048), False), ((4, 32, 32, 4096), True),
                                           ((1, 32, 32, 16384), True), ((1, 2, 2, 40000), False),
                                           ((3, 8, 2, 100), False)])
def test_c2_sibling_runs_where_the_gate_says(shape, causal):
    """hopper.C2_SIBLING_D64 picks the d64 ``_c2`` sibling by causal flag and seqlen_k, before the ``_static`` / ``_s4``
    siblings; not for softcap, varlen or other head dims; the plan takes its block_m (128-row tiles), threads and shared
    memory; a manifest without it keeps the earlier rules."""
    b, h, hk, s = shape
    by = hopper.manifest("sm_90a")["by_name"]
    p = problem(b=b, sq=s, sk=s, hq=h, hk=hk, d=64, causal=causal)
    lo, hi = hopper.C2_SIBLING_D64[causal]
    lo4, hi4 = hopper.S4_SIBLING_D64.get(causal, (0, -1))
    other = "_static" if hopper._runs_static_sibling(p) else "_s4" if lo4 <= s <= hi4 else ""
    few = not causal and b * h * -(-s // by["fwd_bf16_d64"]["block_m"]) <= hopper.C2_FEW_ROUNDS_D64 * 132
    c2s = "_c2q3" if hopper._in_sibling_range(hopper.C2Q3_SIBLING_D64, 64, p) else "_c2"
    want = "fwd_bf16_d64" + (c2s if lo <= s <= hi or few else other)
    assert hopper.kernel_name(p, by, 132) == want
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    obj = by[want]
    assert pl.kernel == obj["kernel"] and pl.shared_mem == obj["shared"] and pl.block == (obj["threads"], 1, 1)
    m_blocks = -(-s // obj["block_m"])
    assert pl.grid == (min(m_blocks * h * b, 132), 1, 1)
    for d in (128, 96, 256):
        assert not hopper.kernel_name(problem(b=b, sq=s, sk=s, hq=h, hk=hk, d=d, causal=causal), by).endswith(("_c2",
                                                                                                             "_c2q3"))
    assert hopper.kernel_name(dataclasses.replace(p, softcap=30.0), by) == "fwd_bf16_d64_softcap"
    names = {k: v for k, v in by.items() if not k.endswith("_c2q3")}   # a manifest without _c2q3: _c2 where it was
    assert hopper.kernel_name(p, names, 132) == "fwd_bf16_d64" + ("_c2" if lo <= s <= hi or few else other)
    names = {k: v for k, v in names.items() if not k.endswith("_c2")}
    assert hopper.kernel_name(p, names, 132) == "fwd_bf16_d64" + other


@pytest.mark.parametrize("shape, cu, want_c2", [((1, 4, 4, 8192), 132, True), ((2, 8, 8, 4096), 132, True),
                                                ((1, 2, 2, 40000), 132, True), ((1, 8, 8, 32768), 132, False),
                                                ((8, 32, 32, 2048), 132, False), ((1, 8, 8, 32768), 400, True),
                                                ((2, 8, 8, 4096), None, False), ((2, 8, 8, 4096), 66, False)])
def test_c2_sibling_on_few_rounds(shape, cu, want_c2):
    """Call st (2026-11-27, session 4): a non-causal d64 problem above C2_SIBLING_D64's range runs ``_c2`` where the
    d64 kernel's 192-row tiles fill at most C2_FEW_ROUNDS_D64 rounds of ``compute_units`` SMs (unknown SMs: no); never a
    causal one; 0 turns the rule off; gate and plan pick the same kernel."""
    b, h, hk, s = shape
    by = hopper.manifest("sm_90a")["by_name"]
    p = problem(b=b, sq=s, sk=s, hq=h, hk=hk, d=64, causal=False)
    assert s > hopper.C2_SIBLING_D64[False][1]
    rounds = b * h * -(-s // by["fwd_bf16_d64"]["block_m"]) / cu if cu else None
    assert want_c2 == (rounds is not None and rounds <= hopper.C2_FEW_ROUNDS_D64), rounds
    assert hopper.kernel_name(p, by, cu).endswith("_c2") == want_c2
    if cu:
        (pl,) = hopper.plan(p, "sm_90a", cu, 1)
        assert (pl.kernel == by["fwd_bf16_d64_c2"]["kernel"]) == want_c2
    assert not hopper.kernel_name(dataclasses.replace(p, causal=True), by, cu).endswith("_c2")
    assert not hopper.kernel_name(dataclasses.replace(p, softcap=30.0), by, cu).endswith("_c2")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(hopper, "C2_FEW_ROUNDS_D64", 0)
        assert not hopper.kernel_name(p, by, cu).endswith("_c2")



# ----------------------------------------------------------------------------- host-made tensor maps (issue11z)

#: where make_manifest.py put hopper_fwd_maps in the PARAM_MAPS_C2=1 build (the metadata's offset: nvcc aligns the
#: parameter's constant-bank address to 64, 0x210 + 240 = 0x300)
_MAPS_OFFSET = 240


def _param_maps_manifest(monkeypatch, param_maps: bool = True, kernels: tuple[str, ...] = ("_d64_c2", "_d64_c2q3")):
    """The shipped manifest with the ``kernels`` (name suffixes; the ``_c2`` / ``_c2q3`` ones by default) marked
    ``param_maps`` as a PARAM_MAPS_C2=1 / PARAM_MAPS_FK=1 build marks them (offset 240; the shipped build since calls z1 /
    af2), or with the mark taken off (``param_maps=False``: a build with the macro 0); other kernels as shipped."""
    def edit(objs):
        for o in objs:
            if o["name"].endswith(kernels):
                o.pop("param_maps", None)
                if param_maps:
                    o["param_maps"] = {"struct": "hopper_fwd_maps", "offset": _MAPS_OFFSET, "align": 64}
        return objs
    return _patched_manifest(monkeypatch, edit)


def test_shipped_c2_and_fk_kernels_take_host_made_maps():
    """The shipped manifest (PARAM_MAPS_C2=1, PARAM_MAPS_FK=1) marks exactly the ``_c2``, ``_c2q3`` and d128 ``_fk``
    kernels ``param_maps``, at the offset this file expects (the rebuild test checks the cubin and manifest are the
    build's)."""
    objs = hopper.manifest("sm_90a")["objects"]
    marked = {o["name"] for o in objs if o.get("param_maps")}
    assert marked == {o["name"] for o in objs if o["name"].endswith(("_d64_c2", "_d64_c2q3", "_d128_fk"))}
    assert len(marked) == 6
    for o in objs:
        if o.get("param_maps"):
            assert o["param_maps"] == {"struct": "hopper_fwd_maps", "offset": _MAPS_OFFSET, "align": 64}


def _want_map(dims, strides_elems, rows):
    """tmap_make's map of (seq, heads, batch) with element strides (batch, seq, head), written out here."""
    from pyhipattn.kernargs import encode_tile_map

    seq, heads, batch = dims
    b, s_, h = strides_elems
    st = (2 * s_ if seq > 1 else 16, 2 * h if heads > 1 else 16, 2 * b if batch > 1 else 16)
    return encode_tile_map(0, "u16", (64, seq, heads, batch), st, rows)


@pytest.mark.parametrize("b, s, hq, hk, causal, dtype", [(32, 512, 16, 16, False, "bf16"), (16, 1024, 32, 8, True, "fp16"),
                                                         (1, 512, 1, 1, False, "bf16"), (4, 640, 12, 4, True, "bf16")])
def test_param_maps_kernargs_hold_the_maps(monkeypatch, b, s, hq, hk, causal, dtype):
    """A ``param_maps`` kernel's plan: hopper_fwd_args as before, zeros to the manifest's offset, then the Q / K / V / O
    maps tmap_make would make (boxes of 128 / 128 / 128 / 16 rows, 16-byte strides on size-1 dims), addresses 0; binding
    writes each tensor's address into its field and its map's bytes 0-7, nothing else."""
    import struct as st

    p = problem(b=b, sq=s, sk=s, hq=hq, hk=hk, d=64, dtype=dtype, causal=causal, return_lse=True)
    with pytest.MonkeyPatch.context() as mp:
        _param_maps_manifest(mp, param_maps=False)
        (base,) = hopper.plan(p, "sm_90a", 132, 1)    # a PARAM_MAPS_C2=0 manifest: maps made in the kernel
    m = _param_maps_manifest(monkeypatch)
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    obj = m["by_name"][f"fwd_{dtype}_d64_c2" + ("q3" if causal else "")]   # (causal: the _c2q3 sibling)
    assert pl.kernel == base.kernel == obj["kernel"]
    lay, mlay = hopper.layout(), hopper.maps_layout()
    assert len(base.kernargs) == lay.size == 216 and mlay.size == 512
    assert len(pl.kernargs) == _MAPS_OFFSET + 512
    assert pl.kernargs[:lay.size] == base.kernargs and pl.kernargs[lay.size:_MAPS_OFFSET] == bytes(_MAPS_OFFSET - lay.size)
    want = [_want_map((s, hq, b), p.q_strides, obj["block_m"]), _want_map((s, hk, b), p.k_strides, obj["block_n"]),
            _want_map((s, hk, b), p.v_strides, obj["block_n"]), _want_map((s, hq, b), p.o_strides, 16)]
    assert obj["block_m"] == obj["block_n"] == 128
    for i, w in enumerate(want):
        assert pl.kernargs[_MAPS_OFFSET + 128 * i:_MAPS_OFFSET + 128 * (i + 1)] == w, i
    slots = dict.fromkeys(n for n, _ in pl.pointer_slots)
    assert set(slots) == {"q", "k", "v", "out", "lse", "workspace"}
    assert set(pl.pointer_slots) == set(base.pointer_slots) | {("q", 240), ("k", 368), ("v", 496), ("out", 624)}
    ptrs = {"q": 0x7F0000000100, "k": 0x7F0000200000, "v": 0x7F0000400040, "out": 0x7F0000600080,
            "lse": 0x7F0000800000, "workspace": 0x7F0000900000}
    bound, bound_base = pl.bind(ptrs), base.bind(ptrs)
    assert bound.kernargs[:lay.size] == bound_base.kernargs
    for i, n in enumerate(("q", "k", "v", "out")):
        at = _MAPS_OFFSET + 128 * i
        assert st.unpack_from("<Q", bound.kernargs, at)[0] == ptrs[n]
        assert bound.kernargs[at + 8:at + 128] == want[i][8:]
    # the prepared path's binding (prepare: (offset, index) slots, pointer_runs) writes the same bytes
    from pyhipattn.prepared import POINTERS
    from pyhipattn.runtime._driver import pointer_runs

    buf = bytearray(pl.kernargs)
    values = tuple(ptrs.get(n, 0) for n in POINTERS)
    for pack_into, off, a, z in pointer_runs(tuple((off, POINTERS.index(n)) for n, off in pl.pointer_slots)):
        pack_into(buf, off, *values[a:z])
    assert bytes(buf) == bound.kernargs


def test_param_maps_refused_fall_back_to_the_d64_kernel(monkeypatch):
    """Strides the CPU encoder refuses (64 GiB and more; the in-kernel maps take up to 2^40 bytes): the planner runs the
    next kernel (the d64 one, maps made in the kernel) instead of crashing, and says why through param_maps_refusal."""
    m = _param_maps_manifest(monkeypatch)
    d = 64
    big = 1 << 35                                      # elements: 64 GiB of bf16 between batches
    p = problem(b=2, sq=512, sk=512, hq=16, hk=16, d=d, q_strides=(big, 16 * d, d))
    assert hopper.gate(p, "sm_90a", 132, force=True) is None      # below TMA's 2^39 elements
    c2 = m["by_name"]["fwd_bf16_d64_c2"]
    why = hopper.param_maps_refusal(p, c2)
    assert why and "q tensor map" in why and "strides" in why, why
    with pytest.raises(ValueError, match="strides"):
        hopper.tile_maps(p, c2)
    assert hopper.kernel_name(p, m["by_name"], 132) == "fwd_bf16_d64"
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    assert pl.kernel == m["by_name"]["fwd_bf16_d64"]["kernel"] and len(pl.kernargs) == hopper.layout().size
    ok = problem(b=2, sq=512, sk=512, hq=16, hk=16, d=d)
    assert hopper.param_maps_refusal(ok, c2) is None and hopper.kernel_name(ok, m["by_name"], 132) == "fwd_bf16_d64_c2"
    # a kernel that makes its own maps never refuses on that account
    assert hopper.param_maps_refusal(p, m["by_name"]["fwd_bf16_d64"]) is None


def test_check_params_reads_the_second_parameter():
    """kernargs.check_params: hopper_fwd_args at 0, hopper_fwd_maps where the metadata puts it (240 in the
    PARAM_MAPS_C2=1 build); wrong sizes / order / a missing parameter are named."""
    from pyhipattn.codeobj.model import KernelArg, KernelInfo
    from pyhipattn.errors import KernargMismatchError
    from pyhipattn.kernargs import check_params

    lay, mlay = hopper.layout(), hopper.maps_layout()

    def kernel(*args):
        return KernelInfo(name="k", symbol="k", arch="sm_90a", kernarg_size=max(o + n for o, n in args),
                          kernarg_align=8, args=tuple(KernelArg(o, n, "param") for o, n in args))

    assert check_params([lay, mlay], kernel((0, 216), (240, 512))) == (0, 240)
    assert check_params([lay], kernel((0, 216))) == (0,)
    for bad, words in [(((0, 216),), "parameter 1"), (((0, 216), (240, 384)), "parameter 1"),
                       (((0, 216), (200, 512)), "parameter 1"), (((0, 216), (248, 512)), "multiple of 16"),
                       (((0, 200), (240, 512)), "parameter 0")]:
        with pytest.raises(KernargMismatchError, match=words):
            check_params([lay, mlay], kernel(*bad))
    with pytest.raises(ValueError, match="params"):
        check_params([], kernel((0, 216)))


def test_maps_struct_matches_the_kernel_side():
    """hopper_fwd_maps: four 128-byte maps of 16 words (q0.., k0.., v0.., o0..), HOPPER_FWD_MAPS_ALIGN 64 (the C++
    parameter type's alignas)."""
    from pyhipattn.kernargs import read_header

    h = read_header(hopper.HEADER)
    mlay = h["hopper_fwd_maps"]
    assert h.constants["HOPPER_FWD_MAPS_ALIGN"] == 64 and mlay.size == 512
    assert [mlay[f"{t}0"].offset for t in "qkvo"] == [0, 128, 256, 384]
    assert all(f.size == 8 for f in mlay.fields) and len(mlay.fields) == 64


# ----------------------------------------------------------------------------- host-made maps for _fk (issue11af)

@pytest.mark.parametrize("b, s, hq, hk, causal, dtype", [(32, 512, 16, 16, False, "bf16"), (4, 1024, 32, 8, True, "fp16"),
                                                         (1, 128, 132, 132, False, "bf16"), (1, 512, 1, 1, False, "bf16")])
def test_fk_param_maps_kernargs_hold_the_maps(monkeypatch, b, s, hq, hk, causal, dtype):
    """HOPPER_PARAM_MAPS_FK: an ``_fk`` kernel marked ``param_maps`` is planned with hopper_fwd_args as before, zeros to
    the offset, then the maps its tmap_make calls would make: head dim 128, Q / K / V boxes of 128 rows, O boxes of 64
    (EPI_TMA: a warpgroup's rows); the four maps' addresses bound like the _c2 kernels'."""
    from pyhipattn.kernargs import encode_tile_map

    p = problem(b=b, sq=s, sk=s, hq=hq, hk=hk, d=128, dtype=dtype, causal=causal, return_lse=True)
    with monkeypatch.context() as mp:
        _param_maps_manifest(mp, param_maps=False, kernels=("_d128_fk",))
        (base,) = hopper.plan(p, "sm_90a", 132, 1)    # a PARAM_MAPS_FK=0 manifest: maps made in the kernel
    m = _param_maps_manifest(monkeypatch, kernels=("_d128_fk",))
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    obj = m["by_name"][f"fwd_{dtype}_d128_fk"]
    assert pl.kernel == base.kernel == obj["kernel"]
    lay = hopper.layout()
    assert len(pl.kernargs) == _MAPS_OFFSET + 512 and pl.kernargs[:lay.size] == base.kernargs

    def want(dims, strides_elems, rows):
        seq, heads, batch = dims
        bs, ss, hs = strides_elems
        st = (2 * ss if seq > 1 else 16, 2 * hs if heads > 1 else 16, 2 * bs if batch > 1 else 16)
        return encode_tile_map(0, "u16", (128, seq, heads, batch), st, rows)

    maps = [want((s, hq, b), p.q_strides, 128), want((s, hk, b), p.k_strides, 128), want((s, hk, b), p.v_strides, 128),
            want((s, hq, b), p.o_strides, 64)]
    assert obj["block_m"] == obj["block_n"] == 128
    for i, w in enumerate(maps):
        assert pl.kernargs[_MAPS_OFFSET + 128 * i:_MAPS_OFFSET + 128 * (i + 1)] == w, i
    assert set(pl.pointer_slots) == set(base.pointer_slots) | {("q", 240), ("k", 368), ("v", 496), ("out", 624)}


def test_fk_param_maps_refused_maps_fall_back_to_d128(monkeypatch):
    """Where the encoder refuses an ``_fk`` kernel's host-made maps (zero keys: an empty dimension), the planner runs the
    plain d128 kernel (which makes its own maps) instead."""
    _param_maps_manifest(monkeypatch, kernels=("_d128_fk",))
    p = problem(b=2, sq=256, sk=0, hq=8, hk=8, d=128)
    assert hopper.kernel_name(p, hopper.manifest("sm_90a")["by_name"], 132) == "fwd_bf16_d128"
    assert hopper.kernel_name(problem(b=2, sq=256, sk=256, hq=8, hk=8, d=128), hopper.manifest("sm_90a")["by_name"],
                              132) == "fwd_bf16_d128_fk"


def test_shipped_kernels_record_fast_rcp():
    """HOPPER_FAST_RCP (session 7, call ak1): every kernel of the committed cubin takes a tile's 1 / l by rcp.approx, and
    the manifest says so (make_manifest's ``fast_rcp`` mark, passed by scripts/build/hopper.sh's FAST_RCP, default 1)."""
    objs = json.loads((CO / "hopper_manifest.json").read_text())["objects"]
    assert objs and all(o.get("fast_rcp") is True for o in objs), [o["name"] for o in objs if not o.get("fast_rcp")]
    sh = (ROOT / "scripts" / "build" / "hopper.sh").read_text()
    assert "FAST_RCP=${FAST_RCP:-1}" in sh and '"fast_rcp=$FAST_RCP"' in sh


def test_shipped_kernels_record_lazy_rescale():
    """HOPPER_LAZY_RESCALE (session 8, calls am2 / am3): every kernel of the committed cubin but the ``_c2`` / ``_c2q3``
    siblings keeps a warp's row maxima up to 8 (exp2 domain) and says so (make_manifest's ``lazy_rescale`` mark, passed
    by scripts/build/hopper.sh's LAZY_RESCALE, default 8); the _c2 kernels, which lost with it, carry no mark."""
    objs = json.loads((CO / "hopper_manifest.json").read_text())["objects"]
    c2 = [o for o in objs if o["name"].endswith(("_c2", "_c2q3"))]
    rest = [o for o in objs if o not in c2]
    assert len(c2) == 4 and len(rest) == 46
    assert all(o.get("lazy_rescale") == 8 for o in rest), [o["name"] for o in rest if o.get("lazy_rescale") != 8]
    assert not any("lazy_rescale" in o for o in c2)
    sh = (ROOT / "scripts" / "build" / "hopper.sh").read_text()
    assert "LAZY_RESCALE=${LAZY_RESCALE:-8}" in sh and '"lazy_rescale=$LAZY_RESCALE"' in sh


def test_shipped_c2_kernels_record_the_start_wait():
    """HOPPER_START_WAIT (session 8, call sw1): the ``_c2`` kernels' producer waits for its first K block before the
    deeper prefetch, and their manifest entries say so (``start_wait``); no other kernel carries the mark."""
    objs = json.loads((CO / "hopper_manifest.json").read_text())["objects"]
    marked = sorted(o["name"] for o in objs if o.get("start_wait"))
    assert marked == ["fwd_bf16_d64_c2", "fwd_fp16_d64_c2"]
    sh = (ROOT / "scripts" / "build" / "hopper.sh").read_text()
    assert "START_WAIT=${START_WAIT:-1}" in sh and '"start_wait=$START_WAIT"' in sh


def test_make_manifest_refuses_a_lazy_rescale_out_of_range(tmp_path):
    """make_manifest's ``lazy_rescale`` names the value it was given and the range it accepts (P <= 2^k fits fp16)."""
    import shutil
    import subprocess
    import sys

    shutil.copy(CO / "hopper_fwd.cubin", tmp_path / "hopper_fwd.cubin")
    r = subprocess.run([sys.executable, str(ROOT / "kernels" / "src" / "hopper" / "make_manifest.py"), "sm_90a",
                        str(tmp_path), "3", "2", "3", "2", "lazy_rescale=16"], capture_output=True, text=True)
    assert r.returncode != 0 and "lazy_rescale=16; accepted: 0 .. 15" in r.stderr


def test_shipped_kernels_record_the_short_causal_l2_sections():
    """HOPPER_L2_SHORT_SK / _KB (session 7, call al1): causal problems of at most 512 keys take 4096-KiB L2 sections; the
    manifest records the rule on every kernel that records L2 sections (make_manifest's ``l2_short`` mark)."""
    objs = json.loads((CO / "hopper_manifest.json").read_text())["objects"]
    with_sections = [o for o in objs if o.get("l2_section_kb")]
    assert with_sections and all(o.get("l2_short") == {"max_seqlen_k": 512, "kb": 4096} for o in with_sections)
    assert not any(o.get("l2_short") for o in objs if not o.get("l2_section_kb"))

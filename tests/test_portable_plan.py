"""The portable family plans every supported problem on every shipped arch, without a GPU,
and its committed code objects agree with their manifests and with portable_args.h."""

from __future__ import annotations

import hashlib
import itertools
import json

import pytest

from pyhipattn.arch import SHIPPED_ARCHES
from pyhipattn.families import portable
from pyhipattn.families.base import Problem
from pyhipattn.runtime.memory import SPLIT_COUNTERS


def make_problem(b=2, sq=128, sk=128, hq=8, hk=2, d=128, dv=None, dtype="bf16", causal=False,
                 window=(-1, -1), softcap=0.0, lse=True, varlen=False) -> Problem:
    dv = dv or d
    total_q, total_k = (b * sq, b * sk) if varlen else (0, 0)
    qs = (0 if varlen else sq * hq * d, hq * d, d)
    ks = (0 if varlen else sk * hk * d, hk * d, d)
    vs = (0 if varlen else sk * hk * dv, hk * dv, dv)
    os_ = (0 if varlen else sq * hq * dv, hq * dv, dv)
    return Problem(batch=b, seqlen_q=sq, seqlen_k=sk, heads_q=hq, heads_k=hk, head_dim=d, head_dim_v=dv,
                   dtype=dtype, softmax_scale=d ** -0.5, causal=causal, window=window, softcap=softcap,
                   return_lse=lse, varlen=varlen, total_q=total_q, total_k=total_k,
                   q_strides=qs, k_strides=ks, v_strides=vs, o_strides=os_)


def unpack(plan, struct_name):
    return portable.layout(struct_name).packer().unpack(plan.kernargs)


SWEEP = list(itertools.product(
    [(1, 1, 4099, 32, 8, 128, 128), (2, 7, 13, 4, 2, 40, 40), (1, 333, 97, 8, 8, 64, 64),
     (3, 1024, 1024, 16, 4, 96, 96), (1, 128, 65535, 16, 16, 64, 64), (1, 9, 200, 4, 4, 192, 128),
     (2, 64, 64, 2, 1, 256, 256)],
    [dict(), dict(causal=True), dict(window=(16, 0)), dict(softcap=30.0), dict(varlen=True)],
    ["bf16", "fp16"],
))


@pytest.mark.parametrize("arch", SHIPPED_ARCHES)
def test_plans_every_shape_and_feature(arch):
    for (b, sq, sk, hq, hk, d, dv), feat, dt in SWEEP:
        p = make_problem(b, sq, sk, hq, hk, d, dv, dtype=dt, **feat)
        assert portable.gate(p, arch) is None, (arch, p)
        for splits in (1, 4):
            plans = portable.plan(p, arch, 100, splits)
            fwd = plans[0]
            a = unpack(fwd, "portable_fwd_args")
            assert a["group"] == hq // hk and a["head_dim"] == d and a["head_dim_v"] == dv
            assert fwd.grid[1] == b * hk and fwd.grid[0] * portable.manifest(arch)["by_name"][
                portable.variant_name(dt, portable.tile_kind(p, arch), portable.head_dim_class(p), p.varlen)][
                "block_m"] >= sq * (hq // hk)
            assert fwd.threads in (64, 128, 256, 512)
            assert len(fwd.kernargs) == 208
            slots = dict(fwd.pointer_slots)
            assert {"q", "k", "v"} <= slots.keys()
            if a["num_splits"] > 1:
                partials = a["num_splits"] * hq * (b * sq) * (dv + 1) * 4
                obj = portable.manifest(arch)["by_name"][portable.variant_name(
                    dt, portable.tile_kind(p, arch), portable.head_dim_class(p), p.varlen)]
                assert "workspace" in slots
                if obj["options"]["FOLD_COUNTERS"]:
                    # one launch: the last split of each row tile folds (counters: in front of the workspace)
                    assert len(plans) == 1 and "out" in slots and ("lse" in slots) == p.return_lse
                    assert fwd.workspace_bytes == partials
                    assert fwd.grid[0] * fwd.grid[1] <= obj["options"]["FOLD_COUNTERS"] == SPLIT_COUNTERS
                else:
                    assert len(plans) == 2 and "out" not in slots
                    assert fwd.workspace_bytes == partials
                    assert plans[1].workspace_bytes == fwd.workspace_bytes
                    c = unpack(plans[1], "portable_combine_args")
                    assert c["num_splits"] == a["num_splits"] and c["ws_split_rows"] == a["ws_split_rows"]
            else:
                assert len(plans) == 1 and "out" in slots and fwd.workspace_bytes == 0
            if p.varlen:
                assert {"cu_seqlens_q", "cu_seqlens_k"} <= slots.keys()
                assert a["stride_lb"] == 0 and a["stride_lh"] == b * sq


def test_fused_and_separate_combine_follow_the_manifest():
    """Every fwd object of every arch says whether it folds its splits itself; the build keeps
    the separate combine only where the fused fold spilled (sm_90a d256 plain / masked)."""
    for arch in SHIPPED_ARCHES:
        for o in portable.manifest(arch)["objects"]:
            if o["role"] == "fwd":
                sep = arch == "sm_90a" and o["kind"] in ("plain", "masked") and o["head_dim_class"] == 256
                assert o["options"]["FOLD_COUNTERS"] == (0 if sep else SPLIT_COUNTERS), (arch, o["name"])
    for arch in SHIPPED_ARCHES:   # decode (1, 32, 8, 1, 131072, 128), split 16: one launch everywhere
        p = make_problem(b=1, sq=1, sk=131072, hq=32, hk=8, d=128, dv=128)
        (fwd,) = portable.plan(p, arch, 132, 16)
        assert fwd.grid[2] == 16 and dict(fwd.pointer_slots).keys() >= {"out", "workspace"}
    p = make_problem(b=1, sq=128, sk=8192, hq=8, hk=8, d=256, dv=256)
    assert len(portable.plan(p, "sm_90a", 132, 4)) == 2 and len(portable.plan(p, "gfx942", 304, 4)) == 1
    # more row tiles than counters: not split (such a problem fills the GPU many times over)
    p = make_problem(b=4, sq=270000, sk=4096, hq=8, hk=8, d=64, dv=64, lse=False)
    (fwd,) = portable.plan(p, "sm_90a", 132, 4)
    assert fwd.grid[0] * fwd.grid[1] > SPLIT_COUNTERS and fwd.grid[2] == 1 and fwd.workspace_bytes == 0


def test_a_build_with_another_counter_count_is_refused(monkeypatch):
    m = dict(portable.manifest("gfx942"))
    m["by_name"] = {n: dict(o, options=dict(o["options"], FOLD_COUNTERS=1024)) for n, o in m["by_name"].items()}
    monkeypatch.setattr(portable, "manifest", lambda a: m)
    assert "rebuild it" in portable.gate(make_problem(), "gfx942")


def test_bound_plan_has_no_zero_pointer_where_slots_were():
    p = make_problem(causal=True)
    (fwd,) = portable.plan(p, "gfx942", 304, 1)
    bound = fwd.bind({n: 0x1000 + 16 * i for i, (n, _) in enumerate(fwd.pointer_slots)})
    a = unpack(bound, "portable_fwd_args")
    assert a["q"] == 0x1000 and a["out"] != 0 and a["workspace"] == 0


def test_causal_folds_to_window_right_zero_and_decode_mask_is_dropped_when_vacuous():
    a = unpack(portable.plan(make_problem(sq=128, sk=300, causal=True), "sm_90a", 132, 1)[0], "portable_fwd_args")
    assert (a["window_left"], a["window_right"]) == (-1, 0)
    a = unpack(portable.plan(make_problem(sq=1, sk=300, causal=True), "sm_90a", 132, 1)[0], "portable_fwd_args")
    assert (a["window_left"], a["window_right"]) == (-1, -1)


def test_kind_selection():
    assert portable.tile_kind(make_problem(sq=1, hq=32, hk=8)) == "decode"
    assert portable.tile_kind(make_problem(sq=512)) == "plain"
    assert portable.tile_kind(make_problem(sq=512, causal=True)) == "masked"
    assert portable.tile_kind(make_problem(sq=512, softcap=10.0)) == "masked"


def test_short_kv_kinds_where_the_arch_has_tiles():
    short = portable.SHORT_KV
    # sm_90a: d64 plain / masked and d128 masked have short tiles; d128 plain and d256 do not
    assert portable.tile_kind(make_problem(sq=512, sk=512, d=64), "sm_90a") == "plain_short"
    assert portable.tile_kind(make_problem(sq=512, sk=short, d=64, causal=True), "sm_90a") == "masked_short"
    assert portable.tile_kind(make_problem(sq=512, sk=512, d=128, causal=True), "sm_90a") == "masked_short"
    assert portable.tile_kind(make_problem(sq=512, sk=512, d=128), "sm_90a") == "plain"
    assert portable.tile_kind(make_problem(sq=512, sk=512, d=256, causal=True), "sm_90a") == "masked"
    # longer KV, varlen, decode and the other arches keep their kinds
    assert portable.tile_kind(make_problem(sq=512, sk=short + 1, d=64), "sm_90a") == "plain"
    assert portable.tile_kind(make_problem(sq=512, sk=512, d=64, varlen=True), "sm_90a") == "plain"
    assert portable.tile_kind(make_problem(sq=1, sk=512, hq=32, hk=8, d=64), "sm_90a") == "decode"
    for arch in ("sm_80", "gfx942", "gfx950", "gfx1100"):
        assert portable.tile_kind(make_problem(sq=512, sk=512, d=64), arch) == "plain"
        assert portable.tile_kind(make_problem(sq=512, sk=512, d=128, causal=True), arch) == "masked"
    # the planned launch uses the short object's tile and code
    p = make_problem(b=32, sq=512, sk=512, hq=16, hk=16, d=128, causal=True)
    (fwd,) = portable.plan(p, "sm_90a", 132, 1)
    obj = portable.manifest("sm_90a")["by_name"]["fwd_bf16_d128_masked_short"]
    assert fwd.code_object.endswith(obj["file"]) and obj["masked"] and not obj["varlen"]
    assert fwd.grid == (512 // obj["block_m"], 32 * 16, 1)
    assert (obj["block_m"], obj["block_n"], obj["num_warps"], obj["num_stages"]) == \
        portable.TILES["sm_90a"][("masked_short", 128)]
    assert not portable.manifest("sm_90a")["by_name"]["fwd_fp16_d64_plain_short"]["masked"]
    assert not any("short" in o["name"] for o in portable.manifest("sm_80")["objects"])


def test_short_d64_masked_object_has_no_softcap_code_and_softcap_takes_its_own():
    # sm_90a d64: masked_short is built without the softcap code (causal / window only); short
    # problems with softcap take softcap_short, which has it; d128 masked_short keeps softcap
    short = portable.SHORT_KV
    assert portable.tile_kind(make_problem(sq=512, sk=512, d=64, causal=True), "sm_90a") == "masked_short"
    assert portable.tile_kind(make_problem(sq=512, sk=512, d=64, softcap=5.0), "sm_90a") == "softcap_short"
    assert portable.tile_kind(make_problem(sq=512, sk=short, d=64, causal=True, softcap=5.0), "sm_90a") == "softcap_short"
    assert portable.tile_kind(make_problem(sq=512, sk=short + 1, d=64, softcap=5.0), "sm_90a") == "masked"
    assert portable.tile_kind(make_problem(sq=512, sk=512, d=128, softcap=5.0), "sm_90a") == "masked_short"
    assert portable.tile_kind(make_problem(sq=512, sk=512, d=64, softcap=5.0), "sm_80") == "masked"
    by_name = portable.manifest("sm_90a")["by_name"]
    for dt in ("bf16", "fp16"):
        masked, capped = by_name[f"fwd_{dt}_d64_masked_short"], by_name[f"fwd_{dt}_d64_softcap_short"]
        assert masked["options"]["HAS_SOFTCAP"] is False and "HAS_SOFTCAP" not in capped["options"]
        assert masked["options"]["FMA_SCALE"] and capped["options"]["FMA_SCALE"]
        assert by_name[f"fwd_{dt}_d64_plain_short"]["options"]["FMA_SCALE"]
        assert "HAS_SOFTCAP" not in by_name[f"fwd_{dt}_d128_masked_short"]["options"]
        for kind in ("plain_short", "masked_short", "softcap_short"):
            assert by_name[f"fwd_{dt}_d64_{kind}"]["maxnreg"] == 128
    # the plan for a softcap problem names the softcap object
    (fwd,) = portable.plan(make_problem(b=2, sq=256, sk=256, hq=8, hk=8, d=64, softcap=5.0), "sm_90a", 132, 1)
    assert fwd.code_object.endswith(by_name["fwd_bf16_d64_softcap_short"]["file"])
    # a manifest whose masked_short lacks softcap code refuses a softcap problem routed to it
    saved = portable.TILES["sm_90a"].pop(("softcap_short", 64))
    try:
        why = portable.gate(make_problem(sq=512, sk=512, d=64, softcap=5.0), "sm_90a")
    finally:
        portable.TILES["sm_90a"][("softcap_short", 64)] = saved
    assert why and "without softcap" in why and "5.0" in why


@pytest.mark.parametrize("bad, why", [
    (dict(dtype="fp32"), "dtype"), (dict(d=300), "head_dim"), (dict(d=36), "multiple of 8"),
    (dict(hq=6, hk=4), "divide"),
])
def test_gate_names_the_problem(bad, why):
    assert why in portable.gate(make_problem(**bad), "sm_90a")


def test_gate_refuses_unknown_arch():
    assert "built for" in portable.gate(make_problem(), "gfx90a")


def test_dispatch_splits_with_the_portable_tiles_on_the_h100():
    from pyhipattn.dispatch import resolve_splits

    long_kv = make_problem(b=1, sq=128, sk=65535, hq=16, hk=16, d=64)
    assert resolve_splits(long_kv, portable, "sm_90a", 132) == 8      # measured best (notes/portable.md)
    decode = make_problem(b=1, sq=1, sk=131072, hq=32, hk=8)
    assert resolve_splits(decode, portable, "sm_90a", 132) == 16
    busy = make_problem(b=16, sq=1, sk=32768, hq=32, hk=8)
    assert resolve_splits(busy, portable, "sm_90a", 132) == 1        # 128 programs already fill it

def test_plan_rejects_negative_splits():
    with pytest.raises(ValueError, match="num_splits"):
        portable.plan(make_problem(), "sm_80", 108, 0)


@pytest.mark.parametrize("arch", SHIPPED_ARCHES)
def test_code_objects_match_manifest_and_header(arch):
    m = portable.manifest(arch)
    assert m is not None, f"run scripts/build_co.sh portable ({arch} manifest missing)"
    assert len(m["objects"]) <= 40
    from pyhipattn.codeobj import read as read_codeobj
    from pyhipattn.kernargs import check_layout
    for o in m["objects"]:
        path = portable.co_dir() / arch / o["file"]
        image = path.read_bytes()
        assert hashlib.sha256(image).hexdigest() == o["sha256"]
        assert image[:4] == b"\x7fELF"
        assert o["global_scratch_size"] == 0 and o["profile_scratch_size"] == 0
        want = [(f.name, f.offset, f.size) for f in portable.layout(o["struct"]).fields]
        assert [(x["name"], x["offset"], x["size"]) for x in o["args"]] == want
        (co,) = read_codeobj(path)
        assert co.arch == arch
        check_layout(portable.layout(o["struct"]), co[o["kernel"]])


def test_manifest_records_triton_version():
    for arch in SHIPPED_ARCHES:
        m = json.loads((portable.co_dir() / arch / "portable_manifest.json").read_text())
        assert m["triton"] == "3.6.0"

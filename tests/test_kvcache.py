"""mha_fwd_kvcache (issue 13): plans on every arch, the checks at the door, and the call end to
end on the CPU emulator (numpy arrays, PYHIPATTN_PLATFORM=emulate).  The kernels' numerics over
many cases are in tests/test_emulate.py (the serve family's sweep); GPU runs in tests/gpu."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import pyhipattn
from pyhipattn.families.serve import DECODE_TILES
from pyhipattn.kvcache import kvcache_problem
from pyhipattn.validate import ShapeView

ARCHES = ("gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1102", "gfx1200", "gfx1201", "sm_90a", "sm_80")


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("paged", [True, False])
def test_kvcache_plans_on_every_arch(arch, paged):
    kshape = (300, 16, 8, 128) if paged else (4, 4096, 8, 128)
    d = pyhipattn.plan_mha_fwd_kvcache((4, 2, 32, 128), kshape, kshape, arch=arch,
                                       block_table_shape=(4, 256) if paged else None, seqlen_new=2, sinks=True,
                                       alibi_slopes_shape=(32,), causal=True, explain=True)
    assert d.family == "serve"
    assert [p.kernel for p in d.plans] == ["kv_append", "attn_serve"]
    assert all(min(p.grid) >= 1 for p in d.plans)
    assert d.plans[-1].grid[1] == 4 * 8
    assert dict(d.refused).get("portable") == "no KV-cache / sink / ALiBi kernels"


@pytest.mark.parametrize("arch", ARCHES)
@pytest.mark.parametrize("sq,hq", [(1, 32), (4, 32), (5, 32), (16, 8)])
def test_decode_tile_is_chosen_when_the_query_rows_fit(arch, sq, hq):
    """seqlen_q * group_size <= 16 takes the arch's _decode object (NVIDIA, CDNA); more rows the
    general one; RDNA has one tile for both."""
    from pyhipattn.families import serve

    kshape = (300, 16, 8, 128)
    d = pyhipattn.plan_mha_fwd_kvcache((4, sq, hq, 128), kshape, kshape, arch=arch, block_table_shape=(4, 64),
                                       causal=True, explain=True)
    name = d.plans[-1].code_object
    decode = arch in serve.DECODE_TILES and sq * hq // 8 <= 16
    assert name.endswith(("_decode.co", "_decode.cubin")) == decode, name


def test_split_occupancy_follows_the_layout_and_the_tile():
    """Paged caches ask the split heuristic for two resident programs per CU, contiguous ones for
    one, and so do sm_90a's d128 / d256 paged decode tiles (5 stages, 140 KB of shared memory: one
    per SM); the H100 measurements in notes/serving.md."""
    def splits(paged: bool, b: int, ctx: int, d: int = 128, arch: str = "sm_90a") -> int:
        k = (b * ctx // 16, 16, 8, d) if paged else (b, ctx, 8, d)
        return pyhipattn.plan_mha_fwd_kvcache((b, 1, 32, d), k, k, arch=arch, compute_units=132,
                                              block_table_shape=(b, ctx // 16) if paged else None, causal=True,
                                              explain=True).num_splits
    assert (splits(False, 1, 131072), splits(True, 1, 131072)) == (16, 16)
    assert (splits(False, 8, 16384), splits(True, 8, 16384)) == (2, 2)
    assert (splits(False, 64, 4096), splits(True, 64, 4096)) == (1, 1)
    assert (splits(True, 1, 131072, d=64), splits(True, 1, 131072, arch="sm_80")) == (32, 31)   # two per CU
    assert splits(True, 1, 131072, d=256) == 16


def test_sm90a_paged_decode_tile_keeps_two_kv_buffers():
    """The d128 paged decode object is built with 128-key tiles and 5 stages (two K/V buffers
    behind the block-table stage); the contiguous one keeps 64 x 3."""
    from pyhipattn.families import serve

    by_name = serve.manifest("sm_90a")["by_name"]
    for dt in serve.DTYPES:
        paged, contig = by_name[f"fwd_{dt}_d128_paged_decode"], by_name[f"fwd_{dt}_d128_contig_decode"]
        assert (paged["block_n"], paged["num_stages"], contig["block_n"], contig["num_stages"]) == (128, 5, 64, 3)
        opts = paged["options"]
        assert (opts["FOLD_SPLITS"], opts["FOLD_UNROLL"], opts["FOLD_CHUNK"]) == serve.DECODE_FOLD["sm_90a"][128]


def test_sm90a_d128_decode_objects_fold_online_and_no_other_does():
    """sm_90a's d128 decode objects fold the split-K partials in one online pass, 8 splits per
    load (the 4-warp split twins 4: 8 needed a stack frame); every other object of every arch
    keeps the two-pass fold (FOLD_CHUNK 0), so its bytes did not change (notes/serving.md,
    issue13e)."""
    from pyhipattn.families import serve

    for arch in serve.ARCHES:
        objs = serve.manifest(arch)["by_name"]
        for v in serve.variants(arch):
            if v["role"] != "fwd":
                continue
            chunk = objs[v["name"]]["options"]["FOLD_CHUNK"]
            assert chunk == v["fold_chunk"], (arch, v["name"])
            online = arch == "sm_90a" and v["head_dim_class"] == 128 and "_decode" in v["name"]
            want = (4 if v["name"].endswith("_contig_decode_split") else 8) if online else 0
            assert chunk == want, (arch, v["name"], chunk)



def test_decode_objects_run_the_fully_visible_key_blocks_unmasked():
    """Every decode object is built with DECODE_LOOP (the key blocks every row sees, unmasked and
    pipelined, then the edges masked), the plain ones (``_decode``) with softcap / ALiBi compiled
    out; the general tiles keep the single masked loop with both (notes/serving.md, issue13d)."""
    from pyhipattn.families import serve

    for arch in serve.ARCHES:
        objs = serve.manifest(arch)["by_name"]
        for v in serve.variants(arch):
            if v["role"] != "fwd":
                continue
            opts = objs[v["name"]]["options"]
            decode = v["name"].endswith(("_decode", "_decode_mods", "_decode_split"))
            assert opts["DECODE_LOOP"] is decode, (arch, v["name"])
            assert opts["SCORE_MODS"] is not v["name"].endswith(("_decode", "_decode_split")), (arch, v["name"])


@pytest.mark.parametrize("arch", sorted(DECODE_TILES))
@pytest.mark.parametrize("feature", ["none", "sinks", "softcap", "alibi", "alibi_batch", "window"])
def test_decode_problems_with_softcap_or_alibi_take_the_mods_object(arch, feature):
    """The plain decode object has softcap and ALiBi compiled out: a decode problem that needs
    either must get ``_decode_mods``, every other (unsplit) decode problem the plain ``_decode``."""
    from pyhipattn.families import serve

    b, hq, hk, d = 4, 32, 8, 128
    kshape = (b, 4096, hk, d)
    kw = dict(softcap=30.0) if feature == "softcap" else dict(window_size=(100, 0)) if feature == "window" else {}
    alibi = {"alibi": (hq,), "alibi_batch": (b, hq)}.get(feature)
    dec = pyhipattn.plan_mha_fwd_kvcache((b, 1, hq, d), kshape, kshape, arch=arch, causal=True, num_splits=1,
                                         sinks=feature == "sinks", alibi_slopes_shape=alibi, explain=True, **kw)
    stem = Path(dec.plans[-1].code_object).stem
    mods = feature in ("softcap", "alibi", "alibi_batch")
    assert stem == "serve_" + serve.variant_name("bf16", 128, 0, True, mods), stem
    opts = serve.manifest(arch)["by_name"][stem[len("serve_"):]]["options"]
    assert opts["SCORE_MODS"] is mods



@pytest.mark.parametrize("b,ctx,splits,twin", [(1, 131072, 16, True), (8, 16384, 2, True), (64, 4096, 1, False)])
def test_split_plain_contiguous_decode_takes_the_split_twin(b, ctx, splits, twin):
    """sm_90a d128: plain contiguous decode that the plan splits runs the 4-warp
    ``_decode_split`` object (mha_fwd's decode tile), unsplit decode the 8-warp ``_decode`` one,
    decode with ALiBi ``_decode_mods`` whatever the splits (the H100 figures in notes/serving.md)."""
    from pyhipattn.families import serve

    k = (b, ctx, 8, 128)
    dec = pyhipattn.plan_mha_fwd_kvcache((b, 1, 32, 128), k, k, arch="sm_90a", compute_units=132, causal=True,
                                         explain=True)
    assert dec.num_splits == splits
    obj = serve.manifest("sm_90a")["by_name"][Path(dec.plans[-1].code_object).stem[len("serve_"):]]
    assert obj["name"] == serve.variant_name("bf16", 128, 0, True, split=twin)
    assert obj["num_warps"] == (4 if twin else 8)
    assert (obj["block_m"], obj["block_n"]) == (16, 64)
    mods = pyhipattn.plan_mha_fwd_kvcache((b, 1, 32, 128), k, k, arch="sm_90a", compute_units=132, causal=True,
                                          alibi_slopes_shape=(32,), explain=True)
    assert Path(mods.plans[-1].code_object).stem.endswith("_decode_mods")
    # forced splits follow the same rule; a tile without a twin (d64) keeps _decode
    forced = pyhipattn.plan_mha_fwd_kvcache((64, 1, 32, 128), (64, 4096, 8, 128), (64, 4096, 8, 128), arch="sm_90a",
                                           compute_units=132, num_splits=3, explain=True)
    assert Path(forced.plans[-1].code_object).stem.endswith("_decode_split")
    d64 = pyhipattn.plan_mha_fwd_kvcache((1, 1, 32, 64), (1, 131072, 8, 64), (1, 131072, 8, 64), arch="sm_90a",
                                        compute_units=132, explain=True)
    assert d64.num_splits > 1 and Path(d64.plans[-1].code_object).stem.endswith("_d64_contig_decode")


def test_plain_problems_never_reach_the_serve_family():
    d = pyhipattn.plan_mha_fwd((1, 128, 8, 64), (1, 128, 8, 64), (1, 128, 8, 64), arch="gfx942", explain=True)
    assert d.family != "serve"


# ---- the checks at the door ------------------------------------------------------------------

def views(q=(2, 1, 8, 64), k=(40, 16, 2, 64), v=None, bt=(2, 20), lens=(2,), dtype="bf16", **extra):
    out = {"q": ShapeView(q, dtype), "k_cache": ShapeView(k, dtype), "v_cache": ShapeView(v or k, dtype)}
    if bt is not None:
        out["block_table"] = ShapeView(bt, extra.pop("bt_dtype", "int32"))
    if lens is not None:
        out["cache_seqlens"] = ShapeView(lens, extra.pop("lens_dtype", "int32"))
    for name, (shape, dt) in extra.items():
        out[name] = ShapeView(shape, dt)
    return out


def problem(v, **kw):
    return kvcache_problem(v, softmax_scale=None, causal=kw.get("causal", False), window_size=(-1, -1), softcap=0.0,
                           return_lse=False, num_splits=0)


def test_valid_paged_call_describes_the_cache():
    p = problem(views(k_new=((2, 3, 2, 64), "bf16"), v_new=((2, 3, 2, 64), "bf16"), sinks=((8,), "fp32"),
                      alibi_slopes=((2, 8), "fp32")))
    assert (p.kv_layout, p.page_size, p.seqlen_k, p.kv_append, p.sinks, p.alibi) == ("paged", 16, 320, 3, True, 2)
    assert p.block_table_stride == 20 and p.serving


@pytest.mark.parametrize("case,error,match", [
    (dict(bt_dtype="int64"), TypeError, r"block_table has dtype int64; accepted: int32"),
    (dict(bt=(3, 20)), ValueError, r"block_table has 3 rows but q has batch 2"),
    (dict(bt=(2,)), ValueError, r"block_table has shape \(2,\); expected 2 dims"),
    (dict(k=(40, 24, 2, 64)), ValueError, r"block size 24 \(k_cache.shape\[1\]\) is not supported; accepted: multiples of 16"),
    (dict(k=(40, 8, 2, 64)), ValueError, r"block size 8 .* not supported"),
    (dict(v=(40, 16, 4, 64)), ValueError, r"v_cache has shape \(40, 16, 4, 64\) but k_cache \(40, 16, 2, 64\)"),
    (dict(k=(40, 16, 3, 64)), ValueError, r"k_cache has 3 heads, which does not divide q's 8 heads"),
    (dict(k=(40, 16, 2, 128)), ValueError, r"q has head dim 64 and k_cache 128"),
    (dict(q=(2, 1, 8, 36), k=(40, 16, 2, 36)), ValueError, r"head_dim is 36; KV caches need a multiple of 8"),
    (dict(lens_dtype="int64"), TypeError, r"cache_seqlens has dtype int64; accepted: int32"),
    (dict(lens=(3,)), ValueError, r"cache_seqlens has shape \(3,\); expected \(2,\)"),
    (dict(bt=None, k=(3, 64, 2, 64)), ValueError, r"k_cache holds 3 sequences but q has batch 2"),
    (dict(lens=None, k_new=((2, 1, 2, 64), "bf16"), v_new=((2, 1, 2, 64), "bf16")), ValueError,
     r"k_new / v_new need cache_seqlens"),
    (dict(k_new=((2, 1, 2, 64), "bf16")), ValueError, r"pass k_new and v_new together"),
    (dict(k_new=((2, 1, 4, 64), "bf16"), v_new=((2, 1, 4, 64), "bf16")), ValueError,
     r"k_new has shape \(2, 1, 4, 64\); expected \(2, seqlen_new, 2, 64\)"),
    (dict(k_new=((2, 1, 2, 64), "fp16"), v_new=((2, 1, 2, 64), "fp16")), TypeError, r"k_new has dtype fp16 but q has bf16"),
    (dict(sinks=((4,), "fp32")), ValueError, r"sinks has dtype fp32 and shape \(4,\); expected float32 \(8,\)"),
    (dict(sinks=((8,), "bf16")), ValueError, r"sinks has dtype bf16"),
    (dict(alibi_slopes=((3, 8), "fp32")), ValueError, r"alibi_slopes has shape \(3, 8\); expected \(8,\) or \(2, 8\)"),
    (dict(alibi_slopes=((8,), "fp16")), TypeError, r"alibi_slopes has dtype fp16; accepted: float32"),
    (dict(dtype="fp32"), TypeError, r"q has dtype fp32; accepted: bf16, fp16"),
])
def test_bad_kvcache_inputs_are_refused_with_a_clear_error(case, error, match):
    with pytest.raises(error, match=match):
        problem(views(**case))


# ---- end to end on the emulator -------------------------------------------------------------------

SCRIPT = r"""
import numpy as np, ml_dtypes, pyhipattn
from pyhipattn.reference import attention_kvcache_ref, rel_error
rng = np.random.default_rng(3)
bf16 = ml_dtypes.bfloat16
b, hq, hk, d, page, per_seq = 3, 8, 2, 64, 16, 6
pages = b * per_seq + 4
kc = rng.standard_normal((pages, page, hk, d)).astype(bf16)
vc = rng.standard_normal((pages, page, hk, d)).astype(bf16)
bt = rng.permutation(pages)[:b * per_seq].reshape(b, per_seq).astype(np.int32)
lens = np.array([0, 37, 94], np.int32)
q = rng.standard_normal((b, 2, hq, d)).astype(bf16)
kn = rng.standard_normal((b, 2, hk, d)).astype(bf16)
vn = rng.standard_normal((b, 2, hk, d)).astype(bf16)
sinks = rng.standard_normal(hq).astype(np.float32)
k0, v0 = kc.copy(), vc.copy()
out, lse = pyhipattn.mha_fwd_kvcache(q, kc, vc, cache_seqlens=lens, block_table=bt, k_new=kn, v_new=vn,
                                     causal=True, sinks=sinks, return_lse=True, check_inputs=True)
ro, rl, rk, rv = attention_kvcache_ref(q, k0, v0, lens, block_table=bt, k_new=kn, v_new=vn, causal=True, sinks=sinks)
assert isinstance(out, np.ndarray) and out.shape == (b, 2, hq, d) and out.dtype == bf16
print("err", rel_error(out, ro), float(np.abs(lse - rl).max()))
assert rel_error(out, ro) < 1e-2 and np.allclose(lse, rl, atol=2e-3)
assert np.array_equal(kc.view(np.uint16), rk.astype(bf16).view(np.uint16)), "k cache after the append"
# contiguous cache, ALiBi per batch, no append
kc2 = rng.standard_normal((b, 64, hk, d)).astype(bf16); vc2 = rng.standard_normal((b, 64, hk, d)).astype(bf16)
slopes = rng.random((b, hq)).astype(np.float32)
out2 = pyhipattn.mha_fwd_kvcache(q, kc2, vc2, cache_seqlens=lens // 2, alibi_slopes=slopes)
ro2 = attention_kvcache_ref(q, kc2, vc2, lens // 2, alibi_slopes=slopes)[0]
print("err2", rel_error(out2, ro2))
assert rel_error(out2, ro2) < 1e-2
# a read-only out is refused before any launch (percall.bind_out, as for mha_fwd)
ro = np.empty_like(out2); ro.flags.writeable = False
try:
    pyhipattn.mha_fwd_kvcache(q, kc2, vc2, cache_seqlens=lens // 2, alibi_slopes=slopes, out=ro)
except ValueError as e:
    assert "read-only" in str(e), e
    print("refused read-only out")
else:
    raise AssertionError("a read-only out was not refused")
# check_inputs catches a bad block id and a length beyond the cache
bad = bt.copy(); bad[2, 3] = pages + 5
for kw, what in ((dict(block_table=bad, cache_seqlens=lens), "block_table[2, 3]"),
                 (dict(block_table=bt, cache_seqlens=np.array([0, 37, 200], np.int32)), "cache_seqlens[2] = 200")):
    try:
        pyhipattn.mha_fwd_kvcache(q, kc, vc, check_inputs=True, **kw)
    except ValueError as e:
        assert what in str(e), e
        print("refused", what)
    else:
        raise AssertionError(f"{what} was not refused")
# sinks and ALiBi on mha_fwd (batch) and mha_varlen_fwd
from pyhipattn.reference import attention_ref, attention_varlen_ref
qd = rng.standard_normal((2, 33, 8, 128)).astype(bf16)
kd = rng.standard_normal((2, 70, 2, 128)).astype(bf16)
vd = rng.standard_normal((2, 70, 2, 128)).astype(bf16)
sl = rng.random((2, 8)).astype(np.float32)
o3, l3 = pyhipattn.mha_fwd(qd, kd, vd, causal=True, sinks=sinks, alibi_slopes=sl, return_lse=True)
r3, rl3 = attention_ref(qd, kd, vd, causal=True, sinks=sinks, alibi_slopes=sl)
print("batch sinks+alibi", rel_error(o3, r3))
assert rel_error(o3, r3) < 1e-2 and np.allclose(l3, rl3, atol=2e-3)
cq = np.array([0, 5, 5, 40], np.int32); ck = np.array([0, 9, 30, 100], np.int32)
qv = rng.standard_normal((40, 8, 64)).astype(bf16); kv = rng.standard_normal((100, 2, 64)).astype(bf16)
o4 = pyhipattn.mha_varlen_fwd(qv, kv, kv, cq, ck, 35, 70, causal=True, sinks=sinks, alibi_slopes=sinks[:8] * 0 + 0.25)
errs = []
for i in range(3):
    if cq[i + 1] == cq[i]:
        continue
    r = attention_ref(qv[None, cq[i]:cq[i + 1]], kv[None, ck[i]:ck[i + 1]], kv[None, ck[i]:ck[i + 1]], causal=True,
                      sinks=sinks, alibi_slopes=np.full(8, 0.25, np.float32))[0][0]
    errs.append(rel_error(o4[cq[i]:cq[i + 1]], r))
print("varlen sinks+alibi", max(errs))
assert max(errs) < 1e-2
print("kvcache ok")
"""


@pytest.mark.parametrize("arch", ["gfx942", "gfx1200"])
def test_mha_fwd_kvcache_runs_on_the_emulator(arch, require_tool):
    require_tool("llvm-objdump-22")
    env = dict(os.environ, PYHIPATTN_PLATFORM="emulate", PYHIPATTN_EMULATE_ARCH=arch)
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "kvcache ok" in proc.stdout and proc.stdout.count("refused") == 3


def test_torch_kvcache_op_has_a_fake_implementation():
    """torch.compile traces the op through its fake implementation (shapes only, no GPU)."""
    torch = pytest.importorskip("torch")
    import pyhipattn.torch_ops  # noqa: F401  (registers the ops)
    from torch._subclasses.fake_tensor import FakeTensorMode

    with FakeTensorMode():
        q = torch.empty(3, 2, 8, 64, dtype=torch.bfloat16, device="cuda")
        kc = torch.empty(40, 16, 2, 64, dtype=torch.bfloat16, device="cuda")
        out, lse = torch.ops.pyhipattn.mha_fwd_kvcache(q, kc, kc, None, None, None, None, None, None, None,
                                                        return_lse=True)
        assert tuple(out.shape) == (3, 2, 8, 64) and out.dtype == torch.bfloat16
        assert tuple(lse.shape) == (3, 8, 2) and lse.dtype == torch.float32

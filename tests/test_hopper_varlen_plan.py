"""The hopper family's varlen path on the CPU (issue11h): the ``_varlen`` kernels in the cubin and manifest, the gate,
dispatch's varlen rule (:data:`hopper.VARLEN_PREFERRED`), and the plan's kernargs / pointer slots.  No GPU needed."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from pyhipattn import percall
from pyhipattn.api import plan_mha_fwd
from pyhipattn.families import hopper
from pyhipattn.families.base import Problem

ROOT = Path(__file__).resolve().parents[1]
CO = ROOT / "kernels" / "co" / "sm_90a"


def vproblem(n=16, maxq=2048, maxk=2048, tq=20000, tk=20000, hq=8, hk=2, d=128, dtype="bf16", causal=False, **kw) -> Problem:
    """A varlen problem as validate.varlen_problem makes it: batch strides 0, packed (total, heads, d)."""
    base = dict(batch=n, seqlen_q=maxq, seqlen_k=maxk, heads_q=hq, heads_k=hk, head_dim=d, head_dim_v=d, dtype=dtype,
                softmax_scale=d ** -0.5, causal=causal, window=(-1, 0) if causal else (-1, -1), varlen=True,
                total_q=tq, total_k=tk, q_strides=(0, hq * d, d), k_strides=(0, hk * d, d), v_strides=(0, hk * d, d),
                o_strides=(0, hq * d, d))
    base.update(kw)
    return Problem(**base)


def test_manifest_has_a_varlen_sibling_of_every_main_and_softcap_kernel():
    m = json.loads((CO / "hopper_manifest.json").read_text())
    by_name = {o["name"]: o for o in m["objects"]}
    for dt in hopper.DTYPES:
        for d in hopper.HEAD_DIMS:
            for sc in ("", "_softcap"):
                o = by_name[f"fwd_{dt}_d{d}{sc}_varlen"]
                main = by_name[f"fwd_{dt}_d{d}{sc}"]
                assert o["varlen"] is True and o["kernel"] == f"hopper_fwd_{dt}_d{d}{sc}_varlen"
                assert "epilogue_tma" not in o          # O rows stored clipped at each sequence's end
                assert o["tma"]["bytes_per_cta"] == 384
                for key in ("block_m", "block_n", "stages", "q_stages", "threads", "window", "dynamic_causal", "wg_skip"):
                    assert o.get(key) == main.get(key), (o["name"], key)
                assert bool(o.get("softcap")) == bool(sc)
    assert not any(o.get("varlen") for o in m["objects"] if not o["name"].endswith("_varlen"))


def test_header_appends_the_varlen_fields_at_the_end():
    lay = hopper.layout()
    names = list(lay.names)
    assert names[-4:] == ["total_q", "total_k", "cu_seqlens_q", "cu_seqlens_k"]
    assert lay["cu_seqlens_q"].offset > lay["softcap_log2"].offset


@pytest.mark.parametrize("dtype", ["bf16", "fp16"])
@pytest.mark.parametrize("d", [64, 96, 128, 256])
@pytest.mark.parametrize("kw", [dict(), dict(causal=True), dict(softcap=30.0), dict(window=(100, 20)),
                                dict(causal=True, window=(300, 0))])
def test_forced_gate_accepts_varlen_on_every_head_dim(dtype, d, kw):
    p = vproblem(d=d, dtype=dtype, **kw)
    assert hopper.gate(p, "sm_90a", 132, force=True) is None
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    dyn = "_dyn" if d == 96 and kw.get("causal") else ""
    assert pl.kernel == f"hopper_fwd_{dtype}_d{d}{dyn}{'_softcap' if kw.get('softcap') else ''}_varlen"


def test_plan_packs_totals_and_binds_the_cu_seqlens():
    p = vproblem(n=5, maxq=1000, maxk=1300, tq=3001, tk=4002, hq=8, hk=2, d=128, causal=True, return_lse=True)
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    lay = hopper.layout()
    slots = dict(pl.pointer_slots)
    assert slots["cu_seqlens_q"] == lay["cu_seqlens_q"].offset and slots["cu_seqlens_k"] == lay["cu_seqlens_k"].offset
    assert slots["lse"] == lay["lse"].offset and "workspace" in slots
    raw = pl.kernargs

    def i32(name):
        return int.from_bytes(raw[lay[name].offset:lay[name].offset + 4], "little", signed=True)

    def i64(name):
        return int.from_bytes(raw[lay[name].offset:lay[name].offset + 8], "little", signed=True)

    assert (i32("total_q"), i32("total_k"), i32("batch"), i32("seqlen_q"), i32("seqlen_k")) == (3001, 4002, 5, 1000, 1300)
    assert i32("m_blocks") == math.ceil(1000 / 128)
    assert (i64("q_batch_stride"), i64("q_seq_stride"), i64("k_seq_stride"), i64("o_batch_stride")) == (0, 1024, 256, 0)
    assert pl.grid[0] == min(132, 8 * 5 * 8)


def test_batch_problems_keep_their_kernels_and_slots():
    p = dataclasses.replace(vproblem(), varlen=False, total_q=0, total_k=0, batch=2,
                            q_strides=(2048 * 8 * 128, 8 * 128, 128), k_strides=(2048 * 2 * 128, 2 * 128, 128),
                            v_strides=(2048 * 2 * 128, 2 * 128, 128), o_strides=(2048 * 8 * 128, 8 * 128, 128))
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    assert pl.kernel == "hopper_fwd_bf16_d128_fk" and "cu_seqlens_q" not in dict(pl.pointer_slots)   # (2048 keys: _fk)


def test_varlen_tma_strides_are_checked_on_the_packed_tensors():
    # batch strides are 0 for varlen (not refused); a seq stride past 2^39 elements is
    assert hopper.tma_refusal(vproblem()) is None
    why = hopper.tma_refusal(vproblem(q_strides=(0, 1 << 40, 128)))
    assert why is not None and "q seq stride" in why


def test_a_cubin_without_varlen_kernels_refuses_varlen(monkeypatch):
    m = dict(hopper.manifest("sm_90a"))
    m["by_name"] = {k: v for k, v in m["by_name"].items() if not k.endswith("_varlen")}
    monkeypatch.setattr(hopper, "manifest", lambda arch: m)
    why = hopper.gate(vproblem(), "sm_90a", 132, force=True)
    assert why is not None and "_varlen" in why


def _varlen_decision(d: int, causal: bool, maxlen: int):
    percall.decide.cache_clear()       # decisions are cached per problem
    return plan_mha_fwd((20000, 8, d), (20000, 8, d), (20000, 8, d), dtype="bf16", arch="sm_90a",
                        cu_seqlens_len=17, max_seqlen_q=maxlen, max_seqlen_k=maxlen, causal=causal, explain=True)


@pytest.mark.parametrize("d, causal, maxlen", [(128, False, 4096), (128, True, 4096), (64, False, 4096),
                                               (64, True, 4096), (128, False, 300), (96, True, 2048), (256, False, 2048)])
def test_varlen_dispatch_follows_the_rule(monkeypatch, d, causal, maxlen):
    """Hopper where :data:`hopper.VARLEN_PREFERRED` covers the longest sequence (:data:`hopper.PREFERRED`, timed on
    uniform batches, does not apply to varlen); portable elsewhere, and everywhere while the rule is empty."""
    monkeypatch.setattr(hopper, "VARLEN_PREFERRED", {})
    dec = _varlen_decision(d, causal, maxlen)
    assert dec.family == "portable" and "varlen" in dict(dec.refused)["hopper"]
    monkeypatch.setattr(hopper, "VARLEN_PREFERRED", {(d, causal): (1024, 1 << 30)})
    dec = _varlen_decision(d, causal, maxlen)
    if 1024 <= maxlen:
        assert dec.family == "hopper", dec.refused
        assert [pl.kernel for pl in dec.plans] == [f"hopper_fwd_bf16_d{d}{'_dyn' if (d, causal) == (96, True) else ''}_varlen"]
    else:
        assert dec.family == "portable" and "max_seqlen_q 300 is outside 1024.." in dict(dec.refused)["hopper"]
    percall.decide.cache_clear()


@pytest.mark.parametrize("d, causal, maxlen, family", [
    (128, True, 300, "hopper"),       # many short sequences: below PREFERRED's 512, timed 1.52-1.85x portable
    (64, True, 1024, "hopper"),       # plain causal d64 goes to portable below 2048; varlen timed 1.18x
    (64, False, 16384, "hopper"),
    (64, False, 16385, "portable"),   # past the longest sequence timed
    (256, False, 8192, "portable"),   # d256 non-causal timed to 4096
    (256, True, 8192, "hopper"),
    (96, False, 2048, "hopper"),
    (96, True, 2048, "hopper"),       # _dyn_varlen: 1.35-1.77x (the static d96 kernel: 0.93-1.00x)
    (96, True, 16385, "portable"),
])
def test_shipped_varlen_rule(d, causal, maxlen, family):
    dec = _varlen_decision(d, causal, maxlen)
    assert dec.family == family, dec.refused
    if family == "hopper":
        assert [pl.kernel for pl in dec.plans] == [f"hopper_fwd_bf16_d{d}{'_dyn' if (d, causal) == (96, True) else ''}_varlen"]
    percall.decide.cache_clear()


@pytest.mark.parametrize("causal, softcap, kernel", [(True, 0.0, "hopper_fwd_bf16_d96_dyn_varlen"),
                                                     (False, 0.0, "hopper_fwd_bf16_d96_varlen"),
                                                     (True, 5.0, "hopper_fwd_bf16_d96_softcap_varlen")])
def test_causal_d96_varlen_takes_the_dynamic_schedule(causal, softcap, kernel):
    """d96's main kernel deals causal tiles out statically; causal varlen problems take its ``_dyn_varlen`` twin
    (softcap ones keep ``_softcap_varlen``: there is no dynamic softcap kernel)."""
    plans = hopper.plan(vproblem(d=96, causal=causal, softcap=softcap), "sm_90a", 132, 1)
    assert [pl.kernel for pl in plans] == [kernel]
    o = hopper.manifest("sm_90a")["by_name"][kernel[len("hopper_"):]]
    assert o.get("dynamic_causal", False) == (kernel.endswith("_dyn_varlen"))


def test_varlen_rule_names_only_built_head_dims():
    assert {d for d, _ in hopper.VARLEN_PREFERRED} <= set(hopper.HEAD_DIMS)
    for d, causal in hopper.VARLEN_PREFERRED:
        why = hopper.preferred(vproblem(d=d, causal=causal, maxq=1 << 31, maxk=1 << 31))
        assert why is not None and "max_seqlen_q" in why
    why = hopper.preferred(vproblem(d=80, causal=False, maxq=4096, maxk=4096))
    assert why is not None and "varlen" in why


def test_empty_varlen_plans_no_launch():
    assert hopper.plan(vproblem(maxq=0, tq=0), "sm_90a", 132, 1) == []


def test_manifest_records_tma_for_the_varlen_kernels_in_builds_without_tma_d64_d128(tmp_path):
    """HOPPER_KERNEL_VARLEN builds every ``_varlen`` kernel with TMA (hopper_fwd.cu: ``static_assert(TMA || !VARLEN)``),
    whatever TMA_D64 / TMA_D128 say, so make_manifest must record ``tma`` (the workspace for the tensor maps and the tile
    counter), the TMA layout's shared bytes and ``dynamic_causal`` for them in a ``TMA_D128=0`` / ``TMA_D64=0`` build
    too (hopper.sh's documented cp.async variants): without, the plan gives no workspace and too little shared memory
    (the kernel traps at launch).  Run on the committed cubin, whose ``_varlen`` kernels are the same code either way."""
    import shutil
    import subprocess
    import sys

    shutil.copy(CO / "hopper_fwd.cubin", tmp_path / "hopper_fwd.cubin")
    opts = ["q_stages_d128=2", "tma_d64=0", "tma_d128=0", "bn_d128=128", "regs_2wg=24/240", "bn_d256=64",
            "d96_compute=96", "dyn_causal=1", "dyn_d64=1", "l2_section_kb=16384", "l2_section_mode=1", "l2_short_sk=512", "l2_short_kb=4096", "epi_smem_d128=1",
            "epi_smem_d64=2", "epi_v4_d128=0", "epi_tma_d128=1", "rescale_in_turn_d128=1", "rescale_vote_d128=0",
            "desc_add_d128=1", "decode_once_d128=1", "wg_skip_d64=1", "window=1", "epi_tma_d64=1", "decode_once_d64=1",
            "s4_stages_d64=4", "tail_split_d64=1", "tail_rounds_d64=8",
            "param_maps_c2=1", "param_maps_fk=1",   # the committed cubin's _c2 / _fk kernels take the host's maps (a second parameter)
            "fast_rcp=1",   # (and every kernel's 1 / l is rcp.approx)
            "lazy_rescale=8",   # (and every kernel but _c2 keeps its row maxima up to 2^8)
            "start_wait=1"]   # (and the _c2 producer's first K block goes first)
    subprocess.run([sys.executable, str(ROOT / "kernels" / "src" / "hopper" / "make_manifest.py"), "sm_90a", str(tmp_path),
                    "3", "2", "3", "2", *opts], check=True, capture_output=True)
    got = {o["name"]: o for o in json.loads((tmp_path / "hopper_manifest.json").read_text())["objects"]}
    shipped = {o["name"]: o for o in json.loads((CO / "hopper_manifest.json").read_text())["objects"]}
    names = [n for n in shipped if n.endswith("_varlen")]
    assert len(names) == 18
    for n in names:
        assert got[n] == shipped[n], n

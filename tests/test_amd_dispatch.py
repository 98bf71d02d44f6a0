"""Dispatch on the AMD arches (gfx942, gfx950, gfx1100) over the numeric sweep of ``mha_fwd``:
the intended family is chosen, a refusing gate falls back to the next family, and every plan
is launchable as far as a CPU can tell (kernarg bytes = the code object's kernarg buffer size,
the kernel exists, grids positive).

The intended family is written below once, as a specification independent of the family
modules (:func:`intended_family`); the test compares dispatch with it.  Run twice: with no
ASM directory, and with AITER's wheel unpacked as ``AITER_ASM_DIR`` (``aiter_hsa_dir`` in
conftest.py).  CPU only.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

import pytest

import pyhipattn
from pyhipattn import api, codeobj, percall
from pyhipattn.tools import sweep
from pyhipattn.arch import arch_info
from pyhipattn.dispatch import families
from pyhipattn.families import asm_v3, portable
from pyhipattn.kernargs import kernarg_buffer_size
from pyhipattn.kernels_dir import kernels_dir

ARCHES = ("gfx942", "gfx950", "gfx1100")
CDNA = ("gfx942", "gfx950")
RDNA3 = ("gfx1100",)
#: gfx942 CU counts AITER has ASM v3 objects for (MI300X: 304 -> MI300/, MI308X: 80 / 64 -> MI308/).
GFX942_ASM_CUS = (304, 80, 64)


# ----------------------------------------------------------------------------- the specification

def asm_v3_runs(c: dict, arch: str, cus: int) -> bool:
    """AITER's ASM v3 forward (notes/asm_v3.md): bf16, head dims 128/128 (also 192/128 on
    gfx950), no window other than causal, no softcap, no forced KV split, a gfx942 part AITER
    tuned for, and in batch mode seqlen_q > 128 (AITER leaves shorter queries to other
    kernels) with at least one key; varlen needs at least one token on each side."""
    dims_ok = (c["d"], c["dv"]) == (128, 128) or (arch == "gfx950" and (c["d"], c["dv"]) == (192, 128))
    kw = sweep.case_kwargs(c)
    lengths_ok = (c["total_q"] >= 1 and c["total_k"] >= 1) if c.get("varlen") else (c["sq"] > 128 and c["sk"] >= 1)
    return (arch in CDNA and c["dtype"] == "bf16" and dims_ok and "window_size" not in kw
            and kw["softcap"] == 0 and c.get("num_splits", 0) < 2 and lengths_ok
            and (arch != "gfx942" or cus in GFX942_ASM_CUS))


def native_runs(c: dict) -> bool:
    """The native split-K / WMMA kernels (notes/native.md): bf16 / fp16, head_dim == head_dim_v
    in {64, 128}, no softcap, no varlen; causal and any window are fine (bottom-right)."""
    return (c["dtype"] in ("bf16", "fp16") and c["d"] == c["dv"] and c["d"] in (64, 128)
            and sweep.case_kwargs(c)["softcap"] == 0 and not c.get("varlen"))


def intended_family(c: dict, arch: str, cus: int, asm_dir: bool) -> str:
    """gfx942 / gfx950: asm_v3 when an ASM directory is present and its kernels run the case,
    else native_splitk when its kernels do, else portable.  gfx1100: wmma when the native
    kernels run the case, else portable."""
    if arch in CDNA and asm_dir and asm_v3_runs(c, arch, cus):
        return "asm_v3"
    if arch in CDNA and native_runs(c):
        return "native_splitk"
    if arch in RDNA3 and native_runs(c):
        return "wmma"
    return "portable"


# ----------------------------------------------------------------------------- the cases

def _cases() -> list[dict]:
    """The GPU sweep's cases, each also as bf16 d=128 (so that every shape meets the ASM v3
    gate's other conditions) and with a forced split; d=192/128 prefill; varlen forms; empty
    problems."""
    out = []
    for c in sweep.make_cases(150):
        out.append(c)
        out.append(dict(c, dtype="bf16", d=128, dv=128, seed=c["seed"] + 10_000))
        if c["sk"] > 64:
            out.append(dict(c, num_splits=4, seed=c["seed"] + 20_000))
    for sq, f in ((129, "none"), (1000, "causal"), (64, "none")):
        out.append(dict(b=2, sq=sq, sk=700, hq=8, hk=2, d=192, dv=128, dtype="bf16", feature=f, window=(0, 0), seed=0))
    for c in sweep.make_cases(40, seed=7):
        out.append(dict(c, varlen=True, total_q=c["b"] * c["sq"], total_k=c["b"] * c["sk"]))
        out.append(dict(c, varlen=True, dtype="bf16", d=128, dv=128, total_q=c["b"] * c["sq"],
                        total_k=c["b"] * c["sk"]))
    out.append(dict(b=2, sq=0, sk=5, hq=8, hk=2, d=128, dv=128, dtype="bf16", feature="causal", window=(0, 0), seed=0))
    out.append(dict(b=2, sq=0, sk=0, hq=8, hk=2, d=128, dv=128, dtype="bf16", feature="none", window=(0, 0), seed=0,
                    varlen=True, total_q=0, total_k=0))
    return out


CASES = _cases()


def _id(c: dict) -> str:
    extra = (f"-split{c['num_splits']}" if c.get("num_splits") else "") + ("-varlen" if c.get("varlen") else "")
    return sweep.case_id(c) + extra


def decide(c: dict, arch: str, cus: int):
    kw = sweep.case_kwargs(c)
    kw["return_lse"] = True
    if c.get("varlen"):
        return pyhipattn.plan_mha_fwd(
            (c["total_q"], c["hq"], c["d"]), (c["total_k"], c["hk"], c["d"]), (c["total_k"], c["hk"], c["dv"]),
            dtype=c["dtype"], arch=arch, compute_units=cus, num_splits=c.get("num_splits", 0),
            cu_seqlens_len=c["b"] + 1, max_seqlen_q=c["sq"], max_seqlen_k=c["sk"], explain=True, **kw)
    return pyhipattn.plan_mha_fwd(
        (c["b"], c["sq"], c["hq"], c["d"]), (c["b"], c["sk"], c["hk"], c["d"]), (c["b"], c["sk"], c["hk"], c["dv"]),
        dtype=c["dtype"], arch=arch, compute_units=cus, num_splits=c.get("num_splits", 0), explain=True, **kw)


# ----------------------------------------------------------------------------- the checks

@lru_cache(maxsize=None)
def _kernel(path: str, arch: str, name: str):
    return codeobj.read_for_arch(path, arch).kernels[name]


def _path(code_object: str) -> str:
    p = Path(code_object)
    return str(p if p.is_absolute() else kernels_dir() / p)


def empty(c: dict) -> bool:
    return (c["total_q"] if c.get("varlen") else c["b"] * c["sq"]) == 0


def check_decision(c: dict, arch: str, cus: int, asm_dir: bool) -> list[str]:
    """What is wrong with dispatch's decision for ``c`` (empty list: nothing)."""
    d = decide(c, arch, cus)
    want = intended_family(c, arch, cus, asm_dir)
    if d.family != want:
        return [f"{arch}: chose {d.family}, intended {want} (refused: {dict(d.refused)})"]
    bad = []
    order = [f.NAME for f in families()]
    tried = order[:order.index(d.family)]
    if [n for n, _ in d.refused] != tried:
        bad.append(f"{arch}: refusals {[n for n, _ in d.refused]}, expected every family before it: {tried}")
    why = dict(d.refused)
    if arch in CDNA and not asm_dir and asm_v3_runs(c, arch, cus) and "no AITER ASM directory" not in why["asm_v3"]:
        bad.append(f"{arch}: asm_v3 refused for another reason than the missing ASM directory: {why['asm_v3']}")
    if d.num_splits < 1 or (d.family == "asm_v3" and d.num_splits != 1):
        bad.append(f"{arch}: {d.family} with num_splits {d.num_splits}")
    if not d.plans and not empty(c):
        bad.append(f"{arch}: {d.family} planned no launch for a non-empty problem")
    if d.plans and len(d.plans) != (2 if d.num_splits > 1 and not _folds_itself(d.plans[0], arch) else 1):
        bad.append(f"{arch}: {len(d.plans)} launches for num_splits {d.num_splits}")
    for plan in d.plans:
        try:
            k = _kernel(_path(plan.code_object), arch, plan.kernel)
        except KeyError:
            bad.append(f"{arch}: {plan.code_object} has no kernel {plan.kernel}")
            continue
        where = f"{arch} {d.family} {plan.kernel}"
        if len(plan.kernargs) != kernarg_buffer_size(k):
            bad.append(f"{where}: {len(plan.kernargs)} kernarg bytes, the code object takes {kernarg_buffer_size(k)}")
        if any(off < 0 or off + 8 > len(plan.kernargs) for _, off in plan.pointer_slots):
            bad.append(f"{where}: pointer slots {plan.pointer_slots} outside the kernarg buffer")
        if not (all(g > 0 for g in plan.grid) or (empty(c) and min(plan.grid) == 0)):
            bad.append(f"{where}: grid {plan.grid}")
        if min(plan.grid) < 0 or min(plan.block) < 1 or plan.threads > k.max_workgroup_size:
            bad.append(f"{where}: block {plan.block} (kernel allows {k.max_workgroup_size} threads)")
        if d.family == "asm_v3":
            named = {a.name: a.offset for a in k.explicit_args}
            slots = dict(plan.pointer_slots)
            for slot, arg in (("q", "Q"), ("k", "K"), ("v", "V"), ("out", "R"), ("lse", "LSE")):
                if slots.get(slot) != named[arg]:
                    bad.append(f"{where}: slot {slot} at {slots.get(slot)}, metadata puts {arg} at {named[arg]}")
    return bad


def _folds_itself(plan, arch: str) -> bool:
    """A portable forward object built with FOLD_COUNTERS (its manifest says): split-K in one launch."""
    if not Path(plan.code_object).name.startswith("portable_"):
        return False
    obj = next(o for o in portable.manifest(arch)["objects"] if o["file"] == Path(plan.code_object).name)
    return bool(obj["options"]["FOLD_COUNTERS"])


@pytest.fixture
def no_asm_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("AITER_ASM_DIR", str(tmp_path / "nowhere"))
    monkeypatch.setattr(asm_v3, "_installed_hsa_dir", lambda: None)
    percall.decide.cache_clear()          # decisions depend on the ASM directory
    yield
    percall.decide.cache_clear()


@pytest.fixture
def with_asm_dir(aiter_hsa_dir, monkeypatch):
    monkeypatch.setenv("AITER_ASM_DIR", str(aiter_hsa_dir))
    monkeypatch.delenv("PYHIPATTN_ASM_V3_BF16_CVT", raising=False)
    percall.decide.cache_clear()
    yield aiter_hsa_dir
    percall.decide.cache_clear()


def _sweep(arch: str, cus: int, asm_dir: bool) -> tuple[list[str], dict[str, int]]:
    problems, chosen = [], {}
    for c in CASES:
        found = check_decision(c, arch, cus, asm_dir)
        problems += [f"{_id(c)}: {p}" for p in found]
        fam = decide(c, arch, cus).family
        chosen[fam] = chosen.get(fam, 0) + 1
    return problems, chosen


@pytest.mark.parametrize("arch", ARCHES)
def test_without_an_asm_dir_the_intended_family_is_chosen(arch, no_asm_dir):
    problems, chosen = _sweep(arch, arch_info(arch).default_cus, asm_dir=False)
    assert not problems, "\n".join(problems[:20])
    assert "asm_v3" not in chosen
    assert chosen.get("native_splitk" if arch in CDNA else "wmma", 0) > 50 and chosen["portable"] > 50, chosen


@pytest.mark.network
@pytest.mark.parametrize("arch,cus", [("gfx942", 304), ("gfx942", 80), ("gfx942", 228), ("gfx950", 256),
                                      ("gfx1100", 96)])
def test_with_aiters_wheel_as_asm_dir_the_intended_family_is_chosen(arch, cus, with_asm_dir):
    problems, chosen = _sweep(arch, cus, asm_dir=True)
    assert not problems, "\n".join(problems[:20])
    if arch in CDNA and cus != 228:
        assert chosen.get("asm_v3", 0) > 20, chosen
    else:
        assert "asm_v3" not in chosen, chosen       # gfx1100; gfx942 with 228 CUs (MI300A: no AITER tuning)


@pytest.mark.network
@pytest.mark.parametrize("arch", CDNA)
def test_bf16_d128_prefill_chooses_asm_v3_and_fp16_falls_back_to_native(arch, with_asm_dir):
    c = dict(b=2, sq=1000, sk=1000, hq=16, hk=4, d=128, dv=128, dtype="bf16", feature="causal", window=(0, 0), seed=0)
    assert decide(c, arch, None).family == "asm_v3"
    d = decide(dict(c, dtype="fp16"), arch, None)
    assert d.family == "native_splitk" and "bf16 only" in dict(d.refused)["asm_v3"]
    d = decide(dict(c, sq=128), arch, None)
    assert d.family == "native_splitk" and "seqlen_q" in dict(d.refused)["asm_v3"]


def test_the_sweep_reaches_every_branch_of_the_specification():
    """The cases are not all of one kind: each rule above decides some of them."""
    kinds = {(asm_v3_runs(c, a, 304), native_runs(c), bool(c.get("varlen")), empty(c)) for c in CASES for a in CDNA}
    assert (True, True, False, False) in kinds and (True, False, True, False) in kinds
    assert (False, True, False, False) in kinds and (False, False, False, False) in kinds
    assert any(e for *_, e in kinds)
    assert math.prod(len({c[k] for c in CASES}) for k in ("d", "dtype", "feature")) > 50

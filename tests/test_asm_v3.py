"""ASM v3 family: AITER's real code objects from the amd-aiter wheel, planned on a CPU.

The wheel (about 40 MB) is taken from ~/.cache/pyhipattn/wheels or downloaded with pip; tests
that need it are marked ``network`` and skip when it cannot be had, unless
PYHIPATTN_REQUIRE_TOOLS=1.  Expected kernarg values are computed here from the problem, by
the formulas in notes/asm_v3.md, and read back from the offsets the object's metadata names.
"""

from __future__ import annotations

import dataclasses
import math
import struct
from pathlib import Path

import pytest

from pyhipattn import codeobj
from pyhipattn.codeobj.model import KernelInfo
from pyhipattn.errors import KernargMismatchError, UnsupportedError
from pyhipattn.families import asm_v3, asm_v3_table
from pyhipattn.families.base import Problem

FAKE = {"q": 0x1000_0000_0001, "k": 0x2000_0000_0002, "v": 0x3000_0000_0003, "out": 0x4000_0000_0004,
        "lse": 0x5000_0000_0005, "cu_seqlens_q": 0x6000_0000_0006, "cu_seqlens_k": 0x7000_0000_0007}


@pytest.fixture(scope="session")
def hsa_dir(aiter_hsa_dir) -> Path:
    """aiter_meta/hsa (fmha_v3_fwd objects only) unpacked from the wheel (tests/conftest.py)."""
    return aiter_hsa_dir


@pytest.fixture
def aiter(hsa_dir, monkeypatch) -> Path:
    monkeypatch.setenv("AITER_ASM_DIR", str(hsa_dir))
    monkeypatch.delenv("PYHIPATTN_ASM_V3_BF16_CVT", raising=False)
    return hsa_dir


@pytest.fixture
def no_aiter(monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("AITER_ASM_DIR", str(tmp_path / "nowhere"))
    monkeypatch.setattr(asm_v3, "_installed_hsa_dir", lambda: None)


def prefill(**kw) -> Problem:
    base = dict(batch=2, seqlen_q=1000, seqlen_k=1000, heads_q=16, heads_k=4, head_dim=128, head_dim_v=128,
                dtype="bf16", softmax_scale=128 ** -0.5, return_lse=True)
    base.update(kw)
    if base.get("causal"):
        base.setdefault("window", (-1, 0))
    return Problem(**base)


def varlen(**kw) -> Problem:
    hq, hk, d = kw.get("heads_q", 8), kw.get("heads_k", 8), kw.get("head_dim", 128)
    base = dict(batch=3, seqlen_q=700, seqlen_k=900, heads_q=hq, heads_k=hk, head_dim=d, head_dim_v=128,
                dtype="bf16", softmax_scale=0.07, varlen=True, total_q=1500, total_k=2100, return_lse=True,
                q_strides=(0, hq * d, d), k_strides=(0, hk * d, d), v_strides=(0, hk * 128, 128),
                o_strides=(0, hq * 128, 128))
    base.update(kw)
    if base.get("causal"):
        base.setdefault("window", (-1, 0))
    return Problem(**base)


def metadata_fields(path: str, arch: str) -> tuple[KernelInfo, dict[str, tuple[int, int]]]:
    """The object's one kernel and its named args -> (offset, size), read independently."""
    co = codeobj.read_for_arch(path, arch)
    (kernel,) = co.kernels.values()
    return kernel, {a.name: (a.offset, a.size) for a in kernel.explicit_args if a.name != "pad"}


def decode(buf: bytes, fields: dict[str, tuple[int, int]]) -> dict[str, int | float]:
    out = {}
    for name, (off, size) in fields.items():
        code = {8: "<Q", 4: "<f" if name == "scalar" else "<I"}[size]
        out[name] = struct.unpack_from(code, buf, off)[0]
    return out


def expected(p: Problem, ts_qo: int) -> dict[str, int | float]:
    """Each named field from the problem alone (contiguous BSHD; bytes = elements * 2)."""
    hq, hk, d, dv = p.heads_q, p.heads_k, p.head_dim, p.head_dim_v
    rows_q = p.total_q if p.varlen else p.seqlen_q
    rows_k = p.total_k if p.varlen else p.seqlen_k
    bq = 0 if p.varlen else p.seqlen_q * hq * d
    bk = 0 if p.varlen else p.seqlen_k * hk * d
    bv = 0 if p.varlen else p.seqlen_k * hk * dv
    bo = 0 if p.varlen else p.seqlen_q * hq * dv
    seq = FAKE["cu_seqlens_q"] if p.varlen else 0
    kseq = FAKE["cu_seqlens_k"] if p.varlen else 0
    return {
        "R": FAKE["out"], "Q": FAKE["q"], "K": FAKE["k"], "V": FAKE["v"],
        "LSE": FAKE["lse"] if p.return_lse else 0,
        "scalar": struct.unpack("<f", struct.pack("<f", p.softmax_scale))[0],
        "seq_len": rows_q, "Seqs": hq * d * 2, "Ts": ts_qo * hq * d * 2, "Hs": d * 2, "Bs": bq * 2,
        "gqa": hq // hk, "k_Seqs": hk * d * 2, "k_Hs": d * 2, "k_Bs": bk * 2,
        "msk_opt": 3 if p.causal and (hq % 8 or rows_q > 16384) else 5,
        "lse": int(p.return_lse), "kv_seq_len": rows_k, "qk_head_dim": d, "v_head_dim": dv, "q_head_num": hq,
        "v_Seqs": hk * dv * 2, "v_Hs": dv * 2, "v_Bs": bv * 2,
        "r_Seqs": hq * dv * 2, "r_Hs": dv * 2, "r_Bs": bo * 2,
        "ptr_qseq": seq, "ptr_kseq": kseq, "ptr_qseq_padding": seq, "ptr_kseq_padding": kseq,
        "lse_Hs": rows_q * 4 if p.return_lse else 0,
    }


def plan_one(p: Problem, arch: str, cus: int):
    assert asm_v3.gate(p, arch, cus) is None
    (launch,) = asm_v3.plan(p, arch, cus, 1)
    return launch


# ----------------------------------------------------------------------------- plans on real objects

CASES = [  # arch, CUs, subfolder, causal, varlen, head_dim, object, ts_qo, threads
    ("gfx942", 304, "MI300", False, False, 128, "fwd_hd128_bf16_rtne.co", 256, 512),
    ("gfx942", 304, "MI300", True, False, 128, "fwd_hd128_bf16_causal_rtne.co", 256, 512),
    ("gfx942", 80, "MI308", False, False, 128, "fwd_hd128_bf16_rtne.co", 256, 512),
    ("gfx942", 80, "MI308", True, True, 128, "fwd_hd128_bf16_causal_rtne_group.co", 256, 512),
    ("gfx942", 304, "MI300", False, True, 128, "fwd_hd128_bf16_rtne_group.co", 256, 512),
    ("gfx950", 256, "", False, False, 128, "fwd_hd128_bf16.co", 256, 512),
    ("gfx950", 256, "", True, False, 128, "fwd_hd128_bf16_causal.co", 256, 512),
    ("gfx950", 256, "", True, True, 128, "fwd_hd128_bf16_causal_group.co", 256, 512),
    ("gfx950", 256, "", False, False, 192, "fwd_hd192_hd128_bf16.co", 128, 256),
    ("gfx950", 256, "", True, True, 192, "fwd_hd192_hd128_bf16_causal_group.co", 128, 256),
]


@pytest.mark.network
@pytest.mark.parametrize("arch,cus,sub,causal,is_varlen,d,obj,ts_qo,threads", CASES)
def test_plan_picks_aiter_object_and_packs_every_named_field(aiter, arch, cus, sub, causal, is_varlen, d, obj,
                                                             ts_qo, threads):
    p = (varlen if is_varlen else prefill)(causal=causal, head_dim=d)
    launch = plan_one(p, arch, cus)
    path = aiter / arch / "fmha_v3_fwd" / sub / obj
    assert launch.code_object == str(path) and Path(launch.code_object).is_absolute()
    kernel, fields = metadata_fields(launch.code_object, arch)
    assert launch.kernel == kernel.name == f"_ZN5aiter{len('fmha_' + obj[:-3])}fmha_{obj[:-3]}E"
    assert len(launch.kernargs) == kernel.kernarg_size == 512
    assert launch.block == (threads, 1, 1) and launch.shared_mem == 0
    tiles = math.ceil(math.ceil((p.total_q if is_varlen else p.seqlen_q) / ts_qo) / (2 if causal else 1))
    assert launch.grid == ((p.heads_q, p.batch, tiles) if is_varlen else (tiles, p.heads_q, p.batch))
    got = decode(launch.bind(FAKE).kernargs, fields)
    assert got == expected(p, ts_qo)


@pytest.mark.network
def test_pointer_slots_are_left_unbound_and_named(aiter):
    launch = plan_one(prefill(causal=True), "gfx942", 304)
    assert dict(launch.pointer_slots) == {"out": 0, "q": 16, "k": 32, "v": 48, "lse": 64}
    assert all(struct.unpack_from("<Q", launch.kernargs, off)[0] == 0 for _, off in launch.pointer_slots)
    with pytest.raises(KeyError, match="lse"):
        launch.bind({k: v for k, v in FAKE.items() if k != "lse"})


@pytest.mark.network
def test_without_lse_the_lse_slot_is_null_and_not_required(aiter):
    p = prefill(return_lse=False)
    launch = plan_one(p, "gfx950", 256)
    assert "lse" not in dict(launch.pointer_slots)
    _, fields = metadata_fields(launch.code_object, "gfx950")
    got = decode(launch.bind({k: v for k, v in FAKE.items() if k != "lse"}).kernargs, fields)
    assert (got["LSE"], got["lse"], got["lse_Hs"]) == (0, 0, 0)


@pytest.mark.network
def test_cross_attention_gates_on_the_query_length_not_the_key_length(aiter):
    # AITER's batch rule is seqlen_q > 128: long queries over short keys run, the converse does not.
    long_q = prefill(seqlen_q=4096, seqlen_k=64, causal=True)
    launch = plan_one(long_q, "gfx942", 304)
    _, fields = metadata_fields(launch.code_object, "gfx942")
    got = decode(launch.bind(FAKE).kernargs, fields)
    assert (got["seq_len"], got["kv_seq_len"]) == (4096, 64)
    assert launch.grid == (math.ceil(math.ceil(4096 / 256) / 2), 16, 2)
    short_q = prefill(seqlen_q=64, seqlen_k=4096)
    assert "seqlen_q is 64" in asm_v3.gate(short_q, "gfx942")


@pytest.mark.network
def test_bf16_rounding_mode_picks_the_gfx942_object(aiter, monkeypatch):
    for env, name in (("rtna", "rtna"), ("2", "rtz"), ("rtne", "rtne")):
        monkeypatch.setenv("PYHIPATTN_ASM_V3_BF16_CVT", env)
        assert plan_one(prefill(), "gfx942", 304).code_object.endswith(f"MI300/fwd_hd128_bf16_{name}.co")
    monkeypatch.setenv("PYHIPATTN_ASM_V3_BF16_CVT", "rtz")
    assert plan_one(prefill(), "gfx950", 256).code_object.endswith("gfx950/fmha_v3_fwd/fwd_hd128_bf16.co")
    monkeypatch.setenv("PYHIPATTN_ASM_V3_BF16_CVT", "nearest")
    assert "PYHIPATTN_ASM_V3_BF16_CVT" in asm_v3.gate(prefill(), "gfx942")


@pytest.mark.network
def test_causal_tune_option_downgrades_like_aiter(aiter):
    launch = plan_one(prefill(causal=True, heads_q=12, heads_k=4), "gfx942", 304)
    _, fields = metadata_fields(launch.code_object, "gfx942")
    assert decode(launch.kernargs, fields)["msk_opt"] == 3


@pytest.mark.network
def test_aiter_asm_dir_may_name_the_arch_directory_as_aiter_sets_it(hsa_dir, monkeypatch):
    monkeypatch.setenv("AITER_ASM_DIR", str(hsa_dir / "gfx942") + "/")
    assert asm_v3.find_asm_dir() == hsa_dir.resolve()


@pytest.mark.network
def test_gfx942_with_an_untuned_cu_count_is_refused(aiter):
    why = asm_v3.gate(prefill(), "gfx942", compute_units=228)
    assert "228 CUs" in why and "304" in why and "80" in why
    with pytest.raises(UnsupportedError, match="228 CUs"):
        asm_v3.plan(prefill(), "gfx942", 228, 1)


@pytest.mark.network
def test_strides_that_do_not_fit_32_bits_are_refused(aiter):
    huge = prefill(seqlen_q=300_000, heads_q=64, heads_k=8)   # q batch stride 4.9 GB
    assert "32-bit" in asm_v3.gate(huge, "gfx950")


# ----------------------------------------------------------------------------- gate refusals

@pytest.mark.network
@pytest.mark.parametrize("problem,arch,needle", [
    (prefill(dtype="fp16"), "gfx942", "bf16 only"),
    (prefill(head_dim=64, head_dim_v=64), "gfx942", "(128, 128)"),
    (prefill(head_dim=192), "gfx942", "accepted: (128, 128)"),
    (prefill(head_dim=256, head_dim_v=256), "gfx950", "(192, 128)"),
    (prefill(window=(256, 0)), "gfx950", "window"),
    (prefill(window=(-1, 0)), "gfx950", "window"),          # bottom-right window without causal
    (prefill(softcap=30.0), "gfx942", "softcap"),
    (prefill(seqlen_q=128, seqlen_k=8192), "gfx942", "seqlen_q is 128"),
    (prefill(seqlen_q=1, seqlen_k=8192), "gfx950", "seqlen_q is 1"),
    (prefill(heads_q=16, heads_k=3), "gfx942", "hq % hk"),
    (prefill(num_splits=4), "gfx942", "split"),
    (prefill(), "gfx1100", "gfx942 and gfx950"),
    (prefill(), "sm_90a", "gfx942 and gfx950"),
])
def test_gate_refuses_with_a_reason(aiter, problem, arch, needle):
    why = asm_v3.gate(problem, arch)
    assert why is not None and needle in why
    with pytest.raises(UnsupportedError):
        asm_v3.plan(problem, arch, 304, 1)


@pytest.mark.network
def test_varlen_has_no_query_length_floor(aiter):
    # AITER's varlen path takes ASM v3 for any lengths; only the batch path asks seqlen_q > 128.
    assert asm_v3.gate(varlen(seqlen_q=16, total_q=40), "gfx942") is None


def test_missing_asm_dir_is_refused_with_the_fix(no_aiter):
    why = asm_v3.gate(prefill(), "gfx942")
    assert "AITER_ASM_DIR" in why and "amd-aiter" in why
    assert asm_v3.find_asm_dir() is None


def test_gate_refusals_that_need_no_objects(no_aiter):
    assert "bf16 only" in asm_v3.gate(prefill(dtype="fp16"), "gfx950")
    assert "gfx942 and gfx950" in asm_v3.gate(prefill(), "gfx1100")


# ----------------------------------------------------------------------------- metadata checks

@pytest.mark.network
def test_object_whose_metadata_lacks_lse_is_refused_naming_it(aiter):
    path = str(aiter / "gfx942" / "fmha_v3_fwd" / "MI300" / "fwd_hd128_bf16_causal_rtne.co")
    kernel, _ = metadata_fields(path, "gfx942")
    args = tuple(dataclasses.replace(a, name="pad") if a.name == "LSE" else a for a in kernel.args)
    broken = dataclasses.replace(kernel, args=args)
    variant = asm_v3_table.lookup("gfx942", 128, 128, True, False, 0)
    with pytest.raises(KernargMismatchError, match=r"fwd_hd128_bf16_causal_rtne\.co.*lacks 'LSE'"):
        asm_v3.pack_kernargs(prefill(causal=True), broken, variant, path)


@pytest.mark.network
def test_object_with_an_unknown_argument_is_refused_but_fp8_descales_are_zeroed(aiter):
    path = str(aiter / "gfx950" / "fmha_v3_fwd" / "fwd_hd128_bf16.co")
    kernel, _ = metadata_fields(path, "gfx950")
    variant = asm_v3_table.lookup("gfx950", 128, 128, False, False, 0)
    last = kernel.args[-1]

    def with_extra(name: str) -> KernelInfo:
        extra = dataclasses.replace(last, name=name, offset=512, size=8, kind="global_buffer")
        return dataclasses.replace(kernel, args=kernel.args + (extra,), kernarg_size=528)

    with pytest.raises(KernargMismatchError, match="'sink'"):
        asm_v3.pack_kernargs(prefill(), with_extra("sink"), variant, path)
    buf, _ = asm_v3.pack_kernargs(prefill(), with_extra("ptr_q_descale"), variant, path)
    assert len(buf) == 528 and buf[512:] == bytes(16)

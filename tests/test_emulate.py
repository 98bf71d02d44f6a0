"""The AMD code objects run on the CPU emulator and match the reference (issue 9).

Every AMD family on every arch it ships for runs its emulated numeric sweep
(``pyhipattn.tools.emulated_sweep``): outputs poisoned with NaN, compared with ``reference.py`` in
float64.  AITER's ASM v3 objects run through our asm_v3 packing.  ``pyhipattn check
--emulate`` passes on the shipped object and fails, naming the case, on a deliberately broken
one.  Instruction-level tests live in ``tests/test_emulate_isa_*.py``.
"""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pyhipattn import codeobj
from pyhipattn.kernels_dir import kernels_dir

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module", autouse=True)
def _tools(require_tool):
    require_tool("llvm-objdump-22")


def _sweep():
    from pyhipattn.tools import emulated_sweep as sweep

    return sweep


def _pairs():
    from pyhipattn.tools.emulated_sweep import FAMILY_ARCHES

    return [(f, a) for f, arches in FAMILY_ARCHES.items() for a in arches]


#: 16 per family: 32 cases on each arch with two families (gfx942, gfx950, gfx1100)
CASES_PER_PAIR = int(os.environ.get("PYHIPATTN_EMULATE_TEST_CASES", "16"))


@pytest.mark.parametrize("family,arch", _pairs(), ids=lambda x: x)
def test_family_matches_the_reference_on_the_emulator(family, arch):
    sweep = _sweep()
    rep = sweep.run_sweep(arch, [family], cases=CASES_PER_PAIR)
    assert len(rep.results) == CASES_PER_PAIR
    bad = [f"{r.case.id}: {r.failure}" for r in rep.failures]
    assert not bad, "\n".join(bad)


def test_sweep_covers_what_the_issue_lists():
    """Decode and prefill tiles, causal, windows, GQA/MQA, KV tails, forced splits, both dtypes,
    d 64 and 128 (and 256 for portable) are all in the first cases of each family."""
    sweep = _sweep()
    for family, arches in sweep.FAMILY_ARCHES.items():
        if family == "serve":
            continue
        cases = sweep.make_cases(family, arches[0], CASES_PER_PAIR)
        dims = {c.d for c in cases}
        assert {64, 128} <= dims and (family != "portable" or 256 in dims), (family, dims)
        assert {"bf16", "fp16"} <= {c.dtype for c in cases}
        assert any(c.sq == 1 for c in cases) and any(c.sq >= 64 for c in cases)       # decode and prefill
        assert any(c.causal for c in cases) and any(c.window != (-1, -1) for c in cases)
        assert any(c.hq > c.hk for c in cases)
        assert any(c.sk % 64 for c in cases)                                              # KV tails
        assert any(c.splits >= 2 for c in cases)


def test_serve_sweep_covers_paged_caches_appends_sinks_and_alibi():
    """Page sizes 16..256 and contiguous caches, appended tokens, sinks, both ALiBi forms, forced
    splits, GQA and d 64 / 128 / 256; every case also has an empty and a full sequence."""
    sweep = _sweep()
    cases = sweep.make_cases("serve", "gfx942", CASES_PER_PAIR)
    assert {16, 64, 256, 0} <= {c.page for c in cases}
    assert any(c.n_new for c in cases) and any(c.sinks for c in cases) and {1, 2} <= {c.alibi for c in cases}
    assert any(c.splits >= 2 for c in cases) and any(c.hq > c.hk for c in cases)
    assert {64, 128, 256} <= {c.d for c in cases} and {"bf16", "fp16"} <= {c.dtype for c in cases}


def test_portable_split_k_folds_in_one_launch():
    sweep = _sweep()
    for arch in sweep.FAMILY_ARCHES["portable"]:
        r = sweep.run_case(sweep.Case(1, 1, 300, 8, 2, 128, "bf16", splits=4), "portable", arch)
        assert r.passed, r.failure
        assert r.splits >= 2 and r.kernels == ("attn_fwd",), (arch, r.splits, r.kernels)


def test_native_split_k_runs_its_combine():
    sweep = _sweep()
    r = sweep.run_case(sweep.Case(1, 1, 300, 8, 2, 128, "bf16", splits=4), "native_splitk", "gfx942")
    assert r.passed, r.failure
    assert r.kernels[-1].startswith("native_combine"), r.kernels


# ---- AITER's ASM v3 ---------------------------------------------------------------------------

@pytest.mark.network
@pytest.mark.parametrize("arch", ["gfx942", "gfx950"])
def test_aiter_asm_v3_matches_the_reference(arch, aiter_hsa_dir, monkeypatch):
    """MI300 objects on gfx942 (304 CUs), and gfx950's: sq = sk = 256, causal GQA, b = 2 with
    sq 200 / sk 300 tails, each through pyhipattn's asm_v3 packing of AITER's metadata."""
    monkeypatch.setenv("AITER_ASM_DIR", str(aiter_hsa_dir))
    sweep = _sweep()
    cases = [sweep.Case(1, 256, 256, 2, 2, 128, "bf16"), sweep.Case(1, 256, 256, 8, 2, 128, "bf16", causal=True),
             sweep.Case(2, 200, 300, 2, 1, 128, "bf16", seed=3)]
    for c in cases:
        r = sweep.run_case(c, "asm_v3", arch)
        assert r.passed, f"{c.id}: {r.failure}"
        assert all("fmha_fwd_hd128_bf16" in k for k in r.kernels), r.kernels


# ---- pyhipattn check --emulate -------------------------------------------------------------------

def _check(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pyhipattn", "check", *args], capture_output=True, text=True,
                          cwd=ROOT, timeout=900)


def test_check_emulate_passes_on_the_shipped_native_object():
    proc = _check("--emulate", "--emulate-cases", "3", str(kernels_dir() / "gfx942" / "native_fwd.co"))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "emulated sweep: 3 passed, 0 failed" in proc.stdout


def _file_offset(image: bytes, vaddr: int) -> int:
    phoff = struct.unpack_from("<Q", image, 0x20)[0]
    phnum = struct.unpack_from("<H", image, 0x38)[0]
    for i in range(phnum):
        t, _f, off, va, _pa, filesz, _m, _a = struct.unpack_from("<IIQQQQQQ", image, phoff + 56 * i)
        if t == 1 and va <= vaddr < va + filesz:
            return off + vaddr - va
    raise AssertionError(f"0x{vaddr:x} is in no loadable segment")


def test_check_emulate_fails_on_a_broken_fragment_map(tmp_path):
    """Swap the A and B operands of every MFMA in native_fwd.co (a wrong fragment map): the
    emulated check must fail with exit 1 and name the failing case."""
    from pyhipattn.emulate.decoder import disassemble

    src = kernels_dir() / "gfx942" / "native_fwd.co"
    image = bytearray(src.read_bytes())
    co = codeobj.read(bytes(image))[0]
    patched = 0
    for pc, inst in disassemble(co.image, "gfx942").items():
        if inst.op.startswith("v_mfma") and len(inst.words) == 2:
            off = _file_offset(bytes(image), pc) + 4
            w = struct.unpack_from("<I", image, off)[0]
            s0, s1 = w & 0x1FF, (w >> 9) & 0x1FF
            struct.pack_into("<I", image, off, (w & ~0x3FFFF) | s1 | (s0 << 9))
            patched += 1
    assert patched > 10
    broken = tmp_path / "gfx942" / "native_fwd.co"
    broken.parent.mkdir()
    broken.write_bytes(bytes(image))
    proc = _check("--emulate", "--emulate-cases", "3", str(broken))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "FAIL emulated: gfx942 native_splitk b" in proc.stdout, proc.stdout
    assert "rel error" in proc.stdout


def test_check_emulate_rejects_a_missing_path():
    proc = _check("--emulate", str(ROOT / "no-such-dir"))
    assert proc.returncode != 0
    assert "no-such-dir" in proc.stdout + proc.stderr


# ---- the emulate backend: mha_fwd, mha_varlen_fwd and load() on numpy arrays -----------------------

BACKEND_SCRIPT = r"""
import os, sys, struct
import numpy as np, ml_dtypes
import pyhipattn
import pyhipattn.runtime
from pyhipattn.reference import attention_ref, rel_error
rng = np.random.default_rng(7)
bf16 = ml_dtypes.bfloat16
print("platform", pyhipattn.runtime.get_backend().device_info(0).name)
# batch: GQA causal, bf16
q = rng.standard_normal((2, 40, 8, 64)).astype(bf16)
k = rng.standard_normal((2, 70, 2, 64)).astype(bf16)
v = rng.standard_normal((2, 70, 2, 64)).astype(bf16)
out, lse = pyhipattn.mha_fwd(q, k, v, causal=True, return_lse=True)
ref, ref_lse = attention_ref(q, k, v, causal=True)
assert isinstance(out, np.ndarray) and out.dtype == bf16 and out.shape == (2, 40, 8, 64), (type(out), out.dtype)
print("batch", rel_error(out, ref), float(np.abs(lse - ref_lse).max()))
assert rel_error(out, ref) < 1e-2
# out= and an odd head dim (padded to 48), fp16
q = rng.standard_normal((1, 17, 4, 40)).astype(np.float16)
k = rng.standard_normal((1, 33, 4, 40)).astype(np.float16)
v = rng.standard_normal((1, 33, 4, 40)).astype(np.float16)
o = np.full((1, 17, 4, 40), np.nan, np.float16)
res = pyhipattn.mha_fwd(q, k, v, out=o)
assert res is o
print("padded", rel_error(o, attention_ref(q, k, v)[0]))
assert rel_error(o, attention_ref(q, k, v)[0]) < 2e-3
# varlen
lens_q, lens_k = [5, 0, 12], [9, 4, 20]
cq = np.cumsum([0] + lens_q).astype(np.int32); ck = np.cumsum([0] + lens_k).astype(np.int32)
q = rng.standard_normal((cq[-1], 4, 128)).astype(bf16)
k = rng.standard_normal((ck[-1], 2, 128)).astype(bf16)
v = rng.standard_normal((ck[-1], 2, 128)).astype(bf16)
out = pyhipattn.mha_varlen_fwd(q, k, v, cq, ck, max(lens_q), max(lens_k), causal=True)
errs = []
for i in range(3):
    if lens_q[i] == 0:
        continue
    r = attention_ref(q[None, cq[i]:cq[i+1]], k[None, ck[i]:ck[i+1]], v[None, ck[i]:ck[i+1]], causal=True)[0][0]
    errs.append(rel_error(out[cq[i]:cq[i+1]], r))
print("varlen", max(errs))
assert max(errs) < 1e-2
# the generic door
mod = pyhipattn.load(os.path.join(sys.argv[1], os.environ["PYHIPATTN_EMULATE_ARCH"], "common_add.co"))
x = rng.standard_normal(1000).astype(np.float32); y = rng.standard_normal(1000).astype(np.float32)
z = np.zeros(1000, np.float32)
mod["add_kernel"].launch((4,), (256,), x, y, z, 1000, 2.0)
assert np.array_equal(z, x + np.float32(2.0) * y)
print("generic ok")
"""


@pytest.mark.parametrize("arch", ["gfx942", "gfx1100"])
def test_emulate_backend_runs_the_public_calls_on_numpy_arrays(arch):
    env = dict(os.environ, PYHIPATTN_PLATFORM="emulate", PYHIPATTN_EMULATE_ARCH=arch)
    proc = subprocess.run([sys.executable, "-c", BACKEND_SCRIPT, str(kernels_dir())], capture_output=True,
                          text=True, env=env, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"emulated {arch}" in proc.stdout and "generic ok" in proc.stdout, proc.stdout


def test_emulate_arch_must_be_amd():
    env = dict(os.environ, PYHIPATTN_PLATFORM="emulate", PYHIPATTN_EMULATE_ARCH="sm_90a")
    proc = subprocess.run([sys.executable, "-c", "import pyhipattn.runtime as r; r.get_backend()"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode != 0
    assert "PYHIPATTN_EMULATE_ARCH='sm_90a'" in proc.stderr and "gfx942" in proc.stderr


def test_memory_outside_every_buffer_is_a_fault_not_a_crash():
    from pyhipattn.emulate import MemoryFault, launch

    co = codeobj.read(str(kernels_dir() / "gfx942" / "common_add.co"))[0]
    args = struct.pack("<QQQIf", 0x1000, 0x2000, 0x3000, 64, 1.0)
    with pytest.raises(MemoryFault, match=r"read of 4 bytes at 0x1000 is outside every buffer"):
        launch(co, "add_kernel", (1, 1, 1), (64, 1, 1), args)


def test_a_kernel_that_spins_times_out_with_a_clear_error(monkeypatch, require_tool):
    """Workgroups run in batches, one after another: a kernel waiting for another workgroup
    would spin forever, so the instruction budget ends it with EmulatorTimeout."""
    require_tool("clang-22")
    from _emu import run_asm

    from pyhipattn.emulate import EmulatorTimeout

    monkeypatch.setenv("PYHIPATTN_EMULATE_MAX_STEPS", "5000")
    with pytest.raises(EmulatorTimeout, match=r"ran 5,000 steps .* waits for another workgroup"):
        run_asm("gfx942", """
            spin:
            s_branch spin
        """, ["v0"])


def test_every_shipped_amd_instruction_has_semantics():
    """Each instruction of every shipped AMD object compiles to a Step (an unknown opcode would
    raise UnknownInstructionError naming it: the emulator never guesses)."""
    from pyhipattn.arch import arch_info
    from pyhipattn.emulate import executor  # noqa: F401  (fills the opcode table)
    from pyhipattn.emulate.decoder import disassemble
    from pyhipattn.emulate.isa import ArchCtx, compile_instruction

    seen: set[tuple[str, str]] = set()
    for arch_dir in sorted(p for p in kernels_dir().iterdir() if p.is_dir() and p.name.startswith("gfx")):
        arch = arch_dir.name
        ctx = ArchCtx(arch, arch_info(arch).wave_size)
        for f in sorted(arch_dir.glob("*.co")):
            for _pc, inst in disassemble(codeobj.read(str(f))[0].image, arch).items():
                key = (arch, inst.text.split(" ", 1)[0])
                if key in seen:
                    continue
                compile_instruction(inst, ctx)
                seen.add(key)
    assert len(seen) > 300
    _ = np

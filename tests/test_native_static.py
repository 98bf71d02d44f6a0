"""Static checks of the built native kernels (kernels/co/<arch>/native_*), no GPU needed.

For every AMD code object: the AMDGPU metadata (msgpack note, read here directly with
pyelftools + msgpack) against the kernarg structs declared in kernels/src/native/native_args.h
(read with cffi through pyhipattn.kernargs), no scratch, no spills, registers and LDS within
the arch's limits, the wave size the arch runs, and matrix instructions (v_mfma on gfx9,
v_wmma on gfx11/12) in the disassembly.  For every cubin: registers, no local memory, HMMA in
the SASS.  And the manifests agree with the objects and with what the planners launch.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from _tools import require_amd_disassembler

from pyhipattn.arch import arch_info
from pyhipattn.families import native_splitk
from pyhipattn.kernargs import layout_from_header

ROOT = Path(__file__).resolve().parents[1]
CO = ROOT / "kernels" / "co"
HEADER = ROOT / "kernels" / "src" / "native" / "native_args.h"
AMD = ("gfx942", "gfx950", "gfx1100", "gfx1101", "gfx1102", "gfx1200", "gfx1201")
CUDA = ("sm_90a", "sm_80")
MATRIX = {"gfx942": "v_mfma", "gfx950": "v_mfma"} | {a: "v_wmma" for a in AMD if a.startswith("gfx1")}


def _objects(arches, ext):
    return [pytest.param(a, n, id=f"{a}-{n}") for a in arches for n in (f"native_fwd.{ext}", f"native_combine.{ext}")]


def _path(arch, name) -> Path:
    p = CO / arch / name
    if not p.exists():
        pytest.skip(f"{p} is not built (scripts/build/native.sh)")
    return p


def amdgpu_metadata(path: Path) -> dict:
    """The NT_AMDGPU_METADATA (type 32, owner AMDGPU) msgpack map of an hsaco."""
    msgpack = pytest.importorskip("msgpack")
    from elftools.elf.elffile import ELFFile

    with open(path, "rb") as fh:
        elf = ELFFile(fh)
        for seg in elf.iter_segments():
            if seg["p_type"] != "PT_NOTE":
                continue
            for note in seg.iter_notes():
                if note["n_name"] == "AMDGPU" and note["n_type"] in (32, "NT_AMDGPU_METADATA"):
                    desc = note["n_descdata"]
                    return msgpack.unpackb(desc if isinstance(desc, bytes) else bytes(desc, "latin-1"), raw=False)
    raise AssertionError(f"{path} has no AMDGPU metadata note")


def _struct_for(kernel_name: str) -> str:
    return "native_combine_args" if kernel_name.startswith("native_combine_") else "native_fwd_args"


@pytest.mark.parametrize("arch,name", _objects(AMD, "co"))
def test_amd_kernargs_match_the_declared_struct(arch, name):
    meta = amdgpu_metadata(_path(arch, name))
    assert meta["amdhsa.target"].endswith(arch), meta["amdhsa.target"]
    for k in meta["amdhsa.kernels"]:
        layout = layout_from_header(HEADER, _struct_for(k[".name"]))
        explicit = [a for a in k[".args"] if not a[".value_kind"].startswith("hidden_")]
        assert [(a[".offset"], a[".size"], a[".value_kind"]) for a in explicit] == [(0, layout.size, "by_value")], k[".name"]
        assert k[".kernarg_segment_size"] >= layout.size
        assert k[".kernarg_segment_align"] >= layout.align


@pytest.mark.parametrize("arch,name", _objects(AMD, "co"))
def test_amd_resources_fit(arch, name):
    info = arch_info(arch)
    for k in amdgpu_metadata(_path(arch, name))["amdhsa.kernels"]:
        who = f"{arch} {k['.name']}"
        assert k[".private_segment_fixed_size"] == 0, f"{who} uses scratch"
        assert k[".vgpr_spill_count"] == 0 and k[".sgpr_spill_count"] == 0, f"{who} spills"
        # gfx90a+: .vgpr_count already counts the AGPRs of the unified register file
        agprs = 0 if info.family in ("cdna3", "cdna4") else k.get(".agpr_count", 0)
        assert k[".vgpr_count"] + agprs <= info.vgpr_limit, f"{who}: {k['.vgpr_count']} VGPRs"
        assert k[".group_segment_fixed_size"] <= info.shared_limit, f"{who}: LDS {k['.group_segment_fixed_size']}"
        assert k[".wavefront_size"] == info.wave_size, who
        threads = native_splitk.COMBINE_THREADS if "combine" in k[".name"] else native_splitk.WAVES * info.wave_size
        assert k[".max_flat_workgroup_size"] == threads, who


@pytest.mark.parametrize("arch,name", _objects(AMD, "co"))
def test_amd_kernels_use_matrix_instructions(arch, name):
    objdump = require_amd_disassembler(arch)
    text = subprocess.run([objdump, "-d", f"--mcpu={arch}", str(_path(arch, name))], check=True,
                          capture_output=True, text=True).stdout
    per_kernel = re.split(r"\n(?=[0-9a-f]+ <native_)", text)
    names = [re.match(r"[0-9a-f]+ <(\w+)>", body).group(1) for body in per_kernel[1:]]
    assert len(names) == (16 if "fwd" in name else 2), names
    for kname, body in zip(names, per_kernel[1:]):
        if kname.startswith("native_fwd_"):
            assert MATRIX[arch] in body, f"{arch} {kname} has no {MATRIX[arch]}"


def _cuobjdump():
    found = shutil.which("cuobjdump")
    if found:
        return found
    try:
        import triton  # its NVIDIA backend ships cuobjdump

        p = Path(triton.__file__).parent / "backends" / "nvidia" / "bin" / "cuobjdump"
        return str(p) if p.exists() else None
    except Exception:  # noqa: BLE001 - any import problem means "not available"
        return None


@pytest.mark.parametrize("arch,name", _objects(CUDA, "cubin"))
def test_cubin_resources_and_hmma(arch, name):
    tool = _cuobjdump()
    if not tool:
        pytest.skip("cuobjdump not found")
    path = str(_path(arch, name))
    res = subprocess.run([tool, "-res-usage", path], check=True, capture_output=True, text=True).stdout
    kernels = re.findall(r"Function (\w+):\s*\n\s*REG:(\d+) STACK:(\d+) SHARED:(\d+) LOCAL:(\d+)", res)
    assert kernels, res
    for kname, reg, stack, shared, local in kernels:
        assert int(reg) <= 255 and int(stack) == 0 and int(local) == 0, f"{arch} {kname}: {reg} regs, stack {stack}, local {local}"
        assert int(shared) <= 48 * 1024 + 1024, f"{arch} {kname}: {shared} bytes of static shared memory"
    if "fwd" in name:
        sass = subprocess.run([tool, "-sass", path], check=True, capture_output=True, text=True).stdout
        bodies = re.split(r"\n\s*Function : ", sass)[1:]
        assert len(bodies) == 16
        for body in bodies:
            assert "HMMA" in body, f"{arch} {body.split()[0]} has no HMMA"


@pytest.mark.parametrize("arch", AMD + CUDA)
def test_manifest_describes_the_objects(arch):
    manifest = json.loads(_path(arch, "native_manifest.json").read_text())
    from pyhipattn import codeobj

    assert manifest["arch"] == arch
    seen = set()
    for entry in manifest["kernels"]:
        k = codeobj.read(CO / arch / entry["object"])[0].kernels[entry["name"]]
        assert (entry["threads"], entry["lds_bytes"]) == (k.max_workgroup_size, k.shared_bytes)
        layout = layout_from_header(HEADER, entry["kernarg_struct"])
        assert entry["kernarg_bytes"] == layout.size
        seen.add(entry["name"])
    # every producer the planner can name is in the manifest, with the planner's tiles and threads
    for dtype in native_splitk.DTYPES:
        for d in native_splitk.HEAD_DIMS:
            for mask in ("mask", "nomask"):
                for bm, bn in ((native_splitk.BM_PREFILL, native_splitk.BN_PREFILL),
                               (native_splitk.bm_decode(arch), native_splitk.BN_DECODE)):
                    name = f"native_fwd_{dtype}_d{d}_{mask}_m{bm}_n{bn}"
                    assert name in seen, f"{arch} manifest lacks {name}"
                    entry = next(e for e in manifest["kernels"] if e["name"] == name)
                    assert entry["threads"] == native_splitk.threads(arch)
                    assert (entry["tile_m"], entry["tile_n"]) == (bm, bn)
        assert f"native_combine_{dtype}" in seen


def test_build_is_deterministic_when_asked():
    """Rebuilding takes minutes; set PYHIPATTN_TEST_REBUILD=1 to rebuild and compare hashes."""
    if not os.environ.get("PYHIPATTN_TEST_REBUILD"):
        pytest.skip("set PYHIPATTN_TEST_REBUILD=1 (scripts/build/native.sh builds twice and compares sha256)")
    subprocess.run(["bash", str(ROOT / "scripts" / "build" / "native.sh")], check=True)

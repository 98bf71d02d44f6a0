"""Build real code objects at test time, and read them back with the vendors' own tools.

Compile helpers (each writes the source next to the output in ``workdir`` and returns a
:class:`Built` with the output path and the compiler's stderr, where remarks land):

    hip_compile(src, ["gfx942"], workdir)                      raw hsaco ELF (one arch)
    hip_compile(src, ["gfx942", "gfx950"], workdir, bundle=True, compress=True)
    opencl_compile(src, "gfx942", workdir)                     hsaco from OpenCL C
    nvcc_cubin(src, "sm_90a", workdir)                         cubin from CUDA C++ (or PTX)
    offload_bundle({"hipv4-amdgcn-amd-amdhsa--gfx942": path}, out)   clang-offload-bundler
    compress_bundle(bundle_bytes, version=3, method="zlib")    CCOB writer (pure Python)

Independent readings of what the compiler emitted (for cross-checking pyhipattn.codeobj):

    amdgpu_metadata(path)          llvm-readobj --notes, the metadata YAML as a dict
    amd_resource_remarks(log)      clang -Rpass-analysis=kernel-resource-usage remarks
    ptxas_resource_usage(log)      nvcc --resource-usage (ptxas -v) lines
    cuobjdump_res_usage(path)      cuobjdump -res-usage
    cuobjdump_params(path)         KPARAM_INFO / CBANK_PARAM_SIZE as cuobjdump -elf decodes them

Tool names: CLANG, BUNDLER, READOBJ, NVCC; cuobjdump is found by ``find_tool``.  Tests
should call ``require_tool`` (conftest) before these so missing tools skip (or fail in CI).
"""

from __future__ import annotations

import hashlib
import re
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from pyhipattn.codeobj.isa import find_tool

CLANG = "clang-22"
BUNDLER = "clang-offload-bundler-22"
READOBJ = "llvm-readobj-22"
NVCC = "nvcc"

#: Every device kernel source needs these without HIP headers.
HIP_PRELUDE = """\
#define __global__ __attribute__((global))
#define __shared__ __attribute__((shared))
#define __device__ __attribute__((device))
"""


@dataclass(frozen=True)
class Built:
    path: Path
    log: str      # compiler stderr (remarks, ptxas info)


def run(cmd: Sequence[str], **kw) -> subprocess.CompletedProcess:
    """Run a tool; a non-zero exit raises AssertionError with the command and its stderr."""
    from pyhipattn.codeobj.isa import find_tool

    tool = str(cmd[0])
    if "/" not in tool:              # the path the probe found (nvcc under $CUDA_HOME/bin need not be on PATH)
        tool = find_tool((tool,)) or tool
    proc = subprocess.run([tool, *map(str, cmd[1:])], capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} failed ({proc.returncode}):\n{proc.stderr[-4000:]}")
    return proc


def hip_compile(
    src: str,
    arches: Sequence[str],
    workdir: Path,
    *,
    name: str = "kernel",
    bundle: bool = False,
    compress: bool = False,
    compress_version: int | None = None,
    remarks: bool = False,
    flags: Sequence[str] = (),
) -> Built:
    """Compile HIP device code (``HIP_PRELUDE`` is prepended) with clang-22.

    One arch and ``bundle=False`` gives a raw hsaco ELF; otherwise an offload bundle, with
    ``compress=True`` a CCOB (clang picks zstd when it has it; ``compress_version`` 2 or 3
    sets COMPRESSED_BUNDLE_FORMAT_VERSION).  ``remarks=True`` adds the resource-usage
    remarks to ``Built.log`` (parse with :func:`amd_resource_remarks`).
    """
    import os

    if not bundle and (len(arches) != 1 or compress):
        raise ValueError("a raw (unbundled) hsaco holds exactly one arch and cannot be compressed")
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / f"{name}.hip"
    source.write_text(HIP_PRELUDE + src)
    out = workdir / f"{name}.{'bundle' if bundle else 'hsaco'}"
    cmd = [CLANG, "-x", "hip", "--cuda-device-only", "-nogpulib", "-nogpuinc", "-O3", "-fhip-kernel-arg-name"]
    cmd += [f"--offload-arch={a}" for a in arches]
    cmd += [] if bundle else ["--no-gpu-bundle-output"]
    cmd += ["--offload-compress"] if compress else []
    cmd += ["-Rpass-analysis=kernel-resource-usage"] if remarks else []
    env = dict(os.environ)
    if compress_version is not None:
        env["COMPRESSED_BUNDLE_FORMAT_VERSION"] = str(compress_version)
    proc = run([*cmd, *flags, str(source), "-o", str(out)], env=env)
    return Built(out, proc.stderr)


def opencl_compile(src: str, arch: str, workdir: Path, *, name: str = "kernel", flags: Sequence[str] = ()) -> Built:
    """Compile OpenCL C to a raw hsaco (OpenCL has ``reqd_work_group_size``, HIP does not)."""
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / f"{name}.cl"
    source.write_text(src)
    out = workdir / f"{name}.hsaco"
    proc = run([CLANG, "-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", f"-mcpu={arch}",
                "-nogpulib", "-O3", *flags, str(source), "-o", str(out)])
    return Built(out, proc.stderr)


def nvcc_cubin(src: str, arch: str, workdir: Path, *, name: str = "kernel", ptx: bool = False,
               flags: Sequence[str] = ()) -> Built:
    """Compile CUDA C++ (or PTX text when ``ptx=True``) to a cubin for ``arch`` ("sm_90a",
    "sm_80") with ``-gencode=arch=compute_X,code=sm_X``; ``Built.log`` holds the ptxas
    resource usage (parse with :func:`ptxas_resource_usage`)."""
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / f"{name}.{'ptx' if ptx else 'cu'}"
    source.write_text(src)
    out = workdir / f"{name}.cubin"
    sm = arch.removeprefix("sm_")
    proc = run([NVCC, "-cubin", f"-gencode=arch=compute_{sm},code=sm_{sm}", "-O3", "--resource-usage",
                *flags, str(source), "-o", str(out)])
    return Built(out, proc.stderr + proc.stdout)


def nvcc_ptx(src: str, arch: str, workdir: Path, *, name: str = "kernel") -> str:
    """CUDA C++ -> PTX text for ``arch`` (to edit directives such as ``.reqntid``)."""
    workdir.mkdir(parents=True, exist_ok=True)
    source = workdir / f"{name}.cu"
    source.write_text(src)
    out = workdir / f"{name}.ptx"
    run([NVCC, "-ptx", f"-arch=compute_{arch.removeprefix('sm_')}", str(source), "-o", str(out)])
    return out.read_text()


def offload_bundle(entries: Mapping[str, Path], out: Path, *, compress: bool = False) -> Path:
    """Bundle images with clang-offload-bundler-22; keys are bundle ids such as
    ``hipv4-amdgcn-amd-amdhsa--gfx942`` (a ``host-x86_64-unknown-linux-gnu-`` entry is added,
    empty, as clang does)."""
    host = out.with_suffix(".host")
    host.write_bytes(b"")
    targets = ["host-x86_64-unknown-linux-gnu-", *entries]
    inputs = [host, *entries.values()]
    run([BUNDLER, "-type=o", f"-targets={','.join(targets)}", *[f"-input={p}" for p in inputs],
         f"-output={out}", *(["-compress"] if compress else [])])
    return out


def compress_bundle(bundle: bytes, *, version: int = 3, method: str = "zstd") -> bytes:
    """Wrap an uncompressed offload bundle in a CCOB header, byte for byte as LLVM's
    ``CompressedOffloadBundle::compress`` writes it (v1 has no total-size field; LLVM 22
    writes only v2 / v3 and only zstd when built with it, so zlib and v1 come from here)."""
    if method == "zlib":
        import zlib

        payload, code = zlib.compress(bundle, 6), 0
    elif method == "zstd":
        import zstandard

        payload, code = zstandard.ZstdCompressor(level=3).compress(bundle), 1
    else:
        raise ValueError(f"method {method!r}: 'zlib' or 'zstd'")
    digest = int.from_bytes(hashlib.md5(bundle).digest()[:8], "little")
    if version == 1:
        header = struct.pack("<4sHHIQ", b"CCOB", 1, code, len(bundle), digest)
    elif version == 2:
        header = struct.pack("<4sHHIIQ", b"CCOB", 2, code, 24 + len(payload), len(bundle), digest)
    elif version == 3:
        header = struct.pack("<4sHHQQQ", b"CCOB", 3, code, 32 + len(payload), len(bundle), digest)
    else:
        raise ValueError(f"version {version}: 1, 2 or 3")
    return header + payload


# -- independent readings ----------------------------------------------------------------

def amdgpu_metadata(path: Path) -> dict:
    """The NT_AMDGPU_METADATA of a raw hsaco as llvm-readobj-22 prints it (YAML -> dict)."""
    import json

    out = json.loads(run([READOBJ, "--notes", "--elf-output-style=JSON", str(path)]).stdout)
    for sec in out[0]["NoteSections"]:
        for note in sec["NoteSection"]["Notes"]:
            if "AMDGPU Metadata" in note:
                return parse_simple_yaml(note["AMDGPU Metadata"])
    raise AssertionError(f"{READOBJ} found no AMDGPU metadata in {path}")


def parse_simple_yaml(text: str) -> dict:
    """The YAML subset LLVM prints for AMDGPU metadata: block maps, block lists of maps or
    scalars, plain scalars (ints stay ints).  Enough for ``amdgpu_metadata``; not general."""
    lines = [ln for ln in text.splitlines() if ln.strip() and ln.strip() not in ("---", "...")]
    pos = 0

    def scalar(s: str):
        s = s.strip()
        if re.fullmatch(r"-?\d+", s):
            return int(s)
        return {"true": True, "false": False}.get(s, s.strip("'\""))

    def indent(ln: str) -> int:
        return len(ln) - len(ln.lstrip(" "))

    def block(level: int):
        nonlocal pos
        if lines[pos].lstrip().startswith("- "):
            items = []
            while pos < len(lines) and indent(lines[pos]) == level and lines[pos].lstrip().startswith("- "):
                ln = lines[pos]
                body = ln.lstrip()[2:]
                if ":" in body and not body.startswith(("'", '"')):
                    # "- key: value" opens a map whose keys sit at level + 2
                    lines[pos] = " " * (level + 2) + body
                    items.append(block(level + 2))
                else:
                    items.append(scalar(body))
                    pos += 1
            return items
        mapping = {}
        while pos < len(lines) and indent(lines[pos]) == level and not lines[pos].lstrip().startswith("- "):
            key, _, value = lines[pos].strip().partition(":")
            pos += 1
            if value.strip():
                mapping[key] = scalar(value)
            elif pos < len(lines) and indent(lines[pos]) >= level and (
                indent(lines[pos]) > level or lines[pos].lstrip().startswith("- ")
            ):
                mapping[key] = block(indent(lines[pos]))
            else:
                mapping[key] = None
        return mapping

    return block(indent(lines[0]))


_REMARK = re.compile(r"remark:\s+(?:Function Name: (\S+)|\s*([A-Za-z ]+?)(?: \[[^\]]*\])?: (\S+)) \[-Rpass")


def amd_resource_remarks(log: str) -> dict[str, dict[str, str]]:
    """``{kernel: {"VGPRs": "6", "LDS Size": "1024", ...}}`` from clang's
    ``-Rpass-analysis=kernel-resource-usage`` remarks (keys as clang prints them, units dropped)."""
    out: dict[str, dict[str, str]] = {}
    cur: dict[str, str] | None = None
    for line in log.splitlines():
        m = _REMARK.search(line)
        if not m:
            continue
        if m.group(1):
            cur = out.setdefault(m.group(1), {})
        elif cur is not None:
            cur[m.group(2).strip()] = m.group(3)
    return out


def ptxas_resource_usage(log: str) -> dict[str, dict[str, int]]:
    """``{kernel: {"registers", "smem", "stack_frame", "spill_stores", "spill_loads"}}`` from
    nvcc ``--resource-usage`` output."""
    out: dict[str, dict[str, int]] = {}
    cur: dict[str, int] = {}
    for line in log.splitlines():
        if m := re.search(r"(?:Compiling entry function|Function properties for) '?([\w$]+)'?", line):
            cur = out.setdefault(m.group(1), {"smem": 0})
        if m := re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line):
            cur.update(stack_frame=int(m[1]), spill_stores=int(m[2]), spill_loads=int(m[3]))
        if m := re.search(r"Used (\d+) registers", line):
            cur["registers"] = int(m[1])
        if m := re.search(r"(\d+) bytes smem", line):
            cur["smem"] = int(m[1])
    return out


def cuobjdump() -> str | None:
    """Path of cuobjdump (PATH, CUDA_HOME, or the one in the triton wheel), or None."""
    return find_tool(("cuobjdump",))


def cuobjdump_res_usage(path: Path) -> dict[str, dict[str, int]]:
    """``{kernel: {"REG": .., "STACK": .., "SHARED": .., "LOCAL": .., ...}}`` from
    ``cuobjdump -res-usage``.  SHARED is the ``.nv.shared.<kernel>`` section size."""
    text = run([cuobjdump(), "-res-usage", str(path)]).stdout
    out: dict[str, dict[str, int]] = {}
    cur = None
    for line in text.splitlines():
        if m := re.match(r"\s*Function (\S+):", line):
            cur = out.setdefault(m.group(1), {})
        elif cur is not None and "REG:" in line:
            cur.update({k: int(v) for k, v in re.findall(r"([A-Z]+(?:\[\d+\])?):(\d+)", line)})
    return out


def cuobjdump_params(path: Path) -> dict[str, dict]:
    """``{kernel: {"params": [(offset, size), ...] sorted, "param_size": int}}`` as
    ``cuobjdump -elf`` decodes the ``.nv.info.<kernel>`` sections."""
    text = run([cuobjdump(), "-elf", str(path)]).stdout
    out: dict[str, dict] = {}
    for m in re.finditer(r"^\.nv\.info\.(\S+)\n(.*?)(?=^\S|\Z)", text, re.S | re.M):
        body = m.group(2)
        params = sorted(
            (int(o, 16), int(s, 16)) for o, s in re.findall(r"Offset\s*:\s*(0x[0-9a-f]+)\s+Size\s*:\s*(0x[0-9a-f]+)", body)
        )
        size = re.search(r"EIATTR_CBANK_PARAM_SIZE\s+Format:\s+\w+\s+Value:\s+(0x[0-9a-f]+)", body)
        out[m.group(1)] = {"params": params, "param_size": int(size.group(1), 16) if size else None}
    return out

"""Instruction mnemonics per kernel, from the vendors' disassemblers (a development tool for
the static checks, e.g. "this gfx942 kernel uses v_mfma"; never used at run time).

AMD: ``llvm-objdump-22 -d --mcpu=<gfx>`` (or ``llvm-objdump``).  NVIDIA: ``cuobjdump -sass``
(or ``nvdisasm``), searched on PATH, under ``$CUDA_HOME/bin``, and in the Triton wheel.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from pathlib import Path

from ..errors import PyhipattnError
from . import Source, read, read_for_arch
from .model import CodeObject

AMD_TOOLS = ("llvm-objdump-22", "llvm-objdump-21", "llvm-objdump-20", "llvm-objdump-19", "llvm-objdump-18",
             "llvm-objdump-17", "llvm-objdump")
NVIDIA_TOOLS = ("cuobjdump", "nvdisasm")
#: the first LLVM release whose AMDGPU backend knows each target family (older ones print
#: warnings or crash dumps instead of instructions)
LLVM_FOR_ARCH = (("gfx950", 20), ("gfx12", 18), ("gfx942", 17), ("gfx11", 16))
DEFAULT_MIN_LLVM = 20
_LLVM_MAJOR = re.compile(r"LLVM version (\d+)")
_versions: dict[str, int | None] = {}


class ToolNotFoundError(PyhipattnError, RuntimeError):
    """A disassembler the request needs is not installed (or too old for the target)."""


def llvm_needed(arch: str) -> int:
    """The oldest LLVM major version whose disassembler knows ``arch``."""
    return next((v for prefix, v in LLVM_FOR_ARCH if arch.startswith(prefix)), DEFAULT_MIN_LLVM)


def llvm_major(path: str) -> int | None:
    """``path --version``'s LLVM major version (cached per path), None if it prints none."""
    if path not in _versions:
        try:
            out = subprocess.run([path, "--version"], capture_output=True, text=True, timeout=30).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        m = _LLVM_MAJOR.search(out)
        _versions[path] = int(m.group(1)) if m else None
    return _versions[path]


def amd_disassembler(arch: str | None = None, min_major: int | None = None) -> str:
    """Path of an llvm-objdump whose LLVM knows ``arch`` (or is at least ``min_major``); else
    ToolNotFoundError saying what was found and what to install."""
    need = max(min_major or 0, llvm_needed(arch) if arch else 0) or DEFAULT_MIN_LLVM
    found = []
    seen = set()
    for name in AMD_TOOLS:
        path = find_tool((name,))
        if path is None or path in seen:
            continue
        seen.add(path)
        major = llvm_major(path)
        if major is not None and major >= need:
            return path
        found.append(f"{path} is LLVM {major if major is not None else '(unknown version)'}")
    what = f"{arch} (needs LLVM >= {need})" if arch else f"LLVM >= {need}"
    if not found:
        raise ToolNotFoundError(f"disassembling {arch + ' code' if arch else 'AMD code'} needs llvm-objdump "
                                f"(LLVM >= {need}), which is not installed: apt-get install llvm-22 (or put "
                                "llvm-objdump-22 on PATH)")
    raise ToolNotFoundError(f"not checked: {'; '.join(found)}, which does not know {what}: apt-get install llvm-22")


def find_tool(names: tuple[str, ...]) -> str | None:
    """First of ``names`` found on PATH, in ``$CUDA_HOME/bin``, or in Triton's bundled bin."""
    for name in names:
        if path := shutil.which(name):
            return path
    extra = [Path(os.environ.get("CUDA_HOME", "/usr/local/cuda")) / "bin"]
    try:
        import importlib.util

        spec = importlib.util.find_spec("triton")
        if spec and spec.origin:
            extra.append(Path(spec.origin).parent / "backends" / "nvidia" / "bin")
    except (ImportError, ValueError):
        pass
    for d in extra:
        for name in names:
            if (d / name).is_file() and os.access(d / name, os.X_OK):
                return str(d / name)
    return None


def mnemonics(src: Source, arch: str | None = None) -> dict[str, Counter[str]]:
    """``{kernel name: Counter(mnemonic -> count)}`` for the entry of ``src`` a device of
    ``arch`` runs (default: the first entry); ArchNotFoundError if there is none."""
    return mnemonics_of(read_for_arch(src, arch) if arch else read(src)[0])


def mnemonics_of(co: CodeObject) -> dict[str, Counter[str]]:
    """Disassemble one code object and count mnemonics per kernel."""
    if co.platform == "amd":
        tool = amd_disassembler(co.arch)
    else:
        tool = find_tool(NVIDIA_TOOLS)
        if tool is None:
            raise ToolNotFoundError(f"disassembling {co.source} needs one of {', '.join(NVIDIA_TOOLS)}; none is on "
                                    "PATH (install the CUDA toolkit or triton)")
    with tempfile.NamedTemporaryFile(suffix=".co" if co.platform == "amd" else ".cubin") as f:
        f.write(co.image)
        f.flush()
        if co.platform == "amd":
            cmd = [tool, "-d", f"--mcpu={co.arch}", f.name]
        elif Path(tool).name.startswith("cuobjdump"):
            cmd = [tool, "-sass", f.name]
        else:
            cmd = [tool, "-c", f.name]
        proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ToolNotFoundError(f"{' '.join(cmd)} failed on {co.source}: {proc.stderr.strip()[:500]}")
    counts = _parse_amd(proc.stdout, set(co.kernels)) if co.platform == "amd" else _parse_sass(proc.stdout)
    return {name: counts.get(name, Counter()) for name in co.kernels}


_AMD_LABEL = re.compile(r"^[0-9a-f]+ <(.+)>:$")
_AMD_INSN = re.compile(r"^\s+([a-z_][a-z0-9_.]*)\b")
_SASS_FUNC = re.compile(r"(?:Function : |^\.text\.)(\S+?):?$")
_SASS_INSN = re.compile(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_]*(?:\.[A-Z0-9_]+)*)")


def _parse_amd(text: str, kernels: set[str] | None = None) -> dict[str, Counter[str]]:
    """Counts per function label.  Labels that are not ``kernels`` (hand-written code objects
    such as AITER's have local labels, ``label_018A``, inside a kernel) continue the kernel
    before them instead of starting a new count."""
    out: dict[str, Counter[str]] = {}
    cur: Counter[str] | None = None
    for line in text.splitlines():
        if m := _AMD_LABEL.match(line):
            if cur is None or kernels is None or m.group(1) in kernels:
                cur = out.setdefault(m.group(1), Counter())
        elif cur is not None and (m := _AMD_INSN.match(line)):
            cur[m.group(1)] += 1
    return out


def _parse_sass(text: str) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    cur: Counter[str] | None = None
    for line in text.splitlines():
        s = line.strip()
        if m := _SASS_FUNC.search(s):
            cur = out.setdefault(m.group(1), Counter())
        elif cur is not None and (m := _SASS_INSN.search(s)):
            cur[m.group(1).split(".")[0]] += 1
    return out

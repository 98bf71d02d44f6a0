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

AMD_TOOLS = ("llvm-objdump-22", "llvm-objdump")
NVIDIA_TOOLS = ("cuobjdump", "nvdisasm")


class ToolNotFoundError(PyhipattnError, RuntimeError):
    """A disassembler the request needs is not installed."""


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
    tools = AMD_TOOLS if co.platform == "amd" else NVIDIA_TOOLS
    tool = find_tool(tools)
    if tool is None:
        raise ToolNotFoundError(
            f"disassembling {co.source} needs one of {', '.join(tools)}; none is on PATH"
            + (" (install llvm-22)" if co.platform == "amd" else " (install the CUDA toolkit or triton)")
        )
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

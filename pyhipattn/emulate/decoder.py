"""Decode AMD code objects with LLVM's disassembler: ``llvm-objdump-22 -d --mcpu=<gfx>``.

LLVM is the source of truth for encodings here: every instruction the emulator runs is what
``llvm-objdump`` prints for those bytes, parsed into an :class:`Instruction` (mnemonic,
operand strings, modifiers, byte address and size, the raw encoding words).  Disassembly is
done once per code object image (cached by its SHA-256 for the life of the process).

Text shapes handled (LLVM 22's AMDGPU printer)::

    v_add_f32_e32 v1, s6, v2                          operands split at top-level commas
    global_load_dwordx4 v[4:7], v[0:1], off offset:16 trailing space-separated modifiers
    v_mov_b32_dpp v1, v2 quad_perm:[1,0,3,2] row_mask:0xf bank_mask:0xf
    v_dual_mul_f32 v1, v2, v3 :: v_dual_mov_b32 v4, 0  two VOPD halves (``pair``)
    s_cbranch_scc1 56   // ...: BF850038 <name+0x100>  branch immediates in dwords
"""

from __future__ import annotations

import hashlib
import re
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field

from ..codeobj.isa import ToolNotFoundError, amd_disassembler
from .errors import EmulatorError

_LINE = re.compile(r"^\s+(?P<text>\S.*?)\s*//\s*(?P<addr>[0-9A-Fa-f]+):(?P<hex>(?:\s+[0-9A-Fa-f]{8})+)")
MIN_LLVM = 20   # gfx950 and gfx12 need a recent LLVM; older versions misdecode them


@dataclass(frozen=True)
class Instruction:
    """One decoded instruction.

    pc: byte address in the code object's virtual address space; size: bytes (4, 8 or 12);
    op: the mnemonic as printed (``v_add_f32_e32``); operands: operand strings as printed;
    mods: trailing modifiers (``{"offset": "16", "glc": True}``); words: the encoding dwords;
    pair: the second half of a VOPD dual instruction (gfx11+), else None.
    """

    pc: int
    size: int
    op: str
    operands: tuple[str, ...]
    mods: dict = field(hash=False, compare=False)
    words: tuple[int, ...]
    text: str
    pair: "Instruction | None" = None


def split_top(text: str, sep: str = ",") -> list[str]:
    """Split ``text`` at ``sep`` outside brackets and parentheses."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    tail = "".join(cur).strip()
    if tail:
        out.append(tail)
    return out


def _split_mods(last: str) -> tuple[str | None, list[str]]:
    """The last operand and the modifiers after it (space separated, brackets kept whole)."""
    parts = split_top(last, " ")
    parts = [p for p in parts if p]
    if not parts:
        return None, []
    if _is_modifier(parts[0]):
        return None, parts
    return parts[0], parts[1:]


_BARE_MODS = {"off", "offen", "idxen", "lds", "glc", "slc", "dlc", "nt", "sc0", "sc1", "gds", "tfe", "lwe",
              "clamp", "addr64", "d16", "a16", "r128", "unorm", "da"}


_REGISTER = re.compile(r"^-?\|?(v|s|a|ttmp)(\d+|\[\d+:\d+\])")


def _is_modifier(tok: str) -> bool:
    if _REGISTER.match(tok):
        return False                # a16 is a register here, not MIMG's a16 flag
    if ":" in tok:
        return True
    return tok in _BARE_MODS - {"off"}


def parse_text(text: str) -> tuple[str, tuple[str, ...], dict]:
    """``"v_add_f32_e32 v1, s6, v2"`` -> ``("v_add_f32_e32", ("v1", "s6", "v2"), {})``."""
    text = text.strip()
    op, _, rest = text.partition(" ")
    rest = rest.strip()
    if not rest:
        return op, (), {}
    pieces = split_top(rest)
    mods: dict = {}
    last, trailing = _split_mods(pieces[-1])
    operands = pieces[:-1] + ([last] if last is not None else [])
    for m in trailing:
        key, sep, value = m.partition(":")
        mods[key] = value if sep else True
    return op, tuple(operands), mods


def _instruction(pc: int, words: tuple[int, ...], text: str) -> Instruction:
    first, sep, second = text.partition(" :: ")
    op, operands, mods = parse_text(first)
    pair = None
    if sep:
        op2, operands2, mods2 = parse_text(second)
        pair = Instruction(pc, 4 * len(words), op2, operands2, mods2, words, second)
    return Instruction(pc, 4 * len(words), op, operands, mods, words, text, pair)


def parse_listing(listing: str) -> dict[int, Instruction]:
    """Instructions of an ``llvm-objdump -d`` listing, by byte address."""
    out: dict[int, Instruction] = {}
    for line in listing.splitlines():
        m = _LINE.match(line)
        if not m:
            continue
        pc = int(m.group("addr"), 16)
        words = tuple(int(w, 16) for w in m.group("hex").split())
        out[pc] = _instruction(pc, words, m.group("text"))
    return out


class Listing:
    """The disassembly of one image: ``get(pc)`` parses an instruction's line the first time it
    is asked for (a kernel runs a small part of a multi-kernel object)."""

    def __init__(self, text: str) -> None:
        self._lines: dict[int, str] = {}
        for line in text.splitlines():
            cut = line.rfind("// ")
            if cut < 0 or not line.startswith("\t"):
                continue
            head, _, _ = line[cut + 3:].partition(":")
            try:
                self._lines[int(head, 16)] = line
            except ValueError:
                continue
        self._parsed: dict[int, Instruction] = {}

    def get(self, pc: int) -> Instruction | None:
        inst = self._parsed.get(pc)
        if inst is None:
            line = self._lines.get(pc)
            if line is None:
                return None
            m = _LINE.match(line)
            if m is None:
                return None
            inst = _instruction(pc, tuple(int(w, 16) for w in m.group("hex").split()), m.group("text"))
            self._parsed[pc] = inst
        return inst

    def __len__(self) -> int:
        return len(self._lines)

    def __iter__(self):
        return iter(sorted(self._lines))

    def items(self):
        for pc in sorted(self._lines):
            inst = self.get(pc)
            if inst is not None:
                yield pc, inst


_cache: dict[tuple[str, str], Listing] = {}
_lock = threading.Lock()
_tool: list[str] = []


def disassembler() -> str:
    """Path of an llvm-objdump that knows every AMD target we ship (LLVM >= 20); else
    ToolNotFoundError naming what to install."""
    if _tool:
        return _tool[0]
    try:
        path = amd_disassembler(min_major=MIN_LLVM)
    except ToolNotFoundError as e:
        raise ToolNotFoundError(f"the AMD emulator decodes with llvm-objdump (LLVM >= {MIN_LLVM}): {e}") from None
    _tool.append(path)
    return path


def disassemble(image: bytes, arch: str) -> Listing:
    """The instructions of an AMD ELF image for ``arch``, by byte address (cached per image)."""
    key = (hashlib.sha256(image).hexdigest(), arch)
    hit = _cache.get(key)
    if hit is not None:
        return hit
    tool = disassembler()
    with tempfile.NamedTemporaryFile(suffix=".co") as f:
        f.write(image)
        f.flush()
        proc = subprocess.run([tool, "-d", f"--mcpu={arch}", f.name], capture_output=True, text=True)
    if proc.returncode != 0:
        raise EmulatorError(f"{tool} -d --mcpu={arch} failed: {proc.stderr.strip()[:400]}")
    code = Listing(proc.stdout)
    if not len(code):
        raise EmulatorError(f"{tool} printed no instructions for this {arch} code object")
    with _lock:
        _cache[key] = code
    return code

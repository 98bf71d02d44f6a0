"""Every opcode the emulator implements (its table and the gfx10+ names mapped onto it) is
exercised by an instruction test: ``COVERS`` of each tests/test_emulate_isa_*.py module.  An
entry no test covers is either untested semantics (write the test) or an opcode no shipped arch
has (drop it from the table)."""

from __future__ import annotations

import importlib

from pyhipattn.emulate import executor  # noqa: F401  (fills the opcode table)
from pyhipattn.emulate.isa import OPS, RENAMES

MODULES = ("valu", "salu", "memory", "lds", "matrix", "control")


def _covered() -> set[str]:
    out: set[str] = set()
    for m in MODULES:
        out |= importlib.import_module(f"test_emulate_isa_{m}").COVERS
    return out


def test_every_opcode_has_an_instruction_test():
    missing = sorted((set(OPS) | set(RENAMES)) - _covered())
    assert not missing, f"{len(missing)} opcodes without an instruction test: {missing}"


def test_covers_names_only_real_entries():
    """A COVERS name the table does not know is a typo (or a test of an opcode that was dropped)."""
    unknown = sorted(_covered() - set(OPS) - set(RENAMES))
    assert not unknown, unknown

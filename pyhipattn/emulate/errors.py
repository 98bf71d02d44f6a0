"""Errors the emulator raises (all subclasses of :class:`pyhipattn.errors.PyhipattnError`)."""

from __future__ import annotations

from ..errors import PyhipattnError


class EmulatorError(PyhipattnError, RuntimeError):
    """The emulator cannot run this code object or launch (unsupported feature, bad setup)."""


class UnknownInstructionError(EmulatorError):
    """An instruction whose semantics the emulator does not implement; never guessed."""


class MemoryFault(EmulatorError):
    """A kernel touched memory outside every buffer the launch can see (an emulated GPU fault)."""


class EmulatorTimeout(EmulatorError):
    """A launch ran past its instruction budget (a kernel spinning on another workgroup, or a hang)."""

"""Run AMD code objects on the CPU: an instruction-level emulator for gfx942, gfx950, gfx11, gfx12.

    from pyhipattn.emulate import launch
    launch(code_object, "kernel", grid, block, kernarg_bytes, shared_mem)

Modules: ``loader`` (ELF segments, kernel descriptors), ``decoder`` (LLVM's disassembler),
``operands`` / ``state`` (registers), ``isa`` (the opcode table) and the semantics
(``salu``, ``valu``, ``vmem``, ``lds``, ``matrix``, ``control``), ``executor`` (waves,
scheduling, launch), ``memory`` (host memory as device memory), ``backend`` (the
``PYHIPATTN_PLATFORM=emulate`` runtime backend).
"""

from __future__ import annotations

from .errors import EmulatorError, EmulatorTimeout, MemoryFault, UnknownInstructionError
from .executor import LaunchStats, launch
from .memory import regions

__all__ = ["EmulatorError", "EmulatorTimeout", "LaunchStats", "MemoryFault", "UnknownInstructionError", "launch",
           "regions"]

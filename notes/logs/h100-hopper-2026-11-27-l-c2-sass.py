"""SASS metrics of the d64 _c2 kernel's key-block loop (issue11l, CPU only): where the ping-pong turn's bar.sync /
bar.arrive sit relative to the exponentials, and how long the paths around them are.

    python3 notes/logs/h100-hopper-2026-11-27-l-c2-sass.py CUBIN [KERNEL]   # default hopper_fwd_bf16_d64_c2

Prints, for the steady loop (c2_step with the next QK^T) and the tile's last block (the fused boundary): SASS lines from
the QK^T wait (WARPGROUP.DEPBAR) to the turn's bar.sync without / with the mask's block, the lines of the turn and what
they hold (MUFU.EX2, FFMA, FADD, FMNMX, SHFL, F2FP, FMUL), and the lines from the arrive to the first PV HGMMA with the
MUFU.EX2 among them.  cuobjdump from triton's bundled CUDA tools."""
from __future__ import annotations

import collections
import os
import re
import subprocess
import sys


def sass(cubin: str, kernel: str) -> list[tuple[int, str]]:
    """(address, instruction) of ``kernel`` in ``cubin``."""
    import triton

    tool = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/cuobjdump")
    txt = subprocess.run([tool, "-sass", "-fun", kernel, cubin], capture_output=True, text=True, check=True).stdout
    ops = []
    for line in txt.splitlines():
        m = re.match(r"\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;?\s*(/\*.*)?$", line)
        if m:
            ops.append((int(m[1], 16), m[2].rstrip(" ;")))
    return ops


def turns(ops: list[tuple[int, str]]) -> list[str]:
    """One line per turn (the first two: the steady loop's, the last block's)."""
    def opc(i: int) -> str:
        o = re.sub(r"^@!?U?P\w+\s+", "", ops[i][1]).split()[0]
        return "MUFU.EX2" if o.startswith("MUFU.EX2") else o.split(".")[0]
    out = []
    syncs = [i for i, (_, s) in enumerate(ops) if re.search(r"BAR\.SYNC\.DEFER_BLOCKING R\d+, 0x100", s)]
    for which, i in zip(("loop", "last block"), syncs[:2]):
        j = max(x for x in range(i) if "WARPGROUP.DEPBAR" in ops[x][1])
        k = next(x for x in range(i, len(ops)) if "BAR.ARV" in ops[x][1])
        h = next(x for x in range(k, len(ops)) if "HGMMA" in ops[x][1])
        br = next(x for x in range(j, i) if re.search(r"BRA 0x[0-9a-f]+$", ops[x][1]))   # around the mask's block
        skip = sum(1 for x in range(br + 1, i) if ops[x][0] < int(ops[br][1].split()[-1], 16))
        c = collections.Counter(opc(x) for x in range(i, k))
        after = sum(opc(x) == "MUFU.EX2" for x in range(k, h))
        held = ", ".join(f"{n} {c[n]}" for n in ("MUFU.EX2", "FFMA", "FADD", "FMNMX", "SHFL", "F2FP", "FMUL"))
        out.append(f"{which}: QK^T wait -> bar.sync {i - j - skip} (+{skip} mask); turn {k - i} ({held}); "
                   f"bar.arrive -> first PV HGMMA {h - k} (MUFU.EX2 {after})")
    return out


if __name__ == "__main__":
    for line in turns(sass(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "hopper_fwd_bf16_d64_c2")):
        print(line)

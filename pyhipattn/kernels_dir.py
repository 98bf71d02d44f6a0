"""Where the shipped kernels live.

Code objects: ``PYHIPATTN_KERNELS_DIR`` if set, else ``kernels/co`` of a checkout (an editable
install), else ``pyhipattn/_kernels/co`` inside an installed wheel.  Kernarg headers (the
planner reads them): ``kernels/src`` of a checkout, else ``pyhipattn/_kernels/src`` of a wheel.
"""

from __future__ import annotations

import os
from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent
CHECKOUT_KERNELS = _PACKAGE.parent / "kernels"        # a checkout / editable install
WHEEL_KERNELS = _PACKAGE / "_kernels"                  # setup.py maps kernels/ here in a wheel


def kernels_dir() -> Path:
    """The ``kernels/co`` directory; FileNotFoundError naming the places looked at."""
    env = os.environ.get("PYHIPATTN_KERNELS_DIR")
    candidates = [Path(env)] if env else []
    candidates += [CHECKOUT_KERNELS / "co", WHEEL_KERNELS / "co"]
    for c in candidates:
        if c.is_dir():
            return c
    raise FileNotFoundError(
        f"no code-object directory found (looked at {', '.join(map(str, candidates))}); "
        "reinstall pyhipattn (the wheel carries pyhipattn/_kernels/co) or set PYHIPATTN_KERNELS_DIR"
    )


def kernels_src() -> Path:
    """The kernel sources' directory (the kernarg headers under it); the checkout's path when
    neither exists, so that reading a header names where it was expected."""
    for c in (CHECKOUT_KERNELS / "src", WHEEL_KERNELS / "src"):
        if c.is_dir():
            return c
    return CHECKOUT_KERNELS / "src"


def header(relative: str) -> Path:
    """A kernarg header named as in the manifests (``kernels/src/native/native_args.h``) or
    relative to the source directory (``native/native_args.h``)."""
    rel = relative.removeprefix("kernels/src/")
    return kernels_src() / rel

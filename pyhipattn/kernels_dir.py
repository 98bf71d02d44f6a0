"""Where the shipped code objects live: ``kernels/co/<arch>/`` beside the package (an
editable install or a checkout), or ``PYHIPATTN_KERNELS_DIR``."""

from __future__ import annotations

import os
from pathlib import Path


def kernels_dir() -> Path:
    """The ``kernels/co`` directory; FileNotFoundError naming the places looked at."""
    env = os.environ.get("PYHIPATTN_KERNELS_DIR")
    candidates = [Path(env)] if env else []
    candidates.append(Path(__file__).resolve().parent.parent / "kernels" / "co")
    for c in candidates:
        if c.is_dir():
            return c
    raise FileNotFoundError(
        f"no code-object directory found (looked at {', '.join(map(str, candidates))}); "
        "install pyhipattn from a checkout (pip install -e .) or set PYHIPATTN_KERNELS_DIR"
    )

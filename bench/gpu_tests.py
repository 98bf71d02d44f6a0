"""The GPU test modules (tests/gpu/test_*.py) as libraries for the dev scripts (hopper_dev.py, hopper_varlen_dev.py):
their cases and checkers.  tests/gpu goes on sys.path, as pytest puts it, so the modules' own imports of their
helpers there (hopper_launch.py) resolve."""

from __future__ import annotations

import importlib
import os
import sys
from types import ModuleType

GPU_TESTS = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "gpu"))


def load(name: str) -> ModuleType:
    """tests/gpu/``name``.py, imported (once) as module ``name``."""
    if GPU_TESTS not in sys.path:
        sys.path.insert(0, GPU_TESTS)
    return importlib.import_module(name)

"""Exceptions raised by pyhipattn.

Every failure is a Python exception that names the argument (or file) and what is accepted;
nothing aborts the process.  The classes subclass the builtin a caller would expect
(``ValueError`` for bad input, ``RuntimeError`` for driver/platform problems) so that generic
``except ValueError`` code keeps working.
"""

from __future__ import annotations


class PyhipattnError(Exception):
    """Base class of every exception pyhipattn raises on purpose."""


class CodeObjectError(PyhipattnError, ValueError):
    """A file or byte string is not a usable code object (truncated, corrupt, wrong kind)."""


class ArchNotFoundError(CodeObjectError):
    """A bundle (or directory) holds no entry for the requested architecture."""


class KernargMismatchError(PyhipattnError, ValueError):
    """A kernel's argument layout (from its metadata) differs from the declared struct."""


class PlatformError(PyhipattnError, RuntimeError):
    """No usable GPU platform (driver, bindings or device) for the requested operation."""


class DriverError(PyhipattnError, RuntimeError):
    """A HIP / CUDA driver call returned an error status; the message carries the driver's."""

    def __init__(self, call: str, status: int, message: str) -> None:
        super().__init__(f"{call} failed with status {status}: {message}")
        self.call = call
        self.status = status


class UnsupportedError(PyhipattnError, ValueError):
    """The request is valid but no kernel family can run it (every gate refused)."""


class GraphCaptureError(PyhipattnError, RuntimeError):
    """A call cannot be captured into a CUDA / HIP graph as it is (the message says why and what to do)."""

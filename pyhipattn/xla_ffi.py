"""XLA FFI handlers written in Python: how ``jax.jit`` calls pyhipattn's kernels with no compiler.

XLA's typed FFI calls a C function ``XLA_FFI_Error* handler(XLA_FFI_CallFrame*)`` for every
custom call it executes.  ``make_handler(execute)`` builds that function with ctypes
(``CFUNCTYPE``: a trampoline libffi makes at run time, no C compiler anywhere) and wraps it in
the PyCapsule that ``jax.ffi.register_ffi_target`` takes.  When XLA runs the call, the
trampoline takes the GIL and calls ``execute(call)`` with the decoded frame (``FfiCall``: the
data pointers of the argument and result buffers, its one string attribute, XLA's stream and
the device ordinal); an exception becomes an XLA error carrying its message, so a bad call fails
the JAX computation with a Python-readable error instead of a crash.

The C structs are read with ``struct.unpack_from`` on raw memory at the offsets XLA's public
header ``xla/ffi/api/c_api.h`` (API 0.x, shipped in jaxlib's wheel under ``jaxlib/include``)
gives for a 64-bit little-endian platform; they are spelled out below, one line per field.
Handlers answer XLA's metadata query with API version 0.1 (the oldest whose call frame this
decodes) and the traits given (``COMMAND_BUFFER_COMPATIBLE``: XLA may trace the call into a
CUDA / HIP graph).

Per call this costs a few microseconds of Python (3-7 us measured on the H100's host): one read
of the frame, one per buffer, four for the attribute, and the driver-facing calls of ``execute``.

Run on hardware: tests/gpu/test_jax_gpu.py (H100); tests/test_jax_ffi.py runs the decoding
on JAX's CPU platform.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from typing import Callable

#: XLA_FFI_Handler_TraitsBits
COMMAND_BUFFER_COMPATIBLE = 1
#: XLA_FFI_Error_Code values used here
ERROR_INVALID_ARGUMENT, ERROR_INTERNAL = 3, 13
_STAGE_EXECUTE = 3
_EXTENSION_METADATA = 1
_ATTR_STRING = 4
#: the API version the handlers declare (major, minor): the call frame below is that version's
API_VERSION = (0, 1)

# XLA_FFI_CallFrame: struct_size, extension_start, api, ctx, stage (+4 pad),
#   args  {struct_size, extension_start, size, types*, args*},
#   rets  {struct_size, extension_start, size, types*, rets*},
#   attrs {struct_size, extension_start, size, types*, names*, attrs*}, future
_FRAME = struct.Struct("<QQQQi4x" "QQqQQ" "QQqQQ" "QQqQQQ" "Q")
# XLA_FFI_Buffer: struct_size, extension_start, dtype (+4 pad), data, rank, dims*
_BUFFER = struct.Struct("<QQi4xQqQ")
_DATA_AT = 24
# XLA_FFI_ByteSpan: ptr, len
_SPAN = struct.Struct("<QQ")
_INT = struct.Struct("<i").unpack_from
# XLA_FFI_Extension_Base: struct_size, type (+4 pad), next;  XLA_FFI_Metadata_Extension adds metadata*
_EXTENSION = struct.Struct("<Qi4xQQ")
# XLA_FFI_Metadata: struct_size, api_version {struct_size, extension_start, major, minor}, traits
_METADATA_VERSION_AT, _METADATA_TRAITS_AT = 24, 32
# XLA_FFI_Api: struct_size, extension_start, api_version (24 bytes), internal_api, then function pointers
_API_FN = {"Error_Create": 48, "Stream_Get": 80, "DeviceOrdinal_Get": 184}
# argument structs of those functions (struct_size = offset of the last field + its size)
_ERROR_ARGS = struct.Struct("<QQQi4x")           # struct_size 28: message, errc
_STREAM_ARGS = struct.Struct("<QQQQ")            # struct_size 32: ctx, stream (out)
_ORDINAL_ARGS = struct.Struct("<QQQi4x")         # struct_size 28: ctx, device_ordinal (out)

_HANDLER_TYPE = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)
_API_CALL = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_void_p)   # XLA_FFI_Error* f(Args*)
#: The process's address space as one byte buffer: ``Struct.unpack_from(MEMORY, address)``
#: reads a C struct in one C call (no ctypes foreign call, no bytes object), about 3x cheaper
#: than ``unpack(ctypes.string_at(...))``.  Only addresses XLA hands the handler are read.
MEMORY = memoryview((ctypes.c_char * (1 << 47)).from_address(0)).cast("B")
_WORD = struct.Struct("<Q").unpack_from


def _word(address: int) -> int:
    return _WORD(MEMORY, address)[0]


def _bytes(address: int, n: int) -> bytes:
    return MEMORY[address:address + n].tobytes()


class FfiCall:
    """One decoded call frame: ``args`` / ``rets`` are the buffers' data pointers (ints, in the
    custom call's operand / result order); ``dims`` (the argument shapes) is decoded on first
    use; ``string_attr()`` reads the value of the call's only attribute."""

    __slots__ = ("api", "ctx", "args", "rets", "_buffers", "_attrs", "_dims")

    def __init__(self, api: int, ctx: int, args: list[int], rets: list[int], buffers: tuple, attrs: tuple) -> None:
        self.api, self.ctx, self.args, self.rets = api, ctx, args, rets
        self._buffers, self._attrs, self._dims = buffers, attrs, None

    @property
    def dims(self) -> list[tuple[int, ...]]:
        if self._dims is None:
            dims = []
            for b in self._buffers:
                _, _, _, _, rank, dims_at = _BUFFER.unpack_from(MEMORY, b)
                dims.append(struct.unpack_from(f"<{rank}q", MEMORY, dims_at) if rank else ())
            self._dims = dims
        return self._dims

    def string_attr(self) -> bytes | None:
        """The value of the call's attribute when it has exactly one and it is a string, else None."""
        n, types, _, attrs = self._attrs
        if n != 1 or _INT(MEMORY, types)[0] != _ATTR_STRING:
            return None
        ptr, length = _SPAN.unpack_from(MEMORY, _word(attrs))
        return _bytes(ptr, length)

    def stream(self) -> int:
        """XLA's stream for this call (``XLA_FFI_Stream_Get``), as an int handle."""
        return _Api.of(self.api).stream(self.ctx)

    def device(self) -> int | None:
        """The device ordinal XLA runs this call on, or None when the API is too old to say."""
        return _Api.of(self.api).device(self.ctx)


class _Api:
    """The XLA_FFI_Api functions a handler calls, bound once per API table."""

    _tables: dict[int, "_Api"] = {}
    _lock = threading.Lock()

    def __init__(self, api: int) -> None:
        size = _word(api)
        fn = {name: _API_CALL(_word(api + off)) for name, off in _API_FN.items() if off + 8 <= size}
        self.error_create = fn["Error_Create"]
        self.stream_get = fn["Stream_Get"]
        self.ordinal_get = fn.get("DeviceOrdinal_Get")
        self.local = threading.local()

    @classmethod
    def of(cls, api: int) -> "_Api":
        t = cls._tables.get(api)
        if t is None:
            with cls._lock:
                t = cls._tables.setdefault(api, _Api(api))
        return t

    def _scratch(self) -> ctypes.Array:
        buf = getattr(self.local, "buf", None)
        if buf is None:
            buf = self.local.buf = ctypes.create_string_buffer(32)
        return buf

    def _call(self, fn, layout: struct.Struct, size: int, ctx: int) -> ctypes.Array:
        buf = self._scratch()
        layout.pack_into(buf, 0, size, 0, ctx, 0)
        err = fn(ctypes.addressof(buf))
        if err:
            raise RuntimeError("XLA FFI call failed")
        return buf

    def stream(self, ctx: int) -> int:
        return _STREAM_ARGS.unpack_from(self._call(self.stream_get, _STREAM_ARGS, 32, ctx))[3]

    def device(self, ctx: int) -> int | None:
        if self.ordinal_get is None:
            return None
        return _ORDINAL_ARGS.unpack_from(self._call(self.ordinal_get, _ORDINAL_ARGS, 28, ctx))[3]

    def error(self, message: str, code: int) -> int:
        text = ctypes.create_string_buffer(message.encode("utf-8", "replace"))
        args = ctypes.create_string_buffer(32)
        _ERROR_ARGS.pack_into(args, 0, 28, 0, ctypes.addressof(text), code)
        return self.error_create(ctypes.addressof(args)) or 0


_ARRAYS = [struct.Struct(f"<{n}Q").unpack_from for n in range(17)]


def _pointers(array: int, n: int) -> tuple:
    if n < len(_ARRAYS):
        return _ARRAYS[n](MEMORY, array) if n else ()
    return struct.unpack_from(f"<{n}Q", MEMORY, array)


def decode(frame: int) -> FfiCall | None:
    """The FfiCall of an execute-stage call frame at address ``frame``; None for other stages.
    Reads the frame, the two pointer arrays and one word per buffer (its data pointer)."""
    f = _FRAME.unpack_from(MEMORY, frame)
    (_, _, api, ctx, stage, _, _, nargs, _, args, _, _, nrets, _, rets, _, _, nattrs, types, names, attrs, _) = f
    if stage != _STAGE_EXECUTE:
        return None
    buffers = _pointers(args, nargs)
    data = [_WORD(MEMORY, b + _DATA_AT)[0] for b in buffers]
    out = [_WORD(MEMORY, b + _DATA_AT)[0] for b in _pointers(rets, nrets)]
    return FfiCall(api, ctx, data, out, buffers, (nattrs, types, names, attrs))


def _answer_metadata(frame: int, traits: int) -> bool:
    """Fill XLA's metadata query (API version, traits) if the frame carries one."""
    ext = _word(frame + 8)
    while ext:
        _, kind, nxt, metadata = _EXTENSION.unpack_from(MEMORY, ext)
        if kind == _EXTENSION_METADATA and metadata:
            struct.pack_into("<ii", MEMORY, metadata + _METADATA_VERSION_AT, *API_VERSION)
            struct.pack_into("<I", MEMORY, metadata + _METADATA_TRAITS_AT, traits)
            return True
        ext = nxt
    return False


class Handler:
    """A ctypes XLA FFI handler around ``execute(call: FfiCall) -> None``.

    ``capsule()`` is what ``jax.ffi.register_ffi_target(name, ..., platform=...)`` takes.  The
    object must live as long as XLA may call it (keep it in a module global).  Exceptions of
    ``execute`` become XLA errors: ValueError / TypeError as INVALID_ARGUMENT, others INTERNAL;
    ``errors`` counts them and ``calls`` counts executions (a call XLA replays from a command
    buffer does not reach the handler: tests and benchmarks read the difference).
    """

    def __init__(self, execute: Callable[[FfiCall], None], *, traits: int = 0) -> None:
        self.execute, self.traits, self.errors, self.calls = execute, traits, 0, 0
        self.function = _HANDLER_TYPE(self._call)
        self.address = ctypes.cast(self.function, ctypes.c_void_p).value

    def _call(self, frame: int) -> int | None:
        try:
            if _word(frame + 8) and _answer_metadata(frame, self.traits):
                return None
            call = decode(frame)
            if call is not None:
                self.calls += 1
                self.execute(call)
            return None
        except BaseException as e:   # nothing may unwind into XLA's C++ frames
            self.errors += 1
            try:
                api = _word(frame + 16)
                code = ERROR_INVALID_ARGUMENT if isinstance(e, (ValueError, TypeError)) else ERROR_INTERNAL
                return _Api.of(api).error(f"{type(e).__name__}: {e}", code) if api else None
            except BaseException:
                return None

    def capsule(self) -> object:
        new = ctypes.pythonapi.PyCapsule_New
        new.restype, new.argtypes = ctypes.py_object, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return new(self.address, None, None)

"""Clang offload bundles: ``__CLANG_OFFLOAD_BUNDLE__`` and compressed ``CCOB`` wrappers.

Uncompressed (all integers u64 little-endian)::

    "__CLANG_OFFLOAD_BUNDLE__"  count  { offset  size  id_length  id }*count  payloads...

Compressed (llvm/lib/Object/OffloadBundle.cpp, ``RawCompressedBundleHeader``)::

    v1: "CCOB" u16 version u16 method u32 uncompressed_size               u64 hash   (20 B)
    v2: "CCOB" u16 version u16 method u32 total_size u32 uncompressed_size u64 hash  (24 B)
    v3: "CCOB" u16 version u16 method u64 total_size u64 uncompressed_size u64 hash  (32 B)

``method`` is llvm::compression::Format: 0 zlib, 1 zstd.  ``total_size`` (header included)
bounds the compressed payload; v1 has none, so its payload runs to the end of the data.
``hash`` is the low 64 bits of the MD5 of the uncompressed bundle, checked here.
The payload is an uncompressed bundle.
"""

from __future__ import annotations

import struct

from ..errors import CodeObjectError

BUNDLE_MAGIC = b"__CLANG_OFFLOAD_BUNDLE__"
CCOB_MAGIC = b"CCOB"
_CCOB_HEADERS = {1: struct.Struct("<4sHHIQ"), 2: struct.Struct("<4sHHIIQ"), 3: struct.Struct("<4sHHQQQ")}
_METHODS = {0: "zlib", 1: "zstd"}


def is_bundle(data: bytes) -> bool:
    return data.startswith(BUNDLE_MAGIC) or data.startswith(CCOB_MAGIC)


def unbundle(data: bytes, source: str = "<bytes>") -> list[tuple[str, bytes]]:
    """``(entry id, payload)`` for every entry, in header order; CCOB data is decompressed.

    A CCOB file may hold several compressed bundles back to back (each ``total_size`` long);
    their entries are concatenated.
    """
    if not data.startswith(CCOB_MAGIC):
        return _read_bundle(data, source)
    entries: list[tuple[str, bytes]] = []
    pos = 0
    while pos < len(data):
        if not data.startswith(CCOB_MAGIC, pos):
            if not any(data[pos:]):  # zero padding after the last bundle
                break
            raise CodeObjectError(
                f"{source} has {len(data) - pos} unexpected bytes after a compressed bundle at offset {pos}"
            )
        inner, used = _decompress(data, pos, source)
        entries += _read_bundle(inner, f"{source} (compressed bundle at offset {pos})")
        pos += used
    return entries


def _decompress(data: bytes, pos: int, source: str) -> tuple[bytes, int]:
    """Decompress the CCOB at ``pos``; returns (bundle bytes, bytes consumed)."""
    if len(data) - pos < 8:
        raise CodeObjectError(f"{source} has a truncated compressed bundle header (CCOB) at offset {pos}")
    version, method = struct.unpack_from("<HH", data, pos + 4)
    hdr = _CCOB_HEADERS.get(version)
    if hdr is None:
        raise CodeObjectError(
            f"{source} has compressed bundle version {version}; versions 1, 2 and 3 are accepted"
        )
    if len(data) - pos < hdr.size:
        raise CodeObjectError(f"{source} has a truncated CCOB v{version} header ({len(data) - pos} of {hdr.size} bytes)")
    if version == 1:
        _m, _v, _meth, usize, digest = hdr.unpack_from(data, pos)
        total = len(data) - pos
    else:
        _m, _v, _meth, total, usize, digest = hdr.unpack_from(data, pos)
        if total < hdr.size or pos + total > len(data):
            raise CodeObjectError(
                f"{source} is truncated: its CCOB header says {total} bytes, {len(data) - pos} are present"
            )
    payload = data[pos + hdr.size:pos + total]
    if method not in _METHODS:
        raise CodeObjectError(
            f"{source} uses compression method {method}; 0 (zlib) and 1 (zstd) are accepted"
        )
    try:
        if method == 0:
            import zlib

            out = zlib.decompress(payload)
        else:
            import zstandard

            out = zstandard.ZstdDecompressor().decompress(payload, max_output_size=usize)
    except Exception as e:  # zlib.error / zstandard.ZstdError, with a library message
        raise CodeObjectError(
            f"{source}: {_METHODS[method]} payload of the compressed bundle does not decompress ({e})"
        ) from None
    if len(out) != usize:
        raise CodeObjectError(f"{source}: compressed bundle expands to {len(out)} bytes, its header says {usize}")
    import hashlib

    if int.from_bytes(hashlib.md5(out).digest()[:8], "little") != digest:
        raise CodeObjectError(f"{source}: compressed bundle content does not match its MD5 hash (corrupt file)")
    return out, total


def _read_bundle(data: bytes, source: str) -> list[tuple[str, bytes]]:
    if not data.startswith(BUNDLE_MAGIC):
        raise CodeObjectError(f"{source} is not a clang offload bundle (no {BUNDLE_MAGIC.decode()} magic)")
    pos = len(BUNDLE_MAGIC)

    def u64() -> int:
        nonlocal pos
        if pos + 8 > len(data):
            raise CodeObjectError(f"{source} has a truncated offload bundle header (ends at byte {len(data)})")
        (v,) = struct.unpack_from("<Q", data, pos)
        pos += 8
        return v

    count = u64()
    # Each entry header needs at least 24 bytes: reject absurd counts before looping.
    if count * 24 > len(data) - pos:
        raise CodeObjectError(f"{source} has a corrupt offload bundle header: {count} entries in {len(data)} bytes")
    entries = []
    for i in range(count):
        offset, size, id_len = u64(), u64(), u64()
        if pos + id_len > len(data):
            raise CodeObjectError(f"{source} has a corrupt offload bundle header: entry {i} id runs past the end")
        entry_id = data[pos:pos + id_len].decode("utf-8", "replace")
        pos += id_len
        if offset + size > len(data):
            raise CodeObjectError(
                f"{source} is truncated or corrupt: bundle entry {entry_id!r} spans bytes "
                f"{offset}..{offset + size} of {len(data)}"
            )
        entries.append((entry_id, data[offset:offset + size]))
    return entries

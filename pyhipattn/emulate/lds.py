"""LDS (DS) instructions and the DS lane permutes.

Each workgroup owns one slice of ``Machine.lds``; a wave's DS address is an offset in its
workgroup's slice.  Only executing lanes touch LDS (an inactive lane's address is never
used); accesses past the LDS size read 0 and write nothing, as on the hardware.

Facts the tests pin down: D16 loads keep the other half of the register (``_d16`` writes the
low half, ``_d16_hi`` the high half); ``read2`` / ``write2`` scale offset0/offset1 by the
element size (by 64 elements for ``st64``); ``ds_bpermute_b32`` reads lane
``(addr / 4) mod wave`` (the lane index wraps) and gives 0 when that lane is inactive;
``ds_permute_b32`` writes lane ``(addr / 4) mod wave``, later lanes winning, 0 where nothing
arrives; ``ds_swizzle_b32`` permutes within 32-lane groups (bitmask mode: and, or, xor; quad
mode: 2-bit selectors).
"""

from __future__ import annotations

import re

import numpy as np

from .errors import UnknownInstructionError
from .isa import U32, Step, base_name, mod_int, op, operands, raw_reader, v_regs
from .vmem import get_stored, put_loaded

_READ = {"ds_read_b32": (4, ""), "ds_read_b64": (8, ""), "ds_read_b96": (12, ""), "ds_read_b128": (16, ""),
         "ds_read_u8": (1, "u"), "ds_read_i8": (1, "i"), "ds_read_u16": (2, "u"), "ds_read_i16": (2, "i"),
         "ds_read_u16_d16": (2, "d16"), "ds_read_u16_d16_hi": (2, "d16_hi"),
         "ds_read_u8_d16": (1, "d16"), "ds_read_u8_d16_hi": (1, "d16_hi")}
_WRITE = {"ds_write_b32": (4, ""), "ds_write_b64": (8, ""), "ds_write_b96": (12, ""), "ds_write_b128": (16, ""),
          "ds_write_b8": (1, ""), "ds_write_b16": (2, ""), "ds_write_b16_d16_hi": (2, "hi"),
          "ds_write_b8_d16_hi": (1, "hi")}


def _lds_index(m, mask, addr_reader, offset, nbytes):
    """(flat LDS byte indices (n, nbytes), in-range (n,)) for the executing lanes."""
    a = np.broadcast_to(addr_reader(m), (m.nw, m.L))[mask].astype(np.int64) + offset
    ok = (a >= 0) & (a + nbytes <= m.lds_bytes)
    base = np.broadcast_to(m.lds_base, (m.nw, m.L))[mask]
    return (base + np.where(ok, a, 0))[:, None] + np.arange(nbytes), ok


def _lds_read(m, mask, addr, offset, nbytes):
    idx, ok = _lds_index(m, mask, addr, offset, nbytes)
    data = m.lds[idx]
    data[~ok] = 0
    return data


def _lds_write(m, mask, addr, offset, data):
    idx, ok = _lds_index(m, mask, addr, offset, data.shape[1])
    m.lds[idx[ok]] = data[ok]


def _load_operands(inst):
    """(register file name, first register, address reader, offset) of a DS load."""
    ops = operands(inst)
    return v_regs(ops[0]), ops[0].index, raw_reader(ops[1]), mod_int(inst, "offset")


def _read(inst, ctx):
    nbytes, ext = _READ[base_name(inst.op)]
    regs, i, addr, offset = _load_operands(inst)

    def run(m):
        mask, _ = m.lanes()
        put_loaded(m, getattr(m, regs), i, _lds_read(m, mask, addr, offset, nbytes), mask, ext)
    return Step(inst, run)


def _write(inst, ctx):
    nbytes, ext = _WRITE[base_name(inst.op)]
    ops = operands(inst)
    addr = raw_reader(ops[0])
    data_op = ops[1]
    offset = mod_int(inst, "offset")
    regs, i = v_regs(data_op), data_op.index

    def run(m):
        mask, _ = m.lanes()
        _lds_write(m, mask, addr, offset, get_stored(m, getattr(m, regs), i, nbytes, mask, ext))
    return Step(inst, run)


for _n in _READ:
    op(_n)(_read)
for _n in _WRITE:
    op(_n)(_write)


@op("ds_read2_b32", "ds_read2_b64", "ds_read2st64_b32", "ds_read2st64_b64")
def _read2(inst, ctx):
    name = base_name(inst.op)
    size = 8 if name.endswith("b64") else 4
    scale = size * (64 if "st64" in name else 1)
    ops = operands(inst)
    dst = ops[0]
    addr = raw_reader(ops[1])
    o0, o1 = mod_int(inst, "offset0") * scale, mod_int(inst, "offset1") * scale
    regs, i = v_regs(dst), dst.index
    words = size // 4

    def run(m):
        mask, _ = m.lanes()
        rf = getattr(m, regs)
        first, second = _lds_read(m, mask, addr, o0, size), _lds_read(m, mask, addr, o1, size)
        put_loaded(m, rf, i, first, mask, "")           # both read before either write: the
        put_loaded(m, rf, i + words, second, mask, "")  # address register may be a destination
    return Step(inst, run)


@op("ds_write2_b32", "ds_write2_b64", "ds_write2st64_b32", "ds_write2st64_b64")
def _write2(inst, ctx):
    name = base_name(inst.op)
    size = 8 if name.endswith("b64") else 4
    scale = size * (64 if "st64" in name else 1)
    ops = operands(inst)
    addr = raw_reader(ops[0])
    d0, d1 = ops[1], ops[2]
    o0, o1 = mod_int(inst, "offset0") * scale, mod_int(inst, "offset1") * scale

    def run(m):
        mask, _ = m.lanes()
        _lds_write(m, mask, addr, o0, get_stored(m, getattr(m, v_regs(d0)), d0.index, size, mask, ""))
        _lds_write(m, mask, addr, o1, get_stored(m, getattr(m, v_regs(d1)), d1.index, size, mask, ""))
    return Step(inst, run)


# ---- lane permutes through the LDS crossbar ------------------------------------------------------

@op("ds_bpermute_b32", "ds_permute_b32")
def _permute(inst, ctx):
    ops = operands(inst)
    dst, addr, data = ops[0], raw_reader(ops[1]), raw_reader(ops[2])
    offset = mod_int(inst, "offset")
    backward = base_name(inst.op) == "ds_bpermute_b32"
    regs, i = v_regs(dst), dst.index

    def run(m):
        mask, _ = m.lanes()
        lane = ((np.broadcast_to(addr(m), (m.nw, m.L)).astype(np.int64) + offset) >> 2) % m.L
        val = np.broadcast_to(data(m), (m.nw, m.L))
        if backward:
            out = np.take_along_axis(val, lane, axis=1)
            out = np.where(np.take_along_axis(mask, lane, axis=1), out, U32(0))
        else:
            out = np.zeros((m.nw, m.L), U32)
            for w in np.nonzero(mask.any(axis=1))[0]:
                src_lanes = np.nonzero(mask[w])[0]
                out[w, lane[w, src_lanes]] = val[w, src_lanes]    # later lanes win
        m.write_v(getattr(m, regs), i, out)
    return Step(inst, run)


_SWZ = re.compile(r"swizzle\((\w+)(?:,([^)]*))?\)")


def swizzle_sources(offset_text: str, wave: int) -> np.ndarray:
    """The source lane of every lane for a ds_swizzle offset (raw number or LLVM's swizzle(...))."""
    lanes = np.arange(wave)
    m = _SWZ.fullmatch(offset_text.strip()) if isinstance(offset_text, str) else None
    if m:
        mode = m.group(1)
        args = [a.strip().strip('"') for a in (m.group(2) or "").split(",") if a.strip()]
        if mode == "QUAD_PERM":
            sel = [int(a) for a in args]
            return (lanes & ~3) | np.array(sel)[lanes & 3]
        if mode == "SWAP":
            and_m, or_m, xor_m = 0x1F, 0, int(args[0])
        elif mode == "REVERSE":
            and_m, or_m, xor_m = 0x1F, 0, int(args[0]) - 1
        elif mode == "BROADCAST":
            size, lane = int(args[0]), int(args[1])
            and_m, or_m, xor_m = 0x1F & ~(size - 1), lane, 0
        elif mode == "BITMASK_PERM":
            pat = args[0]                       # 5 chars, MSB first: 0 1 p (preserve) i (invert)
            and_m = or_m = xor_m = 0
            for k, ch in enumerate(reversed(pat)):
                bit = 1 << k
                if ch == "p":
                    and_m |= bit
                elif ch == "i":
                    and_m |= bit
                    xor_m |= bit
                elif ch == "1":
                    or_m |= bit
        else:
            raise UnknownInstructionError(f"ds_swizzle mode {mode}")
    else:
        raw = int(offset_text, 0)
        if raw & 0x8000:
            sel = [(raw >> (2 * k)) & 3 for k in range(4)]
            return (lanes & ~3) | np.array(sel)[lanes & 3]
        and_m, or_m, xor_m = raw & 0x1F, (raw >> 5) & 0x1F, (raw >> 10) & 0x1F
    return (lanes & ~31) | ((((lanes & 31) & and_m) | or_m) ^ xor_m)


@op("ds_swizzle_b32")
def _swizzle(inst, ctx):
    ops = operands(inst)
    dst, data = ops[0], raw_reader(ops[1])
    srcl = swizzle_sources(str(inst.mods.get("offset", "0")), ctx.wave)
    regs, i = v_regs(dst), dst.index

    def run(m):
        mask, _ = m.lanes()
        val = np.broadcast_to(data(m), (m.nw, m.L))[:, srcl]
        out = np.where(mask[:, srcl], val, U32(0))
        m.write_v(getattr(m, regs), i, out)
    return Step(inst, run)


@op("ds_read_b64_tr_b16")
def _read_tr16(inst, ctx):
    """gfx950 transposing LDS load: see ``transpose_b64_b16``."""
    regs, i, addr, offset = _load_operands(inst)

    def run(m):
        mask, _ = m.lanes()
        loaded = np.zeros((m.nw, m.L, 8), np.uint8)          # inactive lanes load nothing (zeros)
        loaded[mask] = _lds_read(m, mask, addr, offset, 8)
        out = transpose_b64_b16(loaded.reshape(m.nw, m.L, 4, 2)).reshape(m.nw, m.L, 8)
        put_loaded(m, getattr(m, regs), i, out[mask], mask, "")
    return Step(inst, run)


def transpose_b64_b16(data: np.ndarray) -> np.ndarray:
    """``(waves, lanes, 4, 2)`` loaded b16 elements -> the transposed result, per 16-lane block:
    the 16 lanes' loads form 4 rows of 16 elements (lanes 4r .. 4r + 3 hold row r in order), and
    lane ``i`` receives column ``i``: its element ``e`` is element ``i % 4`` of lane ``4 e + i // 4``."""
    nw, L = data.shape[:2]
    blk = data.reshape(nw, L // 16, 4, 4, 4, 2)   # (wave, block, row e, lane-in-row c, element t, byte)
    # result lane i = 4 c + t (column), element e
    out = blk.transpose(0, 1, 3, 4, 2, 5)           # (wave, block, c, t, e, byte)
    return out.reshape(nw, L, 4, 2)

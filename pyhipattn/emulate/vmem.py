"""Memory instructions that reach device memory: SMEM (s_load), FLAT / GLOBAL, MUBUF (buffer).

Loads and stores complete at once (the emulator is stricter than the hardware's ordering, so
s_waitcnt is a no-op).  Only executing lanes touch memory.  Addresses:

- ``s_load_*  sdst, sbase, soffset|imm [offset:N]``: sbase (pair) + offset, dword aligned;
- ``global_*  ..., vaddr(64), off``: vaddr + offset; ``global_* ..., vaddr(32), saddr``:
  saddr + zero-extended vaddr + offset; ``flat_*``: vaddr + offset (CDNA FLAT with SADDR off
  has no scalar base);
- ``buffer_* vdata, vaddr, srsrc, soffset [offen] [idxen] [offset:N] [lds]``: base (48 bits of
  the V#) + soffset + (vaddr when offen) + offset, plus index * stride with idxen.  Raw
  buffers (stride 0) check ``soffset + voffset + offset + 4k + 4 <= num_records`` for each
  dword k (soffset included): out-of-range dwords load 0 and are not stored.  ``lds`` loads
  write LDS at M0 + offset + lane * size instead of VGPRs.
- Atomics return the old value when the instruction prints a destination (glc on gfx9/11,
  sc0 on gfx940+, th:TH_ATOMIC_RETURN on gfx12), lanes in order.
"""

from __future__ import annotations

import numpy as np

from .errors import UnknownInstructionError
from .isa import I64, U32, U64, Step, base_name, mod_int, op, operands, raw_reader, reader64, v_regs
from .operands import M0, Operand

# name -> (bytes, kind) with kind "u" (zero extend), "i" (sign extend), "d16", "d16_hi", "" (dwords)
LOADS = {"dword": (4, ""), "dwordx2": (8, ""), "dwordx3": (12, ""), "dwordx4": (16, ""),
         "ubyte": (1, "u"), "sbyte": (1, "i"), "ushort": (2, "u"), "sshort": (2, "i"),
         "short_d16": (2, "d16"), "short_d16_hi": (2, "d16_hi"), "ubyte_d16": (1, "d16"),
         "ubyte_d16_hi": (1, "d16_hi")}
STORES = {"dword": (4, ""), "dwordx2": (8, ""), "dwordx3": (12, ""), "dwordx4": (16, ""),
          "byte": (1, ""), "short": (2, ""), "short_d16_hi": (2, "hi"), "byte_d16_hi": (1, "hi")}


def _addr_vec(m, mask, vaddr, saddr, offset, wide):
    """(lanes,) uint64 addresses of the executing lanes."""
    if saddr is None:
        a = vaddr(m)
        a = np.broadcast_to(a, (m.nw, m.L))[mask]
        return (a.astype(U64) + U64(offset & 0xFFFFFFFFFFFFFFFF)) if offset >= 0 else a.astype(U64) - U64(-offset)
    base = np.broadcast_to(saddr(m), (m.nw, 1))
    v = np.broadcast_to(vaddr(m), (m.nw, m.L)).astype(U64)
    a = (base + v)[mask]
    return a + U64(offset) if offset >= 0 else a - U64(-offset)


def put_loaded(m, regs, index, data: np.ndarray, mask: np.ndarray, kind: str) -> None:
    """Scatter ``(n, bytes)`` loaded data into registers starting at ``index`` for ``mask``'s lanes."""
    n, nbytes = data.shape
    if kind == "":
        words = np.ascontiguousarray(data).view(U32).reshape(n, nbytes // 4)
        for k in range(nbytes // 4):
            regs[index + k][mask] = words[:, k]
        return
    val = np.zeros(n, U32)
    for b in range(nbytes):
        val |= data[:, b].astype(U32) << U32(8 * b)
    if kind == "i":
        bits = 8 * nbytes
        val = np.where(val & U32(1 << (bits - 1)), val | U32((0xFFFFFFFF << bits) & 0xFFFFFFFF), val)
    if kind in ("u", "i"):
        regs[index][mask] = val
    elif kind == "d16":
        regs[index][mask] = (regs[index][mask] & U32(0xFFFF0000)) | val
    else:
        regs[index][mask] = (regs[index][mask] & U32(0xFFFF)) | (val << U32(16))


def get_stored(m, regs, index, nbytes: int, mask: np.ndarray, kind: str) -> np.ndarray:
    """``(n, nbytes)`` uint8 data of the registers at ``index`` for ``mask``'s lanes."""
    if nbytes >= 4:
        words = np.stack([regs[index + k][mask] for k in range(nbytes // 4)], axis=1)
        return np.ascontiguousarray(words).view(np.uint8).reshape(-1, nbytes)
    v = regs[index][mask]
    if kind == "hi":
        v = v >> U32(16)
    return np.ascontiguousarray(v).view(np.uint8).reshape(-1, 4)[:, :nbytes]


# ---- SMEM ---------------------------------------------------------------------------------------

_SLOAD = {"s_load_dword": 1, "s_load_dwordx2": 2, "s_load_dwordx3": 3, "s_load_dwordx4": 4,
          "s_load_dwordx8": 8, "s_load_dwordx16": 16}


@op(*_SLOAD)
def _s_load(inst, ctx):
    n = _SLOAD[base_name(inst.op)]
    ops = operands(inst)
    dst, base = ops[0], reader64(ops[1])
    off = raw_reader(ops[2]) if len(ops) > 2 else (lambda m: U32(0))
    imm = mod_int(inst, "offset")
    d = dst.index

    def run(m):
        act = m.act
        addr = np.broadcast_to(base(m), (m.nw, 1))[:, 0] + np.broadcast_to(off(m), (m.nw, 1))[:, 0].astype(U64)
        addr = (addr + U64(imm & 0xFFFFFFFF) if imm >= 0 else addr - U64(-imm)) & ~U64(3)
        data = m.mem.read(addr[act], 4 * n)
        words = np.ascontiguousarray(data).view(U32).reshape(-1, n)
        m.S[act, d:d + n] = words
        if d + n > 126:
            m.exec_changed()
    return Step(inst, run)


# ---- FLAT / GLOBAL ------------------------------------------------------------------------------

def _global_parts(inst, ops_addr: list[Operand]):
    vaddr_op = ops_addr[0]
    saddr_op = ops_addr[1] if len(ops_addr) > 1 else None
    offset = mod_int(inst, "offset")
    if saddr_op is None or saddr_op.kind == "off":
        return reader64(vaddr_op), None, offset
    return raw_reader(vaddr_op), reader64(saddr_op), offset


def _global_load(inst, ctx):
    name = base_name(inst.op)
    kind = name.split("_load_", 1)[1]
    nbytes, ext = LOADS[kind]
    ops = operands(inst)
    dst = ops[0]
    vaddr, saddr, offset = _global_parts(inst, ops[1:3])
    regs, i = v_regs(dst), dst.index
    wide = saddr is None

    def run(m):
        mask, _ = m.lanes()
        addr = _addr_vec(m, mask, vaddr, saddr, offset, wide)
        data = m.mem.read(addr, nbytes)
        put_loaded(m, getattr(m, regs), i, data, mask, ext)
    return Step(inst, run)


def _global_store(inst, ctx):
    name = base_name(inst.op)
    kind = name.split("_store_", 1)[1]
    nbytes, ext = STORES[kind]
    ops = operands(inst)
    vaddr, saddr, offset = _global_parts(inst, [ops[0]] + ops[2:3])
    data_op = ops[1]
    regs, i = v_regs(data_op), data_op.index

    def run(m):
        mask, _ = m.lanes()
        addr = _addr_vec(m, mask, vaddr, saddr, offset, saddr is None)
        m.mem.write(addr, get_stored(m, getattr(m, regs), i, nbytes, mask, ext))
    return Step(inst, run)


for _seg in ("global", "flat"):
    for _k in LOADS:
        op(f"{_seg}_load_{_k}")(_global_load)
    for _k in STORES:
        op(f"{_seg}_store_{_k}")(_global_store)


_ATOMIC = {
    "add": lambda old, v: old + v, "sub": lambda old, v: old - v, "swap": lambda old, v: v,
    "and": lambda old, v: old & v, "or": lambda old, v: old | v, "xor": lambda old, v: old ^ v,
    "umax": np.maximum, "umin": np.minimum,
    "smax": lambda old, v: np.maximum(old.view(np.int32), v.view(np.int32)).view(U32),
    "smin": lambda old, v: np.minimum(old.view(np.int32), v.view(np.int32)).view(U32),
    "inc": lambda old, v: np.where(old >= v, U32(0), old + U32(1)),
    "dec": lambda old, v: np.where((old == 0) | (old > v), v, old - U32(1)),
}


def _global_atomic(inst, ctx):
    name = base_name(inst.op)
    kind = name.split("_atomic_", 1)[1]
    ops = operands(inst)
    cmpswap = kind == "cmpswap"
    if kind not in _ATOMIC and not cmpswap:
        raise UnknownInstructionError(f"atomic {name}")
    # returning forms print vdst first: vdst, vaddr, vdata[, saddr]; others vaddr, vdata[, saddr]
    saddr_last = ops[-1].kind in ("s", "off")
    n_addr_data = 2 + (1 if saddr_last else 0)
    returns = len(ops) > n_addr_data
    dst = ops[0] if returns else None
    rest = ops[1:] if returns else ops
    vaddr, saddr, offset = _global_parts(inst, [rest[0]] + rest[2:3])
    data_op = rest[1]
    dregs, di = v_regs(data_op), data_op.index
    fn = _ATOMIC.get(kind)

    def run(m):
        mask, _ = m.lanes()
        addr = _addr_vec(m, mask, vaddr, saddr, offset, saddr is None)
        rf = getattr(m, dregs)
        vals = rf[di][mask]
        cmp = rf[di + 1][mask] if cmpswap else None
        old_all = np.zeros(addr.size, U32)
        for k in range(addr.size):          # lanes in order: each sees the previous lanes' results
            a = addr[k:k + 1]
            old = m.mem.read(a, 4).view(U32)[:, 0]
            if cmpswap:       # data = {new (vdata), compare (vdata + 1)}: store new when memory == compare
                new = np.where(old == cmp[k], vals[k], old)
            else:
                new = np.asarray(fn(old, vals[k:k + 1]), U32)
            m.mem.write(a, np.ascontiguousarray(new.astype(U32)).view(np.uint8).reshape(1, 4))
            old_all[k] = old[0]
        if dst is not None:
            getattr(m, v_regs(dst))[dst.index][mask] = old_all
    return Step(inst, run)


for _seg in ("global", "flat"):
    for _k in list(_ATOMIC) + ["cmpswap"]:
        op(f"{_seg}_atomic_{_k}")(_global_atomic)


# ---- MUBUF ---------------------------------------------------------------------------------------

def _buffer_parts(inst, ops: list[Operand]):
    """(vaddr reader or None, rsrc index, soffset reader, offset, offen, idxen)."""
    offen, idxen = "offen" in inst.mods, "idxen" in inst.mods
    if offen or idxen:
        vaddr_op, rsrc, soff = ops[0], ops[1], ops[2]
    else:
        vaddr_op, rsrc, soff = None, ops[0], ops[1]
        if ops[0].kind == "off":
            rsrc, soff = ops[1], ops[2]
    if rsrc.kind != "s":
        raise UnknownInstructionError(f"buffer resource {rsrc.text!r}")
    return vaddr_op, rsrc.index, raw_reader(soff), mod_int(inst, "offset"), offen, idxen


def _buffer_addresses(m, mask, vaddr_op, rsrc, soff, offset, offen, idxen, nbytes):
    """(addresses (n,) uint64, in-range (n, nbytes // 4 or 1) bool) for the executing lanes."""
    w = m.S[:, rsrc:rsrc + 4].astype(U64)
    base = w[:, 0] | ((w[:, 1] & U64(0xFFFF)) << U64(32))
    stride = ((w[:, 1] >> U64(16)) & U64(0x3FFF)).astype(np.int64)
    records = w[:, 2].astype(np.int64)
    so = np.broadcast_to(np.asarray(soff(m)).reshape(-1, 1) if np.ndim(soff(m)) else soff(m), (m.nw, 1))
    so = so.astype(np.int64)
    voff = np.zeros((m.nw, m.L), np.int64)
    index = np.zeros((m.nw, m.L), np.int64)
    if vaddr_op is not None:
        v0 = np.broadcast_to(raw_reader(vaddr_op, "b32", 0)(m), (m.nw, m.L)).astype(np.int64)
        if idxen and offen:
            index = v0
            voff = np.broadcast_to(raw_reader(vaddr_op, "b32", 1)(m), (m.nw, m.L)).astype(np.int64)
        elif idxen:
            index = v0
        else:
            voff = v0
    off = voff + so + offset                                       # (nw, L): byte offset in the buffer
    addr = base[:, None].astype(np.int64) + off + index * stride[:, None]
    words = max(nbytes // 4, 1)
    step = np.arange(words) * 4
    raw = (stride == 0)[:, None]
    last = off[..., None] + step + min(nbytes, 4)                   # end of each dword
    in_raw = last <= records[:, None, None]
    in_idx = (index < records[:, None])[..., None] & (off[..., None] + step + min(nbytes, 4) <= stride[:, None, None])
    ok = np.where(raw[..., None], in_raw, in_idx)
    return addr[mask].astype(U64), ok[mask]


def _buffer_load(inst, ctx):
    name = base_name(inst.op)
    kind = name.split("_load_", 1)[1]
    if kind not in LOADS:
        raise UnknownInstructionError(f"buffer load {name}")
    nbytes, ext = LOADS[kind]
    ops = operands(inst)
    to_lds = "lds" in inst.mods
    dst = None if to_lds else ops[0]
    vaddr_op, rsrc, soff, offset, offen, idxen = _buffer_parts(inst, ops if to_lds else ops[1:])

    def run(m):
        mask, _ = m.lanes()
        addr, ok = _buffer_addresses(m, mask, vaddr_op, rsrc, soff, offset, offen, idxen, nbytes)
        words = max(nbytes // 4, 1)
        data = np.zeros((addr.size, nbytes), np.uint8)
        any_ok = ok.any(axis=1)
        if any_ok.any():
            data[any_ok] = m.mem.read(addr[any_ok], nbytes)
        if nbytes >= 4:
            keep = np.repeat(ok, 4, axis=1)
        else:
            keep = np.repeat(ok[:, :1], nbytes, axis=1)
        data = np.where(keep, data, 0).astype(np.uint8)
        if to_lds:
            # LDS destination: M0 + instruction offset + lane * size, in the wave's workgroup slice
            lane = np.broadcast_to(m.lane_id, (m.nw, m.L))[mask]
            m0 = np.broadcast_to(m.S[:, M0:M0 + 1].astype(np.int64) & 0xFFFFFFFF, (m.nw, m.L))[mask]
            lds_off = m0 + offset + lane * nbytes
            base = np.broadcast_to(m.lds_base, (m.nw, m.L))[mask]
            ok_lds = lds_off + nbytes <= m.lds_bytes
            idx = (base + lds_off)[ok_lds][:, None] + np.arange(nbytes)
            m.lds[idx] = data[ok_lds]
            return
        put_loaded(m, getattr(m, v_regs(dst)), dst.index, data, mask, ext)
        _ = words
    return Step(inst, run)


def _buffer_store(inst, ctx):
    name = base_name(inst.op)
    kind = name.split("_store_", 1)[1]
    if kind not in STORES:
        raise UnknownInstructionError(f"buffer store {name}")
    nbytes, ext = STORES[kind]
    ops = operands(inst)
    data_op = ops[0]
    vaddr_op, rsrc, soff, offset, offen, idxen = _buffer_parts(inst, ops[1:])
    regs, i = v_regs(data_op), data_op.index

    def run(m):
        mask, _ = m.lanes()
        addr, ok = _buffer_addresses(m, mask, vaddr_op, rsrc, soff, offset, offen, idxen, nbytes)
        data = get_stored(m, getattr(m, regs), i, nbytes, mask, ext)
        if ok.all():
            m.mem.write(addr, data)
            return
        if nbytes >= 4:               # store the in-range dwords one dword column at a time
            for k in range(nbytes // 4):
                sel = ok[:, k]
                m.mem.write(addr[sel] + U64(4 * k), data[sel, 4 * k:4 * k + 4])
        else:
            sel = ok[:, 0]
            m.mem.write(addr[sel], data[sel])
    return Step(inst, run)


for _k in LOADS:
    op(f"buffer_load_{_k}")(_buffer_load)
for _k in STORES:
    op(f"buffer_store_{_k}")(_buffer_store)
_ = I64

"""issue11ah: SourceCounters samples of ours (_c2, bf16) and cuDNN at 32x512 16/16 d64 non-causal by region, per tile.
    python3 regions.py h1-src.csv"""
import sys, collections
sys.path.insert(0, __import__("os").path.dirname(__file__))
from importlib import import_module
load = import_module("h100-hopper-2026-11-27-ah-load").load
OURS = [  # (lo, hi, name); addresses relative to the kernel's first instruction (shipped c69f15d3 bf16 _c2)
    (0x0, 0xec0, "P  prologue (all warps: smem check, mbar init, bar, setmaxreg, consumer setup)"),
    (0xec0, 0x1820, "P  consumers' first q_full wait"),
    (0x1820, 0x1b70, "P  first k_full wait + first QK^T issue"),
    (0x1b70, 0x2150, "T  tile head (decode, row setup)"),
    (0x2150, 0x22b0, "S  loop head + QK^T wait (DEPBAR gsb0 0)"),
    (0x22b0, 0x3320, "S  mask code (not run)"),
    (0x3320, 0x3f90, "S  turn: row max + BAR.SYNC + 31 EX2 up to BAR.ARV"),
    (0x3f90, 0x4270, "S  after BAR.ARV: V TRYWAIT + 23 EX2 + retry branch"),
    (0x4270, 0x4800, "S  P pack, O rescale, row sums"),
    (0x4800, 0x4ae0, "S  PV issue (8 HGMMA)"),
    (0x4ae0, 0x4b00, "S  next K wait (k_full TRYWAIT + branch)"),
    (0x4b00, 0x4ff0, "S  QK^T(n+1) issue"),
    (0x4ff0, 0x5310, "S  deferred O store of the previous tile (once a tile)"),
    (0x5310, 0x53e0, "S  loop tail: PV wait (DEPBAR gsb0 1), v_empty arrive"),
    (0x53e0, 0x5590, "L  last block: QK^T wait (DEPBAR gsb0 0)"),
    (0x5590, 0x7e70, "L  last block softmax (max, turn, 64 EX2, pack)"),
    (0x7e70, 0x7f10, "L  BAR.ARV + next tile's q_full TRYWAIT (#1)"),
    (0x7f10, 0x8860, "L  tile-info ring read + next tile decode"),
    (0x8860, 0x8940, "B  next q_full / first k_full waits (#2)"),
    (0x8940, 0x89d0, "B  last V wait"),
    (0x89d0, 0x8f30, "B  last PV + next QK^T issue"),
    (0x8f30, 0x97c0, "B  LSE / 1/l (MUFU.RCP, slow paths)"),
    (0x97c0, 0x9b90, "B  O scale + pack + PV wait + v_empty"),
    (0x9b90, 0xa040, "E  exit: last O store, EXIT"),
    (0xa040, 0xb890, "Pr producer: tile counter, decode, Q issue"),
    (0xb890, 0xc790, "Pr producer: K/V slot waits + TMA issue"),
    (0xc790, 0x20000, "Pr producer end + retry stubs"),
]
CUDNN = [
    (0x0, 0x570, "P  prologue (all warps) + consumer setup / barriers"),
    (0x570, 0x950, "T  tile head: q_full wait, BAR.SYNC 0x6"),
    (0x950, 0x9d0, "S  K wait (k_full)"),
    (0x9d0, 0xbc0, "S  QK^T issue"),
    (0xbc0, 0xbf0, "S  QK^T wait (DEPBAR gsb0 0) + k_empty"),
    (0xbf0, 0x11e0, "S  row max (+ V TRYWAIT)"),
    (0x11e0, 0x1200, "S  turn BAR.SYNC"),
    (0x1200, 0x2670, "S  exps / sums / rescale / pack, BAR.ARV"),
    (0x2670, 0x2990, "S  PV issue"),
    (0x2990, 0x29c0, "S  PV wait (DEPBAR gsb0 0) + v_empty"),
    (0x29c0, 0x30e0, "B  tile end: 1/l, O scale, pack, STSM"),
    (0x30e0, 0x31a0, "B  O store (fence, UTMASTG)"),
    (0x31a0, 0x3200, "B  next tile index: BAR.SYNC 0x3 + LDS"),
    (0x3200, 0x3260, "E  exit"),
    (0x3260, 0x20000, "Pr producer"),
]
K = load(sys.argv[1])
tiles = 2048
for name, regs in (("hopper_fwd_bf16_d64_c2", OURS), ("cudnn", CUDNN)):
    d = [v for k, v in K.items() if name in k][0]
    tot = sum(x["samp"] for x in d)
    print(f"== {name}: {tot} samples = {tot / tiles:.2f} a tile")
    grp = collections.Counter()
    for lo, hi, nm in regs:
        sel = [x for x in d if lo <= x["a"] < hi]
        n = sum(x["samp"] for x in sel); st = collections.Counter()
        for x in sel:
            st.update(x["st"])
        unl = n - sum(st.values())
        if unl:
            st["(gmma/unlabelled)"] = unl
        grp[nm.split()[0]] += n
        print(f"  {nm:66s} {n:6d} {n / tiles:6.2f}  " + ", ".join(f"{k} {v}" for k, v in st.most_common(3)))
    print("  by group (per tile): " + ", ".join(f"{k} {v / tiles:.2f}" for k, v in grp.items()))

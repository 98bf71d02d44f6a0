"""HOPPER_KSPLIT (issue11aj): the key-split last round of the d128 ``_fk`` / ``_bn176`` kernels.  A model of the kernel's
work items (hopper_fwd.cu: ks_geom / ks_table / ks_tile / ks_range and the epilogue's ks_cta / ks_beg arithmetic), checked
to cover every (tile, key block) once with at most two pieces a CTA, and the planner's workspace for the partials
(manifest ``ksplit``; the default build has no such mark)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from pyhipattn.families import hopper
from pyhipattn.families.base import Problem

ROOT = Path(__file__).resolve().parents[1]
CO = ROOT / "kernels" / "co" / "sm_90a"
MIN_SAVE = 4


def problem(b=2, sq=8192, sk=8192, hq=16, hk=16, d=128, causal=False, **kw) -> Problem:
    q = (sq * hq * d, hq * d, d)
    k = (sk * hk * d, hk * d, d)
    base = dict(batch=b, seqlen_q=sq, seqlen_k=sk, heads_q=hq, heads_k=hk, head_dim=d, head_dim_v=d, dtype="bf16",
                softmax_scale=d ** -0.5, causal=causal, window=(-1, 0) if causal else (-1, -1),
                q_strides=q, k_strides=k, v_strides=k, o_strides=q)
    base.update(kw)
    return Problem(**base)


def geom(T, G, nb, min_save=MIN_SAVE):
    """hopper_fwd.cu's ks_geom (non-causal, no window): (f, w) or None."""
    if T <= G:
        return None
    f = T // G
    w = (T - f * G) * nb
    if w < G or w * G >= 1 << 31 or nb - -(-w // G) < min_save:
        return None
    return f, w


def items(c, T, G, nb):
    """CTA c's work items as the kernel's producer / consumers take them: (tile, lo, hi), lo -1 for a whole tile."""
    g = geom(T, G, nb)
    out, r = [], 0
    beg = end = x = 0
    table = None
    if g:
        f, w = g
        beg, end = c * w // G, (c + 1) * w // G
        x = beg // nb
        table = [f, f * G + x, beg - x * nb, min(nb, end - x * nb), 0, 0]
        if (x + 1) * nb < end:
            table[4], table[5] = 0, end - (x + 1) * nb
    while True:
        if table is None or r < table[0]:
            t = r * G + c
            if t >= T:
                return out
            out.append((t, -1, 0))
        else:
            j = r - table[0]
            if j > 1 or table[3 + 2 * j] == 0:
                return out
            out.append((table[1] + j, table[2 + 2 * j], table[3 + 2 * j]))
        r += 1


@pytest.mark.parametrize("T, G, nb", [(2048, 132, 16), (2048, 132, 32), (2048, 132, 47), (2048, 132, 94), (1000, 132, 20),
                                      (133, 132, 200), (2816, 132, 64), (265, 132, 8), (2048, 132, 4), (264, 132, 40)])
def test_items_cover_every_key_block_once(T, G, nb):
    seen = {}
    pieces = {}
    for c in range(G):
        its = items(c, T, G, nb)
        assert sum(1 for _, lo, _ in its if lo >= 0) <= 2          # two partial slots a CTA
        for t, lo, hi in its:
            lo, hi = (0, nb) if lo < 0 else (lo, hi)
            assert 0 <= lo < hi <= nb
            for n in range(lo, hi):
                assert (t, n) not in seen
                seen[(t, n)] = c
            pieces.setdefault(t, []).append(c)
    assert len(seen) == T * nb
    g = geom(T, G, nb)
    if g is None:
        assert all(len(v) == 1 for v in pieces.values())
        return
    f, w = g
    cta = lambda i: ((i + 1) * G - 1) // w                          # noqa: E731  ks_cta
    for t, ctas in pieces.items():
        if t < f * G:
            assert len(ctas) == 1
            continue
        x = t - f * G
        c_first, c_last = cta(x * nb), cta((x + 1) * nb - 1)
        assert sorted(ctas) == list(range(c_first, c_last + 1))       # the epilogue's count of the tile's pieces
        for cc in ctas:                                             # the slot index the merging CTA reads
            j = x - (cc * w // G) // nb
            assert j in (0, 1) and items(cc, T, G, nb)[f + j][0] == t
    # the load: every CTA's tail within one key block of the mean
    tail = [sum(hi - lo for _, lo, hi in items(c, T, G, nb) if lo >= 0) for c in range(G)]
    assert max(tail) - min(tail) <= 1 and max(tail) == -(-w // G)


def _with_ksplit(monkeypatch, marked=("fwd_bf16_d128_fk", "fwd_bf16_d128_bn176"), bpc=139264):
    m = json.loads((CO / "hopper_manifest.json").read_text())
    for o in m["objects"]:
        if o["name"] in marked:
            o["ksplit"] = {"bytes_per_cta": bpc, "min_save": MIN_SAVE}
    m["by_name"] = {o["name"]: o for o in m["objects"]}
    monkeypatch.setattr(hopper, "manifest", lambda arch: m)
    return m


def test_shipped_manifest_has_no_ksplit_mark():
    m = json.loads((CO / "hopper_manifest.json").read_text())
    assert not any("ksplit" in o for o in m["objects"])


@pytest.mark.parametrize("b, s, kernel, split", [
    (2, 8192, "hopper_fwd_bf16_d128_bn176", True),      # 2048 tiles, 47 blocks a tile
    (1, 16384, "hopper_fwd_bf16_d128_bn176", True),
    (4, 4096, "hopper_fwd_bf16_d128_fk", True),         # 32 blocks
    (8, 2048, "hopper_fwd_bf16_d128_fk", True),         # 16 blocks: 16 - ceil(68 * 16 / 132) = 7 saved
    (32, 512, "hopper_fwd_bf16_d128_fk", False),        # 4 blocks: 1 saved < MIN_SAVE
])
def test_plan_adds_the_partials_where_the_kernel_splits(monkeypatch, b, s, kernel, split):
    _with_ksplit(monkeypatch)
    p = problem(b=b, sq=s, sk=s)
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    assert pl.kernel == kernel and pl.grid[0] == 132
    obj = hopper.manifest("sm_90a")["by_name"][kernel[len("hopper_"):]]
    base = obj["tma"]["align"] + obj["tma"]["bytes_per_cta"] * 132
    assert pl.workspace_bytes == base + (139264 * 132 if split else 0)
    tiles = b * 16 * -(-s // obj["block_m"])
    assert (geom(tiles, 132, -(-s // obj["block_n"])) is not None) == split
    assert pl.workspace_bytes < 32 << 20


@pytest.mark.parametrize("kw", [dict(causal=True), dict(window=(256, 256))])
def test_no_partials_for_causal_or_windowed_problems(monkeypatch, kw):
    _with_ksplit(monkeypatch)
    p = problem(b=2, sq=8192, sk=8192, **kw)
    (pl,) = hopper.plan(p, "sm_90a", 132, 1)
    obj = hopper.manifest("sm_90a")["by_name"][pl.kernel[len("hopper_"):]]
    assert hopper.ksplit_bytes(p, obj, 2048, 132) == 0
    tma = obj["tma"]
    assert pl.workspace_bytes == tma["align"] + tma["bytes_per_cta"] * pl.grid[0]


def test_unmarked_kernels_get_no_partials(monkeypatch):
    _with_ksplit(monkeypatch, marked=())
    (pl,) = hopper.plan(problem(b=2, sq=8192, sk=8192), "sm_90a", 132, 1)
    obj = hopper.manifest("sm_90a")["by_name"][pl.kernel[len("hopper_"):]]
    assert pl.workspace_bytes == obj["tma"]["align"] + obj["tma"]["bytes_per_cta"] * 132


def test_make_manifest_knows_the_ksplit_options():
    src = (ROOT / "kernels" / "src" / "hopper" / "make_manifest.py").read_text()
    assert '"ksplit", "ksplit_min_save"' in src
    assert 'objects[-1]["ksplit"]' in src and 'kv.get("ksplit", "0") in ("1", "2")' in src
    sh = (ROOT / "scripts" / "build" / "hopper.sh").read_text()
    assert "KSPLIT=${KSPLIT:-0}" in sh and '"ksplit=$KSPLIT"' in sh

"""mha_fwd_kvcache on the GPU against the float64 reference (issue 13).

Batch 1..64, ragged cache_seqlens including 0 and full pages, block sizes 16..256, shuffled
block tables, GQA/MQA, d 64/128/256, appends of 1..16 tokens, causal and windows, with and
without sinks and ALiBi; outputs poisoned with NaN; the caches after the append compared bit
for bit; captured in a CUDA graph and replayed with new lengths.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import pyhipattn  # noqa: E402
from pyhipattn.reference import attention_kvcache_ref, rel_error  # noqa: E402

TDT = {"bf16": torch.bfloat16, "fp16": torch.float16}
TOL = {"bf16": 1e-2, "fp16": 2e-3}


def _cases(n: int = 40, seed: int = 13) -> list[dict]:
    rng = random.Random(seed)
    out = [dict(b=64, sq=1, hq=32, hk=8, d=128, page=16, per_seq=8, n_new=1, causal=True, sinks=True, alibi=0,
                window=(-1, -1), dtype="bf16", seed=0),
           dict(b=1, sq=16, hq=8, hk=1, d=256, page=256, per_seq=2, n_new=16, causal=True, sinks=False, alibi=1,
                window=(-1, -1), dtype="fp16", seed=1),
           dict(b=4, sq=4, hq=16, hk=4, d=64, page=0, per_seq=300, n_new=4, causal=True, sinks=True, alibi=2,
                window=(64, 0), dtype="bf16", seed=2)]
    while len(out) < n:
        hk = rng.choice((1, 2, 8))
        page = rng.choice((0, 16, 32, 64, 128, 256))
        out.append(dict(b=rng.choice((1, 2, 3, 8, 17)), sq=rng.choice((1, 1, 2, 5, 16)), hq=hk * rng.choice((1, 4)),
                        hk=hk, d=rng.choice((64, 128, 256)), page=page,
                        per_seq=rng.randint(1, 8) if page else rng.choice((17, 300, 1000)),
                        n_new=rng.choice((0, 1, 3, 16)), causal=rng.random() < 0.6, sinks=rng.random() < 0.5,
                        alibi=rng.choice((0, 0, 1, 2)), window=rng.choice(((-1, -1), (-1, -1), (100, 0))),
                        dtype=rng.choice(("bf16", "fp16")), seed=len(out)))
    return out


def _cid(c: dict) -> str:
    kv = f"paged{c['page']}x{c['per_seq']}" if c["page"] else f"contig{c['per_seq']}"
    return (f"b{c['b']}-sq{c['sq']}-{kv}-h{c['hq']}x{c['hk']}-d{c['d']}-{c['dtype']}-new{c['n_new']}"
            f"{'-causal' if c['causal'] else ''}{'-sinks' if c['sinks'] else ''}{'-alibi' + str(c['alibi']) if c['alibi'] else ''}"
            f"{'-win' if c['window'] != (-1, -1) else ''}")


def _inputs(c: dict, dev="cuda"):
    g = torch.Generator(device="cpu").manual_seed(700 + c["seed"])
    dt = TDT[c["dtype"]]
    b, hk, d = c["b"], c["hk"], c["d"]
    if c["page"]:
        pages = b * c["per_seq"] + 5
        kc = torch.randn(pages, c["page"], hk, d, generator=g).to(dt)
        vc = torch.randn(pages, c["page"], hk, d, generator=g).to(dt)
        bt = torch.randperm(pages, generator=g)[:b * c["per_seq"]].reshape(b, c["per_seq"]).to(torch.int32)
        cap = c["page"] * c["per_seq"]
    else:
        kc = torch.randn(b, c["per_seq"], hk, d, generator=g).to(dt)
        vc = torch.randn(b, c["per_seq"], hk, d, generator=g).to(dt)
        bt, cap = None, c["per_seq"]
    hi = max(cap - c["n_new"], 0)
    lens = torch.randint(0, hi + 1, (b,), generator=g, dtype=torch.int32)
    lens[0] = 0
    lens[-1] = hi
    q = torch.randn(b, c["sq"], c["hq"], d, generator=g).to(dt)
    kn = torch.randn(b, c["n_new"], hk, d, generator=g).to(dt) if c["n_new"] else None
    vn = torch.randn(b, c["n_new"], hk, d, generator=g).to(dt) if c["n_new"] else None
    sinks = torch.randn(c["hq"], generator=g) * 2 if c["sinks"] else None
    alibi = (torch.rand(c["hq"] if c["alibi"] == 1 else (b, c["hq"]), generator=g) * 0.3) if c["alibi"] else None
    cpu = dict(q=q, k_cache=kc, v_cache=vc, cache_seqlens=lens, block_table=bt, k_new=kn, v_new=vn, sinks=sinks,
               alibi_slopes=alibi)
    return {k: (v.to(dev) if v is not None else None) for k, v in cpu.items()}, cpu


def _reference(cpu: dict, c: dict):
    f = lambda t: None if t is None else t.float().numpy()  # noqa: E731
    return attention_kvcache_ref(f(cpu["q"]), f(cpu["k_cache"]), f(cpu["v_cache"]), cpu["cache_seqlens"].numpy(),
                                 block_table=None if cpu["block_table"] is None else cpu["block_table"].numpy(),
                                 k_new=f(cpu["k_new"]), v_new=f(cpu["v_new"]), causal=c["causal"], window=c["window"],
                                 sinks=f(cpu["sinks"]), alibi_slopes=f(cpu["alibi_slopes"]))


@pytest.mark.gpu
@pytest.mark.parametrize("case", _cases(), ids=_cid)
def test_kvcache_matches_reference(case):
    gpu, cpu = _inputs(case)
    out = torch.full((case["b"], case["sq"], case["hq"], case["d"]), float("nan"), device="cuda", dtype=TDT[case["dtype"]])
    res, lse = pyhipattn.mha_fwd_kvcache(**gpu, causal=case["causal"], window_size=case["window"], return_lse=True,
                                         out=out, check_inputs=True)
    torch.cuda.synchronize()
    assert res is out
    assert not torch.isnan(out).any(), "unwritten output"
    ro, rl, rk, rv = _reference(cpu, case)
    assert rel_error(out.float().cpu().numpy(), ro) <= TOL[case["dtype"]]
    lse = lse.cpu().numpy()
    assert np.array_equal(np.isneginf(lse), np.isneginf(rl))
    fin = np.isfinite(rl)
    assert np.allclose(lse[fin], rl[fin], rtol=1e-3, atol=2e-3)
    if case["n_new"]:
        dt = TDT[case["dtype"]]
        assert torch.equal(gpu["k_cache"].cpu(), torch.from_numpy(rk).to(dt)), "k cache after the append"
        assert torch.equal(gpu["v_cache"].cpu(), torch.from_numpy(rv).to(dt)), "v cache after the append"


@pytest.mark.gpu
def test_kvcache_decode_replays_in_a_cuda_graph_with_new_lengths():
    c = dict(b=8, sq=1, hq=32, hk=8, d=128, page=16, per_seq=64, n_new=1, causal=True, sinks=True, alibi=0,
             window=(-1, -1), dtype="bf16", seed=99)
    gpu, cpu = _inputs(c)
    kc0, vc0 = gpu["k_cache"].clone(), gpu["v_cache"].clone()
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        pyhipattn.mha_fwd_kvcache(**gpu, causal=True)           # warm up: loads the kernels
    torch.cuda.current_stream().wait_stream(s)
    gpu["k_cache"].copy_(kc0)
    gpu["v_cache"].copy_(vc0)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = pyhipattn.mha_fwd_kvcache(**gpu, causal=True)
    for step, new_lens in enumerate(([3, 0, 1023, 17, 400, 1, 999, 2], [0, 0, 0, 5, 1000, 64, 128, 511])):
        gpu["k_cache"].copy_(kc0)
        gpu["v_cache"].copy_(vc0)
        gpu["cache_seqlens"].copy_(torch.tensor(new_lens, dtype=torch.int32))
        gpu["q"].copy_(torch.randn_like(gpu["q"]))
        graph.replay()
        torch.cuda.synchronize()
        cpu_now = {k: (v.cpu() if v is not None else None) for k, v in gpu.items()}
        cpu_now["k_cache"], cpu_now["v_cache"] = kc0.cpu(), vc0.cpu()
        ro = _reference(cpu_now, c)[0]
        assert rel_error(out.float().cpu().numpy(), ro) <= TOL["bf16"], f"replay {step}"


@pytest.mark.gpu
def test_kvcache_op_compiles_without_graph_breaks_and_matches():
    import pyhipattn.torch_ops as tops

    c = dict(b=4, sq=2, hq=16, hk=4, d=128, page=32, per_seq=8, n_new=0, causal=True, sinks=True, alibi=1,
             window=(-1, -1), dtype="bf16", seed=5)
    gpu, cpu = _inputs(c)

    def step(q, kc, vc, lens, bt, sinks, slopes):
        return tops.mha_fwd_kvcache(q, kc, vc, cache_seqlens=lens, block_table=bt, causal=True, sinks=sinks,
                                    alibi_slopes=slopes)

    compiled = torch.compile(step, fullgraph=True)
    out = compiled(gpu["q"], gpu["k_cache"], gpu["v_cache"], gpu["cache_seqlens"], gpu["block_table"], gpu["sinks"],
                   gpu["alibi_slopes"])
    ro = _reference(cpu, c)[0]
    assert rel_error(out.float().cpu().numpy(), ro) <= TOL["bf16"]


def _edge_cases() -> list[dict]:
    """Decode tiles (sq * group <= 16) with ragged lengths around the key-block edges, forced
    split counts, and every feature that changes which key blocks a row sees in full: the
    decode objects run those blocks unmasked first and the edges masked after (DECODE_LOOP)."""
    out = []
    feats = [dict(), dict(softcap=30.0), dict(alibi=True, sinks=True), dict(window=(37, 0), sinks=True)]
    for i, (page, feat, splits) in enumerate((p, f, s) for p in (0, 16, 64) for f in feats for s in (1, 5)):
        out.append(dict(page=page, d=(64, 128, 256)[i % 3], sq=(1, 4)[i % 2], splits=splits, dtype=("bf16", "fp16")[i % 2],
                        softcap=feat.get("softcap", 0.0), alibi=feat.get("alibi", False), sinks=feat.get("sinks", False),
                        window=feat.get("window", (-1, -1)), seed=i))
    return out


@pytest.mark.gpu
@pytest.mark.parametrize("case", _edge_cases(), ids=lambda c: (
    f"{'paged' + str(c['page']) if c['page'] else 'contig'}-d{c['d']}-sq{c['sq']}-s{c['splits']}-{c['dtype']}"
    f"{'-softcap' if c['softcap'] else ''}{'-alibi' if c['alibi'] else ''}{'-sinks' if c['sinks'] else ''}"
    f"{'-win' if c['window'] != (-1, -1) else ''}"))
def test_kvcache_decode_block_edges_match_reference(case):
    g = torch.Generator(device="cpu").manual_seed(900 + case["seed"])
    dt = TDT[case["dtype"]]
    b, hq, hk, d, sq, page = 7, 8, 2, case["d"], case["sq"], case["page"]
    cap = 832
    # around the 64- and 128-key blocks, one full cache; the sq queries are each sequence's last
    lens = torch.clamp(torch.tensor([0, 1, 63, 64, 65, 700, cap], dtype=torch.int32), min=sq)
    if page:
        per_seq = cap // page
        pages = b * per_seq + 3
        kc = torch.randn(pages, page, hk, d, generator=g).to(dt)
        vc = torch.randn(pages, page, hk, d, generator=g).to(dt)
        bt = torch.randperm(pages, generator=g)[:b * per_seq].reshape(b, per_seq).to(torch.int32)
    else:
        kc = torch.randn(b, cap, hk, d, generator=g).to(dt)
        vc = torch.randn(b, cap, hk, d, generator=g).to(dt)
        bt = None
    q = torch.randn(b, sq, hq, d, generator=g).to(dt)
    sinks = torch.randn(hq, generator=g) * 2 if case["sinks"] else None
    alibi = torch.rand(hq, generator=g) * 0.3 if case["alibi"] else None
    dev = lambda t: None if t is None else t.cuda()  # noqa: E731
    out = torch.full((b, sq, hq, d), float("nan"), device="cuda", dtype=dt)
    res, lse = pyhipattn.mha_fwd_kvcache(dev(q), dev(kc), dev(vc), cache_seqlens=dev(lens), block_table=dev(bt),
                                         causal=True, window_size=case["window"], softcap=case["softcap"],
                                         sinks=dev(sinks), alibi_slopes=dev(alibi), return_lse=True,
                                         num_splits=case["splits"], out=out)
    torch.cuda.synchronize()
    assert not torch.isnan(out).any(), "unwritten output"
    f = lambda t: None if t is None else t.float().numpy()  # noqa: E731
    ro, rl, _, _ = attention_kvcache_ref(f(q), f(kc), f(vc), lens.numpy(),
                                         block_table=None if bt is None else bt.numpy(), causal=True,
                                         window=case["window"], softcap=case["softcap"], sinks=f(sinks),
                                         alibi_slopes=f(alibi))
    assert rel_error(out.float().cpu().numpy(), ro) <= TOL[case["dtype"]]
    lse = lse.cpu().numpy()
    fin = np.isfinite(rl)
    assert np.array_equal(np.isneginf(lse), np.isneginf(rl))
    assert np.allclose(lse[fin], rl[fin], rtol=1e-3, atol=2e-3)


@pytest.mark.gpu
@pytest.mark.parametrize("page", [0, 16, 64])
@pytest.mark.parametrize("splits", [2, 3, 9, 16])
@pytest.mark.parametrize("feature", ["none", "sinks", "softcap_sinks"])
def test_kvcache_decode_online_fold_matches_reference(page, splits, feature):
    """The online split-K fold of the sm_90a d128 decode objects (FOLD_CHUNK: 8 splits per load,
    4 in the contiguous split twin, 2 when a launch has two splits): 2 splits, a part-filled
    chunk (3), one full chunk plus one (9), two chunks (16); lengths 0 / 1 around the blocks, so
    some splits have no key at all; with sinks (the fold adds them) and softcap (the 8-warp
    ``_decode_mods`` object)."""
    g = torch.Generator(device="cpu").manual_seed(1300 + page * 7 + splits * 3 + len(feature))
    b, hq, hk, d, cap = 7, 32, 8, 128, 2048
    lens = torch.tensor([0, 1, 63, 129, 700, 1500, cap], dtype=torch.int32)
    if page:
        per_seq = cap // page
        pages = b * per_seq + 3
        kc = torch.randn(pages, page, hk, d, generator=g).to(torch.bfloat16)
        vc = torch.randn(pages, page, hk, d, generator=g).to(torch.bfloat16)
        bt = torch.randperm(pages, generator=g)[:b * per_seq].reshape(b, per_seq).to(torch.int32)
    else:
        kc = torch.randn(b, cap, hk, d, generator=g).to(torch.bfloat16)
        vc = torch.randn(b, cap, hk, d, generator=g).to(torch.bfloat16)
        bt = None
    q = torch.randn(b, 1, hq, d, generator=g).to(torch.bfloat16)
    sinks = torch.randn(hq, generator=g) * 2 if feature != "none" else None
    softcap = 20.0 if feature == "softcap_sinks" else 0.0
    dev = lambda t: None if t is None else t.cuda()  # noqa: E731
    out = torch.full((b, 1, hq, d), float("nan"), device="cuda", dtype=torch.bfloat16)
    _, lse = pyhipattn.mha_fwd_kvcache(dev(q), dev(kc), dev(vc), cache_seqlens=dev(lens), block_table=dev(bt),
                                       causal=True, softcap=softcap, sinks=dev(sinks), return_lse=True,
                                       num_splits=splits, out=out)
    torch.cuda.synchronize()
    assert not torch.isnan(out).any(), "unwritten output"
    f = lambda t: None if t is None else t.float().numpy()  # noqa: E731
    ro, rl, _, _ = attention_kvcache_ref(f(q), f(kc), f(vc), lens.numpy(),
                                         block_table=None if bt is None else bt.numpy(), causal=True, softcap=softcap,
                                         sinks=f(sinks))
    assert rel_error(out.float().cpu().numpy(), ro) <= TOL["bf16"]
    lse = lse.cpu().numpy()
    fin = np.isfinite(rl)
    assert np.array_equal(np.isneginf(lse), np.isneginf(rl))
    assert np.allclose(lse[fin], rl[fin], rtol=1e-3, atol=2e-3)

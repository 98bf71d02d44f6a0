"""Host time per call, GPU idle: pyhipattn.mha_fwd vs torch SDPA (and the parts of ours).

    python3 bench/host_time.py            # on a GPU machine; prints a table and a JSON line

Each call is timed alone with perf_counter after a device synchronize (so the launch queue is
empty), 7 rounds x 300 calls, p50 of each round, median of the rounds.
"""

from __future__ import annotations

import json
import statistics
import sys
import time

import torch

import pyhipattn
from pyhipattn import api

SHAPES = [(1, 32, 8, 1, 131072, 128), (16, 32, 8, 1, 32768, 128), (1, 32, 8, 1, 4096, 128)]


def p50(fn, rounds: int = 7, calls: int = 300) -> float:
    meds = []
    for _ in range(rounds):
        ts = []
        for _ in range(calls):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            fn()
            ts.append(time.perf_counter() - t0)
        meds.append(statistics.median(ts))
    return statistics.median(meds) * 1e6


def main() -> None:
    rows = []
    for b, hq, hk, sq, sk, d in SHAPES:
        q = torch.randn(b, sq, hq, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(b, sk, hk, d, device="cuda", dtype=torch.bfloat16)
        qt, kt, vt = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        sdpa = lambda: torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, enable_gqa=True)  # noqa: E731
        ours = lambda: pyhipattn.mha_fwd(q, k, v)  # noqa: E731
        ours(), sdpa()
        key = next(reversed(api._TORCH_FAST))
        prep = api._TORCH_FAST[key][0]
        rows.append({"shape": [b, hq, hk, sq, sk, d], "launches": len(prep.launches),
                     "mha_fwd_us": round(p50(ours), 2), "sdpa_us": round(p50(sdpa), 2)})
        print(f"{str((b, hq, hk, sq, sk, d)):28s} launches {rows[-1]['launches']}  mha_fwd {rows[-1]['mha_fwd_us']:6.2f} us"
              f"  sdpa {rows[-1]['sdpa_us']:6.2f} us", flush=True)
    print(json.dumps({"bench": "host_time", "device": torch.cuda.get_device_name(), "rows": rows}))


if __name__ == "__main__":
    sys.exit(main())

"""Run FlashAttention's test file against pyhipattn through the stand-in ``flash_attn``.

    python3 bench/fa_adapter/run.py TEST_FILE [--seconds 300] [--sample 4000] [--seed 0] [--json F]

A seeded random sample of the collected tests runs until ``--seconds`` have passed; the counts
(passed / failed / skipped, skip reasons) and every failure are printed, and written to --json.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import sys
import time

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))


class Sample:
    def __init__(self, n: int, seed: int, seconds: float) -> None:
        self.n, self.seed, self.seconds = n, seed, seconds
        self.start = None
        self.outcomes: collections.Counter = collections.Counter()
        self.skips: collections.Counter = collections.Counter()
        self.failures: list[str] = []
        self.collected = 0

    def pytest_collection_modifyitems(self, session, config, items):
        self.collected = len(items)
        keep = set(random.Random(self.seed).sample(range(len(items)), min(self.n, len(items))))
        items[:] = [it for i, it in enumerate(items) if i in keep]
        self.start = time.monotonic()

    def pytest_runtest_logreport(self, report):
        if report.when == "call" or (report.when == "setup" and report.outcome != "passed"):
            self.outcomes[report.outcome] += 1
            if report.outcome == "skipped":
                reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
                self.skips[reason.replace("Skipped: ", "")[:120]] += 1
            elif report.outcome == "failed":
                self.failures.append(f"{report.nodeid}: {str(report.longrepr).splitlines()[-1][:300]}")

    def pytest_runtest_protocol(self, item, nextitem):
        if self.start is not None and time.monotonic() - self.start > self.seconds:
            item.session.shouldstop = f"time budget of {self.seconds} s spent"
        return None


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("test_file")
    ap.add_argument("--seconds", type=float, default=300)
    ap.add_argument("--sample", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json")
    args = ap.parse_args(argv)
    sys.path.insert(0, HERE)              # the stand-in flash_attn package
    plugin = Sample(args.sample, args.seed, args.seconds)
    pytest.main([args.test_file, "-q", "-p", "no:cacheprovider", "--tb=line"], plugins=[plugin])
    ran = sum(plugin.outcomes.values())
    result = {"collected": plugin.collected, "sampled": min(args.sample, plugin.collected), "ran": ran,
              "outcomes": dict(plugin.outcomes), "skip_reasons": plugin.skips.most_common(),
              "failures": plugin.failures, "seconds": round(time.monotonic() - (plugin.start or time.monotonic()), 1)}
    print(f"\ncollected {plugin.collected}, sampled {result['sampled']}, ran {ran} in {result['seconds']} s: "
          f"{dict(plugin.outcomes)}")
    for reason, n in plugin.skips.most_common():
        print(f"  skipped {n:5d}: {reason}")
    for f in plugin.failures[:50]:
        print(f"  FAILED {f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 1 if plugin.failures else 0


if __name__ == "__main__":
    sys.exit(main())

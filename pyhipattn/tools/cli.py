"""The pyhipattn command: info | inspect | check | bench | bench-kvcache.

Kernel developers use it to look at a new ``.co`` / ``.cubin`` build (inspect), check it
statically and numerically (check), and time it against the peers on the GPU at hand (bench).
Each subcommand's work lives in its own module; this file only parses arguments.
"""

from __future__ import annotations

import argparse
import json
import sys


def _cmd_info(args: argparse.Namespace) -> int:
    from .info import info_report, format_info

    rep = info_report()
    print(json.dumps(rep, indent=2) if args.json else format_info(rep))
    return 0


def _cmd_inspect(args: argparse.Namespace) -> int:
    from .inspect import main_inspect

    flags = (["--json"] if args.json else []) + (["--isa"] if args.isa is True else ["--no-isa"] if args.isa is False else [])
    return main_inspect(args.paths + flags)


def _cmd_check(args: argparse.Namespace) -> int:
    from .check import run_check

    return run_check(args)


def _cmd_bench(args: argparse.Namespace) -> int:
    from .bench import run_bench

    return run_bench(args)


def build_parser() -> argparse.ArgumentParser:
    from .. import __version__

    p = argparse.ArgumentParser(prog="pyhipattn", description=__doc__.splitlines()[0],
                                epilog="exit status: 0 ok, 1 findings (check failures, files that could not be read), "
                                       "2 usage or environment error (bad arguments, missing paths or tools)")
    p.add_argument("--version", action="version", version=f"pyhipattn {__version__}")
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("info", help="platform, devices, arches and code objects found",
                       description="Report the platform (CUDA / HIP / emulator), the devices, the shipped code objects per arch and AITER's objects. Exit 0.")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=_cmd_info)
    s = sub.add_parser("inspect", help="kernels, arguments and resources of code objects",
                       description="Show each kernel of code objects (files or directories): kernarg layout, registers, LDS, spills against the arch's limits, and matrix instructions from a disassembly. Exit 0; 1 if a file could not be read; 2 if a path does not exist.")
    s.add_argument("paths", nargs="+", help="code objects or directories")
    s.add_argument("--json", action="store_true", help="machine-readable output")
    s.add_argument("--isa", dest="isa", action="store_true", default=None,
                   help="disassemble and count matrix instructions (default: only for <= 16 files)")
    s.add_argument("--no-isa", dest="isa", action="store_false", help="never disassemble")
    s.set_defaults(fn=_cmd_inspect)
    s = sub.add_parser("check", help="static checks (and, with a GPU, the numeric sweep) of code objects",
                       description="Check code objects statically (kernarg layouts against the headers, resources, matrix instructions) and numerically (on a GPU, or on the CPU emulator with --emulate for AMD objects). Exit 0 all passed; 1 findings; 2 usage or environment error.")
    s.add_argument("paths", nargs="*", help="code objects or directories (default: kernels/co)")
    s.add_argument("--static-only", action="store_true", help="skip the numeric sweep even if a GPU is present")
    s.add_argument("--cases", type=int, default=200, help="random cases in the numeric sweep")
    s.add_argument("--emulate", action="store_true",
                   help="run the numeric sweep of AMD objects on the CPU emulator (no GPU needed; needs llvm-objdump-22)")
    s.add_argument("--emulate-cases", type=int, default=12, metavar="N",
                   help="cases per family and arch in the emulated sweep (default 12)")
    s.add_argument("--json", action="store_true")
    s.set_defaults(fn=_cmd_check)
    from .bench import ORDERS, TIMINGS   # (torch is imported only when a bench runs)

    s = sub.add_parser("bench", help="time mha_fwd against the peers present on this GPU",
                       description="Time mha_fwd against the attention implementations present on this GPU (torch SDPA backends, flash_attn); writes a JSON and a PNG and prints a table. Needs torch and a GPU.")
    s.add_argument("--shapes", default="default", help="'default', 'quick', or a JSON list of [b,hq,hk,sq,sk,d,causal]")
    s.add_argument("--dtype", default="bf16", choices=["bf16", "fp16"])
    s.add_argument("--out", default="bench-out", help="directory for the JSON and PNG")
    s.add_argument("--peers", default="flash,cudnn,efficient,flash_attn", help="peers to time where present")
    s.add_argument("--rounds", type=int, default=3,
                   help="interleaved timing rounds per shape (ours and the peers take turns; the median is reported)")
    s.add_argument("--timing", default=TIMINGS[0], choices=TIMINGS,
                   help="paired (default): ours and the peers alternate call by call, under the same clocks; "
                        "rounds: each timed alone in turn")
    s.add_argument("--order", default=ORDERS[0], choices=ORDERS,
                   help="paired timing's call order: balanced (default: each follows every other equally often) "
                        "or rotate (each follows the same one at all calls but one in n)")
    s.add_argument("--plot", metavar="RESULTS_JSON", help="only plot a results JSON from an earlier run (needs matplotlib)")
    s.set_defaults(fn=_cmd_bench)
    from .bench_kvcache import add_parser as add_kvcache_bench

    add_kvcache_bench(sub)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.fn(args)
    except BrokenPipeError:                 # `pyhipattn inspect DIR | head`: the reader left
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (ValueError, RuntimeError, OSError, ImportError) as e:
        print(f"pyhipattn {args.cmd}: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

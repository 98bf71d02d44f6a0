"""The command-line side of pyhipattn (``pyhipattn`` / ``python3 -m pyhipattn``): ``cli``
(argument parsing), ``info``, ``inspect``, ``check``, ``bench`` / ``bench_kvcache`` (with
``bench_rows`` and ``plot``), ``sweep`` (the correctness sweep ``check`` and the GPU tests
run) and ``emulated_sweep`` (with ``emulated_sweep_serve`` and ``emulated_objects``: the same kind of
sweep on the CPU emulator, ``check --emulate``).  These modules use the library; nothing in the
library imports them."""

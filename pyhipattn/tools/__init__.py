"""The command-line side of pyhipattn (``pyhipattn`` / ``python3 -m pyhipattn``): ``cli``
(argument parsing), ``info``, ``inspect``, ``check``, ``bench`` / ``bench_kvcache`` (with
``bench_rows`` and ``plot``) and ``sweep`` (the correctness sweep ``check`` and the GPU tests
run).  These modules use the library; nothing in the library imports them."""

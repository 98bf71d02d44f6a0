"""bench/hopper_dev.py with the d64 _c2 sibling's gate opened to every length (issue11j dev timing / checks):
variant cubins that have fwd_<dt>_d64_c2 run it on every d64 row; those without run the d64 kernel."""
import os
import sys

sys.path.insert(0, os.path.join(os.getcwd(), "bench"))
from pyhipattn.families import hopper  # noqa: E402

hopper.C2_SIBLING_D64 = {False: (0, 1 << 30), True: (0, 1 << 30)}
sys.argv = ["bench/hopper_dev.py"] + sys.argv[1:]
import hopper_dev  # noqa: E402

sys.exit(hopper_dev.main())

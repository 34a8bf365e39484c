"""Runs a bench/ script's argv-reading main() in-process for the tests of those
scripts (test_ab_sweeps.py, test_best_by_label.py): bench/ on sys.path, as the
scripts import sweep_io, and their printed output returned."""
import io
import os
import sys
from contextlib import redirect_stdout

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BENCH = os.path.join(ROOT, "bench")
if BENCH not in sys.path:
    sys.path.insert(0, BENCH)


def run_main(main, prog, args):
    """stdout of main() with sys.argv = [prog] + args (restored after)."""
    out = io.StringIO()
    saved = sys.argv
    sys.argv = [prog] + args
    try:
        with redirect_stdout(out):
            main()
    finally:
        sys.argv = saved
    return out.getvalue()

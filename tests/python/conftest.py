"""Host tests of the Python package (no GPU). ctest runs them with
PYTHONPATH=python and GCONV_LIBRARY=<build>/libgconv.so (tests/CMakeLists.txt);
tests/python/test_pip_install.py checks the installed package instead."""
import os
import sys

# Run from a checkout without ctest's environment: the package beside us.
_here = os.path.dirname(os.path.abspath(__file__))
_python = os.path.join(os.path.dirname(os.path.dirname(_here)), "python")
if _python not in sys.path:
    sys.path.insert(0, _python)

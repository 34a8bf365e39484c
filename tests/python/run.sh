#!/usr/bin/env bash
# ctest's runner for tests/python: pytest under the venv scripts/dev makes
# (torch installed there), the package from python/, the library of this
# build. Usage: run.sh LIBRARY TEST_FILE...
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
py=${GCONV_VENV:-$root/.venv}/bin/python
if [[ ! -x $py ]]; then
  echo "tests/python: no Python environment at $py: run scripts/dev test (it creates it)" >&2
  exit 1
fi
lib=$1
shift
export GCONV_LIBRARY=$lib PYTHONPATH=$root/python${PYTHONPATH:+:$PYTHONPATH}
# Kernels are never compiled by these tests, but keep any cache out of $HOME.
export GCONV_CACHE_DIR=${GCONV_CACHE_DIR:-$(dirname "$lib")/jit-cache-tests}
exec "$py" -m pytest -q -p no:cacheprovider "$@"

#!/usr/bin/env bash
# The main job: install the offline stack into .venv and run the demo audit.
set -euo pipefail
# Ctrl-C stops the install too (pip turns it into an ordinary failure, which would start the
# fallback below); `exec` at the end hands the demo its own handling.
trap 'exit 130' INT TERM
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
# uv (a wheel from PyPI) installs the demo's ~45 wheels in parallel, compiled as pip compiles
# them: measured faster than pip on 2 cores (docs/getting-started.md). Where it cannot be had or
# cannot install, pip does it all.
if { [ -x .venv/bin/uv ] || .venv/bin/python -m pip install -q --only-binary uv uv; } \
  && .venv/bin/uv pip install -q --compile-bytecode --system-certs --python .venv/bin/python \
    -e '.[demo]'; then
  :
else
  echo "demo: installing with pip instead of uv" >&2
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[demo]'
fi
exec .venv/bin/paraudit demo --out "${1:-demo-out}"

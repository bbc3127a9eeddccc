#!/usr/bin/env bash
# The main job: install the offline stack into .venv and run the demo audit.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
# uv (a wheel from PyPI) installs the demo's ~45 wheels in parallel: 5 s against pip's 40 s on
# 2 cores (docs/getting-started.md). Where it cannot be had or cannot install, pip does it all.
if { [ -x .venv/bin/uv ] || .venv/bin/python -m pip install -q uv; } \
  && .venv/bin/uv pip install -q --system-certs --python .venv/bin/python -e '.[demo]'; then
  :
else
  echo "demo: installing with pip instead of uv" >&2
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[demo]'
fi
exec .venv/bin/paraudit demo --out "${1:-demo-out}"

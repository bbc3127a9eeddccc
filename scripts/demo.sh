#!/usr/bin/env bash
# The main job: install the offline stack into .venv and run the demo audit.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[demo]'
exec .venv/bin/paraudit demo --out "${1:-demo-out}"

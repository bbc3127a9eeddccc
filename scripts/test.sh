#!/usr/bin/env bash
# The test command: installs everything the tests need into .venv, then lint, types, tests.
set -euo pipefail
cd "$(dirname "$0")/.."
# The report test drives Debian's chromium (Playwright is told where it is; it downloads nothing).
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium) >/dev/null \
    || echo "could not install chromium: the browser test will be skipped" >&2
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
# The hf judge tests run tiny local models on the CPU: torch 2.13.0 is the CPU build this machine
# type keeps on disk (a bare 'torch' would fetch a multi-GB CUDA build); never torchvision.
.venv/bin/python -m pip install -q torch==2.13.0
.venv/bin/python -m pip install -q -e '.[dev,hf]'
.venv/bin/ruff check src tests benchmarks
.venv/bin/ruff format --check src tests benchmarks
.venv/bin/mypy
# The documentation site, strict: a broken link, anchor or include fails here, before the tests.
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet --site-dir "${TMPDIR:-/tmp}/paraudit-site-$$"
rm -rf "${TMPDIR:-/tmp}/paraudit-site-$$"
# One folder for the builds and renders both pytest passes below share (tests/conftest.py);
# a caller that runs more passes after this script (.ci/run) names its own and removes it.
if [ -z "${PARAUDIT_TEST_SHARED:-}" ]; then
  PARAUDIT_TEST_SHARED="$(mktemp -d "${TMPDIR:-/tmp}/paraudit-tests-XXXXXX")"
  trap 'rm -rf "$PARAUDIT_TEST_SHARED"' EXIT
fi
export PARAUDIT_TEST_SHARED
# Two worker processes (pytest-xdist); tests stay with the others of their file, and the ones
# that share a build, the Ray cluster or chromium stay together (tests/conftest.py).
if [ "$#" -eq 0 ]; then
  .venv/bin/python -m pytest -n "${PARAUDIT_TEST_WORKERS:-2}" --dist loadgroup -m "not ray_serial"
  # The Ray tests (tests/engines, *ray* modules) in one process after it: beside another worker
  # a Ray Data actor died on its own in two fresh-clone runs (tests/conftest.py).
  .venv/bin/python -m pytest -m ray_serial
else
  .venv/bin/python -m pytest -n "${PARAUDIT_TEST_WORKERS:-2}" --dist loadgroup "$@"
fi

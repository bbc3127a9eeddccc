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
cleanup=()
trap 'for c in "${cleanup[@]}"; do eval "$c"; done' EXIT
# Ctrl-C: stop here (the EXIT trap stops the Ray tests running in the background), rather than
# go on to wait for them.
trap 'exit 130' INT TERM
if [ -z "${PARAUDIT_TEST_SHARED:-}" ]; then
  PARAUDIT_TEST_SHARED="$(mktemp -d "${TMPDIR:-/tmp}/paraudit-tests-XXXXXX")"
  cleanup+=('rm -rf "$PARAUDIT_TEST_SHARED"')
fi
export PARAUDIT_TEST_SHARED
# Two worker processes (pytest-xdist); tests stay with the others of their file, and the ones
# that share a build, the Ray cluster or chromium stay together (tests/conftest.py).
if [ "$#" -eq 0 ]; then
  # The Ray tests (tests/engines, *ray* modules) in one process of their own, beside the
  # parallel pass: run after it, they left one core idle for most of their two minutes
  # (measured: 1.16 of the 2 cores busy, Ray's own processes included). Beside an xdist worker
  # at the same priority a Ray Data actor died on its own in two fresh-clone runs, never alone
  # (tests/conftest.py): the parallel pass runs at a lower priority (nice 10), so Ray's
  # processes, started from this one, get a core whenever they ask; a Ray test that still
  # fails beside it is run again alone, and a failure there fails the suite.
  ray_log="$(mktemp "${TMPDIR:-/tmp}/paraudit-ray-XXXXXX")"
  ray_cache="$(mktemp -d "${TMPDIR:-/tmp}/paraudit-ray-cache-XXXXXX")"
  # Only the files conftest.py marks ray_serial (tests/engines, and every module whose name
  # holds "ray") are collected: collecting all 2,000 tests to keep 34 cost this process 6-7
  # CPU-seconds at the start, while both workers are collecting too.
  mapfile -t ray_files < <(find tests -name '*ray*.py' ! -path 'tests/engines/*' | sort)
  .venv/bin/python -m pytest -m ray_serial -o cache_dir="$ray_cache" tests/engines "${ray_files[@]}" \
    >"$ray_log" 2>&1 &
  ray_pid=$!
  cleanup=('kill "$ray_pid" 2>/dev/null || true' 'rm -rf "$ray_log" "$ray_cache"' "${cleanup[@]}")
  parallel=0
  nice -n 10 .venv/bin/python -m pytest -n "${PARAUDIT_TEST_WORKERS:-2}" --dist loadgroup \
    -m "not ray_serial" || parallel=$?
  ray=0
  wait "$ray_pid" || ray=$?
  echo "--- the Ray tests (-m ray_serial), run beside the pass above ---"
  cat "$ray_log"
  if [ "$ray" -ne 0 ]; then
    echo "--- the Ray tests that failed beside the parallel pass, again alone ---"
    ray=0
    .venv/bin/python -m pytest -m ray_serial --last-failed -o cache_dir="$ray_cache" \
      tests/engines "${ray_files[@]}" || ray=$?
  fi
  [ "$parallel" -eq 0 ] && [ "$ray" -eq 0 ] || exit 1
else
  .venv/bin/python -m pytest -n "${PARAUDIT_TEST_WORKERS:-2}" --dist loadgroup "$@"
fi

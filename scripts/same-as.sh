#!/usr/bin/env bash
# Behaviour unchanged against an earlier commit (default bf45e00, main before dimensions):
#   1. `paraudit build starter --limit N` there and here, each from an empty render cache:
#      items.jsonl, dataset.json and every audio file must be byte-identical;
#   2. a run folder made there (builtin:prosody + builtin:random) must resume here with 0 judge
#      calls (same call keys), and `paraudit report` on it must write the same summary.md.
# Usage: scripts/same-as.sh [REV] [N]   (needs the dev install in .venv or $PY; ~2 min, 2 cores)
set -euo pipefail
cd "$(dirname "$0")/.."
REV=${1:-bf45e00}
N=${2:-3}
PY=${PY:-.venv/bin/python}
HERE=$PWD/src
WORK=$(mktemp -d /tmp/paraudit-same-as.XXXXXX)
git archive "$REV" src | tar -x -C "$WORK" && mv "$WORK/src" "$WORK/old"
pa() { PYTHONPATH=$1 PARAUDIT_CACHE=$WORK/cache-$2 "$PY" -m paraudit.cli.main "${@:3}"; }
pa "$WORK/old" old build starter --limit "$N" --workers 1 --out "$WORK/ds-old" >/dev/null
pa "$HERE" new build starter --limit "$N" --workers 1 --out "$WORK/ds-new" >/dev/null
cmp "$WORK/ds-old/items.jsonl" "$WORK/ds-new/items.jsonl"
cmp "$WORK/ds-old/dataset.json" "$WORK/ds-new/dataset.json"
(cd "$WORK/ds-old" && sha256sum audio/*) >"$WORK/old.sha"
(cd "$WORK/ds-new" && sha256sum audio/*) >"$WORK/new.sha"
cmp "$WORK/old.sha" "$WORK/new.sha"
echo "starter --limit $N: items.jsonl, dataset.json and $(wc -l <"$WORK/new.sha") clips identical"
judges=(--judge builtin:prosody --judge builtin:random)
pa "$WORK/old" old run "$WORK/ds-old" "${judges[@]}" --out "$WORK/run" >/dev/null
pa "$WORK/old" old report "$WORK/run" --replicates 1000 --out "$WORK/rep-old" >/dev/null
out=$(pa "$HERE" new run "$WORK/ds-old" "${judges[@]}" --out "$WORK/run" 2>&1)
grep -q " 0 judge calls" <<<"$out" || { echo "resume made calls: $out" >&2; exit 1; }
pa "$HERE" new report "$WORK/run" --replicates 1000 --out "$WORK/rep-new" >/dev/null
cmp "$WORK/rep-old/summary.md" "$WORK/rep-new/summary.md"
echo "run folder made at $REV resumed with 0 judge calls; summary.md identical"
rm -rf "$WORK"

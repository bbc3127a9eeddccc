#!/usr/bin/env bash
# The commands behind the figures the documentation (docs/) quotes, one named step each, with the
# page that quotes them, so any figure can be measured again with the command its page names.
# Not run in CI: several steps take minutes to hours on 2 cores, and timings need a quiet machine.
#
#   bash scripts/docs_figures.sh              list the steps: name, page(s), command
#   bash scripts/docs_figures.sh STEP [STEP]  run those steps
#   bash scripts/docs_figures.sh all          every step, in the order listed
#
# Outputs go under $OUT (default figures-out/, git-ignored); each step's output is in
# $OUT/logs/STEP.log with the load average (`uptime`) before and after it, since a time means
# little without the load it was measured under. Run it from a clone with .venv installed
# (bash scripts/test.sh); steps that need the offline starter set build it first.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
export OUT="${OUT:-$ROOT/figures-out}"
export PY="${PY:-$ROOT/.venv/bin/python}" P="${P:-$ROOT/.venv/bin/paraudit}" ROOT
export PATH="$ROOT/.venv/bin:$PATH"

need_starter() {  # the full offline starter set, rendered from an empty cache the first time
  [ -f "$OUT/starter/dataset.json" ] ||
    PARAUDIT_CACHE="$OUT/cache-starter" /usr/bin/time -v "$P" build starter --out "$OUT/starter"
}
export -f need_starter

# step | page(s) under docs/ | command (bash; $OUT, $PY, $P as above)
STEPS=$(cat <<'TABLE'
demo-first-run|getting-started.md (Your first hour)|PARAUDIT_CACHE="$OUT/cache-demo-empty" /usr/bin/time -v "$P" demo --out "$OUT/demo"
demo-screen|getting-started.md (Two commands)|"$P" demo --out "$OUT/demo" >/dev/null; COLUMNS=80 "$P" demo --out "$OUT/demo" | wc -l
demo-script|getting-started.md (first verdict time)|rm -rf "$OUT/clone-demo"; git clone -q "$ROOT" "$OUT/clone-demo"; cd "$OUT/clone-demo"; PARAUDIT_CACHE="$OUT/cache-script-empty" /usr/bin/time -v bash scripts/demo.sh 2>&1 | while IFS= read -r l; do printf '%s %s\n' "$(date +%T)" "$l"; done
suite|getting-started.md (Two commands)|rm -rf "$OUT/clone-ci"; git clone -q "$ROOT" "$OUT/clone-ci"; cd "$OUT/clone-ci"; CI=true /usr/bin/time -v bash .ci/run
starter|how-to/starter-set.md|rm -rf "$OUT/starter" "$OUT/cache-starter"; need_starter; PARAUDIT_CACHE="$OUT/cache-starter" /usr/bin/time -v "$P" build starter --out "$OUT/starter-rebuild" --force
render|how-to/starter-set.md|"$PY" benchmarks/render.py
builders|how-to/build-from-source.md|PYTHONPATH=src:. "$PY" benchmarks/build.py 6; PYTHONPATH=src:. "$PY" benchmarks/build.py 6 direction
full-run|reference/run-folder.md (built-in judges)|need_starter; rm -rf "$OUT/runs/full"; /usr/bin/time -v "$P" run "$OUT/starter" --judge builtin:prosody --judge builtin:transcript --judge builtin:first --judge builtin:random --out "$OUT/runs/full" --report "$OUT/report-full"
runner|reference/run-folder.md|"$PY" benchmarks/runner.py
startup|reference/run-folder.md|need_starter; PYTHONPATH=src:. "$PY" benchmarks/startup.py --starter "$OUT/starter"
scale|reference/scale.md|need_starter; PYTHONPATH=src:. "$PY" benchmarks/scale.py --rows 1000000 --starter "$OUT/starter" --json "$OUT/scale.json"
stats|concepts/statistics-checked.md, concepts/answer-accounting.md, concepts/strata.md|PYTHONPATH=src "$PY" benchmarks/stats.py
verdicts|concepts/statistics-checked.md|PYTHONPATH=src "$PY" benchmarks/verdicts.py --audits 200 --sizes 48,189; PYTHONPATH=src "$PY" benchmarks/verdicts.py --audits 100 --sizes 500; PYTHONPATH=src "$PY" benchmarks/verdicts.py --types "just under the bar" --audits 200
verdicts-accounting|concepts/answer-accounting.md|PYTHONPATH=src "$PY" benchmarks/verdicts.py --types "refuses 30 %,inverted P convention" --sizes 189 --audits 100
simulations|concepts/ (served model, null audio, delivery, strata, re-ask, joined, coverage, shortcut rule, accounting, invariance, generator bias, pressure and ties, plan)|PYTHONPATH=src "$PY" -m pytest -q -n 0 -p no:cacheprovider tests/stats/test_served.py tests/stats/test_null_audio.py tests/stats/test_delivery.py tests/stats/test_strata.py tests/stats/test_strata_known.py tests/stats/test_reask.py tests/stats/test_joined.py tests/stats/test_coverage.py tests/stats/test_shortcut_rule.py tests/stats/test_accounting.py tests/stats/test_invariance.py tests/stats/test_generator_bias.py tests/stats/test_pressure.py tests/stats/test_plan.py tests/stats/test_known_behaviour.py
invariance|concepts/controls/invariance.md|need_starter; rm -rf "$OUT/starter-inv" "$OUT/runs/inv"; /usr/bin/time -v "$P" build invariance --from "$OUT/starter" --out "$OUT/starter-inv"; /usr/bin/time -v "$P" run "$OUT/starter-inv" --judge builtin:prosody --judge builtin:random --judge builtin:first --probes J --protocols pointwise --cues none --out "$OUT/runs/inv" --report "$OUT/report-inv"; wc -l < "$OUT/runs/inv/results.jsonl"
pressure|concepts/pressure-and-ties.md|rm -rf "$OUT/pressure"; PYTHONPATH=src:. "$PY" -c "import sys; from pathlib import Path; from tests.stats.pressure_sets import single_turn_set; o = Path(sys.argv[1]); single_turn_set(o / 'set', o / 'tmp'); single_turn_set(o / 'ties', o / 'tmp-ties', ties=12)" "$OUT/pressure"; /usr/bin/time -v "$P" run "$OUT/pressure/set" --judge builtin:prosody --judge 'builtin:prosody?cues=obey' --judge builtin:random --judge builtin:first --probes J,P,O --cues none,hard,misleading --out "$OUT/pressure/run" --report "$OUT/pressure/report"; /usr/bin/time -v "$P" run "$OUT/pressure/ties" --judge builtin:prosody --judge builtin:abstain --probes J,P,O --cues none --prompts ties --out "$OUT/pressure/run-ties" --report "$OUT/pressure/report-ties"
plan|how-to/publish-and-gate.md|"$P" plan regression --p10 0.15 --p01 0.05 --at 189; "$P" plan regression --p10 0.12 --p01 0.08 --at 189
card-verify|how-to/publish-and-gate.md (the docs' figure: on benchmarks/scale.py's 326,720-row run; here the full-run step's)|[ -d "$OUT/runs/full" ] || bash "$ROOT/scripts/docs_figures.sh" full-run; rm -rf "$OUT/card"; /usr/bin/time -v "$P" card "$OUT/runs/full" --out "$OUT/card"; /usr/bin/time -v "$P" verify "$OUT/card" "$OUT/runs/full"
audioqc|how-to/expressive-tts.md|PYTHONPATH=src "$PY" benchmarks/audioqc.py 8
ray|how-to/ray.md|PYTHONPATH=src "$PY" benchmarks/ray_engine.py 0.01; PYTHONPATH=src "$PY" benchmarks/ray_engine.py 0.03
gpu-check|how-to/ray.md (GPU check; on a GPU machine drop --rehearse)|bash scripts/gpu-check.sh "$OUT/gpu-check" --rehearse
dimensions|concepts/new-dimensions.md|PYTHONPATH=src "$PY" benchmarks/dimensions.py
dimension-sets|concepts/dimensions.md (Building a new dimension's starter set)|for d in urgency hesitation whisper emphasis sarcasm; do rm -rf "$OUT/dim-$d" "$OUT/runs/dim-$d"; PARAUDIT_CACHE="$OUT/cache-dim-empty-$d" /usr/bin/time -v "$P" build starter --dimension "$d" --out "$OUT/dim-$d"; "$P" run "$OUT/dim-$d" --judge builtin:random --judge builtin:first --out "$OUT/runs/dim-$d" --report "$OUT/report-dim-$d"; done
same-as|concepts/dimensions.md (emotion unchanged)|bash scripts/same-as.sh bf45e00 3
screenshots|concepts/report.md, README.md (needs the demo step's report)|[ -f "$OUT/demo/report/report.html" ] || bash "$ROOT/scripts/docs_figures.sh" demo-screen; PYTHONPATH=src "$PY" scripts/report_screenshots.py "$OUT/demo/report" docs/
TABLE
)

if [ "$#" -eq 0 ]; then
  printf '%s\n' "$STEPS" | while IFS='|' read -r name page cmd; do
    printf '%s\n    docs/%s\n    %s\n' "$name" "$page" "$cmd"
  done
  exit 0
fi
names=("$@")
[ "$1" = all ] && mapfile -t names < <(printf '%s\n' "$STEPS" | cut -d'|' -f1)
mkdir -p "$OUT/logs"
for name in "${names[@]}"; do
  line=$(printf '%s\n' "$STEPS" | grep -m1 "^$name|" || true)
  if [ -z "$line" ]; then
    echo "error: no step '$name'; run 'bash scripts/docs_figures.sh' for the list" >&2
    exit 2
  fi
  cmd=${line#*|*|}
  log="$OUT/logs/$name.log"
  {
    echo "## $name  ($(date -u +%FT%TZ), git $(git rev-parse --short HEAD))"
    echo "## load before: $(uptime)"
    echo "## \$ $cmd"
  } | tee "$log"
  (bash -euo pipefail -c "$cmd") 2>&1 | tee -a "$log"
  echo "## load after: $(uptime)" | tee -a "$log"
done

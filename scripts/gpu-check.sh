#!/usr/bin/env bash
# GPU check of the hf: judge (CPU vs CUDA) and, where vllm and ray are installed, of vllm:
# through the Ray engine. Run from the repository root on a GPU machine:
#   bash scripts/gpu-check.sh OUTDIR [--rehearse]
# It installs nothing and downloads nothing; see scripts/gpu_check.py for what is compared.
# --rehearse runs every part on CPU, to check the script before spending GPU time.
set -euo pipefail
if [ $# -lt 1 ] || [ $# -gt 2 ]; then
  echo "usage: bash scripts/gpu-check.sh OUTDIR [--rehearse]" >&2
  exit 2
fi
out="$(realpath -m "$1")"
shift
cd "$(dirname "$0")/.."
export PYTHONPATH="$PWD/src:$PWD${PYTHONPATH:+:$PYTHONPATH}"
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
exec "${PYTHON:-python3}" scripts/gpu_check.py "$out" "$@"

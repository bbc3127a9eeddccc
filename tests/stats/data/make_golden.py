"""Regenerate summary_golden.json (only on purpose: it pins summary.json across refactors).

PYTHONPATH=src:. python tests/stats/data/make_golden.py tests/stats/data/summary_golden.json
"""

import sys
import time
from pathlib import Path

from paraudit.stats.summary import summarize
from paraudit.stats.summary_model import Summary
from tests.stats.registry_rows import golden_delivery, golden_rows

t = time.time()
rows = golden_rows()
raw = summarize(rows, replicates=200, seed=3, permutations=200, delivery=golden_delivery())
Path(sys.argv[1]).write_text(Summary.of(raw).to_json())
print(len(rows), time.time() - t)

"""The report's generator-bias panel: present for two runs on two generators' sets, absent
otherwise (and the rest of the report unchanged)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from paraudit.report.build import write_report
from tests.stats.generator_sets import GeneratorRuns, make_runs, run_on

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.fixture(scope="module")
def gen_runs(tmp_path_factory: pytest.TempPathFactory) -> GeneratorRuns:
    return make_runs(tmp_path_factory.mktemp("generators"))


def test_two_generators_sets_get_the_panel(gen_runs: GeneratorRuns, tmp_path: Path) -> None:
    runs = [gen_runs.runs["gpt"], gen_runs.runs["gemini"]]
    page = write_report(runs, tmp_path / "r", replicates=500).read_text()
    panel = page[page.index("<h2>Generator bias</h2>") :]
    assert page.rstrip().endswith("</body></html>")
    assert "20 source records in both sets" in panel
    assert panel.count("Kendall τ") == 2  # pointwise and pairwise
    assert panel.count("google judges gain +") == 2  # known:gemini-own is named
    assert "known:gemini-own" in panel and "width:" in panel
    saved = json.loads((tmp_path / "r" / "generators.json").read_text())
    assert saved["shared_sources"] == 20 and len(saved["cells"]) == 2
    # A collapsed section like every other, listed in the contents, scrolling in its own box.
    assert '<section class="part" id="generator-bias"><details><summary>' in page
    assert '<a href="#generator-bias">Generator bias</a>' in page
    assert "<div class='genbias scroll'>" in panel
    if CHROMIUM is not None:
        assert _phone_scroll_width(tmp_path / "r" / "report.html") <= 390


def _phone_scroll_width(page: Path) -> int:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        tab = browser.new_page(viewport={"width": 390, "height": 844})
        tab.goto(page.as_uri())
        tab.evaluate("() => document.querySelectorAll('details').forEach(d => d.open = true)")
        width: int = tab.evaluate("() => document.documentElement.scrollWidth")
        browser.close()
    return width


def test_other_runs_get_no_panel(gen_runs: GeneratorRuns, tmp_path: Path) -> None:
    one = write_report([gen_runs.runs["gpt"]], tmp_path / "one", replicates=200).read_text()
    again = run_on(gen_runs.sets["gpt"], tmp_path / "again", ("builtin:first",))
    same = write_report([gen_runs.runs["gpt"], again], tmp_path / "same", replicates=200)
    assert "Generator bias" not in one and "Generator bias" not in same.read_text()
    assert not (tmp_path / "one" / "generators.json").exists()

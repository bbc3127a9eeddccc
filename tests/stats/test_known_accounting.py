"""Known-behaviour judges for answer accounting and components (issue 27, parts 2 and 5),
through the real runner: a refuser, servers answering a bare `R1` or `{"pred": "R1"}` over the
OpenAI wire format (loopback), and a judge that hears but answers P in the swapped convention.
Each gets the verdict its behaviour implies; every question lands in exactly one outcome."""

from __future__ import annotations

import asyncio
import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest

from paraudit.judges import registry
from paraudit.judges.base import Reply
from paraudit.protocols.instances import Instance
from paraudit.protocols.parts import Prompt
from paraudit.report.build import write_report
from paraudit.runner.calls import RetryPolicy
from paraudit.runner.run import RunConfig, Runner
from paraudit.stats.summary import summarize
from tests.conftest import needs
from tests.judges import loopback
from tests.stats.synthetic import stat_rows
from tests.stats.test_known_behaviour import (
    ITEMS_PER_TASK,
    PLAN,
    KnownJudge,
    _dataset,
    _key,
    _wrong,
)

pytestmark = needs("openai", "openai")

REFUSED_SHARE = 0.3


class AccountingJudge(KnownJudge):
    """refuse30: right on every question it answers, refuses 30 % (fixed per prompt);
    invertedP: hears perfectly, answers P in the swapped label convention."""

    async def generate(self, prompt: Prompt, *, sample: int = 0, **_: Any) -> Reply:
        inst = self.plan()[_key(prompt)][0]
        b = self.behaviour()
        if b == "refuse30":
            coin = hashlib.sha256(repr(_key(prompt)).encode()).digest()[0] / 256
            if coin < REFUSED_SHARE:
                return Reply("", refused="blocked by the provider's safety filter")
        return Reply(json.dumps({"reasoning": b, "pred": self.answer(inst, prompt)}))

    def answer(self, inst: Instance, prompt: Prompt) -> str | dict[str, str]:
        if inst.probe == "T":
            return "R1"
        if self.behaviour() == "invertedP" and inst.probe == "P":
            return _wrong(inst.gold)  # type: ignore[arg-type]
        return inst.gold  # type: ignore[return-value]


class _EP:
    def load(self) -> type[KnownJudge]:
        return AccountingJudge


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("acct")
    ds = _dataset(tmp / "ds", tmp / "clips")
    KnownJudge.dataset = ds
    return ds


def _run_known(ds: Path, out: Path) -> list[dict[str, Any]]:
    mp = pytest.MonkeyPatch()
    mp.setattr(registry, "_third_party", lambda: {"known": _EP()})
    try:
        cfg = RunConfig(ds, ["known:refuse30", "known:invertedP"], out, PLAN, concurrency=32)
        return asyncio.run(Runner(cfg).run())
    finally:
        mp.undo()


def _run_server(
    ds: Path, outs: list[Path], reply: str, parses: tuple[str, ...] = ("strict",)
) -> list[list[dict[str, Any]]]:
    """One run per parse preset against one server (same spec, so the same call keys)."""
    mp = pytest.MonkeyPatch()
    mp.setenv("LOOP_KEY", "sk-test-0123456789")
    mp.setattr(loopback, "first_option_reply", lambda text: reply)
    try:
        with loopback.Loopback() as srv:
            spec = f"openai:test-model@{srv.url}/v1?key_env=LOOP_KEY"
            retry = RetryPolicy(max_attempts=2, base_delay_s=0.01, timeout_s=10)
            return [
                asyncio.run(
                    Runner(
                        RunConfig(ds, [spec], out, PLAN, concurrency=16, retry=retry, parse=parse)
                    ).run()
                )  # fmt: skip
                for out, parse in zip(outs, parses, strict=True)
            ]
    finally:
        mp.undo()


def _verdicts(summary: dict[str, Any], judge_end: str) -> list[dict[str, Any]]:
    vs = [v for v in summary["verdicts"] if v["judge"].endswith(judge_end)]
    assert len(vs) == 2 and all(v["items"] == ITEMS_PER_TASK for v in vs)
    return vs


@pytest.fixture(scope="module")
def known(dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("acct-run")
    _run_known(dataset, tmp / "run")
    write_report([tmp / "run"], tmp / "report", replicates=1000)
    assert "Answer accounting" in (tmp / "report" / "report.html").read_text()
    out: dict[str, Any] = json.loads((tmp / "report" / "summary.json").read_text())
    return out


def test_every_question_lands_in_exactly_one_outcome(known: dict[str, Any]) -> None:
    for rec in known["accounting"]:
        given = rec["answered"]
        if rec["probe"] != "T":
            assert rec["right"] + rec["wrong"] == given
        parts = given + rec["refused"] + rec["no_audio"] + rec["unparsed"] + rec["error"]
        assert parts == rec["questions"], rec


def test_a_refuser_is_named_with_the_accuracy_of_the_answers_it_gives(
    known: dict[str, Any],
) -> None:
    for v in _verdicts(known, ":refuse30"):
        named = [b for b in v["behaviours"] if b["kind"] == "answers not given"]
        assert len(named) == 1, v["headline"]
        assert re.match(r"refuses [23]\d\.\d% of questions \(J ", named[0]["text"])  # ≈ 30 %
        assert "every J answer it gives is right" in v["headline"], v["headline"]
        assert "failures look independent" not in v["headline"]
        assert v["diagnosis"] != "below chance"
    pooled = [r for r in known["accounting"]
              if r["judge"].endswith(":refuse30") and r["protocol"] == "all"]  # fmt: skip
    assert all(0.2 < r["refused"] / r["questions"] < 0.4 for r in pooled)
    assert all(r["wrong"] == 0 for r in pooled if r["probe"] != "T")


def test_an_inverted_convention_p_is_named_inverted_not_a_shortcut(known: dict[str, Any]) -> None:
    for v in _verdicts(known, ":invertedP"):
        assert v["diagnosis"] == "reliable", v["headline"]
        native = [c for c in v["components"] if c["cue"] == "none"][0]
        assert native["inverted"] == ["P"], native["text"]
        assert native["pattern"] == "inverted component"
        assert "P inverted" in native["text"] and "shortcut" not in v["text"]


@pytest.fixture(scope="module")
def bare(dataset: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("bare")
    strict, lenient = _run_server(
        dataset, [tmp / "strict", tmp / "lenient"], "R1", ("strict", "lenient")
    )
    return {
        "strict": strict,
        "lenient": lenient,
        "s_strict": summarize(stat_rows(strict), replicates=500),
        "s_lenient": summarize(stat_rows(lenient), replicates=500),
        "spec": json.loads((tmp / "lenient" / "run.json").read_text())["spec"],
        "strict_spec": json.loads((tmp / "strict" / "run.json").read_text())["spec"],
    }


def test_a_bare_label_server_gets_no_verdict_but_the_fix(bare: dict[str, Any]) -> None:
    assert {r["status"] for r in bare["strict"]} == {"unparsed"}
    for v in bare["s_strict"]["verdicts"]:
        assert v["diagnosis"] == "answers not given", v["headline"]
        assert v["headline"].startswith("No verdict from answers not given: 100.0%")
        assert "`R1`" in v["headline"] and "--parse lenient" in v["headline"]
        assert "below chance" not in v["headline"] and v["native"]["outcome"] != "below chance"


def test_the_lenient_preset_reads_the_bare_label_and_keeps_call_keys(bare: dict[str, Any]) -> None:
    assert "parse" not in bare["strict_spec"] and bare["spec"]["parse"] == "lenient"
    keys = sorted(r["key"] for r in bare["strict"])
    assert keys == sorted(r["key"] for r in bare["lenient"])
    status = {(r["probe"], r["protocol"], r["task"], r["status"]) for r in bare["lenient"]}
    # A choice offering R1 (J and O pointwise, single-turn P) is now an answer; a matching or
    # a multi-turn P needs its JSON, so a bare R1 stays no answer there.
    assert {st for p, proto, _, st in status if proto == "pointwise" and p in "JO"} == {"ok"}
    assert {st for p, proto, _, st in status if proto == "pairwise"} == {"unparsed"}
    assert {st for p, _, t, st in status if p == "P" and t == "positional-emotion"} == {"unparsed"}
    for v in bare["s_lenient"]["verdicts"]:
        assert v["diagnosis"] == "position-biased", v["headline"]
        named = [b for b in v["behaviours"] if b["kind"] == "answers not given"]
        assert named and "J" in named[0]["probes"], v["text"]
        assert ("P" in named[0]["probes"]) == (v["task"] == "positional-emotion")
        # Already lenient, the rest are matchings and turn labels: not advised again.
        assert "--parse lenient" not in v["headline"]
        assert "cannot answer a matching or per-turn question" in v["headline"]


def test_a_pred_r1_server_names_its_unparsed_replies(dataset: Path, tmp_path: Path) -> None:
    [rows] = _run_server(dataset, [tmp_path / "run"], json.dumps({"pred": "R1"}))
    unparsed = sum(r["status"] == "unparsed" for r in rows) / len(rows)
    assert 0.2 < unparsed < 0.6
    for v in summarize(stat_rows(rows), replicates=500)["verdicts"]:
        assert v["diagnosis"] == "position-biased", v["headline"]
        named = [b for b in v["behaviours"] if b["kind"] == "answers not given"]
        assert len(named) == 1 and "J" in named[0]["probes"], v["text"]
        assert ("P" in named[0]["probes"]) == (v["task"] == "positional-emotion")
        assert '`{"pred": "R1"}`' in named[0]["text"]
        assert "Gives unparsed replies" in v["headline"], v["headline"]

"""Dry-run cost estimates, the vLLM prompt conversion, and missing-extra messages."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.errors import MissingExtraError, ParauditError
from paraudit.items.dataset import load_dataset
from paraudit.judges.payloads import encoded_clips
from paraudit.judges.prices import DEFAULT_PRICES, Price, estimate, load_prices
from paraudit.judges.registry import load_judge
from paraudit.judges.spec import parse_judge_spec
from paraudit.judges.vllm_backend import vllm_messages
from paraudit.protocols.parts import AudioPart
from paraudit.runner.plan import PlanSpec, plan_instances


def test_estimate_arithmetic() -> None:
    prices = {"openai:m": Price(text_in=2.0, audio_in=40.0, out=10.0, audio_tokens_per_s=10.0)}
    e = estimate(parse_judge_spec("openai:m?temperature=0"), 1_000_000, 100.0, 10, prices)
    assert e["usd"] == pytest.approx(round(2.0 + 100 * 10 * 40 / 1e6 + 10 * 150 * 10 / 1e6, 2))
    assert (
        estimate(parse_judge_spec("openai:m@http://127.0.0.1:8000/v1"), 1, 1, 1, prices)["usd"]
        == 0.0
    )
    assert estimate(parse_judge_spec("openai:unknown"), 1, 1, 1, prices)["usd"] is None
    assert "openai:gpt-4o-audio-preview" in DEFAULT_PRICES


def test_price_file_overrides_and_bad_files(tmp_path: Path) -> None:
    f = tmp_path / "p.json"
    f.write_text(
        json.dumps({"gemini:x": {"text_in": 1, "audio_in": 2, "out": 3, "audio_tokens_per_s": 32}})
    )
    assert load_prices(f)["gemini:x"].audio_in == 2
    f.write_text("{nope")
    with pytest.raises(ParauditError, match="not a price table"):
        load_prices(f)


def test_dry_run_cli_prints_cost(
    starter_small: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MY_KEY", "k")
    r = CliRunner().invoke(
        app,
        [
            "run",
            str(starter_small),
            "--judge",
            "openai:gpt-4o-audio-preview",
            "--judge",
            "builtin:first",
            "--out",
            str(tmp_path / "r"),
            "--dry-run",
            "--api-key-env",
            "MY_KEY",
        ],
        env={"COLUMNS": "200"},
    )
    assert r.exit_code == 0, r.output
    assert "estimated cost openai:gpt-4o-audio-preview: $" in r.output
    assert "text_tokens_per_judge" in r.output and not (tmp_path / "r" / "calls.sqlite").exists()


def test_vllm_conversion_sends_exact_bytes_in_order(starter_small: Path) -> None:
    ds = load_dataset(starter_small)
    inst = plan_instances(
        ds, PlanSpec(probes=("J",), protocols=("pairwise",), cues=("none",), limit=5)
    )[-1]
    messages, sent = vllm_messages(inst.prompt, encoded_clips())
    content = messages[0]["content"]
    assert len(content) == len(inst.prompt)
    for part, item in zip(inst.prompt, content, strict=True):
        if isinstance(part, AudioPart):
            data = base64.b64decode(item["audio_url"]["url"].split(",", 1)[1])
            assert (
                data == part.path.read_bytes() and hashlib.sha256(data).hexdigest() == part.sha256
            )
        else:
            assert item == {"type": "text", "text": part.text}
    assert list(sent) == [p.sha256 for p in inst.prompt if isinstance(p, AudioPart)]


@pytest.mark.parametrize(
    ("spec", "module", "extra"),
    [
        ("vllm:Qwen/Qwen2-Audio-7B-Instruct", "vllm", "vllm"),
        ("hf:Qwen/Qwen2-Audio-7B-Instruct", "transformers", "hf"),
        ("gemini:gemini-2.5-pro", "google.genai", "gemini"),
    ],
)
def test_missing_extras_name_the_extra(
    spec: str, module: str, extra: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda n, *a: None if n == module else real(n, *a)
    )
    with pytest.raises(MissingExtraError, match=rf"pip install 'paraudit\[{extra}\]'"):
        load_judge(spec)
    r = CliRunner().invoke(app, ["run", "nowhere", "--judge", spec, "--out", "x"])
    assert r.exit_code == 1 and f"paraudit[{extra}]" in r.output


def test_local_and_scaffolded_judges_are_priced_honestly() -> None:
    free = estimate(parse_judge_spec("desta:m"), 1000, 10.0, 5, DEFAULT_PRICES)
    assert free["usd"] == 0.0
    scaf = estimate(parse_judge_spec("scaffold:openai:gpt-audio"), 1000, 10.0, 5, DEFAULT_PRICES)
    assert scaf["usd"] is None and "P and Staging" in scaf["note"]

"""`paraudit card` and `paraudit verify` on real runs: the demo's judges on a small real
starter build, and a tiny run made through the CLI; the exports validate against the vendored
schemas; verify names the one file that changed; bad input is one line, exit 2, nothing
written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from typer.testing import CliRunner

from paraudit.cli.main import app
from paraudit.runfolder import RESULTS
from tests.publish.conftest import model_run

SCHEMAS = Path(__file__).parent / "schemas"


def _cli(*args: str) -> tuple[int, str]:
    r = CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})
    assert "Traceback" not in r.output, r.output
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    return r.exit_code, r.output


def _schema(name: str) -> dict[str, Any]:
    return json.loads((SCHEMAS / name).read_text())


@pytest.fixture
def demo_copy(small_run: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the demo judges' run and of its dataset (the tests change bytes in them)."""
    spec = json.loads((small_run / "run.json").read_text())
    run, ds = tmp_path / "run", tmp_path / "ds"
    shutil.copytree(small_run, run)
    shutil.copytree(spec["dataset"], ds)
    return run, ds


@pytest.fixture
def tiny_run(tiny_dataset: Path, tmp_path: Path) -> Path:
    out = tmp_path / "tiny-run"
    code, text = _cli("run", str(tiny_dataset), "--judge", "builtin:first", "--out", str(out),
                      "--probes", "J,P,O")  # fmt: skip
    assert code == 0, text
    return out


def test_a_card_of_the_demo_run_validates_and_verifies(
    demo_copy: tuple[Path, Path], tmp_path: Path
) -> None:
    run, ds = demo_copy
    card = tmp_path / "card"
    code, out = _cli("card", str(run), "--dataset", str(ds), "--out", str(card),
                     "--replicates", "500", "--hf-dataset", "acme/paraudit-starter")  # fmt: skip
    assert code == 0 and "hash-only, not signed" in out, out
    record = json.loads((card / "card.json").read_text())
    assert record["schema"] == "paraudit.card/1" and len(record["judges"]) == 4
    assert {v["judge"] for v in record["verdicts"]} == {j["label"] for j in record["judges"]}
    # The model each reply named (calls.sqlite's served column): a built-in names itself.
    assert all(j["served_models"] == [j["label"].split("?")[0]] for j in record["judges"])
    assert record["signature"]["signed"] is False and "hash-only" in record["signature"]["note"]
    assert any(n.startswith("dataset/audio/") for n in record["subjects"])
    eee = jsonschema.Draft7Validator(_schema("eval.schema.json"))
    hf = jsonschema.Draft7Validator(_schema("hf_eval_results.schema.json"))
    for path in sorted((card / "every_eval_ever").glob("*.json")):
        data = json.loads(path.read_text())
        errors = [e.message for e in eee.iter_errors(data)]
        assert not errors, (path.name, errors[:3])
        ci = data["evaluation_results"][0]["score_details"]["uncertainty"]["confidence_interval"]
        assert ci["lower"] <= data["evaluation_results"][0]["score_details"]["score"] <= ci["upper"]
    assert len(list((card / "every_eval_ever").glob("*.json"))) == 4
    for path in sorted((card / "eval_results").glob("*.yaml")):
        entries = yaml.safe_load(path.read_text())
        assert not [e.message for e in hf.iter_errors(entries)], path.name
        assert {e["dataset"]["id"] for e in entries} == {"acme/paraudit-starter"}
    stmt = json.loads((card / "statement.intoto.json").read_text())
    jsonschema.validate(stmt, _schema("intoto_test_result_statement.schema.json"))
    assert len(stmt["subject"]) == len(record["subjects"])
    # The checks are the verdicts: builtin:random and builtin:first are never usable natively.
    failed = " ".join(stmt["predicate"]["failedTests"])
    assert "builtin:random" in failed and "builtin:first" in failed
    assert stmt["predicate"]["result"] == "FAILED"
    assert "## Verdicts" in (card / "card.md").read_text()

    code, out = _cli("verify", str(card), str(run), "--dataset", str(ds))
    assert code == 0 and "subject digests and the summary match" in out, out

    # One byte of results.jsonl: named, exit 1.
    results = run / RESULTS
    data = bytearray(results.read_bytes())
    data[100] ^= 0x01
    results.write_bytes(bytes(data))
    code, out = _cli("verify", str(card), str(run), "--dataset", str(ds))
    lines = [line for line in out.splitlines() if line.startswith("mismatch:")]
    assert code == 1 and len(lines) == 1 and str(results) in lines[0], out
    data[100] ^= 0x01
    results.write_bytes(bytes(data))
    assert _cli("verify", str(card), str(run), "--dataset", str(ds))[0] == 0

    # One byte of one clip: named, exit 1.
    clip = sorted((ds / "audio").iterdir())[3]
    raw = bytearray(clip.read_bytes())
    raw[-1] ^= 0x01
    clip.write_bytes(bytes(raw))
    code, out = _cli("verify", str(card), str(run), "--dataset", str(ds))
    lines = [line for line in out.splitlines() if line.startswith("mismatch:")]
    assert code == 1 and len(lines) == 1 and clip.name in lines[0], out


def test_verify_recomputes_the_summary(tiny_run: Path, tmp_path: Path) -> None:
    """A summary edited in the card (digest updated too) is caught by the recomputation."""
    card = tmp_path / "card"
    assert _cli("card", str(tiny_run), "--out", str(card), "--replicates", "200")[0] == 0
    summary = json.loads((card / "summary.json").read_text())
    summary["verdicts"][0]["headline"] = "Reliable natively."
    text = json.dumps(summary, indent=2) + "\n"
    (card / "summary.json").write_text(text)
    record = json.loads((card / "card.json").read_text())
    import hashlib

    record["summary"]["sha256"] = hashlib.sha256(text.encode()).hexdigest()
    (card / "card.json").write_text(json.dumps(record))
    code, out = _cli("verify", str(card))
    assert code == 1 and "differs from the summary recomputed" in out, out


def test_bad_input_is_one_line_exit_2_and_nothing_written(tiny_run: Path, tmp_path: Path) -> None:
    unfinished = model_run(tmp_path / "rows-only", [], 0)
    (tmp_path / "tampered").mkdir()
    tampered = tmp_path / "tampered" / "run"
    shutil.copytree(tiny_run, tampered)
    with (tampered / RESULTS).open("a") as f:
        f.write((tampered / RESULTS).read_text().splitlines()[0] + "\n")
    cases = [
        ([str(unfinished)], "no run.json"),
        ([str(tampered)], "was changed after the run finished"),
        ([str(tiny_run), "--dataset", str(tmp_path)], "is not the one"),
        ([str(tiny_run), "--relationship", "friend"], "--relationship 'friend'"),
    ]
    for n, (args, words) in enumerate(cases):
        out_dir = tmp_path / f"card{n}"
        code, out = _cli("card", *args, "--out", str(out_dir), "--replicates", "200")
        errors = [line for line in out.splitlines() if line.startswith("error:")]
        assert code == 2 and len(errors) == 1 and words in " ".join(out.split()), (args, out)
        assert not out_dir.exists()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.startswith(".card")]
    assert not leftovers
    code, out = _cli("verify", str(tmp_path / "nothing"))
    assert code == 2 and "not a readable audit card" in out


def test_signed_card(tiny_run: Path, tmp_path: Path) -> None:
    pytest.importorskip("model_signing", reason="the optional signer (paraudit[sign])")
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    (tmp_path / "k.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))  # fmt: skip
    (tmp_path / "k.pub").write_bytes(key.public_key().public_bytes(serialization.Encoding.PEM,
        serialization.PublicFormat.SubjectPublicKeyInfo))  # fmt: skip
    card = tmp_path / "card"
    code, out = _cli("card", str(tiny_run), "--out", str(card), "--replicates", "200",
                     "--sign", str(tmp_path / "k.pem"))  # fmt: skip
    assert code == 0 and "signed" in out and (card / "card.sig").is_file(), out
    code, out = _cli("verify", str(card), "--public-key", str(tmp_path / "k.pub"))
    assert code == 0 and "signature holds" in out, out
    (card / "card.md").write_text((card / "card.md").read_text() + "edited\n")
    code, out = _cli("verify", str(card), "--public-key", str(tmp_path / "k.pub"))
    assert code == 1 and "card.sig" in out and "does not hold" in out, out

"""The dataset card from a build result (no rendering needed)."""

from __future__ import annotations

from pathlib import Path

from paraudit.builders.card import card_data, card_markdown
from paraudit.builders.pipeline import BuildOptions, BuildResult
from paraudit.items.records import AuditItem, Branch, Response, Turn


def item(i: int, emotions: tuple[str, ...], lex: tuple[float, float]) -> AuditItem:
    ctx = tuple(Turn(speaker="human", text=f"t{k}") for k in range(len(emotions)))
    resp = lambda t: Response(text=t, emotion="neutral", audio="audio/x.wav")  # noqa: E731
    return AuditItem(
        id=f"pos-{i}",
        task="positional-emotion",
        context=ctx,
        branches=(
            Branch(emotions=emotions, audio=("a",) * len(emotions), response=resp("one two")),
            Branch(
                emotions=("neutral",) * len(emotions),
                audio=("a",) * len(emotions),
                response=resp("one two three four"),
            ),
        ),
        meta={
            "group": "KVRET",
            "branch0": "A" if i % 2 else "B",
            "balance": {
                "length_words": [2, 4],
                "lexical": {
                    "R0": {
                        f: lex[0]
                        for f in ("politeness", "specificity", "warmth", "formality", "fluency")
                    },
                    "R1": {
                        f: lex[1]
                        for f in ("politeness", "specificity", "warmth", "formality", "fluency")
                    },
                },
            },
        },
    )


def test_card_counts_tables_and_notes(tmp_path: Path) -> None:
    o = BuildOptions(kind="positional", source=tmp_path / "od3.jsonl", out=tmp_path / "ds")
    r = BuildResult(o)
    r.items = [item(1, ("neutral", "sad", "angry"), (4, 2)), item(2, ("neutral", "sad"), (3, 3))]
    r.available, r.tried, r.composed = {"KVRET": 5, "NOESIS-II": 3}, {"KVRET": 3}, {"KVRET": 2}
    r.rejections = [
        {"source_id": "k-9", "stage": "compose", "code": "impossible", "reason": "said so"},
        {"source_id": "k-8", "stage": "qc", "code": "qc-failed", "reason": "turn 0"},
    ]
    r.qc = {"neutral": {"turns": 3, "rules": {"neutral: |rel. pitch| ≤ 1.5 st": 3}}}
    r.tts = {"label": "piper", "qc": "Audio Scorer (no SER)"}
    r.dnsmos_note = "not computed: --no-dnsmos"
    d = card_data(r)
    assert d["composition"]["KVRET"] == {"available": 5, "tried": 3, "composed": 2, "kept": 2}
    assert d["composition"]["NOESIS-II"]["kept"] == 0
    assert {(c["stage"], c["code"], c["count"]) for c in d["rejections"]["counts"]} == {
        ("compose", "impossible", 1),
        ("qc", "qc-failed", 1),
    }
    t = d["balance"]["table"]
    assert t["politeness"]["mean_abs_diff"] == 1.0 and t["politeness"]["mean_signed_diff"] == 1.0
    assert t["length (words)"]["mean_abs_diff"] == 2.0
    notes = " ".join(d["not_checked"])
    assert "speech-emotion-recognition" in notes and "DNSMOS" in notes
    assert "1 item(s) have more than two distinct human emotions" in notes
    md = card_markdown(d)
    assert "\\|rel. pitch\\|" in md and "| KVRET | 5 | 3 | 2 | 2 |" in md

"""Short judge labels: unique whatever the names, at most WIDTH characters, full spec kept."""

from __future__ import annotations

from paraudit.report.glossary import Glossary
from paraudit.report.labels import WIDTH, label_html, legend_html, short_labels

LONG = "openai:gpt-4o-audio-preview-2025-06-03-extended-context-experimental"


def test_a_long_spec_is_shortened_and_kept_apart_from_its_siblings() -> None:
    judges = [
        f"{LONG}@http://127.0.0.1:8000/v1",
        f"{LONG}@http://127.0.0.1:8000/v1?temperature=0.7",
        f"{LONG}@http://10.0.0.9:8000/v1?temperature=0.7",
        "builtin:random",
        "builtin:prosody [run-b]",
        "builtin:prosody [run-a]",
    ]
    labels = short_labels(judges)
    assert len(set(labels.values())) == len(judges)  # never two judges drawn as one
    assert labels["builtin:random"] == "builtin:random"  # short names are left alone
    assert labels["builtin:prosody [run-a]"] == "builtin:prosody [run-a]"
    for judge in judges[:3]:
        assert len(labels[judge]) <= WIDTH + 3 and "…" in labels[judge]
        assert labels[judge].startswith("openai:gpt")
    html = label_html(judges[0], labels)
    assert f'title="{judges[0]}"' in html and "127.0.0.1" not in html.split(">", 1)[1]
    assert all(j in legend_html(labels) for j in judges[:3])
    assert legend_html(short_labels(["builtin:random"])) == ""


def test_one_judge_drops_its_endpoint_whole() -> None:
    assert short_labels(["openai:m@http://127.0.0.1:9/v1"]) == {
        "openai:m@http://127.0.0.1:9/v1": "openai:m"
    }


def test_a_term_is_explained_once_at_its_first_use() -> None:
    g = Glossary()
    first = g.lines("Not usable natively: Potemkin", "component bottleneck")
    assert "<dfn>Potemkin</dfn>" in first and "<dfn>component bottleneck</dfn>" in first
    assert first.index("native") < first.index("Potemkin")  # in the order the text uses them
    assert g.lines("Potemkin again") == ""

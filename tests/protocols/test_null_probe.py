"""N instances: the real question with null context clips, kept apart from it everywhere."""

from __future__ import annotations

from pathlib import Path

from paraudit.items.dataset import load_dataset
from paraudit.protocols.instances import j_instance, p_instance
from paraudit.protocols.null_probe import NullClips, n_instance
from paraudit.protocols.parts import AudioPart


def test_n_instance_is_the_real_question_with_null_context(tiny_dataset: Path,
                                                           tmp_path: Path) -> None:  # fmt: skip
    ds = load_dataset(tiny_dataset)
    clips = NullClips(tmp_path / "null")
    for item in ds.items:
        for asks in ("P", "J"):
            real = (p_instance(ds, item, "none", "ab", 1) if asks == "P"
                    else j_instance(ds, item, "pointwise", "none", "ab", 1))  # fmt: skip
            ids = set()
            for kind in ("silence", "noise"):
                n = n_instance(ds, item, asks, kind, "none", "ab", 1, clips)
                assert (n.probe, n.asks, n.null) == ("N", asks, kind)
                assert n.question == real.question and n.question.probe == asks
                assert (n.gold, n.options, n.order, n.branch) == (
                    real.gold, real.options, real.order, real.branch)  # fmt: skip
                assert len(n.prompt) == len(real.prompt)
                for role, a, b in zip(
                    n.question.clips,
                    [p for p in n.prompt if isinstance(p, AudioPart)],
                    [p for p in real.prompt if isinstance(p, AudioPart)],
                    strict=True,
                ):
                    if role.role in ("R1", "R2"):
                        assert a == b  # responses stay real
                    else:
                        assert a.sha256 != b.sha256 and a.path.parent == clips.folder
                        assert a.path.name == f"{a.sha256}.wav" and a.path.is_file()
                texts = [p for p in n.prompt if not isinstance(p, AudioPart)]
                assert texts == [p for p in real.prompt if not isinstance(p, AudioPart)]
                ids.add(n.instance_id)
            assert len(ids | {real.instance_id}) == 3


def test_null_clips_are_written_once(tiny_dataset: Path, tmp_path: Path) -> None:
    ds = load_dataset(tiny_dataset)
    item = ds.items[0]
    n = n_instance(ds, item, "J", "noise", "none", "ab", 0, NullClips(tmp_path / "n"))
    part = next(p for p in n.prompt if isinstance(p, AudioPart))
    before = part.path.stat().st_mtime_ns
    again = n_instance(ds, item, "J", "noise", "none", "ab", 0, NullClips(tmp_path / "n"))
    assert again.prompt == n.prompt and part.path.stat().st_mtime_ns == before

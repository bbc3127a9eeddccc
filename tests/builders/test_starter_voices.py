"""Starter sets in several voices and recording conditions (issue 28 part 6), end to end:
`build starter --dimension whisper --voices 3 --conditions telephone,reverb` writes a set that
validates, whose speaker twins are other speakers by an independent measurement (spectral
centroid) and still carry the contrast (voiced-frame share), and one `run --report` on it gives
an accuracy row per voice and per condition. The emotion starter gains the same voices without
changing a byte of what it writes by default. Bad options: one line, exit 2, nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from paraudit.compose.starter import build_starter
from paraudit.items.dataset import load_dataset
from paraudit.items.twins import split_twin
from paraudit.sources.starter import single_turn_sources
from tests.builders.conftest import cli
from tests.render.independent import voiced_share

VOICES = ("joe", "joe-bright", "joe-deep")


@pytest.fixture(scope="module")
def whisper_set(tmp_path_factory: pytest.TempPathFactory, render_cache: Path) -> Path:
    pytest.importorskip("pyroomacoustics")
    root = tmp_path_factory.mktemp("voices")
    out = root / "ds"
    # The session's render cache: the original voice's clips are the whisper builds' own
    # (content-keyed, so a clip another test rendered is the same bytes, not rendered again).
    code, output = cli(
        "build", "starter", "--dimension", "whisper", "--limit", "2", "--voices", "3",
        "--conditions", "telephone,reverb", "--out", str(out), "--cache", str(render_cache),
    )  # fmt: skip
    assert code == 0, output
    assert "dataset validates" in output and "twins (voices, conditions)" in output
    return out


def centroid_hz(x: np.ndarray, rate: int) -> float:
    spec = np.abs(np.fft.rfft(x)) ** 2
    f = np.fft.rfftfreq(x.size, 1 / rate)
    band = f < 5000
    return float((f[band] * spec[band]).sum() / spec[band].sum())


def test_every_item_is_there_in_each_voice_and_condition(whisper_set: Path) -> None:
    ds = load_dataset(whisper_set)
    originals = [it for it in ds.items if split_twin(it.id) is None]
    twins = [it for it in ds.items if split_twin(it.id) is not None]
    assert originals and all(it.meta["voice"] == "joe" for it in originals)
    made = json.loads((whisper_set / "dataset.json").read_text())["provenance"]
    assert made["voices"] == list(VOICES) and made["conditions"] == ["telephone", "reverb"]
    variants = {split_twin(it.id)[1] for it in twins}  # type: ignore[index]
    assert variants == {"speaker-joe-bright", "speaker-joe-deep", "telephone-g711", "reverb-room"}
    by_id = {it.id: it for it in originals}
    for twin in twins:
        original_id, variant = split_twin(twin.id)  # type: ignore[misc]
        o = by_id[original_id]
        # Same words, values in the same branches, the same responses: only the audio differs.
        assert twin.context == o.context
        assert [b.emotions for b in twin.branches] == [b.emotions for b in o.branches]
        assert [b.response for b in twin.branches] == [b.response for b in o.branches]
        assert all(tb.audio != ob.audio for tb, ob in zip(twin.branches, o.branches, strict=True))
        assert twin.meta["invariance"]["twin_of"] == original_id
        if variant.startswith("speaker-"):
            assert twin.meta["voice"] == variant.removeprefix("speaker-")


def test_speaker_twins_are_other_speakers_that_still_whisper(whisper_set: Path) -> None:
    ds = load_dataset(whisper_set)
    centroid: dict[str, list[float]] = {v: [] for v in VOICES}
    for it in ds.items:
        twin = split_twin(it.id)
        voice = "joe" if twin is None else twin[1].removeprefix("speaker-")
        if voice not in centroid:
            continue
        for b in it.branches:
            x, rate = sf.read(str(whisper_set / b.audio[0]), dtype="float64")
            if b.emotions[0] == "whispered":
                assert voiced_share(x, rate) < 0.10, (it.id, voice)
            else:
                assert voiced_share(x, rate) > 0.30, (it.id, voice)
                centroid[voice].append(centroid_hz(x, rate))
    mean = {v: float(np.mean(c)) for v, c in centroid.items()}
    # Formants ×1.08 and ×0.92 (render/offline_chain.py): the spectrum's weight moves with them.
    assert mean["joe-bright"] > mean["joe"] > mean["joe-deep"], mean


def test_one_run_reports_each_voice_and_condition(whisper_set: Path, tmp_path: Path) -> None:
    code, output = cli(
        "run", str(whisper_set), "--judge", "builtin:prosody", "--out", str(tmp_path / "run"),
        "--report", str(tmp_path / "rep"),
    )  # fmt: skip
    assert code == 0, output
    summary = json.loads((tmp_path / "rep" / "summary.json").read_text())
    rows = {r["voice"] for r in summary["invariance_voices"]}
    assert rows == {"original", "speaker-joe-bright", "speaker-joe-deep", "telephone-g711",
                    "reverb-room"}  # fmt: skip
    changes = {r["change"] for r in summary["invariance"] if r["pooled"]}
    assert changes == {"speaker", "telephone", "reverb"}
    html = (tmp_path / "rep" / "report.html").read_text()
    assert "ccuracy per voice and condition" in html and "telephone-g711" in html


def test_the_emotion_starter_in_two_voices_keeps_its_default_bytes(
    tmp_path: Path, render_cache: Path
) -> None:
    one = {single_turn_sources()[0].id}
    cache = render_cache  # both builds read one cache: the bytes compared are the builds' own
    build_starter(tmp_path / "plain", ids=one, cache_dir=cache, workers=1)
    build_starter(tmp_path / "two", ids=one, cache_dir=cache, workers=1, voices=("joe", "joe-deep"))
    plain, two = load_dataset(tmp_path / "plain"), load_dataset(tmp_path / "two")
    (original,) = [it for it in two.items if split_twin(it.id) is None]
    (twin,) = [it for it in two.items if split_twin(it.id) is not None]
    (default,) = plain.items
    # The original is the default build's item (plus the voice it names), clip for clip.
    assert original.branches == default.branches and original.meta["voice"] == "joe"
    assert {k: v for k, v in original.meta.items() if k != "voice"} == default.meta
    for rel in default.audio_files():
        assert (tmp_path / "two" / rel).read_bytes() == (tmp_path / "plain" / rel).read_bytes()
    assert twin.id.endswith("~inv-speaker-joe-deep") and twin.meta["voice"] == "joe-deep"
    for tb, ob in zip(twin.branches, original.branches, strict=True):
        assert tb.audio != ob.audio and tb.response == ob.response  # the assistant keeps its voice


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--dimension", "whisper", "--voices", "9"], "renderer has 5 voices"),
        (["--dimension", "urgency", "--voices", "joe,bob"], "unknown voice 'bob'"),
        (["--voices", "joe,espeak-m"], "unknown voice 'espeak-m'"),
        (["--dimension", "whisper", "--conditions", "phone"], "unknown condition 'phone'"),
        (["--voices", "2", "--voice", "x.onnx"], "give --voice or --voices, not both"),
    ],
)
def test_bad_voice_or_condition_options_are_refused(
    args: list[str], says: str, tmp_path: Path
) -> None:
    out = tmp_path / "out"
    code, output = cli("build", "starter", *args, "--out", str(out))
    assert code == 2 and says in output and not out.exists(), output


def test_other_builders_point_to_build_invariance(tmp_path: Path) -> None:
    code, output = cli(
        "build", "single-turn", "--source", str(tmp_path / "s.jsonl"), "--conditions", "telephone",
        "--out", str(tmp_path / "o"),
    )  # fmt: skip
    assert code == 2 and "build invariance --from SET --changes telephone,reverb" in output


def test_reverb_without_its_package_is_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import sys

    from paraudit.audio.conditions import room_impulse_response

    monkeypatch.setitem(sys.modules, "pyroomacoustics", None)
    room_impulse_response.cache_clear()
    try:
        out = tmp_path / "out"
        code, output = cli("build", "starter", "--conditions", "reverb", "--out", str(out))
    finally:
        room_impulse_response.cache_clear()
    assert code == 2 and "pip install 'paraudit[conditions]'" in output and not out.exists()


def test_the_emotion_starter_cli_renders_voices_and_conditions_per_turn(
    tmp_path: Path, render_cache: Path
) -> None:
    out = tmp_path / "ds"
    code, output = cli(
        "build", "starter", "--limit", "1", "--voices", "2", "--conditions", "telephone",
        "--workers", "1", "--out", str(out), "--cache", str(render_cache),
    )  # fmt: skip
    assert code == 0 and "dataset validates" in output, output
    assert "2 speaker-joe-bright, 2 telephone-g711" in output
    ds = load_dataset(out)
    (pos,) = [it for it in ds.items if it.id.endswith("~inv-speaker-joe-bright") and
              len(it.context) > 1]  # fmt: skip
    original = next(it for it in ds.items if it.id == split_twin(pos.id)[0])  # type: ignore[index]
    for tb, ob in zip(pos.branches, original.branches, strict=True):
        for turn, new, old in zip(pos.context, tb.audio, ob.audio, strict=True):
            # Every human turn in the other voice; the assistant's turns are the same clips.
            assert (new != old) == (turn.speaker == "human")

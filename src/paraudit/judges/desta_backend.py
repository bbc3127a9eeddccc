"""`desta:MODEL_OR_PATH[?transcript=given|none|asr]` — DeSTA2.5-Audio through its own package.

The package (`desta`, installed from the authors' repository; it is not on PyPI) loads
`DeSTA25AudioModel.from_pretrained(…)` and answers `model.generate(messages=…, do_sample=…,
max_new_tokens=…)`: a user message whose text holds one `<|AUDIO|>` per clip and whose
`audios` list gives each clip's path and transcript. The model reads that transcript right after
the clip's audio features — a lexical channel beside the audio — so an audit must set it:

- `given` (default): each clip's own words, from the dataset (the same for both renderings);
- `none`: no words (the package's own value for a clip without speech, a single space);
- `asr`: None, so the package runs its VAD + Whisper; what it heard is recorded per call
  (it may differ between the two emotional renderings and leak a lexical difference).

The package's defaults sample (`do_sample=True`, temperature 0.7); here decoding is greedy
unless a temperature above 0 is given, so answers reproduce like every other judge's.
"""

from __future__ import annotations

import asyncio
import hashlib
from typing import Any

from paraudit.errors import ParauditError
from paraudit.judges.base import FatalJudgeError, Judge, Reply
from paraudit.judges.hosted import Decoding, sdk_version
from paraudit.judges.identity import State
from paraudit.judges.spec import LOCAL_OPTIONS, JudgeSpec
from paraudit.protocols.parts import AudioPart, Prompt
from paraudit.protocols.questions import Question

AUDIO_TOKEN = "<|AUDIO|>"
NO_WORDS = " "
DEFAULT_TRANSCRIPT = "given"
"""What the package itself gives a clip without speech: an empty transcript, in its form."""
INSTALL = "git clone https://github.com/kehanlu/DeSTA2.5-Audio && pip install -e DeSTA2.5-Audio"


def make_desta(spec: str, s: JudgeSpec) -> DeSTAJudge:
    return DeSTAJudge(s)


def transcripts_of(dataset: Any) -> dict[str, str]:
    """Every clip's own words, by the clip's content hash (its file's stem)."""
    out: dict[str, str] = {}
    for item in dataset.items:
        for b in item.branches:
            for turn, rel in zip(item.context, b.audio, strict=True):
                out[_stem(rel)] = turn.text
            out[_stem(b.response.audio)] = b.response.text
    return out


def _stem(rel: str) -> str:
    return rel.rsplit("/", 1)[-1].rsplit(".", 1)[0]


class DeSTAJudge(Judge):
    accepts = LOCAL_OPTIONS["desta"]

    def __init__(self, s: JudgeSpec) -> None:
        super().__init__(s, s.options)
        try:
            import desta  # noqa: F401
        except ImportError:
            raise ParauditError(
                "judge backend 'desta' needs the DeSTA2.5-Audio package, which is not on "
                f"PyPI: {INSTALL}"
            ) from None
        self.model_id = s.model
        self.transcript = str(s.value("transcript") or DEFAULT_TRANSCRIPT)
        self.device = str(s.value("device") or "cuda")
        self.decoding = Decoding.from_spec(s)
        self.words: dict[str, str] | None = None
        self.model: Any = None
        self._lock = asyncio.Lock()  # one model, one generation at a time

    def state(self) -> State:
        return {"defaults": {**Decoding.defaults(), "transcript": DEFAULT_TRANSCRIPT}}

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "sdk": f"desta {sdk_version('desta')}"}

    def calibrate(self, dataset: Any) -> None:
        self.words = transcripts_of(dataset)

    async def preflight(self) -> None:
        def load() -> Any:
            from desta import DeSTA25AudioModel

            model = DeSTA25AudioModel.from_pretrained(self.model_id)
            model.to(self.device)
            return model

        if self.model is None:
            try:
                self.model = await asyncio.to_thread(load)
            except Exception as e:  # loading errors run over many lines: the first says it
                first = (str(e).strip().splitlines() or [type(e).__name__])[0]
                raise FatalJudgeError(f"desta: cannot load '{self.model_id}' ({first})") from None

    def _text_for(self, part: AudioPart) -> str | None:
        if self.transcript == "asr":
            return None  # the package transcribes it (VAD + Whisper)
        if self.transcript == "none":
            return NO_WORDS
        if self.words is None or part.sha256 not in self.words:
            raise FatalJudgeError(
                "desta: transcript=given needs each clip's words from the dataset (run it "
                "through `paraudit run`, or use transcript=none or asr)"
            )
        return self.words[part.sha256]

    def messages(self, prompt: Prompt) -> list[dict[str, Any]]:
        """The prompt as one user message: its texts and one `<|AUDIO|>` per clip, in order."""
        pieces: list[str] = []
        audios: list[dict[str, Any]] = []
        for p in prompt:
            if isinstance(p, AudioPart):
                pieces.append(AUDIO_TOKEN)
                audios.append({"audio": str(p.path), "text": self._text_for(p)})
            else:
                pieces.append(p.text)
        return [{"role": "user", "content": "\n".join(pieces), "audios": audios}]

    def _generate(self, messages: list[dict[str, Any]]) -> Any:
        d = self.decoding
        sampling = d.temperature > 0
        if sampling and d.seed is not None:
            import torch

            torch.manual_seed(d.seed)
        kwargs: dict[str, Any] = {"do_sample": sampling, "max_new_tokens": d.max_tokens}
        if sampling:
            kwargs |= {"temperature": d.temperature, "top_p": d.top_p or 1.0}
        return self.model.generate(messages=messages, **kwargs)

    async def generate(
        self, prompt: Prompt, *, sample: int = 0, question: Question | None = None
    ) -> Reply:
        if self.model is None:
            await self.preflight()
        messages = self.messages(prompt)
        async with self._lock:
            out = await asyncio.to_thread(self._generate, messages)
        sent = tuple(
            hashlib.sha256(p.path.read_bytes()).hexdigest()
            for p in prompt
            if isinstance(p, AudioPart)
        )
        # What the model read after each clip: the package reports (path, transcript) pairs,
        # so an ASR transcript (or its blank for a clip without speech) is kept per call.
        heard = [str(t) for _, t in getattr(out, "audios", [])]
        usage: dict[str, Any] = {"transcript": self.transcript, "transcripts": heard}
        ids = getattr(out, "generated_ids", None)
        if ids:
            usage["completion_tokens"] = len(ids[0])
        return Reply(str(out.text[0]), usage=usage, sent_audio_sha256=sent)

from __future__ import annotations

import numpy as np
import pytest

from paraudit.qc.dnsmos import dnsmos
from tests.conftest import needs

pytestmark = needs("speechmos", "qc")


def test_clean_speech_scores_plausibly_and_noise_lowers_the_background_score() -> None:
    from paraudit.render.piper_voice import load_synth, resolve_voice

    synth = load_synth(resolve_voice(None))
    speech = synth.synthesize("They moved the meeting to Friday, so we have more time.")
    rate = synth.sample_rate  # 22.05 kHz: resampled to 16 kHz inside
    clean = dnsmos(speech, rate)
    assert 2.5 <= clean.sig <= 5.0 and 3.0 <= clean.bak <= 5.0 and 2.3 <= clean.ovrl <= 5.0
    noise = 0.2 * np.random.default_rng(0).standard_normal(speech.size)
    # Out-of-range samples are clipped, not refused.
    noisy = dnsmos(2.0 * (speech + noise), rate)
    assert noisy.bak < clean.bak - 1.0 and noisy.ovrl < clean.ovrl
    assert set(clean.as_dict()) == {"sig", "bak", "ovrl", "p808"}


def test_silence_is_refused() -> None:
    with pytest.raises(ValueError, match="silent"):
        dnsmos(np.zeros(16000), 16000)

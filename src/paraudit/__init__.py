"""paraudit: counterfactual audits of audio-language-model judges."""

__version__ = "0.1.0"

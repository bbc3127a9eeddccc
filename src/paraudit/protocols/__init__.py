"""Probes and protocols: item → prompts (J / P / O / S / T), cues, response orders, parsing."""

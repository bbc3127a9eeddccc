"""vLLM engine arguments (vLLM itself needs a GPU; see scripts/gpu-check.sh)."""

from __future__ import annotations

from paraudit.judges.vllm_backend import llm_kwargs


def test_engine_sizing_options_reach_the_engine() -> None:
    kw = llm_kwargs(
        "m", {"limit_audio": "20", "max_model_len": "8192", "gpu_memory_utilization": "0.8"}, 7
    )
    assert kw == {
        "model": "m",
        "limit_mm_per_prompt": {"audio": 20},
        "seed": 7,
        "max_model_len": 8192,
        "gpu_memory_utilization": 0.8,
    }
    assert llm_kwargs("m", {}, None) == {
        "model": "m",
        "limit_mm_per_prompt": {"audio": 16},
        "seed": 0,
    }

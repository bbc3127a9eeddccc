"""Tiny random-weight audio chat models built in the test (nothing is downloaded).

A byte-level BPE tokenizer (merges learnt from the judge prompts) with the chat and audio
special tokens, Whisper features, and small configs of Qwen2-Audio and the Qwen2.5-Omni
thinker. The real Qwen2.5-Omni processor needs
torchvision for its video half, which cannot be installed beside this torch; an audio-only
subclass reuses its real __call__, audio handling and decoding.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}{% else %}"
    "{% for c in message['content'] %}{% if c['type'] == 'audio' %}"
    "<|audio_bos|><|AUDIO|><|audio_eos|>"
    "{% elif c['type'] == 'text' %}{{ c['text'] }}{% endif %}{% endfor %}{% endif %}"
    "<|im_end|>\n{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
EXTRA = {
    "image_token": "<|IMAGE|>",
    "audio_token": "<|AUDIO|>",
    "video_token": "<|VIDEO|>",
    "vision_bos_token": "<|vision_bos|>",
    "vision_eos_token": "<|vision_eos|>",
    "audio_bos_token": "<|audio_bos|>",
    "audio_eos_token": "<|audio_eos|>",
}
TINY_TEXT = dict(
    hidden_size=16,
    num_hidden_layers=1,
    num_attention_heads=2,
    num_key_value_heads=1,
    intermediate_size=32,
    max_position_embeddings=8192,
)
CHUNK_S = 10
"""Whisper's extractor pads every clip to `chunk_length` seconds (30 in the real checkpoints:
3,000 mel frames, which Qwen2-Audio's encoder halves to 1,500 positions). 10 s keeps every clip
of the test sets whole (starter_small's longest is 8.7 s) while each clip's encoder attention
is a ninth of 30 s's: at 30 s these tests made 17 million page faults (42 s of system time)
allocating it, more than their own computing."""
TINY_AUDIO = dict(
    d_model=16,
    encoder_layers=1,
    encoder_attention_heads=2,
    encoder_ffn_dim=32,
    num_mel_bins=128,
    max_source_positions=CHUNK_S * 100 // 2,
)


def _prompt_texts() -> list[str]:
    """The paper's judge prompts (every template of the default preset), the text the tiny
    tokenizer learns its merges from."""
    from paraudit.protocols import paper_prompts

    out: list[str] = []
    for value in vars(paper_prompts).values():
        if isinstance(value, str):
            out.append(value)
        elif isinstance(value, dict):
            out.extend(v for v in value.values() if isinstance(v, str))
    return out


VOCAB = 1024
"""Byte-level BPE learnt from the judge prompts: every byte stays encodable, and a prompt takes
about a quarter of the tokens it took as bare bytes (about 2,000), so the tiny models' prompt
attention no longer outweighs their computing."""


def tokenizer() -> Any:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB,
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    tok.train_from_iterator(_prompt_texts(), trainer)
    fast = PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        extra_special_tokens=EXTRA,
    )
    fast.add_special_tokens({"additional_special_tokens": ["<|im_start|>"]})
    return fast


def _fe() -> Any:
    from transformers import WhisperFeatureExtractor

    return WhisperFeatureExtractor(feature_size=128, sampling_rate=16000, chunk_length=CHUNK_S)


def build_qwen2_audio(out: Path) -> Path:
    import torch
    from transformers import (
        Qwen2AudioConfig,
        Qwen2AudioForConditionalGeneration,
        Qwen2AudioProcessor,
    )

    tok = tokenizer()
    cfg = Qwen2AudioConfig(
        audio_config=TINY_AUDIO,
        text_config=dict(model_type="qwen2", vocab_size=len(tok), **TINY_TEXT),
        audio_token_index=tok.convert_tokens_to_ids("<|AUDIO|>"),
    )
    torch.manual_seed(0)
    model = Qwen2AudioForConditionalGeneration(cfg)
    model.generation_config.eos_token_id = tok.convert_tokens_to_ids("<|im_end|>")
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(out)
    Qwen2AudioProcessor(
        feature_extractor=_fe(), tokenizer=tok, chat_template=TEMPLATE
    ).save_pretrained(out)
    return out


def audio_only_omni_processor() -> type:
    from transformers import AutoProcessor, Qwen2_5OmniThinkerConfig
    from transformers.models.qwen2_5_omni.processing_qwen2_5_omni import Qwen2_5OmniProcessor
    from transformers.processing_utils import ProcessorMixin

    class AudioOnlyOmniProcessor(Qwen2_5OmniProcessor):  # type: ignore[misc]
        def __init__(
            self,
            feature_extractor: Any = None,
            tokenizer: Any = None,
            chat_template: str | None = None,
        ) -> None:
            ProcessorMixin.__init__(self, feature_extractor, tokenizer, chat_template=chat_template)
            for k in EXTRA:
                setattr(self, k, getattr(self.tokenizer, k))
            for k in ("image_token", "audio_token", "video_token"):
                setattr(self, f"{k}_id", self.tokenizer.convert_tokens_to_ids(getattr(self, k)))

    # Without exist_ok the registration is silently skipped and a bare tokenizer comes back.
    AutoProcessor.register(Qwen2_5OmniThinkerConfig, AudioOnlyOmniProcessor, exist_ok=True)
    return AudioOnlyOmniProcessor


def build_omni_thinker(out: Path) -> Path:
    import torch
    from transformers import Qwen2_5OmniThinkerConfig, Qwen2_5OmniThinkerForConditionalGeneration

    processor_cls = audio_only_omni_processor()
    tok = tokenizer()
    ids = {k: tok.convert_tokens_to_ids(v) for k, v in EXTRA.items()}
    cfg = Qwen2_5OmniThinkerConfig(
        audio_config=dict(TINY_AUDIO, n_window=50, output_dim=16),
        vision_config=dict(
            depth=1,
            hidden_size=16,
            intermediate_size=32,
            num_heads=2,
            out_hidden_size=16,
            fullatt_block_indexes=[0],
        ),
        text_config=dict(
            vocab_size=len(tok),
            **TINY_TEXT,
            rope_scaling={"type": "default", "rope_type": "default", "mrope_section": [2, 1, 1]},
        ),
        audio_token_id=ids["audio_token"],
        image_token_id=ids["image_token"],
        video_token_id=ids["video_token"],
        audio_start_token_id=ids["audio_bos_token"],
        audio_end_token_id=ids["audio_eos_token"],
        vision_start_token_id=ids["vision_bos_token"],
        vision_end_token_id=ids["vision_eos_token"],
    )
    torch.manual_seed(0)
    model = Qwen2_5OmniThinkerForConditionalGeneration(cfg)
    model.generation_config.eos_token_id = tok.convert_tokens_to_ids("<|im_end|>")
    model.generation_config.pad_token_id = tok.pad_token_id
    model.save_pretrained(out)
    processor_cls(feature_extractor=_fe(), tokenizer=tok, chat_template=TEMPLATE).save_pretrained(
        out
    )
    return out

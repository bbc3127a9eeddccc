"""Optional signing of a card folder with `model-signing` (an elliptic-curve private key, so
it works offline); without it a card is hash-only and says so.

The signature covers every file of the card folder (card.json with the digests of the run's
files, the Statement, the summary, the exports); `verify --public-key` checks it before the
digests, so a card edited after signing fails on its signature, and a run changed after the
card fails on its digests."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from paraudit.errors import ParauditError

SIGNATURE = "card.sig"
EXTRA = "pip install 'paraudit[sign]'"


class SignError(ParauditError):
    exit_code = 2


def _installed() -> bool:
    return importlib.util.find_spec("model_signing") is not None


def check_signer(key: Path) -> dict[str, Any]:
    """Refuse before any work when the signer or the key is missing; else the card's
    `signature` record."""
    if not _installed():
        raise SignError(f"--sign needs the signer model-signing: {EXTRA}")
    if not key.is_file():
        raise SignError(f"--sign {key}: no such key file (an elliptic-curve private key, PEM)")
    return {
        "signed": True,
        "file": SIGNATURE,
        "method": "model-signing, elliptic-curve key (a Sigstore bundle over the card folder)",
        "note": f"signed: {SIGNATURE} covers every file of the card folder; check it with "
        "paraudit verify CARD --public-key KEY.pub",
    }


def _signing() -> Any:
    """The library, untyped on purpose: it is optional, so mypy must pass without it."""
    return importlib.import_module("model_signing")


def _hashing() -> Any:
    return _signing().hashing.Config().set_ignored_paths(paths=[SIGNATURE])


def sign_card(folder: Path, key: Path) -> None:
    try:
        cfg = _signing().signing.Config().use_elliptic_key_signer(private_key=key)
        cfg.set_hashing_config(_hashing()).sign(folder, folder / SIGNATURE)
    except Exception as e:  # the library raises plain errors for a bad key
        raise SignError(f"--sign {key}: signing failed ({e})") from None


def verify_signature(folder: Path, public_key: Path | None) -> list[str]:
    """Mismatch lines (empty when the signature holds)."""
    sig = folder / SIGNATURE
    if not sig.is_file():
        return [f"{sig}: missing (the card says it is signed)"]
    if public_key is None:
        return []
    if not _installed():
        raise SignError(f"--public-key needs model-signing to check {sig}: {EXTRA}")
    try:
        verifier = _signing().verifying.Config()
        cfg = verifier.use_elliptic_key_verifier(public_key=public_key)
        cfg.set_hashing_config(_hashing()).verify(folder, sig)
    except Exception as e:
        return [f"{sig}: the signature does not hold for this folder and key ({e})"]
    return []

"""`paraudit verify CARD [RUN]`: recompute a card's digests and summary; exit 1 on a mismatch."""

from __future__ import annotations

from pathlib import Path

import typer

from paraudit.bounds import not_regular
from paraudit.cli.common import console, err_console, user_errors
from paraudit.cli.run_checks import MAX_REPLICATES
from paraudit.errors import ParauditError


@user_errors
def verify(
    card: Path = typer.Argument(..., help="The card folder (or its card.json)."),
    run: Path | None = typer.Argument(None, help="The run folder (default: the card's path)."),
    dataset: Path | None = typer.Option(
        None, "--dataset", metavar="DIR", help="The dataset folder (default: the card's path)."
    ),
    public_key: Path | None = typer.Option(
        None, "--public-key", metavar="KEY.pub", help="Check a signed card's signature too."
    ),
) -> None:
    """Recompute every digest and the summary from the run folder; any mismatch is one line
    naming the file, exit 1."""
    from paraudit.publish.sign import verify_signature
    from paraudit.publish.verify import mismatches, read_card

    if public_key is not None:
        kind = not_regular(public_key)
        if kind is not None or not public_key.is_file():
            raise ParauditError(
                f"--public-key {public_key}: " + (f"is {kind}" if kind else "no such key file")
                + " (give the public key file, PEM, that matches the signer's private key)"
            )  # fmt: skip
    folder = card if card.is_dir() else card.parent
    record = read_card(card)
    replicates = record["summary"]["replicates"]
    if not 100 <= replicates <= MAX_REPLICATES:
        # verify recomputes the summary with the card's own figure: 10^9 ran for ever.
        raise ParauditError(
            f"{folder}: the card's summary.replicates {replicates} is outside 100–"
            f"{MAX_REPLICATES:,}; no paraudit card says that (it was edited)"
        )
    signed = bool(record.get("signature", {}).get("signed"))
    # The signature first: a card edited after signing is named as such, not by a digest.
    bad = verify_signature(folder, public_key) if signed else []
    if public_key is not None and not signed:
        # Asked to check a signature, a card without one fails: stripping the signature (and
        # the card's word that it had one) must not pass as "verified".
        bad = [
            f"{folder}: not signed, but --public-key asks for its signature to be checked (a "
            "card whose signature was removed reads like this); drop --public-key to check "
            "only its digests"
        ]
    bad = bad or mismatches(card, run, dataset)
    for line in bad:
        err_console.print(f"mismatch: {line}", highlight=False, soft_wrap=True, markup=False)
    if bad:
        raise typer.Exit(1)
    n = len(read_card(card)["subjects"])
    sig = (
        "; signature holds"
        if signed and public_key
        else "; signed, signature not checked (pass --public-key)"
        if signed
        else "; hash-only card (not signed)"
    )
    console.print(f"verified: {n} subject digests and the summary match{sig}", highlight=False)

"""`paraudit verify CARD [RUN]`: recompute a card's digests and summary; exit 1 on a mismatch."""

from __future__ import annotations

from pathlib import Path

import typer

from paraudit.cli.common import console, err_console, user_errors


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

    folder = card if card.is_dir() else card.parent
    signed = bool(read_card(card).get("signature", {}).get("signed"))
    # The signature first: a card edited after signing is named as such, not by a digest.
    bad = verify_signature(folder, public_key) if signed else []
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

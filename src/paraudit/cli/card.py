"""`paraudit card RUN --out CARD`: a verifiable audit card of a finished run."""

from __future__ import annotations

import re
from pathlib import Path

import typer

from paraudit.cli.common import console, prepare_output, user_errors
from paraudit.cli.help import OUTPUT, STATS
from paraudit.cli.outputs import locked
from paraudit.cli.run_checks import check_replicates

WHO = "Who publishes"
# A Hub repo id: an optional namespace and a name, each 1–96 of [A-Za-z0-9._-], not starting
# with '-' or '.' (the eval_results entries name it; a free text there breaks every reader).
HUB_ID = re.compile(r"([A-Za-z0-9][A-Za-z0-9._-]{0,95}/)?[A-Za-z0-9][A-Za-z0-9._-]{0,95}")


@user_errors
def card(
    run: Path = typer.Argument(..., help="A finished run folder."),
    out: Path = typer.Option(
        ..., "--out", metavar="CARD", rich_help_panel=OUTPUT, help="The card folder to write."
    ),  # fmt: skip
    dataset: Path | None = typer.Option(
        None,
        "--dataset",
        metavar="DIR",
        rich_help_panel=OUTPUT,
        help="The audited dataset folder (default: the path run.json recorded).",
    ),  # fmt: skip
    organization: str = typer.Option(
        "unknown",
        "--organization",
        metavar="NAME",
        rich_help_panel=WHO,
        help="Every Eval Ever source_organization_name.",
    ),  # fmt: skip
    relationship: str = typer.Option(
        "third_party",
        "--relationship",
        metavar="KIND",
        rich_help_panel=WHO,
        help="Every Eval Ever evaluator_relationship: first_party, third_party, collaborative, "
        "other.",
    ),  # fmt: skip
    hf_dataset: str | None = typer.Option(
        None,
        "--hf-dataset",
        metavar="ORG/NAME",
        rich_help_panel=WHO,
        help="The dataset's Hub id for the eval_results entries.",
    ),  # fmt: skip
    sign: Path | None = typer.Option(
        None,
        "--sign",
        metavar="KEY.pem",
        rich_help_panel=WHO,
        help="Also sign the card folder with this private key (needs model-signing: "
        "pip install 'paraudit[sign]'); default: hash-only.",
    ),  # fmt: skip
    force: bool = typer.Option(
        False, "--force", rich_help_panel=OUTPUT, help="Replace an earlier card at --out."
    ),  # fmt: skip
    replicates: int = typer.Option(
        10_000, min=100, metavar="N", rich_help_panel=STATS, help="Bootstrap replicates."
    ),  # fmt: skip
) -> None:
    """A verifiable audit card (Markdown + JSON), an Every Eval Ever record and a Hugging Face
    eval_results entry per judge, and an in-toto Statement of the run's file digests."""
    from paraudit.publish.bundle import card_files, write_card
    from paraudit.publish.card import CARD_JSON, read_audit
    from paraudit.publish.digests import CardError
    from paraudit.publish.sign import check_signer, sign_card

    check_replicates(replicates)  # typer's min only: 10^9 replicates ran for ever
    if not organization.strip() or not organization.isprintable():
        raise CardError(
            f"--organization {organization!r} is empty or unprintable; name who publishes "
            "the card (default: unknown)"
        )
    if hf_dataset is not None and (
        not HUB_ID.fullmatch(hf_dataset) or "--" in hf_dataset or ".." in hf_dataset
    ):
        raise CardError(
            f"--hf-dataset {hf_dataset!r} is not a Hub dataset id (ORG/NAME: letters, digits, "
            "'-', '_', '.'; e.g. my-org/my-audit-set)"
        )
    if relationship not in ("first_party", "third_party", "collaborative", "other"):
        raise CardError(
            f"--relationship {relationship!r}: one of first_party, third_party, collaborative, "
            "other"
        )
    signature = check_signer(sign) if sign is not None else None
    prepare_output(out, force=force, what="--out", marker=CARD_JSON)
    with locked(("--out", out)):
        audit = read_audit(run, dataset, replicates)
        files = card_files(audit, organization=organization, relationship=relationship,
                           hf_dataset=hf_dataset, signature=signature)  # fmt: skip
        write_card(out, files)
        if sign is not None:
            sign_card(out, sign)
    verdicts = len(audit.summary.verdicts)
    console.print(
        f"card: {out} ({verdicts} verdicts, {len(audit.subjects)} subjects, "
        f"{'signed' if sign else 'hash-only, not signed'}); check it with: paraudit verify {out}",
        highlight=False,
        soft_wrap=True,
    )

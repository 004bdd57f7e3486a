"""``molx-agent sar DATA``: the whole SAR analysis of a CSV/TSV/Excel/SDF file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer


def run_sar(
    data: str | Path,
    *,
    smiles_col: str | None = None,
    activity_col: str | None = None,
    units: str | None = None,
    id_col: str | None = None,
    core: str | None = None,
    mode: str = "full",
    sheet: str | None = None,
    output_dir: str | Path | None = None,
    language: str = "en",
    progress: Any = None,
    llm: Any = None,
) -> dict[str, Any]:
    """Run the SAR pipeline and return the CLI's JSON document.

    ``llm``: a chat model to identify the columns and word the findings (None: header keywords and the
    deterministic summary; ``insights_source`` says which).

    Keys: ``n_input``, ``n_clean``, ``n_errors``, ``n_duplicates_merged``, ``cliffs`` (each with ``row_a``,
    ``row_b`` -- 0-based indices of the input data rows --, ``id_a``, ``id_b``, ``tanimoto_ecfp4``,
    ``tanimoto_scaffold``, ``levenshtein``, ``fold_change``, ``sali``, ...), ``mmp_transforms``, ``report_path``,
    plus the rest of the JSON summary (series, site summaries, OCAT series, insights, files).
    """
    from molx_agent.sar.pipeline import run_sar_pipeline

    result = run_sar_pipeline(
        data, smiles_col=smiles_col, activity_col=activity_col, id_col=id_col, units=units, core=core, mode=mode,
        sheet=sheet, output_dir=output_dir, language=language, progress=progress, llm=llm,
    )
    return result.to_dict()


def resolve_llm(provider: str | None) -> Any:
    """The chat model of ``--llm`` (``rules``, ``openai`` or ``auto``; default ``MOLX_LLM_PROVIDER``) seen through
    the agents' LLM client (:class:`~molx_agent.agents.modules.llm.GuardedLLM`), or None."""
    from molx_agent.cli.run import LLM_CHOICES
    from molx_agent.config import get_settings
    from molx_agent.errors import ValidationError

    if provider is not None and provider not in LLM_CHOICES:
        raise ValidationError("invalid_llm_provider", f"--llm must be one of {', '.join(LLM_CHOICES)}",
                              value=provider)
    settings = get_settings(llm_provider=provider) if provider else get_settings()
    if settings.llm_provider == "rules":
        return None
    from molx_agent.agents.modules.llm import get_llm, guarded

    return guarded(get_llm(settings), "SAR")  # the one client's structured output, timeout and backoff


def _stage_printer() -> Any:
    """Print each pipeline stage once on stderr when it is a terminal (large sets take a while)."""
    import sys

    if not sys.stderr.isatty():
        return None
    seen: set[str] = set()

    def show(stage: str, done: int, total: int) -> None:
        if stage not in seen:
            seen.add(stage)
            typer.echo(f"... {stage} ({total} items)", err=True)

    return show


def _print_text(doc: dict[str, Any]) -> None:
    typer.echo(f"{doc['n_input']} input rows -> {doc['n_clean']} compounds "
               f"({doc['n_duplicates_merged']} duplicates merged, {doc['n_errors']} rejected)")
    for w in doc["warnings"]:
        typer.echo(f"warning: {w}")
    typer.echo(f"{doc['n_series']} series, {doc['n_cliff_pairs']} activity-cliff pairs "
               f"({doc['n_cliff_molecules']} compounds), {doc['n_mmp_pairs']} matched pairs, "
               f"{len(doc['mmp_transforms'])} transformations")
    for s in doc["series"][:8]:
        core = s["core_smiles"] or "no meaningful core"
        typer.echo(f"  {s['id']}: {s['size']} compounds, core {core} ({s['core_source'] or '-'})")
    typer.echo("Findings:" if doc.get("insights_source") != "llm" else "Findings (worded by the LLM):")
    for line in doc["insights"]:
        typer.echo(f"  - {line}")
    typer.echo(f"Report: {doc['report_path']}")
    typer.echo(f"Summary: {doc['summary_path']}")
    if doc["n_errors"]:
        typer.echo(f"Rejected rows: {doc['errors_file']}")


def register(app: typer.Typer) -> None:
    @app.command("sar")
    def sar_cmd(
        data: Path = typer.Argument(..., help="CSV, TSV, Excel (.xlsx) or SDF file with structures and potencies."),
        smiles_col: str | None = typer.Option(None, "--smiles-col", help="SMILES column (default: detected)."),
        activity_col: str | None = typer.Option(None, "--activity-col", help="Activity column (default: detected)."),
        units: str | None = typer.Option(None, "--units", help="Activity units: nM, uM, mM, M, pM or log (p-values)."),
        id_col: str | None = typer.Option(None, "--id-col", help="Compound ID column (default: detected)."),
        core: str | None = typer.Option(None, "--core", help="Core SMILES/SMARTS (default: chosen per series)."),
        mode: str = typer.Option("full", "--mode", help="Report mode: full, site:R1 or subset:ID1,ID2."),
        sheet: str | None = typer.Option(None, "--sheet", help="Excel sheet name (required if several)."),
        output_dir: Path | None = typer.Option(None, "--output-dir", help="Output folder (default: timestamped)."),
        language: str = typer.Option("en", "--lang", help="Language of the written findings: en or zh."),
        json_out: bool = typer.Option(False, "--json", help="Print the JSON summary."),
        llm: str | None = typer.Option(None, "--llm", help="rules (offline), openai or auto: an LLM identifies the "
                                       "columns and words the findings; default from MOLX_LLM_PROVIDER (auto)."),
    ) -> None:
        """Analyse the SAR of a compound series: cleaning, series/cores, R-groups, matched pairs, cliffs, report."""
        from molx_agent.cli.common import emit_json, handle_errors

        @handle_errors
        def _go() -> None:
            doc = run_sar(data, smiles_col=smiles_col, activity_col=activity_col, units=units, id_col=id_col,
                          core=core, mode=mode, sheet=sheet, output_dir=output_dir, language=language,
                          progress=_stage_printer(), llm=resolve_llm(llm))
            if json_out:
                emit_json(doc)
            else:
                _print_text(doc)

        _go()

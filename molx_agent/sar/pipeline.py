"""``run_sar_pipeline``: clean -> series and cores -> R-groups, scans, OCAT -> matched pairs -> cliffs ->
properties -> insights -> HTML report + JSON summary, all under one timestamped output directory.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from molx_agent.errors import DataError
from molx_agent.io_utils import atomic_write_json, atomic_write_text, ensure_output_dir, timestamped_dir
from molx_agent.sar.clean import CleanResult, clean_table, require_valid, save_cleaned
from molx_agent.sar.cliffs import CliffResult, ecfp4_bits, find_activity_cliffs
from molx_agent.sar.io import read_table
from molx_agent.sar.mmp import MMPResult, find_matched_pairs
from molx_agent.sar.ocat import identify_ocat_series
from molx_agent.sar.properties import compute_sar_properties
from molx_agent.sar.rgroup import RGroupTable, decompose_many, detect_single_point_scans
from molx_agent.sar.series import Series, build_series

logger = logging.getLogger(__name__)

Progress = Callable[[str, int, int], None]


@dataclass(frozen=True)
class ReportMode:
    """``full``, ``site`` (one R position, e.g. R1) or ``subset`` (chosen compound IDs)."""

    kind: str = "full"
    site: str | None = None
    ids: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        if self.kind == "site":
            return f"site:{self.site}"
        if self.kind == "subset":
            return "subset:" + ",".join(self.ids)
        return "full"


def parse_mode(mode: str | None) -> ReportMode:
    """``"full"``, ``"site:R1"`` or ``"subset:ID1,ID2"`` (case-insensitive kind)."""
    text = (mode or "full").strip()
    kind, _, arg = text.partition(":")
    kind = kind.strip().lower()
    if kind in ("", "full"):
        return ReportMode()
    if kind in ("site", "single_site", "single-site"):
        site = arg.strip().upper()
        if not site or not site[0] == "R" or not site[1:].isdigit():
            raise DataError("invalid_mode", f"site mode needs an R position like site:R1, got {mode!r}", value=mode)
        return ReportMode("site", site=site)
    if kind in ("subset", "sub-set", "ids"):
        ids = tuple(x.strip() for x in arg.split(",") if x.strip())
        if not ids:
            raise DataError("invalid_mode", f"subset mode needs IDs like subset:CPD1,CPD2, got {mode!r}", value=mode)
        return ReportMode("subset", ids=ids)
    raise DataError("invalid_mode", f"unknown report mode {mode!r}", value=mode,
                    hint="use full, site:R1 or subset:ID1,ID2")


@dataclass
class SARResult:
    """Everything a SAR run computed.  ``compounds`` = cleaned compounds + properties + ``series_id``,
    ``exact`` (potency not censored) and ``cliff`` flags."""

    clean: CleanResult
    compounds: pd.DataFrame
    series: list[Series]
    unassigned: list[int]
    rgroup_tables: list[RGroupTable]
    scans: list[dict[str, Any]]
    ocat: list[dict[str, Any]]
    mmp: MMPResult
    cliffs: CliffResult
    mode: ReportMode = field(default_factory=ReportMode)
    language: str = "en"
    insights: list[str] = field(default_factory=list)
    insights_source: str = "rules"
    output_dir: str | None = None
    report_path: str | None = None
    summary_path: str | None = None
    files: dict[str, str] = field(default_factory=dict)
    timings: dict[str, float] = field(default_factory=dict)

    @property
    def activity_label(self) -> str:
        return self.clean.mapping.activity_label

    def top_compounds(self, n: int = 5) -> list[dict[str, Any]]:
        df = self.compounds[self.compounds["exact"]].sort_values("p_activity", ascending=False).head(n)
        return [{"id": r.id, "smiles": r.smiles, "p_activity": round(float(r.p_activity), 3)} for r in df.itertuples()]

    def cliff_dicts(self) -> list[dict[str, Any]]:
        return [c.to_dict() for c in self.cliffs.pairs]

    def to_dict(self, *, max_items: int | None = None) -> dict[str, Any]:
        """JSON summary (also written beside the report)."""

        def lim(xs: list[Any]) -> list[Any]:
            return xs if max_items is None else xs[:max_items]

        return {
            **self.clean.counts(),
            "source": self.clean.source,
            "activity_label": self.activity_label,
            "columns": self.clean.mapping.to_dict(),
            "warnings": list(self.clean.warnings),
            "errors_by_code": self.clean.error_summary(),
            "mode": self.mode.label,
            "n_series": len(self.series),
            "n_unassigned": len(self.unassigned),
            "series": [s.to_dict() for s in self.series],
            "site_summary": {t.series_id: t.site_summary() for t in self.rgroup_tables},
            "single_point_scans": lim(self.scans),
            "ocat_series": lim(self.ocat),
            "n_cliff_pairs": len(self.cliffs.pairs),
            "n_cliff_molecules": self.cliffs.n_cliff_molecules,
            "cliffs": lim(self.cliff_dicts()),
            "n_mmp_pairs": len(self.mmp.pairs),
            "mmp_max_cuts": self.mmp.max_cuts,
            "mmp_transforms": [{k: v for k, v in t.items() if k != "pairs"} for t in lim(self.mmp.transforms)],
            "mmp_pairs": lim(self.mmp.pairs),
            "top_compounds": self.top_compounds(10),
            "insights": self.insights,
            "insights_source": self.insights_source,
            "output_dir": self.output_dir,
            "report_path": self.report_path,
            "summary_path": self.summary_path,
            "cleaned_file": self.clean.cleaned_file,
            "errors_file": self.clean.errors_file,
            "files": self.files,
            "timings_s": {k: round(v, 3) for k, v in self.timings.items()},
        }


def _cpu() -> float:
    """CPU seconds of this process and of its finished pool workers."""
    import os

    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _now() -> tuple[float, float]:
    return time.perf_counter(), _cpu()


def _tick(timings: dict[str, float], key: str, t0: tuple[float, float]) -> tuple[float, float]:
    """Record the wall (``key``) and CPU (``key_cpu``) seconds since ``t0``; return the new start."""
    now = _now()
    timings[key] = now[0] - t0[0]
    timings[f"{key}_cpu"] = now[1] - t0[1]
    return now


def analyse_clean(
    clean: CleanResult,
    *,
    core: str | None = None,
    max_cuts: int | None = None,
    min_series_size: int = 5,
    progress: Progress | None = None,
    timings: dict[str, float] | None = None,
) -> SARResult:
    """Run the analyses on cleaned compounds (no file written)."""
    from rdkit import Chem, RDLogger

    timings = timings if timings is not None else {}
    t = _now()
    comp = clean.compounds.copy()
    RDLogger.DisableLog("rdApp.*")
    try:
        mols = [Chem.MolFromSmiles(s) for s in comp["smiles"]]
    finally:
        RDLogger.EnableLog("rdApp.*")
    comp["exact"] = comp["p_activity"].notna() & (comp["qualifier"] == "")
    p = comp["p_activity"].astype(float).to_numpy()
    ids = comp["id"].astype(str).tolist()
    exact = comp["exact"].tolist()
    first_rows = [int(r[0]) for r in comp["rows"]]
    props = compute_sar_properties(mols, [x if x == x else None for x in p])
    comp = pd.concat([comp.reset_index(drop=True), props], axis=1)
    t = _tick(timings, "properties", t)

    if progress:
        progress("series", 0, len(mols))
    fp = ecfp4_bits(mols)
    series, unassigned = build_series(mols, user_core=core, fp_bits=fp, min_series_size=min_series_size)
    series_of = np.full(len(mols), "", dtype=object)
    for s in series:
        series_of[s.members] = s.id
    comp["series_id"] = series_of
    t = _tick(timings, "series", t)

    if progress:
        progress("rgroups", 0, len(series))
    jobs = [(s.id, Chem.MolFromSmarts(s.core_smarts) if s.core_source != "user" else _user_core_mol(s.core_smiles),
             s.members) for s in series if s.core_smarts is not None]
    tables: list[RGroupTable] = decompose_many(jobs, mols, ids, p, exact)
    scans = [sc for tab in tables for sc in detect_single_point_scans(tab)]
    ocat = identify_ocat_series(tables)
    t = _tick(timings, "rgroups", t)

    mmp = find_matched_pairs(comp["smiles"].tolist(), [x if x == x else None for x in p], ids=ids, exact=exact,
                             max_cuts=max_cuts, progress=progress)
    t = _tick(timings, "mmp", t)

    cliffs = find_activity_cliffs(mols, comp["input_smiles"].tolist(), p, ids=ids, rows=first_rows, exact=exact,
                                  progress=progress)
    comp["cliff"] = cliffs.cliff_mol
    _tick(timings, "cliffs", t)
    return SARResult(clean, comp, series, unassigned, tables, scans, ocat, mmp, cliffs, timings=timings)


def _user_core_mol(core: str | None):
    from molx_agent.sar.series import parse_core

    return parse_core(core or "")


def subset_mask(compounds: pd.DataFrame, ids: tuple[str, ...] | list[str]) -> pd.Series:
    """Rows of ``compounds`` chosen by ``ids`` (a compound's own ID or the ID of a replicate merged into it)."""
    wanted = {str(i) for i in ids}
    return compounds["id"].astype(str).isin(wanted) | compounds["merged_ids"].map(
        lambda xs: bool(wanted & {str(x) for x in xs}))


def validate_mode(result: SARResult, mode: ReportMode) -> None:
    """Unknown site or IDs -> :class:`DataError` listing what exists."""
    if mode.kind == "site":
        sites = sorted({p for t in result.rgroup_tables for p in t.positions}, key=lambda s: int(s[1:]))
        if mode.site not in sites:
            raise DataError("unknown_site", f"position {mode.site} not found; positions: {', '.join(sites) or 'none'}",
                            value=mode.site)
    elif mode.kind == "subset":
        known = set(result.compounds["id"].astype(str))
        for ids in result.compounds["merged_ids"]:
            known.update(str(x) for x in ids)
        missing = [i for i in mode.ids if i not in known]
        if missing:
            raise DataError("unknown_ids", f"IDs not in the cleaned data: {', '.join(missing)}", value=missing)


def write_outputs(result: SARResult, output_dir: Path) -> SARResult:
    """Full tables as CSV, the HTML report and the JSON summary."""
    write_tables(result, output_dir)
    return write_report(result, output_dir)


def write_report(result: SARResult, output_dir: Path, name: str = "sar_report") -> SARResult:
    """The HTML report (in ``result.mode``) and the JSON summary beside it: ``<name>.html``, ``<name>.json``."""
    from molx_agent.sar.report import render_sar_report

    output_dir = Path(output_dir)
    result.output_dir = str(output_dir)
    result.report_path = str(render_sar_report(result, output_dir / f"{name}.html"))
    result.summary_path = str(output_dir / ("sar_summary.json" if name == "sar_report" else f"{name}.json"))
    atomic_write_json(result.summary_path, result.to_dict())
    return result


def write_tables(result: SARResult, output_dir: Path) -> SARResult:
    """The full tables as CSV files beside the report (compounds, R-groups, cliffs, MMP transforms and pairs)."""
    output_dir = Path(output_dir)
    comp = result.compounds.copy()
    comp["rows"] = comp["rows"].map(lambda r: ";".join(map(str, r)))
    comp["merged_ids"] = comp["merged_ids"].map(lambda r: ";".join(map(str, r)))
    files = {"compounds": str(atomic_write_text(output_dir / "compounds.csv", comp.to_csv(index=False)))}
    if result.rgroup_tables:
        rg = pd.concat([t.rows.assign(series_id=t.series_id) for t in result.rgroup_tables], ignore_index=True)
        files["rgroups"] = str(atomic_write_text(output_dir / "rgroups.csv", rg.to_csv(index=False)))
    files["cliffs"] = str(atomic_write_text(output_dir / "cliffs.csv",
                                            pd.DataFrame(result.cliff_dicts()).to_csv(index=False)))
    tr = pd.DataFrame([{k: v for k, v in t.items() if k != "pairs"} for t in result.mmp.transforms])
    files["mmp_transforms"] = str(atomic_write_text(output_dir / "mmp_transforms.csv", tr.to_csv(index=False)))
    files["mmp_pairs"] = str(atomic_write_text(output_dir / "mmp_pairs.csv",
                                               pd.DataFrame(result.mmp.pairs).to_csv(index=False)))
    result.files = files
    result.output_dir = str(output_dir)
    return result


def run_sar_pipeline(
    data: str | Path,
    *,
    smiles_col: str | None = None,
    activity_col: str | None = None,
    id_col: str | None = None,
    units: str | None = None,
    core: str | None = None,
    mode: str | None = "full",
    sheet: str | None = None,
    output_dir: str | Path | None = None,
    max_cuts: int | None = None,
    language: str = "en",
    llm: Any = None,
    progress: Progress | None = None,
) -> SARResult:
    """The whole SAR analysis of one data file.

    Files go to ``output_dir`` if given, else to a new timestamped directory under the configured output
    directory (``MOLX_OUTPUT_DIR``): ``cleaned.csv``, ``errors.csv``, ``clean_summary.json``,
    ``compounds.csv``, ``rgroups.csv``, ``cliffs.csv``, ``mmp_transforms.csv``, ``mmp_pairs.csv``,
    ``sar_report.html`` and ``sar_summary.json``.
    """
    from molx_agent.config import get_settings
    from molx_agent.sar.insights import build_insights

    report_mode = parse_mode(mode)
    timings: dict[str, float] = {}
    t_all = t = _now()
    if output_dir:
        ensure_output_dir(output_dir, "output directory")  # a file there: refused before the analysis
    table = read_table(data, sheet=sheet)
    clean = clean_table(table, smiles_col=smiles_col, activity_col=activity_col, id_col=id_col, units=units,
                        llm=llm, progress=progress)
    out = Path(output_dir) if output_dir else timestamped_dir(get_settings().output_dir, f"sar_{Path(data).stem}")
    save_cleaned(clean, out)
    require_valid(clean)
    t = _tick(timings, "clean", t)
    result = analyse_clean(clean, core=core, max_cuts=max_cuts, progress=progress, timings=timings)
    validate_mode(result, report_mode)
    result.mode = report_mode
    result.language = "zh" if language == "zh" else "en"
    t = _now()
    result.insights, result.insights_source = build_insights(result, result.language, llm)
    t = _tick(timings, "insights", t)
    write_outputs(result, out)
    _tick(timings, "report", t)
    _tick(timings, "total", t_all)
    atomic_write_json(result.summary_path, result.to_dict())  # type: ignore[arg-type]
    return result


__all__ = ["ReportMode", "SARResult", "analyse_clean", "parse_mode", "run_sar_pipeline", "subset_mask", "validate_mode",
           "write_outputs", "write_report", "write_tables"]

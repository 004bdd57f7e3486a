"""Clean a SAR table: standardise structures, convert potencies to pActivity, merge replicates.

Every input row ends in exactly one place, so the counts always reconcile::

    n_input = n_clean + n_duplicates_merged + n_errors

- kept: the first row of each unique parent structure (InChIKey of the ChEMBL-pipeline parent);
- merged: a later row of the same structure (a replicate); its value joins the aggregate (mean pActivity,
  spread = max - min reported);
- error: a row rejected with a code and a reason (empty row, missing/invalid SMILES, standardisation failure,
  missing/non-numeric/non-positive/implausible activity, unknown units, a bare number in a column whose other
  cells mix units, the same ID on a different structure).

Standardisation: ``chembl_structure_pipeline.standardizer.standardize_mol`` then ``get_parent_mol``
(salts and solvents stripped, charges neutralised); a parent still in several pieces keeps its largest
organic component.  Censored values (``<10``, ``>10000``) are kept and
flagged (``qualifier``); statistics, cliffs and matched pairs use exact values only.
"""

from __future__ import annotations

import logging
import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import pandas as pd

from molx_agent.errors import ChemistryError, DataError
from molx_agent.io_utils import atomic_write_json, atomic_write_text
from molx_agent.sar.columns import (
    MISSING_TEXTS,
    ColumnMapping,
    detect_columns,
    normalize_unit,
    parse_activity_cell,
    to_p_activity,
    unknown_unit_in_cell,
)
from molx_agent.sar.io import SDF_ERROR_COLUMN, RawTable
from molx_agent.sar.parallel import make_pool

logger = logging.getLogger(__name__)

#: Replicates whose pActivity differ by more than this are flagged as discordant.
DISCORDANT_SPREAD = 1.0
#: Plausible range of a p-value (pIC50 15 is 1 fM, 0 is 1 M).
P_RANGE = (0.0, 15.0)

CLEANED_COLUMNS = [
    "id", "smiles", "input_smiles", "inchikey", "p_activity", "qualifier", "n_replicates",
    "p_activity_spread", "rows", "merged_ids",
]


@dataclass
class ErrorRecord:
    """A rejected input row."""

    row: int  # 0-based index of the data row in the input file
    id: str | None
    smiles: str
    code: str
    reason: str
    value: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"row": self.row, "id": self.id, "smiles": self.smiles, "code": self.code, "reason": self.reason,
                "value": self.value}


@dataclass
class CleanResult:
    """Output of :func:`clean_table`.  ``compounds`` has the columns of :data:`CLEANED_COLUMNS`."""

    compounds: pd.DataFrame
    errors: list[ErrorRecord]
    mapping: ColumnMapping
    n_input: int
    n_duplicates_merged: int
    warnings: list[str] = field(default_factory=list)
    source: str = ""
    cleaned_file: str | None = None
    errors_file: str | None = None
    summary_file: str | None = None

    @property
    def n_clean(self) -> int:
        return len(self.compounds)

    @property
    def n_errors(self) -> int:
        return len(self.errors)

    def counts(self) -> dict[str, int]:
        return {"n_input": self.n_input, "n_clean": self.n_clean, "n_errors": self.n_errors,
                "n_duplicates_merged": self.n_duplicates_merged}

    def error_summary(self) -> dict[str, int]:
        return dict(Counter(e.code for e in self.errors))

    def to_dict(self) -> dict[str, Any]:
        return {
            **self.counts(),
            "source": self.source,
            "smiles_col": self.mapping.smiles_col,
            "activity_col": self.mapping.activity_col,
            "id_col": self.mapping.id_col,
            "units": self.mapping.units,
            "activity_label": self.mapping.activity_label,
            "column_source": self.mapping.source,
            "errors_by_code": self.error_summary(),
            "warnings": list(self.warnings),
            "cleaned_file": self.cleaned_file,
            "errors_file": self.errors_file,
            "summary_file": self.summary_file,
        }


@lru_cache(maxsize=100_000)
def standardize_smiles(smiles: str) -> tuple[str, str]:
    """ChEMBL-pipeline parent of ``smiles`` -> ``(canonical parent SMILES, InChIKey)``.

    Raises :class:`ChemistryError` (``invalid_smiles`` or ``standardization_failed``).
    """
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    try:
        from chembl_structure_pipeline import standardizer

        mol = Chem.MolFromSmiles(smiles)
        if mol is None:
            raise ChemistryError("invalid_smiles", f"RDKit cannot parse SMILES {smiles!r}", value=smiles)
        try:
            std = standardizer.standardize_mol(mol)
            ipar = standardizer.get_isotope_parent_mol(std)
            if len(Chem.GetMolFrags(ipar)) == 1:
                # what get_fragment_parent_mol returns for a single fragment (it re-reads and re-parses the
                # salt and solvent lists on every call, ~2/3 of the time): the neutralised molecule
                parent = standardizer.uncharge_mol(ipar)
            else:
                parent, _excluded = standardizer.get_fragment_parent_mol(ipar, neutralize=True, check_exclusion=True)
        except Exception as exc:  # noqa: BLE001 - the pipeline raises assorted RDKit errors
            raise ChemistryError("standardization_failed", f"standardisation failed: {exc}", value=smiles) from exc
        if parent is not None and len(Chem.GetMolFrags(parent)) > 1:
            # the ChEMBL salt list keeps some counter-ions (e.g. HCl of small amines, Na): keep the largest
            # organic component, as a SAR table needs one structure per compound
            from rdkit.Chem.MolStandardize import rdMolStandardize

            parent = rdMolStandardize.LargestFragmentChooser(preferOrganic=True).choose(parent)
        if parent is None or parent.GetNumAtoms() == 0:
            raise ChemistryError("standardization_failed", "no parent structure left after standardisation",
                                 value=smiles)
        out = Chem.MolToSmiles(parent)
        key = Chem.MolToInchiKey(parent)
        if not key:
            raise ChemistryError("standardization_failed", "no InChIKey for the parent structure", value=smiles)
        return out, key
    finally:
        RDLogger.EnableLog("rdApp.*")


def _standardize_or_error(smiles: str) -> tuple[str, ...]:
    """``(parent_smiles, inchikey)`` or ``("", code, message)`` (picklable for process pools)."""
    try:
        return standardize_smiles(smiles)
    except ChemistryError as exc:
        return ("", exc.code, exc.message)


def standardize_many(smiles: list[str], workers: int | None = None) -> dict[str, tuple[str, str] | ChemistryError]:
    """Batch twin of :func:`standardize_smiles`: SMILES -> result, or the :class:`ChemistryError` it raised.

    ``workers``: processes (None = :func:`molx_agent.sar.parallel.default_workers`).
    """
    pool = make_pool(workers, len(smiles))
    if pool is None:
        results = [_standardize_or_error(s) for s in smiles]
    else:
        try:
            results = pool.map(_standardize_or_error, smiles, chunksize=64)
        finally:
            pool.close()
            pool.join()
    out: dict[str, tuple[str, str] | ChemistryError] = {}
    for s, r in zip(smiles, results, strict=True):
        out[s] = ChemistryError(r[1], r[2], value=s) if len(r) == 3 else (r[0], r[1])
    return out


def _cell(row: pd.Series, col: str | None) -> str:
    if col is None:
        return ""
    v = row.get(col, "")
    return "" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v).strip()


def _looks_like_p_values(values: list[float]) -> bool:
    return bool(values) and all(2.0 <= v <= 13.0 for v in values)


def clean_table(
    table: RawTable,
    *,
    smiles_col: str | None = None,
    activity_col: str | None = None,
    id_col: str | None = None,
    units: str | None = None,
    llm: Any = None,
    require_activity: bool = True,
    workers: int | None = None,
    progress: Any = None,
) -> CleanResult:
    """Clean ``table`` (see the module docstring).  Column arguments override detection.

    Raises :class:`DataError` when no column is recognised, when no row survives (``no_valid_rows``; the
    reasons are counted in the message) or on unknown units.
    """
    df = table.df
    mapping = detect_columns(df, smiles_col=smiles_col, activity_col=activity_col, id_col=id_col, units=units,
                             llm=llm, require_activity=require_activity)
    warnings: list[str] = list(table.notes)
    errors: list[ErrorRecord] = []

    # Units: one for the column, or per row (units column / unit written in the cell).
    default_unit = mapping.units
    bare_units_error: str | None = None
    if mapping.activity_col and default_unit is None and mapping.units_col is None:
        cells = [parse_activity_cell(v) for v in df[mapping.activity_col].astype(str)]
        stated = Counter(c[2] for c in cells if c and c[2])
        bare = [c for c in cells if c and c[2] is None]
        exact = [c[1] for c in bare[:2000] if c[0] == "="]
        if stated:
            # some cells carry their unit ("10 nM", "0.5 uM"): a bare number in the same column is a
            # concentration too, never a p-value.  One unit stated: read bare numbers in it; several: a guess
            # could be 1000-fold wrong, so bare numbers become error records
            default_unit = stated.most_common(1)[0][0]
            if len(stated) > 1:
                bare_units_error = ", ".join(sorted(stated))
            elif bare:
                warnings.append(f"{len(bare)} value(s) of {mapping.activity_col!r} have no unit while other cells "
                                f"state {default_unit}; read as {default_unit} (pass --units to change)")
        elif _looks_like_p_values(exact):
            default_unit = "log"
            warnings.append(f"units of {mapping.activity_col!r} not stated; all values lie in 2-13, read as p-values "
                            "(pass --units nM if they are concentrations)")
        else:
            default_unit = "nM"
            warnings.append(f"units of {mapping.activity_col!r} not stated; read as nM (pass --units to change)")
        mapping.units = default_unit

    rows_ok: list[dict[str, Any]] = []
    pending: list[dict[str, Any]] = []
    units_used: Counter[str] = Counter()
    n = len(df)
    for i, row in enumerate(df.itertuples(index=False, name=None)):
        if progress is not None and i % 500 == 0:
            progress("clean", i, n)
        rec = dict(zip(df.columns, row, strict=False))
        rid = _cell(rec, mapping.id_col) or None  # type: ignore[arg-type]
        if rid is not None and rid.lower() in MISSING_TEXTS:
            rid = None
        smi = _cell(rec, mapping.smiles_col)  # type: ignore[arg-type]
        sdf_err = _cell(rec, SDF_ERROR_COLUMN) if SDF_ERROR_COLUMN in rec else ""  # type: ignore[arg-type]
        if sdf_err:
            errors.append(ErrorRecord(i, rid, smi, "unparsable_structure", sdf_err))
            continue
        if not smi:
            if not any(str(v).strip() for v in row if v is not None and v == v):
                errors.append(ErrorRecord(i, None, "", "empty_row", "empty row"))
            else:
                errors.append(ErrorRecord(i, rid, smi, "missing_smiles", "empty SMILES cell"))
            continue
        entry: dict[str, Any] = {"row": i, "id": rid or f"row_{i + 1}", "input_smiles": smi,
                                 "p_activity": None, "qualifier": "", "raw_activity": ""}
        if mapping.activity_col:
            raw = _cell(rec, mapping.activity_col)  # type: ignore[arg-type]
            entry["raw_activity"] = raw
            if raw.lower() in MISSING_TEXTS:
                errors.append(ErrorRecord(i, rid, smi, "missing_activity",
                                          "empty activity cell" if not raw else f"no activity value ({raw!r})", raw))
                continue
            parsed = parse_activity_cell(raw)
            if parsed is None:
                bad_unit = unknown_unit_in_cell(raw)
                if bad_unit is not None:
                    errors.append(ErrorRecord(i, rid, smi, "unknown_units", f"unknown units {bad_unit!r} in {raw!r}",
                                              raw))
                else:
                    errors.append(ErrorRecord(i, rid, smi, "non_numeric_activity",
                                              f"activity {raw!r} is not a number", raw))
                continue
            qual, value, cell_unit = parsed
            unit = cell_unit
            if unit is None and mapping.units_col:
                ut = _cell(rec, mapping.units_col)  # type: ignore[arg-type]
                unit = normalize_unit(ut) if ut else default_unit
                if ut and unit is None:
                    errors.append(ErrorRecord(i, rid, smi, "unknown_units", f"unknown units {ut!r}", ut))
                    continue
            if unit is None and bare_units_error is not None:
                errors.append(ErrorRecord(i, rid, smi, "missing_units",
                                          f"activity {raw!r} has no unit and the column mixes {bare_units_error}",
                                          raw))
                continue
            unit = unit or default_unit or "nM"
            if unit != "log" and value <= 0:
                errors.append(ErrorRecord(i, rid, smi, "non_positive_activity",
                                          f"activity {raw!r} must be a positive concentration", raw))
                continue
            p = to_p_activity(value, unit)
            if not (P_RANGE[0] <= p <= P_RANGE[1]):
                errors.append(ErrorRecord(i, rid, smi, "implausible_activity",
                                          f"activity {raw!r} ({unit}) gives p-value {p:.2f}, outside 0-15", raw))
                continue
            units_used[unit] += 1
            # A concentration "<10 nM" is a p-value "> 8"; store the qualifier on the p scale.
            if qual != "=" and unit != "log":
                qual = qual.replace("<", "#").replace(">", "<").replace("#", ">")
            entry["p_activity"] = p
            entry["qualifier"] = "" if qual == "=" else qual
        entry["_rid"] = rid
        pending.append(entry)
    standardized = standardize_many(sorted({e["input_smiles"] for e in pending}), workers=workers)
    for entry in pending:
        rid = entry.pop("_rid")
        std = standardized[entry["input_smiles"]]
        if isinstance(std, ChemistryError):
            errors.append(ErrorRecord(entry["row"], rid, entry["input_smiles"], std.code, std.message))
            continue
        entry["smiles"], entry["inchikey"] = std
        rows_ok.append(entry)
    if len(units_used) > 1:
        warnings.append("mixed units converted row by row: " + ", ".join(f"{u} ({c})" for u, c in units_used.items()))

    compounds, n_merged, dup_errors = _merge_replicates(rows_ok)
    errors.extend(dup_errors)
    errors.sort(key=lambda e: e.row)
    discordant = int((compounds["p_activity_spread"].fillna(0) > DISCORDANT_SPREAD).sum()) if len(compounds) else 0
    if discordant:
        warnings.append(f"{discordant} compound(s) have replicates more than {DISCORDANT_SPREAD:g} log unit apart")
    n_censored = int((compounds["qualifier"] != "").sum()) if len(compounds) else 0
    if n_censored:
        warnings.append(f"{n_censored} censored value(s) (<, >) kept and flagged; statistics use exact values only")
    result = CleanResult(compounds, errors, mapping, n, n_merged, warnings, table.source)
    assert result.n_input == result.n_clean + result.n_duplicates_merged + result.n_errors
    return result


def _merge_replicates(rows: list[dict[str, Any]]) -> tuple[pd.DataFrame, int, list[ErrorRecord]]:
    """Group rows by InChIKey; a repeated ID on another structure becomes an error record."""
    by_key: dict[str, list[dict[str, Any]]] = defaultdict(list)
    id_to_key: dict[str, str] = {}
    dup_errors: list[ErrorRecord] = []
    n_in_groups = 0
    for r in rows:
        key = r["inchikey"]
        prev = id_to_key.get(r["id"])
        if prev is not None and prev != key:
            dup_errors.append(ErrorRecord(
                r["row"], r["id"], r["input_smiles"], "duplicate_id",
                f"ID {r['id']!r} already used by another structure (row {by_key[prev][0]['row']})", r["id"]))
            continue
        id_to_key[r["id"]] = key
        by_key[key].append(r)
        n_in_groups += 1
    out = []
    for key, group in by_key.items():
        first = group[0]
        exact = [g["p_activity"] for g in group if g["p_activity"] is not None and not g["qualifier"]]
        if exact:
            p, qual = sum(exact) / len(exact), ""
        else:
            censored = [g for g in group if g["p_activity"] is not None]
            p, qual = (censored[0]["p_activity"], censored[0]["qualifier"]) if censored else (None, "")
        spread = (max(exact) - min(exact)) if len(exact) > 1 else 0.0
        out.append({
            "id": first["id"], "smiles": first["smiles"], "input_smiles": first["input_smiles"], "inchikey": key,
            "p_activity": p, "qualifier": qual, "n_replicates": len(group), "p_activity_spread": spread,
            "rows": [g["row"] for g in group],
            "merged_ids": [g["id"] for g in group[1:] if g["id"] != first["id"]],
        })
    df = pd.DataFrame(out, columns=CLEANED_COLUMNS).reset_index(drop=True)
    return df, n_in_groups - len(df), dup_errors


def save_cleaned(result: CleanResult, output_dir: str | Path) -> CleanResult:
    """Write ``cleaned.csv``, ``errors.csv`` and ``clean_summary.json`` (atomically) into ``output_dir``."""
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    df = result.compounds.copy()
    df["rows"] = df["rows"].map(lambda r: ";".join(str(x) for x in r))
    df["merged_ids"] = df["merged_ids"].map(lambda r: ";".join(str(x) for x in r))
    df = df.rename(columns={"p_activity": result.mapping.activity_label if result.mapping.activity_col else "p_activity"})
    result.cleaned_file = str(atomic_write_text(out / "cleaned.csv", df.to_csv(index=False)))
    err_df = pd.DataFrame([e.to_dict() for e in result.errors], columns=["row", "id", "smiles", "code", "reason", "value"])
    result.errors_file = str(atomic_write_text(out / "errors.csv", err_df.to_csv(index=False)))
    result.summary_file = str(out / "clean_summary.json")
    atomic_write_json(out / "clean_summary.json", {**result.to_dict(), "mapping": result.mapping.to_dict()})
    return result


def load_cleaned(output_dir: str | Path) -> CleanResult:
    """Read back what :func:`save_cleaned` wrote (``cleaned.csv``, ``errors.csv``, ``clean_summary.json``)."""
    import json

    out = Path(output_dir)
    try:
        summary = json.loads((out / "clean_summary.json").read_text(encoding="utf-8"))
        df = pd.read_csv(out / "cleaned.csv", dtype={"id": str}, keep_default_na=False, na_values=[""])
        err = pd.read_csv(out / "errors.csv", dtype=str, keep_default_na=False)
    except (OSError, ValueError) as exc:
        raise DataError("unreadable_file", f"cannot read cleaned data in {out}: {exc}", value=str(out)) from exc
    m = summary.get("mapping") or {}
    mapping = ColumnMapping(m.get("smiles_col", ""), m.get("activity_col"), m.get("id_col"), m.get("units"),
                            m.get("units_col"), m.get("activity_label", "pActivity"), m.get("source", "keywords"),
                            list(m.get("notes") or []))
    label = mapping.activity_label if mapping.activity_col else "p_activity"
    df = df.rename(columns={label: "p_activity"})
    df["qualifier"] = df["qualifier"].fillna("").astype(str)
    df["rows"] = df["rows"].map(lambda r: [int(x) for x in str(r).split(";") if x != ""])
    df["merged_ids"] = df["merged_ids"].map(lambda r: [x for x in str(r).split(";") if x and r == r])
    df["p_activity"] = pd.to_numeric(df["p_activity"], errors="coerce")
    errors = [ErrorRecord(int(r["row"]), r["id"] or None, r["smiles"], r["code"], r["reason"], r["value"] or None)
              for r in err.to_dict(orient="records")]
    result = CleanResult(df[CLEANED_COLUMNS], errors, mapping, int(summary["n_input"]),
                         int(summary["n_duplicates_merged"]), list(summary.get("warnings") or []),
                         summary.get("source", ""), str(out / "cleaned.csv"), str(out / "errors.csv"),
                         str(out / "clean_summary.json"))
    return result


def require_valid(result: CleanResult) -> None:
    """Raise :class:`DataError` ``no_valid_rows`` (counting the reasons) when nothing survived cleaning."""
    if result.n_clean == 0:
        reasons = ", ".join(f"{c}: {k}" for c, k in sorted(result.error_summary().items()))
        raise DataError(
            "no_valid_rows",
            f"no usable row in {Path(result.source).name or 'the data'}: all {result.n_input} rows rejected ({reasons})",
            value=result.source,
            hint=f"see {result.errors_file}" if result.errors_file else "check the SMILES and activity columns",
        )


__all__ = ["CleanResult", "ErrorRecord", "clean_table", "save_cleaned", "load_cleaned", "require_valid",
           "standardize_smiles",
           "standardize_many",
           "CLEANED_COLUMNS"]

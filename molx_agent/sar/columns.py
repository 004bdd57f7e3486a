"""Column identification and activity units.

:func:`detect_columns` finds the SMILES, activity, ID and (optional) units columns of a table: from an
injected LLM when one is given (its answer is validated and must name real columns), otherwise from
header keywords checked against the cell contents.  :func:`parse_units` and :func:`to_p_activity` turn
potencies in pM/nM/µM/mM/M (or p-values) into pActivity = -log10(molar).
"""

from __future__ import annotations

import json
import logging
import math
import re
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
from pydantic import BaseModel, ValidationError

from molx_agent.errors import DataError

logger = logging.getLogger(__name__)

#: Molar factor of each concentration unit.
UNIT_FACTORS: dict[str, float] = {"pM": 1e-12, "nM": 1e-9, "uM": 1e-6, "mM": 1e-3, "M": 1.0}
#: Spellings accepted for each unit (lower-cased, spaces removed).
_UNIT_ALIASES: dict[str, str] = {
    "pm": "pM", "pmol/l": "pM",
    "nm": "nM", "nmol/l": "nM", "nmol": "nM", "nanomolar": "nM",
    "um": "uM", "µm": "uM", "μm": "uM", "umol/l": "uM", "µmol/l": "uM", "μmol/l": "uM", "micromolar": "uM",
    "mm": "mM", "mmol/l": "mM", "millimolar": "mM",
    "m": "M", "mol/l": "M", "molar": "M",
    "log": "log", "p": "log", "-log10(m)": "log", "-logm": "log", "plog": "log", "pactivity": "log",
}

_SMILES_HEADERS = ("smiles", "canonical_smiles", "smi", "structure", "mol_smiles", "molecule", "mol", "isosmiles")
_ID_HEADERS = (
    "id", "compound_id", "compound", "cmpd", "cmpd_id", "name", "molecule_chembl_id", "chembl_id", "title",
    "mol_id", "molid", "compound_name", "_name", "identifier", "code", "iupac",
)
_UNITS_HEADERS = ("units", "unit", "standard_units", "activity_units")
#: Activity keywords by priority: p-values first (no unit needed), then concentrations.
_P_KEYWORDS = ("pic50", "pki", "pkd", "pec50", "pchembl", "pactivity", "pac50", "pgi50", "pxc50", "pkb", "pa2")
_CONC_KEYWORDS = ("ic50", "ki", "kd", "ec50", "ac50", "gi50", "xc50", "kb", "exp_mean", "standard_value", "potency",
                  "affinity", "activity", "value", "inhibition")
_KIND_NAMES = {"ic50": "IC50", "ki": "Ki", "kd": "Kd", "ec50": "EC50", "ac50": "AC50", "gi50": "GI50", "xc50": "XC50",
               "kb": "Kb"}
_NUM_RE = re.compile(r"^\s*(?P<q>[<>]=?|=|~|≤|≥)?\s*(?P<v>[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?)\s*(?P<u>[^\d\s].*)?$")


@dataclass
class ColumnMapping:
    """Which columns hold what, and how to read the activity."""

    smiles_col: str
    activity_col: str | None
    id_col: str | None = None
    units: str | None = None  # "nM", "uM", ..., "log" (already a p-value) or None (per-row units / unknown)
    units_col: str | None = None
    activity_label: str = "pActivity"  # e.g. "pKi", "pIC50"
    source: str = "keywords"  # "user", "llm", "keywords"
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "smiles_col": self.smiles_col, "activity_col": self.activity_col, "id_col": self.id_col,
            "units": self.units, "units_col": self.units_col, "activity_label": self.activity_label,
            "source": self.source, "notes": list(self.notes),
        }


class LLMColumnAnswer(BaseModel):
    """What the LLM must answer when asked to identify columns."""

    smiles_col: str
    activity_col: str | None = None
    id_col: str | None = None
    units: str | None = None


def normalize_unit(text: str | None) -> str | None:
    """Canonical unit (``nM``, ``uM``, ``mM``, ``M``, ``pM``, ``log``) or None when not recognised."""
    if text is None:
        return None
    key = str(text).strip().lower().replace(" ", "").strip("()[]")
    return _UNIT_ALIASES.get(key)


def _norm_header(name: str) -> str:
    return re.sub(r"[^a-z0-9µμ]+", "_", str(name).lower()).strip("_")


def unit_from_header(name: str) -> str | None:
    """Unit written in a header: ``IC50 (nM)``, ``exp_mean [nM]``, ``Ki_uM``, ``IC50/µM``."""
    m = re.search(r"[\(\[/_ ]\s*(pM|nM|uM|µM|μM|mM|M|nmol/L|umol/L|µmol/L)\s*[\)\]]?\s*$", str(name), flags=re.I)
    if m:
        raw = m.group(1)
        # case matters for M vs mM vs nM: keep the header's own spelling
        return normalize_unit(raw) if raw not in ("M", "m") else ("M" if raw == "M" else None)
    return None


def parse_activity_cell(text: str) -> tuple[str, float, str | None] | None:
    """``"<10 nM"`` -> ``("<", 10.0, "nM")``; ``"12.5"`` -> ``("=", 12.5, None)``; None when not a number."""
    if text is None:
        return None
    s = str(text).strip()
    if "," in s:
        # "1,000" is a thousands separator; "1,5" a decimal comma
        s = re.sub(r"(?<=\d),(?=\d{3}(\D|$))", "", s).replace(",", ".")
    m = _NUM_RE.match(s)
    if not m:
        return None
    q = m.group("q") or "="
    q = {"≤": "<=", "≥": ">=", "~": "="}.get(q, q)
    value = float(m.group("v"))
    unit_text = m.group("u")
    unit = None
    if unit_text:
        unit = normalize_unit(unit_text)
        if unit is None:
            return None
    return q, value, unit


def unknown_unit_in_cell(text: str) -> str | None:
    """The unit text of a cell that is a number followed by a unit we do not know (``"12 furlongs"`` ->
    ``"furlongs"``, ``"45 %"`` -> ``"%"``); None otherwise."""
    m = _NUM_RE.match(str(text or "").strip())
    if not m or not m.group("u"):
        return None
    unit = m.group("u").strip()
    return unit if normalize_unit(unit) is None else None


def to_p_activity(value: float, unit: str) -> float:
    """pActivity = -log10(value in mol/L); ``unit == "log"`` means the value already is one."""
    if unit == "log":
        return float(value)
    return -math.log10(value * UNIT_FACTORS[unit])


def _numeric_fraction(series: pd.Series) -> float:
    """Share of the non-missing cells (``""``, ``NA``, ``n/a``, ``-``...) that read as numbers."""
    vals = [v for v in series.astype(str).head(500) if v.strip().lower() not in MISSING_TEXTS]
    if not vals:
        return 0.0
    return sum(parse_activity_cell(v) is not None for v in vals) / len(vals)


def _smiles_fraction(series: pd.Series) -> float:
    from rdkit import Chem, RDLogger

    vals = [v.strip() for v in series.astype(str).head(50) if v.strip()]
    if not vals:
        return 0.0
    RDLogger.DisableLog("rdApp.*")
    try:
        ok = sum(
            1 for v in vals
            if not re.fullmatch(r"[-+]?\d+(\.\d+)?", v) and Chem.MolFromSmiles(v, sanitize=False) is not None
        )
    finally:
        RDLogger.EnableLog("rdApp.*")
    return ok / len(vals)


#: Cell texts that mean "no value".
MISSING_TEXTS = frozenset({"", "none", "nan", "null", "n/a", "na", "-", "--", "?"})


def _usable_id_column(series: pd.Series) -> bool:
    vals = [v.strip() for v in series.astype(str) if v.strip().lower() not in MISSING_TEXTS]
    # a constant column is not an ID column, except in a one-row table
    return len(vals) >= 0.5 * max(len(series), 1) and len(set(vals)) > min(1, len(vals) - 1)


def _activity_kind(header: str) -> tuple[str, bool] | None:
    """(label, is_log) for an activity-looking header, None otherwise."""
    h = _norm_header(header)
    tokens = set(h.split("_"))
    for kw in _P_KEYWORDS:
        if kw in tokens or h.startswith(kw) or h == kw:
            label = "p" + _KIND_NAMES.get(kw[1:], kw[1:].upper()) if kw not in ("pchembl", "pactivity") else "pActivity"
            return label, True
    if h.startswith("p") and h[1:] in _KIND_NAMES:
        return "p" + _KIND_NAMES[h[1:]], True
    for kw in _CONC_KEYWORDS:
        if kw in tokens or h.startswith(kw + "_") or h == kw:
            return "p" + _KIND_NAMES.get(kw, "Activity") if kw in _KIND_NAMES else "pActivity", False
    if "log" in tokens and any(k in tokens for k in _KIND_NAMES):
        return "pActivity", True
    return None


def _keyword_mapping(df: pd.DataFrame, require_activity: bool) -> ColumnMapping:
    cols = [str(c) for c in df.columns if str(c) != "_sdf_error"]
    norm = {c: _norm_header(c) for c in cols}
    # a header that says SMILES is trusted (bad cells become error records); vaguer headers
    # ("structure", "molecule") must also hold parsable SMILES
    smiles_col = next((c for c in cols if "smiles" in norm[c] or norm[c] == "smi"), None)
    if smiles_col is None:
        smiles_col = next((c for c in cols if norm[c] in _SMILES_HEADERS and _smiles_fraction(df[c]) >= 0.3), None)
    if smiles_col is None:  # content fallback: a column whose cells parse as SMILES
        scored = [(c, _smiles_fraction(df[c])) for c in cols if not c.startswith("_sdf")]
        scored = [x for x in scored if x[1] >= 0.8]
        smiles_col = max(scored, key=lambda x: x[1])[0] if scored else None
    if smiles_col is None:
        raise DataError(
            "no_smiles_column",
            f"no SMILES/structure column recognised; columns found: {', '.join(cols)}",
            value=None,
            hint="name it with --smiles-col",
        )
    id_candidates = [c for c in cols if c != smiles_col and norm[c] in _ID_HEADERS] + [
        c for c in cols if c != smiles_col and (norm[c].endswith("_id") or norm[c].startswith("id_"))
    ]
    id_col = next((c for c in id_candidates if _usable_id_column(df[c])), None)
    units_col = next((c for c in cols if norm[c] in _UNITS_HEADERS), None)
    candidates: list[tuple[int, str, str, bool]] = []
    for pri, c in enumerate(cols):
        if c in (smiles_col, id_col, units_col):
            continue
        kind = _activity_kind(c)
        if kind is None or _numeric_fraction(df[c]) < 0.5:
            continue
        label, is_log = kind
        # prefer p-values, then headers with units, then the leftmost
        rank = (0 if is_log else 1 if unit_from_header(c) else 2) * 1000 + pri
        candidates.append((rank, c, label, is_log))
    mapping = ColumnMapping(smiles_col=smiles_col, activity_col=None, id_col=id_col, units_col=units_col)
    if candidates:
        _, c, label, is_log = min(candidates)
        mapping.activity_col = c
        mapping.activity_label = label
        mapping.units = "log" if is_log else unit_from_header(c)
        if mapping.units is None and units_col is None:
            mapping.notes.append("units_not_stated")
        if len(candidates) > 1:
            mapping.notes.append("other activity columns: " + ", ".join(x[1] for x in sorted(candidates)[1:]))
    elif require_activity:
        raise DataError(
            "no_activity_column",
            f"no activity column (IC50/Ki/Kd/EC50/pIC50/activity/potency) recognised; columns found: {', '.join(cols)}",
            value=None,
            hint="name it with --activity-col (and --units)",
        )
    return mapping


def _llm_mapping(df: pd.DataFrame, llm: Any) -> ColumnMapping | None:
    """Ask the injected LLM; None when its answer is unusable (the caller falls back to keywords)."""
    cols = [str(c) for c in df.columns]
    sample = df.head(3).to_dict(orient="records")
    prompt = (
        "You identify the columns of a medicinal-chemistry data table. Columns: "
        + json.dumps(cols, ensure_ascii=False)
        + ". First rows: "
        + json.dumps(sample, ensure_ascii=False)[:3000]
        + '. Answer only JSON: {"smiles_col": str, "activity_col": str|null, "id_col": str|null, '
        '"units": "nM"|"uM"|"mM"|"M"|"pM"|"log"|null} where "log" means the activity is already a p-value.'
    )
    ask_json = getattr(llm, "ask_json", None)  # the agents' LLM client: structured output, validated, backoff
    if callable(ask_json):
        answer = ask_json(prompt, LLMColumnAnswer)
        if answer is None:
            logger.info("LLM column identification unusable; using header keywords")
            return None
        return _mapping_from_answer(answer, cols)
    try:
        reply = llm.invoke(prompt)
        text = getattr(reply, "content", reply)
        text = str(text).strip()
        if text.startswith("```"):
            text = text.strip("`").split("\n", 1)[-1].rsplit("```", 1)[0]
        answer = LLMColumnAnswer.model_validate(json.loads(text[text.find("{"): text.rfind("}") + 1]))
    except (ValidationError, ValueError, TypeError, AttributeError) as exc:
        logger.info("LLM column identification unusable (%s); using header keywords", exc)
        return None
    except Exception as exc:  # noqa: BLE001 - a failing LLM must not stop cleaning
        logger.info("LLM column identification failed (%s); using header keywords", exc)
        return None
    return _mapping_from_answer(answer, cols)


def _mapping_from_answer(answer: LLMColumnAnswer, cols: list[str]) -> ColumnMapping | None:
    for col in (answer.smiles_col, answer.activity_col, answer.id_col):
        if col is not None and col not in cols:
            logger.info("LLM named a column that does not exist (%r); using header keywords", col)
            return None
    units = normalize_unit(answer.units) if answer.units else None
    kind = _activity_kind(answer.activity_col) if answer.activity_col else None
    label = kind[0] if kind else "pActivity"
    if units is None and answer.activity_col:
        units = "log" if kind and kind[1] else unit_from_header(answer.activity_col)
    return ColumnMapping(answer.smiles_col, answer.activity_col, answer.id_col, units, None, label, "llm")


def detect_columns(
    df: pd.DataFrame,
    *,
    smiles_col: str | None = None,
    activity_col: str | None = None,
    id_col: str | None = None,
    units: str | None = None,
    llm: Any = None,
    require_activity: bool = True,
) -> ColumnMapping:
    """Identify the columns; explicit arguments win, then the LLM (if injected), then header keywords.

    Raises :class:`DataError`: ``unknown_column`` (a named column does not exist; lists the columns),
    ``no_smiles_column`` / ``no_activity_column`` (nothing recognised; lists the columns), ``unknown_units``.
    """
    cols = [str(c) for c in df.columns if str(c) != "_sdf_error"]
    for given in (smiles_col, activity_col, id_col):
        if given is not None and given not in cols:
            raise DataError(
                "unknown_column", f"column {given!r} not found; columns found: {', '.join(cols)}", value=given
            )
    canon_units = None
    if units is not None:
        canon_units = normalize_unit(units)
        if canon_units is None:
            raise DataError("unknown_units", f"unknown activity units {units!r}", value=units,
                            hint="use nM, uM (µM), mM, M, pM or log (p-values)")
    mapping = _llm_mapping(df, llm) if llm is not None else None
    if mapping is None:
        try:
            mapping = _keyword_mapping(df, require_activity and activity_col is None)
        except DataError as exc:
            if exc.code == "no_smiles_column" and smiles_col is not None:
                mapping = ColumnMapping(smiles_col=smiles_col, activity_col=None)
            else:
                raise
    if smiles_col is not None:
        mapping.smiles_col, mapping.source = smiles_col, "user"
    if id_col is not None:
        mapping.id_col = id_col
    if activity_col is not None:
        mapping.activity_col, mapping.source = activity_col, "user"
        kind = _activity_kind(activity_col)
        mapping.activity_label = kind[0] if kind else "pActivity"
        mapping.units = "log" if kind and kind[1] else unit_from_header(activity_col)
        mapping.notes = [n for n in mapping.notes if not n.startswith("other activity")]
    if canon_units is not None:
        mapping.units = canon_units
        mapping.units_col = None
        mapping.notes = [n for n in mapping.notes if n != "units_not_stated"]
    if mapping.activity_col and mapping.units is None and mapping.units_col is None:
        if "units_not_stated" not in mapping.notes:
            mapping.notes.append("units_not_stated")
    if mapping.activity_col is None and require_activity:
        raise DataError(
            "no_activity_column",
            f"no activity column recognised; columns found: {', '.join(cols)}",
            hint="name it with --activity-col (and --units)",
        )
    if mapping.activity_label == "pActivity" and mapping.units == "log" and mapping.activity_col:
        kind = _activity_kind(mapping.activity_col)
        if kind:
            mapping.activity_label = kind[0]
    return mapping


__all__ = [
    "ColumnMapping",
    "LLMColumnAnswer",
    "MISSING_TEXTS",
    "UNIT_FACTORS",
    "detect_columns",
    "normalize_unit",
    "parse_activity_cell",
    "to_p_activity",
    "unit_from_header",
    "unknown_unit_in_cell",
]

"""``sar`` worker (seed 002, SARAgent): series and cores, R-group decomposition, single-point scans, OCAT
series, matched molecular pairs, activity cliffs, properties, written insights -- and a judgement of the result.

Input: the cleaned data of a ``data_cleaner`` dependency (or, without one, ``inputs["files"]`` cleaned here).
Options (``inputs["options"]``): ``reuse_result`` (a previous turn's ``sar_result_file``: a chat follow-up reads it
instead of analysing again), ``core`` (SMILES/SMARTS), ``core_strategy`` (``murcko``: the most common Murcko
scaffold of the whole set as the core, ``mcs``: their maximum common substructure -- what a re-plan tries after a
trivial core), ``min_series_size`` (default 5), ``mode`` (``full``, ``site:R1``, ``subset:ID,ID``; otherwise read
from the query), ``max_cuts`` (mmpdb cuts, default 1).

Result: the SAR JSON summary (lists capped at :data:`MAX_ITEMS`), ``top_compounds`` ([{id, smiles, p_activity, lle,
le}], most potent first, ties broken by LLE then LE), ``verdict`` / ``issues`` (the :class:`Rule` checks of
:class:`SARAgentConfig`: too few compounds, a trivial or missing core, small series, many unassigned compounds, no
potency spread, column guesses of low confidence), ``findings`` (custom rules), ``summary``, ``mode``,
``sar_result_file`` (the whole ``SARResult`` pickled beside the tables, for the reporter: nothing travels through a
module-level cache, so a resumed run in a new process reads the same result) and ``report_paths``.
"""

from __future__ import annotations

import logging
import pickle
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from molx_agent.agents.base import BaseAgent
from molx_agent.agents.data_cleaner import read_task_table, task_files, task_options, task_query
from molx_agent.agents.modules.events import progress_emitter
from molx_agent.agents.modules.llm import guarded
from molx_agent.agents.modules.state import AgentState, Task
from molx_agent.agents.reflection import verdict_rank
from molx_agent.errors import DataError, ValidationError
from molx_agent.io_utils import atomic_write_bytes

logger = logging.getLogger(__name__)

MAX_ITEMS = 20
RESULT_FILE = "sar_result.pkl"

_SITE_RE = re.compile(r"(?<![A-Za-z0-9])R(\d{1,2})(?![0-9])")
_SUBSET_RE = re.compile(r"subset\s*[:：]\s*([^\s;；]+)", re.IGNORECASE)


# -- configuration and rules --------------------------------------------------------------------------------------
@dataclass
class Rule:
    """A pattern check on a SAR result (seed 002: ``SARAgent.add_rule``).

    ``check(result, config)`` returns findings ``{code, message, severity, ...}``: severity ``reject`` or ``weak``
    makes it an issue of the result's verdict, ``info`` a finding reported with the summary.
    """

    name: str
    check: Callable[[Any, SARAgentConfig], list[dict[str, Any]]]
    description: str = ""


@dataclass
class SARAgentConfig:
    """Thresholds of the SAR worker's judgement (seed 002: ``SARAgentConfig``)."""

    min_compounds: int = 8  #: fewer cleaned compounds with exact potencies: weak (fewer than 3: reject)
    min_series_size: int = 5  #: series split: smallest series
    small_series: int = 5  #: a series with fewer members is flagged
    min_potency_range: float = 1.0  #: log units (10-fold) between the most and least potent exact values
    max_unassigned_fraction: float = 0.5  #: more compounds in no series is flagged
    min_core_coverage: float = 0.8  #: a series core found in fewer of its members is flagged
    lone_ring_atoms: int = 6  #: a core of one ring this small is trivial in molecules 4+ atoms larger
    top_n: int = 5  #: compounds in ``top_compounds``
    rules: list[Rule] = field(default_factory=list)  #: custom rules, run after the built-in ones


def _exact(result: Any) -> Any:
    comp = result.compounds
    return comp[comp["exact"]] if "exact" in comp else comp


def _rule_size(result: Any, cfg: SARAgentConfig) -> list[dict[str, Any]]:
    n = len(_exact(result))
    if n < 3:
        return [{"code": "too_few_compounds", "severity": "reject",
                 "message": f"only {n} compound(s) with exact potencies: no SAR can be read from this set",
                 "hint": "add measured compounds, or check the activity column and units"}]
    if n < cfg.min_compounds:
        return [{"code": "too_few_compounds", "severity": "weak",
                 "message": f"only {n} compounds with exact potencies (< {cfg.min_compounds}): trends are anecdotal"}]
    return []


def _rule_cores(result: Any, cfg: SARAgentConfig) -> list[dict[str, Any]]:
    out = []
    if not result.series:
        return [{"code": "no_core", "severity": "weak",
                 "message": "no chemical series formed: the compounds share no meaningful core"}]
    for s in result.series:
        if s.core_smarts is None:
            why = "; ".join(r.get("reason", "") for r in s.rejected_cores[:2]) or "diverse cluster"
            out.append({"code": "trivial_core", "severity": "weak", "series": s.id,
                        "message": f"series {s.id} ({s.size} compounds) has no meaningful core ({why}): no R-group table"})
            continue
        if (s.note and "small for this series" in s.note) or (
                s.core_atoms <= cfg.lone_ring_atoms and s.median_atoms >= cfg.lone_ring_atoms + 4):
            out.append({"code": "trivial_core", "severity": "weak", "series": s.id,
                        "message": s.note if "small for" in (s.note or "") else
                        f"series {s.id}: the core {s.core_smiles} ({s.core_atoms} atoms) is a lone ring in molecules "
                        f"of {s.median_atoms:g} atoms: R-groups carry most of the structure"})
        if s.coverage < cfg.min_core_coverage:
            out.append({"code": "low_core_coverage", "severity": "weak", "series": s.id,
                        "message": f"series {s.id}: only {s.coverage:.0%} of its {s.size} compounds contain the core "
                                   f"{s.core_smiles}; the others are not decomposed"})
    return out


def _rule_series(result: Any, cfg: SARAgentConfig) -> list[dict[str, Any]]:
    out = []
    small = [s for s in result.series if s.size < cfg.small_series]
    if small:
        out.append({"code": "small_series", "severity": "weak",
                    "message": f"{len(small)} series with fewer than {cfg.small_series} compounds "
                               f"({', '.join(f'{s.id}: {s.size}' for s in small[:4])}): site trends are anecdotal"})
    n = len(result.compounds)
    if n and len(result.unassigned) / n > cfg.max_unassigned_fraction:
        out.append({"code": "many_unassigned", "severity": "weak",
                    "message": f"{len(result.unassigned)} of {n} compounds fall in no series"})
    return out


def _rule_spread(result: Any, cfg: SARAgentConfig) -> list[dict[str, Any]]:
    p = _exact(result)["p_activity"].astype(float)
    if len(p) >= 3 and float(p.max() - p.min()) < cfg.min_potency_range:
        return [{"code": "no_potency_spread", "severity": "weak",
                 "message": f"potencies span only {float(p.max() - p.min()):.2f} log units "
                            f"(< {cfg.min_potency_range:g}): differences are within assay noise"}]
    return []


def _rule_columns(result: Any, cfg: SARAgentConfig) -> list[dict[str, Any]]:
    mapping = result.clean.mapping
    out = []
    if mapping.source != "user" and "units_not_stated" in mapping.notes:
        out.append({"code": "columns_guessed", "severity": "weak",
                    "message": f"units of {mapping.activity_col!r} are not stated and were guessed",
                    "hint": "name the units (e.g. 'IC50 in nM') or pass --units"})
    others = [n for n in mapping.notes if n.startswith("other activity columns")]
    if mapping.source != "user" and others:
        out.append({"code": "columns_guessed", "severity": "weak",
                    "message": f"activity column {mapping.activity_col!r} chosen among several ({others[0]})",
                    "hint": "name the activity column in the request (or --activity-col)"})
    return out


BUILTIN_RULES: tuple[Rule, ...] = (
    Rule("dataset_size", _rule_size, "enough compounds with exact potencies"),
    Rule("meaningful_core", _rule_cores, "every series has a non-trivial core"),
    Rule("series_split", _rule_series, "series large enough, few compounds unassigned"),
    Rule("potency_spread", _rule_spread, "potencies spread beyond assay noise"),
    Rule("column_confidence", _rule_columns, "activity column and units identified with confidence"),
)


def judge_sar(result: Any, config: SARAgentConfig | None = None) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """``(verdict, issues, findings)`` of a SAR result under ``config`` (built-in rules, then custom ones)."""
    cfg = config or SARAgentConfig()
    issues: list[dict[str, Any]] = []
    findings: list[dict[str, Any]] = []
    for rule in (*BUILTIN_RULES, *cfg.rules):
        try:
            items = rule.check(result, cfg) or []
        except Exception as exc:  # noqa: BLE001 - a broken custom rule is reported, never fatal
            items = [{"code": "rule_error", "severity": "info", "message": f"rule {rule.name} failed: {exc}"}]
        for item in items:
            item = {"rule": rule.name, **item}
            (issues if item.get("severity") in ("reject", "weak") else findings).append(item)
    verdict = ("reject" if any(i["severity"] == "reject" for i in issues)
               else "weak" if issues else "accept")
    return verdict, issues, findings


# -- scaffolds (seed 002 names) -------------------------------------------------------------------------------------
def _mols(smiles: list[str]) -> list[Any]:
    from molx_agent.chem.utils import parse_mol

    return [parse_mol(s) for s in smiles]


def find_common_murcko_scaffold(smiles: list[str]) -> dict[str, Any]:
    """The most common Bemis-Murcko scaffold: ``{smiles, count, coverage, atoms, trivial_reason}``."""
    from collections import Counter

    from rdkit import Chem

    from molx_agent.sar.series import murcko_smiles, trivial_core_reason

    mols = _mols(smiles)
    counts = Counter(murcko_smiles(m) for m in mols)
    counts.pop("", None)
    if not counts:
        return {"smiles": None, "count": 0, "coverage": 0.0, "atoms": 0, "trivial_reason": "no ring scaffold"}
    best, count = counts.most_common(1)[0]
    core = Chem.MolFromSmiles(best)
    sizes = sorted(m.GetNumHeavyAtoms() for m in mols)
    coverage = sum(1 for m in mols if m.HasSubstructMatch(core)) / len(mols)
    return {"smiles": best, "count": count, "coverage": round(coverage, 3), "atoms": core.GetNumHeavyAtoms(),
            "trivial_reason": trivial_core_reason(core, float(sizes[len(sizes) // 2]))}


def find_mcs_scaffold(smiles: list[str], timeout: float = 5.0) -> dict[str, Any]:
    """The maximum common substructure of the compounds (RDKit FMCS, ring-complete, 90 % threshold):
    ``{smarts, smiles, atoms, coverage, timed_out, trivial_reason}``."""
    from rdkit import Chem

    from molx_agent.sar.series import _core_smiles_from_match, _mcs, trivial_core_reason

    mols = _mols(smiles)
    query, canceled = _mcs(mols, int(max(1, timeout)))
    if query is None:
        return {"smarts": None, "smiles": None, "atoms": 0, "coverage": 0.0, "timed_out": canceled,
                "trivial_reason": "no common substructure"}
    sizes = sorted(m.GetNumHeavyAtoms() for m in mols)
    coverage = sum(1 for m in mols if m.HasSubstructMatch(query)) / len(mols)
    return {"smarts": Chem.MolToSmarts(query), "smiles": _core_smiles_from_match(query, mols),
            "atoms": query.GetNumAtoms(), "coverage": round(coverage, 3), "timed_out": canceled,
            "trivial_reason": trivial_core_reason(query, float(sizes[len(sizes) // 2]))}


# -- persistence (replaces the old in-process cache) -----------------------------------------------------------------
def remember(result: Any) -> str:
    """Write ``result`` (a ``SARResult``) to ``<output_dir>/sar_result.pkl``; returns the path (the result's key)."""
    if not result.output_dir:
        raise ValidationError("no_output_dir", "the SAR result has no output folder to be saved in")
    path = Path(result.output_dir) / RESULT_FILE
    atomic_write_bytes(path, pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL))
    return str(path)


def recall(key: str | None) -> Any | None:
    """The ``SARResult`` saved by :func:`remember` under ``key`` (its path), or None when it is gone."""
    if not key or not Path(key).is_file():
        return None
    try:
        with open(key, "rb") as fh:
            return pickle.load(fh)  # noqa: S301 - our own file, written by remember()
    except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ImportError) as exc:
        logger.info("SAR result %s unreadable (%s); it will be recomputed", key, exc)
        return None


# -- helpers -----------------------------------------------------------------------------------------------------------
def mode_from_query(query: str, options: dict[str, Any] | None = None) -> str:
    """Report mode from the task options, else from the query ("R1 SAR" -> ``site:R1``), else ``full``."""
    opts = options or {}
    if opts.get("mode"):
        return str(opts["mode"])
    m = _SUBSET_RE.search(query or "")
    if m:
        return f"subset:{m.group(1)}"
    sites = {f"R{x}" for x in _SITE_RE.findall(query or "")}
    if len(sites) == 1:
        return f"site:{sites.pop()}"
    return "full"


def rank_compounds(result: Any, n: int = 5) -> list[dict[str, Any]]:
    """Most potent first (exact potencies; pActivity to 0.01), ties broken by LLE then LE."""
    df = _exact(result).copy()
    if not len(df):
        return []
    df["_p"] = df["p_activity"].astype(float).round(2)
    for col in ("lle", "le"):
        if col not in df:
            df[col] = float("nan")
    df = df.sort_values(["_p", "lle", "le"], ascending=False, na_position="last").head(n)

    def num(x: Any) -> float | None:
        return round(float(x), 3) if x == x and x is not None else None

    return [{"id": str(r.id), "smiles": r.smiles, "p_activity": num(r.p_activity), "lle": num(r.lle),
             "le": num(r.le)} for r in df.itertuples()]


def sar_summary(result: Any, language: str, top: list[dict[str, Any]] | None = None,
                verdict: str = "accept", issues: list[dict[str, Any]] | None = None) -> str:
    lines = list(result.insights[:4])
    label = result.activity_label
    if language == "zh":
        head = f"SAR 分析完成（{result.clean.n_clean} 个化合物，{len(result.series)} 个系列）。"
        if top:
            t = top[0]
            head += f"活性最高：{t['id']}（{label} {t['p_activity']}，LLE {t['lle']}）。"
        if verdict != "accept":
            head += "结果可信度有限：" + "；".join(i["message"] for i in (issues or [])[:3]) + "。"
    else:
        head = f"SAR analysis done ({result.clean.n_clean} compounds, {len(result.series)} series)."
        if top:
            t = top[0]
            ties = [x["id"] for x in top[1:] if x["p_activity"] == t["p_activity"]]
            head += (f" Most potent: {t['id']} ({label} {t['p_activity']}, LLE {t['lle']}"
                     + (f"; ahead of {', '.join(ties)} at the same potency by LLE/LE" if ties else "") + ").")
        if verdict != "accept":
            head += " Caveats: " + "; ".join(i["message"] for i in (issues or [])[:3]) + "."
    return " ".join([head, *lines])


def _clean_here(task: Task, state: AgentState, llm: Any, output_dir: Path) -> Any:
    from molx_agent.io_utils import timestamped_dir
    from molx_agent.sar.clean import clean_table, save_cleaned

    files = task_files(task, state)
    if not files:
        raise ValidationError("no_data_file", "no cleaned data and no data file for the SAR analysis",
                              hint="pass a CSV/Excel/SDF file, e.g. molx-agent run --data series.csv")
    opts = task_options(task)
    clean = clean_table(read_task_table(files[0], opts, task_query(task, state)),
                        smiles_col=opts.get("smiles_col"), activity_col=opts.get("activity_col"),
                        id_col=opts.get("id_col"), units=opts.get("units"), llm=guarded(llm, "SAR columns"))
    out = Path(opts["output_dir"]) if opts.get("output_dir") else timestamped_dir(
        output_dir, f"sar_{Path(files[0]).stem}")
    return save_cleaned(clean, out)


def _core_for(strategy: str | None, clean: Any) -> tuple[str | None, str]:
    """The core a ``core_strategy`` option asks for, and a note."""
    if not strategy:
        return None, ""
    smiles = clean.compounds["smiles"].astype(str).tolist()
    if strategy == "murcko":
        found = find_common_murcko_scaffold(smiles)
        if found["smiles"] and not found["trivial_reason"]:
            return found["smiles"], f"core: most common Murcko scaffold {found['smiles']} ({found['count']} compounds)"
        return None, f"the most common Murcko scaffold is not usable ({found['trivial_reason']})"
    if strategy == "mcs":
        found = find_mcs_scaffold(smiles)
        if found["smarts"] and not found["trivial_reason"]:
            return found["smarts"], f"core: maximum common substructure {found['smiles']} ({found['atoms']} atoms)"
        return None, f"the maximum common substructure is not usable ({found['trivial_reason']})"
    raise ValidationError("invalid_option", f"unknown core_strategy {strategy!r}", value=strategy,
                          hint="use murcko or mcs")


class SARAgent(BaseAgent):
    """Structure-activity analysis of cleaned compound data, judged by its :class:`Rule` checks."""

    name = "sar"
    description = "Series/core selection, R-group decomposition, OCAT, matched pairs, activity cliffs, insights."
    option_keys = ("core", "core_strategy", "min_series_size", "mode", "max_cuts", "reuse_result")

    def __init__(self, llm: Any = None, tools: list[Any] | None = None, *, config: SARAgentConfig | None = None,
                 **kwargs: Any) -> None:
        super().__init__(llm=llm, tools=tools, **kwargs)
        self.config = config or SARAgentConfig()

    def add_rule(self, rule: Rule) -> None:
        """Run ``rule`` on every result after the built-in checks."""
        self.config.rules.append(rule)

    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        language = state.get("language", "en")
        opts = task_options(task)
        reused = recall(opts.get("reuse_result")) if opts.get("reuse_result") else None
        if reused is not None:
            notes = ["前一轮的 SAR 结果被直接复用。" if language == "zh"
                     else "(Answered from the previous turn's SAR analysis, not recomputed.)"]
            return self._describe(reused, task, state, notes, str(opts["reuse_result"]), None)
        emit = progress_emitter(self.name, task.get("id"))
        result, notes, min_size = self._analyse(task, state, opts, emit)
        emit("write_tables", force=True)
        # each attempt writes its own tables; a re-plan never overwrites the previous attempt's files
        n_attempt = len(task.get("attempts") or []) + 1
        from molx_agent.sar.pipeline import write_tables

        out_dir = Path(result.clean.cleaned_file).parent / (f"attempt_{n_attempt}" if n_attempt > 1 else "")
        write_tables(result, out_dir)
        doc = self._describe(result, task, state, notes, remember(result), min_size)
        emit("done", force=True, n_series=len(result.series), verdict=doc.get("verdict"))
        previous = (state.get("results") or {}).get(task.get("id", ""))
        if _better(previous, doc):
            kept = dict(previous)  # type: ignore[arg-type]
            kept["summary"] = (f"{kept.get('summary', '')} (Another split -- {opts.get('strategy')}: "
                               f"{doc['attempt_summary']} -- was not better; the earlier analysis is kept.)")
            kept["attempt_summary"] = f"{doc['attempt_summary']}; earlier analysis kept"
            return kept
        return doc

    def _analyse(self, task: Task, state: AgentState, opts: dict[str, Any],
                 emit: Any = None) -> tuple[Any, list[str], int]:
        from molx_agent.sar.clean import load_cleaned, require_valid
        from molx_agent.sar.insights import build_insights
        from molx_agent.sar.pipeline import analyse_clean, parse_mode, validate_mode

        language = state.get("language", "en")
        emit = emit or (lambda *a, **k: None)
        dep = next((d for d in self.ancestor_results(task, state) if d.get("cleaned_file")), None)
        emit("load_data", force=True)
        clean = (load_cleaned(dep["output_dir"]) if dep
                 else _clean_here(task, state, self.llm, self.settings.output_dir))
        require_valid(clean)
        if not clean.mapping.activity_col:
            raise ValidationError(
                "no_activity_column",
                f"no activity column found in {Path(clean.source).name}; a SAR analysis needs potencies",
                value=clean.source, hint="name it with --activity-col (and --units)")
        notes: list[str] = []
        core = opts.get("core")
        if not core and opts.get("core_strategy"):
            core, note = _core_for(opts["core_strategy"], clean)
            notes.append(note)
        min_size = int(opts.get("min_series_size") or self.config.min_series_size)
        emit("analyse_series", force=True, core=core or None)
        result = analyse_clean(clean, core=core, max_cuts=opts.get("max_cuts"), min_series_size=min_size)
        query = (task.get("inputs") or {}).get("query") or state.get("user_query", "")
        mode = parse_mode(mode_from_query(query, opts))
        try:
            validate_mode(result, mode)
        except DataError as exc:
            notes.append(f"{exc.message}; the full report is given instead")
            mode = parse_mode("full")
        result.mode = mode
        result.language = "zh" if language == "zh" else "en"
        emit("insights", force=True, n_series=len(result.series))
        result.insights, result.insights_source = build_insights(result, result.language,
                                                                 guarded(self.llm, "SAR insights"))
        return result, notes, min_size

    def _describe(self, result: Any, task: Task, state: AgentState, notes: list[str], result_file: str,
                  min_size: int | None) -> dict[str, Any]:
        language = state.get("language", "en")
        opts = task_options(task)
        verdict, issues, findings = judge_sar(result, self.config)
        top = rank_compounds(result, self.config.top_n)
        doc = result.to_dict(max_items=MAX_ITEMS)
        notes = [n for n in notes if n]
        doc.update({
            "sar_result_file": result_file, "result_key": result_file, "top_compounds": top,
            "mode": result.mode.label, "mode_notes": notes, "report_paths": list(result.files.values()),
            "verdict": verdict, "issues": issues, "findings": findings,
            "core_strategy": opts.get("core_strategy"), "min_series_size": min_size or self.config.min_series_size,
            "summary": sar_summary(result, language, top, verdict, issues) + ("" if not notes else " " + " ".join(notes)),
            "attempt_summary": (f"{len(result.series)} series, verdict {verdict}"
                                + (f" ({', '.join(i['code'] for i in issues)})" if issues else "")),
        })
        return doc


def _better(previous: dict[str, Any] | None, new: dict[str, Any]) -> bool:
    """Is the previous attempt's result better than the new one (higher verdict, or as good with fewer issues)?"""
    if not previous or not previous.get("verdict") or not previous.get("sar_result_file"):
        return False
    old_rank, new_rank = verdict_rank(previous["verdict"]), verdict_rank(new["verdict"])
    if old_rank != new_rank:
        return old_rank > new_rank
    return len(previous.get("issues") or []) < len(new.get("issues") or [])


__all__ = ["SARAgent", "SARAgentConfig", "Rule", "BUILTIN_RULES", "judge_sar", "mode_from_query", "rank_compounds",
           "find_mcs_scaffold", "find_common_murcko_scaffold", "remember", "recall", "sar_summary"]

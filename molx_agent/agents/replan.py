"""OPTIMIZE in rules mode: turn REFLECT's issues into a *different* plan.

:func:`propose_changes` picks one change per task that can still improve (each strategy is tried at most once per
task, except avoiding newly criticised leaves or steps):

- a transient failure -> ``retry`` (same inputs);
- a route search judged weak or rejected (its ``validation`` dependant's verdicts), in this order:
  ``avoid`` (``exclude_leaves``: the near analog bought for an analog shortcut; ``exclude_steps``: implausible or
  failing steps, and steps a mechanism flag names), ``verified_only`` (``allow_probable_leaves=False`` when a
  starting material is only a Bloom-filter hit), ``wider_longer`` (``time_limit`` x3, ``expansion_top_k`` x2,
  ``max_expansions`` x2), then
  ``strategic_disconnection`` (first disconnection at the analysis's first strategic bond a search can use:
  no organometallic reagent among its precursors, no mechanism flag on its capping, not a trim of a near analog
  of the target; then searches of the fragments); only the targets that were not accepted are searched again;
- a SAR result judged weak -> another series split or core: ``min_series_size`` 3 (small or mixed series, many
  unassigned compounds, a core most members lack, a trivial core), then ``core_strategy`` ``murcko`` and ``mcs``
  (the whole set's common scaffold as the core);
- bad input and internal errors -> nothing (the answer gives the fix).

:func:`apply_changes` writes the changes into the task inputs and resets the changed tasks and everything that
depends on them to ``pending`` (results and the attempt log are kept: workers compare with the previous attempt).
"""

from __future__ import annotations

import copy
from typing import Any

from molx_agent.agents.modules.state import AgentState
from molx_agent.retro.judge import IMPLAUSIBLE_MECHANISM_ISSUES, SELF_REACTIVE_ISSUES

#: Upper bounds of the widened search (the defaults themselves come from ``SearchConfig``).
MAX_TOP_K = 200
TIME_FACTOR = 3.0
RETRY_CLASSES = ("transient",)
AVOID_LEAF_CODES = ("analog_shortcut",)
#: Steps a re-plan searches without: below the plausibility floor, failing validation, or a mechanism a chemist would
#: not run (an unactivated carbanion, a free aniline C-alkylated, two electrophiles joined, an unactivated SNAr, an
#: alcohol's carbon acylated, a tertiary amine stripped for its nitrogen, the slower of two halides reacting, an
#: oxidation by water or hydroxide), or the step that makes an intermediate reacting with itself (a free amine beside
#: an acyl chloride or isothiocyanate).
AVOID_STEP_CODES = ("implausible_step", "failed_validation", *sorted(IMPLAUSIBLE_MECHANISM_ISSUES),
                    *sorted(SELF_REACTIVE_ISSUES))
SAR_CORE_CODES = ("trivial_core", "no_core")
SAR_SPLIT_CODES = ("small_series", "many_unassigned", "low_core_coverage")


def _search_defaults() -> Any:
    from molx_agent.retro.search_types import SearchConfig

    return SearchConfig()


def _canonical(smiles: str | None) -> str | None:
    if not smiles:
        return None
    from molx_agent.retro.stock import canonical_smiles

    return canonical_smiles(smiles) or smiles


def dependants(tasks: dict[str, Any], tid: str) -> list[str]:
    """Ids of every task that depends on ``tid``, directly or not, in plan order."""
    out: set[str] = set()
    changed = True
    while changed:
        changed = False
        for k, t in tasks.items():
            if k != tid and k not in out and set(t.get("depends_on") or []) & (out | {tid}):
                out.add(k)
                changed = True
    return [k for k in tasks if k in out]


def guidance_for(state: AgentState, task_id: str, target: str) -> dict[str, Any] | None:
    """The ``analysis`` worker's synthesis guidance for ``target`` among the ancestors of ``task_id``."""
    from molx_agent.agents.base import BaseAgent

    tasks = state.get("tasks") or {}
    results = state.get("results") or {}
    want = _canonical(target)
    for result in BaseAgent.ancestor_results(tasks.get(task_id) or {}, state):  # nearest ancestors first
        for mol in (result or {}).get("molecules") or []:
            if isinstance(mol, dict) and mol.get("guidance") and _canonical(mol.get("smiles")) == want:
                return mol["guidance"]
    own = results.get(task_id) or {}
    for record in own.get("targets") or [own]:  # the search worker's own guidance (no analysis task, e.g. hits)
        if isinstance(record, dict) and record.get("guidance") and _canonical(record.get("target_smiles")) == want:
            return record["guidance"]
    return None


def _search_task_of(tasks: dict[str, Any], tid: str) -> str | None:
    """The ``disconnection`` task a validation task judges (or ``tid`` itself for a disconnection task)."""
    task = tasks.get(tid) or {}
    if task.get("type") == "disconnection":
        return tid
    for dep in task.get("depends_on") or []:
        if (tasks.get(dep) or {}).get("type") == "disconnection":
            return dep
    return None


def _fmt_s(seconds: float) -> str:
    return f"{seconds:g} s"


#: Metals of a capping's organometallic fragment ("[c]([Mg][Br])"): a reagent made from the halide, not a molecule
#: a route search can buy or make.
_REAGENT_METALS = frozenset({"Li", "Mg", "Zn", "Cu"})


def _searchable(fragment: str) -> bool:
    """Whether a route search can take ``fragment`` as a target: a molecule RDKit reads, with no radical centre and
    no lithium, magnesium, zinc or copper (the capping rules write an organometallic reagent that way)."""
    from rdkit import Chem, rdBase

    with rdBase.BlockLogs():
        mol = Chem.MolFromSmiles(fragment)
    return mol is not None and not any(a.GetNumRadicalElectrons() or a.GetSymbol() in _REAGENT_METALS
                                       for a in mol.GetAtoms())


def _usable_first_disconnection(bond: dict[str, Any]) -> bool:
    """Whether the analysis's strategic bond is worth a first disconnection: precursors a search can take, a
    capping reaction no mechanism flag names, a real disconnection, not a trim of a near analog of the
    target (``agents.analysis.synthesis_guidance``: searching that analog only finds the analog shortcut again), and
    one step from the fragments to the target (not a sulfoxide's or sulfone's bond reached through its sulfide,
    ``via``, nor an amino acid's coupling that needs its amine protected first, ``needs_protection``: the first
    disconnection composes a single step from the fragments as they are)."""
    fragments = bond.get("fragments") or []
    return bool(fragments) and all(_searchable(f) for f in fragments) and not bond.get("mechanism_flagged") \
        and not bond.get("interconversion") and not bond.get("via") and not bond.get("needs_protection")


def _strategic_plans(state: AgentState, search_tid: str, targets: list[str]) -> dict[str, Any]:
    """Target -> the first strategic bond (with its capped fragments) of the analysis guidance, where there is one."""
    plans: dict[str, Any] = {}
    for target in targets:
        guide = guidance_for(state, search_tid, target) or {}
        bond = next((b for b in guide.get("strategic_bonds") or [] if _usable_first_disconnection(b)), None)
        if bond is not None:
            plans[_canonical(target) or target] = {k: bond.get(k) for k in (
                "bond_idx", "atoms", "label", "reaction_type", "fragments", "priority", "confidence",
                "mapped_reaction")}
    return plans


def _search_change(state: AgentState, search_tid: str, issues: list[dict[str, Any]]) -> dict[str, Any] | None:
    tasks = state.get("tasks") or {}
    if ((state.get("results") or {}).get(search_tid) or {}).get("strategy") == "guided":
        return None  # a guided route follows its decisions (LLM, chemist or rules): other search options change nothing
    options = dict(((tasks.get(search_tid) or {}).get("inputs") or {}).get("options") or {})
    tried = list(options.get("tried") or [])
    cfg = _search_defaults()
    targets = [i.get("target") for i in issues if i.get("target")]
    targets = list(dict.fromkeys(t for t in targets if t))
    codes = {i.get("code") for i in issues}
    excluded_leaves = set(options.get("exclude_leaves") or [])
    excluded_steps = set(options.get("exclude_steps") or [])
    leaves = [i["smiles"] for i in issues if i.get("code") in AVOID_LEAF_CODES and i.get("smiles")
              and i["smiles"] not in excluded_leaves]
    steps = [i["step"] for i in issues if i.get("code") in AVOID_STEP_CODES and i.get("step")
             and i["step"] not in excluded_steps]
    leaves, steps = list(dict.fromkeys(leaves)), list(dict.fromkeys(steps))
    unsolved = "not_solved" in codes
    change: dict[str, Any] = {}
    plans = _strategic_plans(state, search_tid, targets) if "strategic_disconnection" not in tried else {}
    if leaves or steps:
        strategy = "avoid"
        if leaves:
            change["exclude_leaves"] = sorted(excluded_leaves | set(leaves))
        if steps:
            change["exclude_steps"] = sorted(excluded_steps | set(steps))
        why = "search again avoiding " + "; ".join(
            ([f"the bought near analog(s) {', '.join(leaves)} (analog shortcut)"] if leaves else [])
            + ([f"the criticised step(s) {', '.join(steps)}"] if steps else []))
    elif "probable_leaf" in codes and "verified_only" not in tried:
        strategy = "verified_only"
        change["allow_probable_leaves"] = False
        why = ("starting materials found only in the ZINC Bloom filter (~7 % false positives): search again "
               "ending only in verified (exact) stock entries")
    elif "wider_longer" not in tried:
        strategy = "wider_longer"
        base_t = float(options.get("time_limit") or cfg.time_limit)
        top_k = int(options.get("expansion_top_k") or cfg.expansion_top_k)
        max_exp = int(options.get("max_expansions") or cfg.max_expansions)
        change.update(time_limit=round(base_t * TIME_FACTOR, 1), expansion_top_k=min(MAX_TOP_K, top_k * 2),
                      max_expansions=max_exp * 2)
        what = "no route" if unsolved else "only weak routes"
        why = (f"{what} within {_fmt_s(base_t)} and {top_k} proposals per molecule: search longer "
               f"({_fmt_s(change['time_limit'])}) and wider ({change['expansion_top_k']} proposals, "
               f"{change['max_expansions']} expansions)")
    elif plans:
        strategy = "strategic_disconnection"
        change["first_disconnection"] = plans
        first = next(iter(plans.values()))
        why = (f"{'no route' if unsolved else 'no acceptable route'} from the search alone: disconnect first at the "
               f"strategic bond found by the analysis ({first.get('label')}, {first.get('reaction_type')}) into "
               f"{' + '.join(first.get('fragments') or [])}, then search the fragments")
    else:
        return None
    return {"kind": "search", "task_id": search_tid, "strategy": strategy, "options": change,
            "targets": targets, "why": why}


def _sar_change(state: AgentState, tid: str, issues: list[dict[str, Any]]) -> dict[str, Any] | None:
    tasks = state.get("tasks") or {}
    options = dict(((tasks.get(tid) or {}).get("inputs") or {}).get("options") or {})
    if options.get("core"):
        return None  # the user chose the core
    tried = list(options.get("tried") or [])
    codes = {i.get("code") for i in issues}
    split = {"kind": "sar_split", "task_id": tid, "strategy": "smaller_series", "options": {"min_series_size": 3},
             "why": "series too mixed, too small or partly outside their core: split the set again allowing series "
                    "of 3 compounds (each chemotype its own core)"}
    if codes & set(SAR_SPLIT_CODES) and "smaller_series" not in tried:
        return split
    if codes & set(SAR_CORE_CODES):
        if "smaller_series" not in tried:
            return split
        for strategy in ("murcko", "mcs"):
            if f"core_{strategy}" not in tried:
                label = "most common Murcko scaffold" if strategy == "murcko" else "maximum common substructure"
                return {"kind": "sar_split", "task_id": tid, "strategy": f"core_{strategy}",
                        "options": {"core_strategy": strategy},
                        "why": f"trivial or missing core: analyse again on the {label} of the whole set"}
    return None


def propose_changes(state: AgentState, issues: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The changes OPTIMIZE can make for ``issues`` (empty when nothing untried could help)."""
    tasks = state.get("tasks") or {}
    actions: list[dict[str, Any]] = []
    done_ids: set[str] = set()
    for issue in issues:
        if issue["class"] in RETRY_CLASSES and issue["task_id"] not in done_ids:
            done_ids.add(issue["task_id"])
            actions.append({"kind": "retry", "task_id": issue["task_id"], "strategy": "retry",
                            "why": f"transient failure ({issue.get('code')}): {str(issue.get('message'))[:200]}"})
    weak: dict[str, list[dict[str, Any]]] = {}
    for issue in issues:
        if issue["class"] == "weak_result":
            owner = _search_task_of(tasks, issue["task_id"]) or issue["task_id"]
            weak.setdefault(owner, []).append(issue)
    for owner, items in weak.items():
        if owner in done_ids:
            continue
        kind = (tasks.get(owner) or {}).get("type")
        change = (_search_change(state, owner, items) if kind == "disconnection"
                  else _sar_change(state, owner, items) if kind == "sar" else None)
        if change is not None:
            done_ids.add(owner)
            actions.append(change)
    return actions


def apply_changes(tasks: dict[str, Any], actions: list[dict[str, Any]]) -> dict[str, Any]:
    """A new plan: the changed tasks (new options) and their dependants reset to ``pending``."""
    out = copy.deepcopy(tasks)
    reset: list[str] = []
    for action in actions:
        tid = action["task_id"]
        if tid not in out:
            continue
        task = out[tid]
        if action.get("kind") in ("search", "sar_split"):
            inputs = task.setdefault("inputs", {})
            options = dict(inputs.get("options") or {})
            options.update(action.get("options") or {})
            options["tried"] = [*(options.get("tried") or []), action["strategy"]]
            options["strategy"] = action["strategy"]
            options["why"] = action.get("why", "")
            if action.get("targets"):
                options["research_targets"] = list(action["targets"])
            inputs["options"] = options
        elif action.get("kind") == "retry":
            inputs = task.setdefault("inputs", {})
            inputs["options"] = {**(inputs.get("options") or {}), "strategy": "retry", "why": action.get("why", "")}
        reset += [tid, *dependants(out, tid)]
    for tid in dict.fromkeys(reset):
        task = out[tid]
        task["status"] = "pending"
        for key in ("error", "error_class", "dropped"):
            task.pop(key, None)
    # tasks skipped only because a reset task had failed run again
    changed = True
    while changed:
        changed = False
        pending = {k for k, t in out.items() if t.get("status") == "pending"}
        for task in out.values():
            if task.get("status") == "skipped" and not task.get("unavailable") and \
                    set(task.get("depends_on") or []) & pending:
                task["status"] = "pending"
                task.pop("error", None)
                task.pop("dropped", None)
                changed = True
    return out


__all__ = ["propose_changes", "apply_changes", "dependants", "guidance_for", "MAX_TOP_K", "TIME_FACTOR"]

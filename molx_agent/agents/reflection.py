"""REFLECT: read the task statuses *and* the workers' verdicts, and name the specific issues.

:func:`collect_issues` turns a state into issues, each ``{task_id, type, class, code, message, ...}``:

- a failed task gives one issue of its error class (``bad_input`` -- never retried, the answer carries the fix;
  ``transient`` -- retried; ``internal`` -- reported);
- a task skipped because a dependency failed gives a ``blocked`` issue;
- a done task whose result has ``verdict`` ``weak`` or ``reject`` gives one ``weak_result`` issue per criticised
  point (an unsolved search, a Bloom-filter-only starting material, an analog shortcut, an implausible step, a
  trivial SAR core, no potency spread, ...), with the target, leaf or step it concerns.

:func:`derive_reflection` adds what OPTIMIZE could change (``actions``, from :mod:`molx_agent.agents.replan`),
``should_replan`` (an untried change exists and fewer than ``MAX_ITERATIONS`` rounds were done) and a summary.
"""

from __future__ import annotations

from typing import Any

from molx_agent.agents.modules.state import AgentState

_RANK = {"accept": 2, "weak": 1, "reject": 0}


def verdict_rank(verdict: str | None) -> int:
    """accept 2 > weak 1 > reject 0 (no verdict counts as accept)."""
    return _RANK.get(verdict or "accept", 2)


def satisfied(task: dict[str, Any]) -> bool:
    """A dependency is satisfied when done, dropped by the planner, or skipped only because it is not built."""
    status = task.get("status")
    return status == "done" or (status == "skipped" and bool(task.get("unavailable") or task.get("dropped")))


def _result_issues(tid: str, task: dict[str, Any], result: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    base = {"task_id": tid, "type": task.get("type"), "class": "weak_result", "verdict": result.get("verdict")}
    targets = result.get("targets") if isinstance(result.get("targets"), list) else None
    if targets and any(isinstance(t, dict) and "verdict" in t for t in targets):
        for t in targets:
            if not isinstance(t, dict) or verdict_rank(t.get("verdict")) == 2:
                continue
            for item in t.get("issues") or [{"code": "weak_route", "message": "weak route"}]:
                out.append({**base, "verdict": t.get("verdict"), "target": t.get("target_smiles"),
                            "target_name": t.get("target_name") or "", **_issue_fields(item)})
        return out
    for item in result.get("issues") or []:
        if isinstance(item, dict):
            out.append({**base, **_issue_fields(item)})
    if not out:
        out.append({**base, "code": f"{result.get('verdict')}_result",
                    "message": str(result.get("summary") or "")[:300]})
    return out


#: Error types of bad input (``RetroError.to_dict()["error_type"]``) and codes that always mean bad input.
BAD_INPUT_TYPES = frozenset({"ValidationError", "ChemistryError", "DataError", "ConfigError", "SkillError"})
BAD_INPUT_CODES = frozenset({"invalid_smiles", "no_molecule", "no_data_file", "invalid_reaction", "unsupported_file",
                             "file_not_found", "capability_unavailable", "no_task", "no_target"})


def error_class(task: dict[str, Any], err: dict[str, Any]) -> str:
    """The class of a failed task: the worker's classification, else inferred from the error type and code."""
    if task.get("error_class"):
        return str(task["error_class"])
    if err.get("code") in BAD_INPUT_CODES or err.get("error_type") in BAD_INPUT_TYPES:
        return "bad_input"
    return "transient"


def _issue_fields(item: dict[str, Any]) -> dict[str, Any]:
    keep = ("code", "message", "smiles", "step", "severity", "hint", "series", "value")
    return {k: item[k] for k in keep if k in item and item[k] is not None}


def collect_issues(state: AgentState) -> list[dict[str, Any]]:
    """Every specific issue of the current plan (see the module docstring)."""
    tasks = state.get("tasks") or {}
    results = state.get("results") or {}
    issues: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for tid, task in tasks.items():
        result = results.get(tid) or {}
        status = task.get("status")
        if status == "failed":
            err = result.get("error") if isinstance(result.get("error"), dict) else {}
            issue = {"task_id": tid, "type": task.get("type"), "class": error_class(task, err),
                     "code": err.get("code") or "failed", "message": err.get("message") or task.get("error", "")}
            if err.get("hint"):
                issue["hint"] = err["hint"]
            issues.append(issue)
        elif status == "skipped" and not satisfied(task):
            issues.append({"task_id": tid, "type": task.get("type"), "class": "blocked", "code": "blocked",
                           "message": task.get("error", "")})
        elif status == "done" and verdict_rank(result.get("verdict")) < 2:
            for issue in _result_issues(tid, task, result):
                key = (issue.get("code"), issue.get("target"), issue.get("smiles"), issue.get("step"), tid)
                if key not in seen:
                    seen.add(key)
                    issues.append(issue)
    return issues


def derive_reflection(state: AgentState, max_iterations: int) -> dict[str, Any]:
    """Rules-mode REFLECT: issues, the changes OPTIMIZE could make, and whether to re-plan."""
    from molx_agent.agents.replan import propose_changes

    tasks = state.get("tasks") or {}
    results = state.get("results") or {}
    issues = collect_issues(state)
    iteration = state.get("iteration", 0) or 0
    actions = propose_changes(state, issues)
    failed = [t for t in tasks.values() if t.get("status") == "failed"]
    weak = [tid for tid, t in tasks.items()
            if t.get("status") == "done" and verdict_rank((results.get(tid) or {}).get("verdict")) < 2]
    done = sum(t.get("status") == "done" for t in tasks.values())
    parts = [f"{done}/{len(tasks)} tasks done"]
    if failed:
        parts.append(f"{len(failed)} failed")
    if weak:
        parts.append("weak or rejected results: " + ", ".join(weak))
    if actions and iteration >= max_iterations:
        parts.append(f"no re-plan: MAX_ITERATIONS={max_iterations} rounds done")
    return {
        "round": iteration,
        "success": bool(tasks) and not issues,
        "unavailable": [t["id"] for t in tasks.values() if t.get("unavailable")],
        "issues": issues,
        "actions": actions,
        "should_replan": bool(actions) and iteration < max_iterations,
        "retryable": [a["task_id"] for a in actions if a.get("kind") == "retry"],
        "not_retried": [i["task_id"] for i in issues if i["class"] in ("bad_input", "internal")],
        "summary": "; ".join(parts),
        "source": "rules",
    }


__all__ = ["collect_issues", "derive_reflection", "verdict_rank", "satisfied"]

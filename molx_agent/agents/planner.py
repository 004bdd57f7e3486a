"""PlannerAgent: THINK (task DAG), task picking, REFLECT and OPTIMIZE (re-plan failed work).

Rules mode uses one DAG template per intent (:data:`DAG_TEMPLATES`, as documented in
docs/architecture.md).  With an LLM, THINK asks for a plan and validates it (known worker types, unique
ids, existing dependencies, no cycle); anything invalid is replaced by the template.  REFLECT is derived
from task statuses first; an LLM may add a summary and veto a retry.  OPTIMIZE resets retryable failed
tasks (and the tasks they blocked) to ``pending``, at most ``MAX_ITERATIONS`` times.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from molx_agent.agents.intent_classifier import Entities, extract_entities
from molx_agent.agents.modules.llm import invoke_json
from molx_agent.agents.modules.prompts import (
    OPTIMIZE_SYSTEM_PROMPT,
    PLANNER_SYSTEM_PROMPT,
    REFLECT_SYSTEM_PROMPT,
)
from molx_agent.agents.modules.state import WORKER_TYPES, AgentState, Task
from molx_agent.config import Settings, get_settings
from molx_agent.errors import INPUT_ERROR_CODES

logger = logging.getLogger(__name__)

#: intent -> ordered worker chain (each task depends on the previous one).
DAG_TEMPLATES: dict[str, tuple[str, ...]] = {
    "molecule_query": ("analysis",),
    "reaction_validation": ("validation",),
    "retrosynthesis": ("analysis", "disconnection", "validation", "reporter"),
    "sar_analysis": ("data_cleaner", "sar", "reporter"),
    "data_processing": ("data_cleaner",),
    "synthesis_of_hits": ("data_cleaner", "sar", "disconnection", "validation", "reporter"),
    "unsupported": (),
}

TASK_DESCRIPTIONS: dict[str, str] = {
    "analysis": "Compute properties and structural analysis of the molecules",
    "disconnection": "Search retrosynthetic routes to the target",
    "validation": "Validate the reaction(s) / route steps",
    "reporter": "Write the report",
    "data_cleaner": "Read, standardise and clean the compound data",
    "sar": "Analyse structure-activity relationships",
    "tool_agent": "Answer with the registered tools",
}

#: Error codes that retrying cannot fix (bad input); everything else may be transient.
NON_RETRYABLE_CODES = frozenset({
    "invalid_smiles", "no_molecule", "no_data_file", "invalid_reaction", "unsupported_file",
    "file_not_found", "capability_unavailable", "no_task",
}) | INPUT_ERROR_CODES


class PlannedTask(BaseModel):
    id: str = Field(min_length=1, max_length=40)
    type: str
    description: str = ""
    depends_on: list[str] = Field(default_factory=list)
    inputs: dict[str, Any] = Field(default_factory=dict)


class PlanModel(BaseModel):
    tasks: list[PlannedTask]


class ReflectionModel(BaseModel):
    success: bool
    should_replan: bool = False
    issues: list[str] = Field(default_factory=list)
    summary: str = ""


def validate_plan(tasks: list[PlannedTask]) -> list[str]:
    """Problems of a proposed plan (empty list when it is valid)."""
    problems: list[str] = []
    ids = [t.id for t in tasks]
    if not tasks:
        problems.append("empty plan")
    if len(set(ids)) != len(ids):
        problems.append("duplicate task ids")
    for t in tasks:
        if t.type not in WORKER_TYPES:
            problems.append(f"unknown worker type {t.type!r}")
        for d in t.depends_on:
            if d not in ids:
                problems.append(f"task {t.id} depends on missing task {d!r}")
            if d == t.id:
                problems.append(f"task {t.id} depends on itself")
    if not problems and _has_cycle({t.id: t.depends_on for t in tasks}):
        problems.append("dependency cycle")
    return problems


def _has_cycle(deps: dict[str, list[str]]) -> bool:
    state: dict[str, int] = {}

    def visit(n: str) -> bool:
        if state.get(n) == 1:
            return True
        if state.get(n) == 2:
            return False
        state[n] = 1
        if any(visit(d) for d in deps.get(n, []) if d in deps):
            return True
        state[n] = 2
        return False

    return any(visit(n) for n in deps)


_OPTION_PATTERNS = (
    (re.compile(r"\bsite[:\s]+(R\d+)\b", re.IGNORECASE), "mode", lambda m: f"site:{m.group(1).upper()}"),
    (re.compile(r"\b(R\d+)\s*(?:位|position|site)", re.IGNORECASE), "mode", lambda m: f"site:{m.group(1).upper()}"),
    (re.compile(r"time[\s_-]*limit\s*[:=]?\s*(\d+)", re.IGNORECASE), "time_limit", lambda m: int(m.group(1))),
)


def extract_options(query: str) -> dict[str, Any]:
    """Options stated in the query (``site:R1`` SAR mode, ``time limit 30``)."""
    opts: dict[str, Any] = {}
    for pattern, key, value in _OPTION_PATTERNS:
        m = pattern.search(query or "")
        if m and key not in opts:
            opts[key] = value(m)
    return opts


def task_inputs(query: str, ents: Entities, options: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        "query": query,
        "smiles": list(ents.smiles),
        "names": list(ents.names),
        "reaction_smiles": list(ents.reaction_smiles),
        "files": list(ents.files),
        "options": dict(options or {}),
    }


class PlannerAgent:
    """Builds, schedules, reviews and repairs the task DAG."""

    name = "planner"

    def __init__(self, llm: Any = None, settings: Settings | None = None,
                 tool_names: list[str] | Callable[[], list[str]] | None = None) -> None:
        self.llm = llm
        self.settings = settings or get_settings()
        self._tool_names = tool_names

    @property
    def tool_names(self) -> list[str]:
        """Tools the tool agent may call (a callable is evaluated lazily: the registry loads on demand)."""
        names = self._tool_names() if callable(self._tool_names) else self._tool_names
        return list(names or [])

    # -- THINK ---------------------------------------------------------------------------------
    def template_tasks(self, intent: str, inputs: dict[str, Any]) -> dict[str, Task]:
        chain = DAG_TEMPLATES.get(intent, ())
        tasks: dict[str, Task] = {}
        prev: str | None = None
        for i, worker in enumerate(chain, start=1):
            tid = f"t{i}"
            task_in = json.loads(json.dumps(inputs))  # independent copy per task
            if worker == "analysis" and intent == "retrosynthesis":
                task_in["options"]["deep_analysis"] = True
            tasks[tid] = Task(id=tid, type=worker, description=TASK_DESCRIPTIONS[worker], inputs=task_in,
                              depends_on=[prev] if prev else [], status="pending")
            prev = tid
        return tasks

    def _mentioned_tools(self, query: str) -> list[str]:
        low = (query or "").lower()
        if not re.search(r"tool|工具|mcp|\w_\w", low):
            return []  # only a query naming a tool (snake_case) or asking for one routes to the tool agent
        return [n for n in self.tool_names if re.search(rf"(?<![\w]){re.escape(n.lower())}(?![\w])", low)]

    def think(self, state: AgentState) -> dict[str, Any]:
        query = state.get("user_query", "")
        intent = state.get("intent", "unsupported")
        ents = extract_entities(query, state.get("input_files") or [])
        if not ents.smiles and intent in ("molecule_query", "retrosynthesis"):
            ents.smiles = list(state.get("context_smiles") or [])  # follow-up question in a chat
        inputs = task_inputs(query, ents, extract_options(query))
        tasks = self.template_tasks(intent, inputs)
        source = "template"
        if self.llm is not None and intent != "unsupported":
            llm_tasks = self._invoke_planner_llm(intent, ents, inputs)
            if llm_tasks is not None:
                tasks, source = llm_tasks, "llm"
        mentioned = self._mentioned_tools(query)
        if mentioned and intent != "unsupported" and not any(t["type"] == "tool_agent" for t in tasks.values()):
            tid = f"t{len(tasks) + 1}"
            tool_in = dict(inputs, tool=mentioned[0])
            tasks[tid] = Task(id=tid, type="tool_agent", description=f"Call the tool {mentioned[0]}",
                              inputs=tool_in, depends_on=[], status="pending")
        logger.info("plan (%s) for %s: %s", source, intent, [t["type"] for t in tasks.values()])
        return {"tasks": tasks, "current_task_id": None, "iteration": state.get("iteration", 0) or 0}

    def _invoke_planner_llm(self, intent: str, ents: Entities, inputs: dict[str, Any]) -> dict[str, Task] | None:
        prompt = PLANNER_SYSTEM_PROMPT.format(
            worker_types=", ".join(WORKER_TYPES),
            templates={k: list(v) for k, v in DAG_TEMPLATES.items() if v},
            intent=intent,
            entities=ents.brief(),
        )
        plan = invoke_json(self.llm, prompt, inputs["query"], PlanModel, what="plan")
        if plan is None:
            return None
        problems = validate_plan(plan.tasks)
        if problems:
            logger.warning("LLM plan rejected (%s); using the %s template", "; ".join(problems), intent)
            return None
        tasks: dict[str, Task] = {}
        for t in plan.tasks:
            merged = json.loads(json.dumps(inputs))
            merged["options"].update(t.inputs.get("options", {}) if isinstance(t.inputs.get("options"), dict) else {})
            tasks[t.id] = Task(id=t.id, type=t.type, description=t.description or TASK_DESCRIPTIONS.get(t.type, ""),
                               inputs=merged, depends_on=list(t.depends_on), status="pending")
        return tasks

    # -- ACT scheduling -----------------------------------------------------------------------
    @staticmethod
    def _pick_next_task(tasks: dict[str, Task]) -> str | None:
        """First pending task (plan order) whose dependencies are all ``done``."""
        for tid, task in tasks.items():
            if task.get("status") == "pending" and all(
                _satisfied(tasks.get(d, {})) for d in task.get("depends_on", [])
            ):
                return tid
        return None

    @staticmethod
    def skip_blocked(tasks: dict[str, Task], language: str = "en") -> dict[str, Task]:
        """Mark pending tasks whose dependency failed or was skipped as ``skipped`` (transitively)."""
        out = {k: dict(v) for k, v in tasks.items()}
        changed = True
        while changed:
            changed = False
            for task in out.values():
                if task.get("status") != "pending":
                    continue
                bad = [d for d in task.get("depends_on", [])
                       if out.get(d, {}).get("status") in ("failed", "skipped") and not _satisfied(out.get(d, {}))]
                if bad:
                    task["status"] = "skipped"
                    task["error"] = (f"依赖任务 {', '.join(bad)} 未完成" if language == "zh"
                                     else f"dependency {', '.join(bad)} did not complete")
                    changed = True
        return out  # type: ignore[return-value]

    # -- REFLECT -------------------------------------------------------------------------------
    def derive_reflection(self, state: AgentState) -> dict[str, Any]:
        tasks = state.get("tasks") or {}
        results = state.get("results") or {}
        failed = [t for t in tasks.values() if t.get("status") == "failed"]
        skipped = [t for t in tasks.values() if t.get("status") == "skipped" and not t.get("unavailable")]
        retryable = [t for t in failed if _error_code(results.get(t["id"], {})) not in NON_RETRYABLE_CODES]
        iteration = state.get("iteration", 0) or 0
        issues = [f"{t['id']} ({t['type']}) failed: {t.get('error', '')}" for t in failed]
        issues += [f"{t['id']} ({t['type']}) skipped: {t.get('error', '')}" for t in skipped]
        return {
            "success": bool(tasks) and not failed and not skipped,
            "unavailable": [t["id"] for t in tasks.values() if t.get("unavailable")],
            "should_replan": bool(retryable) and iteration < self.settings.max_iterations,
            "retryable": [t["id"] for t in retryable],
            "issues": issues,
            "summary": (f"{sum(t.get('status') == 'done' for t in tasks.values())}/{len(tasks)} tasks done"),
            "source": "rules",
        }

    _derive_reflection_from_state = derive_reflection  # name used in the seed's module guide

    def reflect(self, state: AgentState) -> dict[str, Any]:
        reflection = self.derive_reflection(state)
        if self.llm is not None and state.get("tasks"):
            digest = [
                {"id": t["id"], "type": t["type"], "status": t.get("status"),
                 "summary": str((state.get("results") or {}).get(t["id"], {}).get("summary", ""))[:300]}
                for t in (state.get("tasks") or {}).values()
            ]
            user = json.dumps({"query": state.get("user_query", ""), "tasks": digest}, ensure_ascii=False)
            answer = invoke_json(self.llm, REFLECT_SYSTEM_PROMPT, user, ReflectionModel, what="reflection")
            if answer is not None:
                # Statuses are facts; the LLM may veto a retry and add a summary, not invent success.
                reflection["should_replan"] = reflection["should_replan"] and answer.should_replan
                reflection["issues"] = list(dict.fromkeys([*reflection["issues"], *answer.issues]))
                reflection["llm_summary"] = answer.summary
                reflection["source"] = "rules+llm"
        return {"reflection": reflection}

    # -- OPTIMIZE ------------------------------------------------------------------------------
    def optimize(self, state: AgentState) -> dict[str, Any]:
        tasks = {k: dict(v) for k, v in (state.get("tasks") or {}).items()}
        reflection = state.get("reflection") or {}
        retry = set(reflection.get("retryable") or [])
        if self.llm is not None and retry:
            failed = [tasks[t] for t in retry if t in tasks]
            prompt = OPTIMIZE_SYSTEM_PROMPT.format(worker_types=", ".join(WORKER_TYPES),
                                                   failed=json.dumps(failed, ensure_ascii=False, default=str)[:2000],
                                                   reflection=json.dumps(reflection, ensure_ascii=False)[:1000])
            plan = invoke_json(self.llm, prompt, state.get("user_query", ""), PlanModel, what="re-plan")
            if plan is not None:
                for t in plan.tasks:
                    if t.id in retry and t.type in WORKER_TYPES:
                        tasks[t.id]["type"] = t.type
                        if t.description:
                            tasks[t.id]["description"] = t.description
        for tid in retry:
            if tid in tasks:
                tasks[tid]["status"] = "pending"
                tasks[tid].pop("error", None)
        # tasks skipped only because a retried task failed become pending again
        for task in tasks.values():
            if task.get("status") == "skipped" and any(d in retry for d in task.get("depends_on", [])):
                task["status"] = "pending"
                task.pop("error", None)
        # repeat until stable for transitive dependants
        changed = True
        while changed:
            changed = False
            pending = {k for k, t in tasks.items() if t.get("status") == "pending"}
            for task in tasks.values():
                if task.get("status") == "skipped" and any(d in pending for d in task.get("depends_on", [])):
                    task["status"] = "pending"
                    task.pop("error", None)
                    changed = True
        iteration = (state.get("iteration", 0) or 0) + 1
        logger.info("optimize round %d: retrying %s", iteration, sorted(retry))
        return {"tasks": tasks, "iteration": iteration}


def _satisfied(dep: dict[str, Any]) -> bool:
    """A dependency is satisfied when done, or skipped only because its capability is not built yet."""
    return dep.get("status") == "done" or (dep.get("status") == "skipped" and bool(dep.get("unavailable")))


def _error_code(result: dict[str, Any]) -> str | None:
    err = result.get("error")
    if isinstance(err, dict):
        return err.get("code")
    if result.get("unavailable"):
        return "capability_unavailable"
    return None


__all__ = [
    "PlannerAgent",
    "DAG_TEMPLATES",
    "TASK_DESCRIPTIONS",
    "PlanModel",
    "PlannedTask",
    "ReflectionModel",
    "validate_plan",
    "extract_options",
    "task_inputs",
]

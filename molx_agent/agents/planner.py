"""PlannerAgent: THINK (task DAG), scheduling (ready tasks, blocked and dropped tasks), REFLECT and OPTIMIZE.

Rules mode uses one DAG template per intent (:data:`DAG_TEMPLATES`, docs/architecture.md).  With an LLM, THINK asks
for a plan and validates it (known worker types -- built-in or custom --, unique ids, existing dependencies, no
cycle); anything invalid is replaced by the template.

REFLECT (:mod:`molx_agent.agents.reflection`) reads statuses *and* verdicts and names specific issues; an LLM may
add a summary and veto a re-plan, never invent success.  OPTIMIZE (:mod:`molx_agent.agents.replan`) makes a
different plan -- a longer/wider search, a search avoiding the criticised leaf or step, a verified-stock-only search,
a first disconnection at the strategic bond, another SAR core or series split, a retry of a transient failure --
at most ``MAX_ITERATIONS`` rounds; with an LLM, the LLM may rewrite the remaining plan (validated against the
worker types and their option keys), else the rules' changes apply.  Every plan is appended to
``state["plan_history"]``.  THINK and OPTIMIZE return the whole new plan as ``tasks`` (the graph node writes it with
``replace``, so tasks a new plan drops are gone).
"""

from __future__ import annotations

import copy
import json
import logging
import re
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field

from molx_agent.agents.intent_classifier import Entities, extract_entities
from molx_agent.agents.modules.llm import history_messages, invoke_structured
from molx_agent.agents.modules.prompts import (
    OPTIMIZE_SYSTEM_PROMPT,
    PLANNER_SYSTEM_PROMPT,
    REFLECT_SYSTEM_PROMPT,
)
from molx_agent.agents.modules.state import WORKER_TYPES, AgentState, Task
from molx_agent.agents.reflection import derive_reflection, satisfied, verdict_rank
from molx_agent.agents.replan import apply_changes, dependants
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
    "validation": "Validate the reaction(s) / judge every route step",
    "reporter": "Write the report",
    "data_cleaner": "Read, standardise and clean the compound data",
    "sar": "Analyse structure-activity relationships",
    "tool_agent": "Answer with the registered tools",
}

#: Error codes of bad input (kept for callers of the previous API; errors are now classified by their class,
#: see :func:`molx_agent.agents.base.classify_error`).
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


def validate_plan(tasks: list[PlannedTask], worker_types: tuple[str, ...] | list[str] = WORKER_TYPES,
                  known_ids: set[str] | None = None,
                  option_keys: dict[str, tuple[str, ...]] | None = None) -> list[str]:
    """Problems of a proposed plan (empty list when it is valid).

    ``known_ids``: ids of tasks outside the plan it may depend on (done tasks, when re-planning); ``option_keys``:
    worker type -> the ``inputs["options"]`` keys it accepts (unknown keys are a problem).
    """
    problems: list[str] = []
    ids = [t.id for t in tasks]
    known = set(known_ids or ())
    if not tasks:
        problems.append("empty plan")
    if len(set(ids)) != len(ids):
        problems.append("duplicate task ids")
    for t in tasks:
        if t.type not in worker_types:
            problems.append(f"unknown worker type {t.type!r}")
        for d in t.depends_on:
            if d not in ids and d not in known:
                problems.append(f"task {t.id} depends on missing task {d!r}")
            if d == t.id:
                problems.append(f"task {t.id} depends on itself")
        if option_keys is not None and t.type in option_keys:
            opts = t.inputs.get("options") if isinstance(t.inputs.get("options"), dict) else {}
            bad = sorted(set(opts) - set(option_keys[t.type]))
            if bad:
                problems.append(f"task {t.id}: option(s) {', '.join(bad)} not accepted by {t.type}")
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


def plan_entry(tasks: dict[str, Any], round_: int, source: str, reason: str = "",
               changes: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """One ``plan_history`` record: every task with its inputs."""
    return {
        "round": round_, "source": source, "reason": reason, "changes": list(changes or []),
        "tasks": [{"id": t.get("id", tid), "type": t.get("type"), "description": t.get("description", ""),
                   "inputs": copy.deepcopy(t.get("inputs") or {}), "depends_on": list(t.get("depends_on") or []),
                   "status": t.get("status")} for tid, t in tasks.items()],
    }


class PlannerAgent:
    """Builds, schedules, reviews and repairs the task DAG."""

    name = "planner"

    def __init__(self, llm: Any = None, settings: Settings | None = None,
                 tool_names: list[str] | Callable[[], list[str]] | None = None,
                 worker_catalog: dict[str, dict[str, Any]] | Callable[[], dict[str, dict[str, Any]]] | None = None,
                 templates: dict[str, tuple[str, ...]] | None = None) -> None:
        self.llm = llm
        self.settings = settings or get_settings()
        self._tool_names = tool_names
        self._catalog = worker_catalog
        self.templates: dict[str, tuple[str, ...]] = {**DAG_TEMPLATES, **(templates or {})}

    @property
    def tool_names(self) -> list[str]:
        """Tools the tool agent may call (a callable is evaluated lazily: the registry loads on demand)."""
        names = self._tool_names() if callable(self._tool_names) else self._tool_names
        return list(names or [])

    @property
    def worker_catalog(self) -> dict[str, dict[str, Any]]:
        """Worker type -> ``{"description", "option_keys"}`` (built-in types plus the custom ones)."""
        cat = self._catalog() if callable(self._catalog) else self._catalog
        if cat:
            return dict(cat)
        return {wt: {"description": TASK_DESCRIPTIONS.get(wt, ""), "option_keys": None} for wt in WORKER_TYPES}

    @property
    def worker_types(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys([*WORKER_TYPES, *self.worker_catalog]))

    def add_template(self, intent: str, chain: tuple[str, ...] | list[str]) -> None:
        """Use ``chain`` (worker types, each depending on the previous one) as the rules plan of ``intent``."""
        unknown = [w for w in chain if w not in self.worker_types]
        if unknown:
            raise ValueError(f"unknown worker type(s) {unknown}; known: {', '.join(self.worker_types)}")
        self.templates[intent] = tuple(chain)

    # -- THINK ---------------------------------------------------------------------------------
    def template_tasks(self, intent: str, inputs: dict[str, Any]) -> dict[str, Task]:
        chain = self.templates.get(intent, ())
        tasks: dict[str, Task] = {}
        prev: str | None = None
        for i, worker in enumerate(chain, start=1):
            tid = f"t{i}"
            task_in = json.loads(json.dumps(inputs))  # independent copy per task
            if worker == "analysis" and intent == "retrosynthesis":
                task_in["options"]["deep_analysis"] = True
            description = TASK_DESCRIPTIONS.get(worker) or self.worker_catalog.get(worker, {}).get("description", "")
            tasks[tid] = Task(id=tid, type=worker, description=description, inputs=task_in,
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
        options = extract_options(query)
        run_opts = state.get("options") or {}
        inputs = task_inputs(query, ents, options)
        tasks = self.template_tasks(intent, inputs)
        source = "template"
        if state.get("follow_up") and state.get("context_sar") and intent in ("sar_analysis", "synthesis_of_hits"):
            # a question about the previous turn's SAR: reuse its saved result instead of cleaning and analysing again
            for task in tasks.values():
                task["inputs"]["options"]["reuse_result"] = state["context_sar"]
            if intent == "sar_analysis":
                tasks = {"t1": {**tasks["t2"], "id": "t1", "depends_on": []}}
            source = "template+context"
        elif self.llm is not None and intent != "unsupported":
            llm_tasks = self._invoke_planner_llm(intent, ents, inputs, history_messages(state.get("messages")))
            if llm_tasks is not None:
                tasks, source = llm_tasks, "llm"
        if run_opts.get("search_time"):
            for task in tasks.values():
                if task["type"] == "disconnection":
                    task["inputs"]["options"].setdefault("time_limit", float(run_opts["search_time"]))
        mentioned = self._mentioned_tools(query)
        if mentioned and intent != "unsupported" and not any(t["type"] == "tool_agent" for t in tasks.values()):
            tid = f"t{len(tasks) + 1}"
            tool_in = dict(json.loads(json.dumps(inputs)), tool=mentioned[0])
            tasks[tid] = Task(id=tid, type="tool_agent", description=f"Call the tool {mentioned[0]}",
                              inputs=tool_in, depends_on=[], status="pending")
        logger.info("plan (%s) for %s: %s", source, intent, [t["type"] for t in tasks.values()])
        return {"tasks": tasks, "current_task_id": None, "iteration": state.get("iteration", 0) or 0,
                "plan_history": [plan_entry(tasks, 0, source, f"first plan for intent {intent}")]}

    def _invoke_planner_llm(self, intent: str, ents: Entities, inputs: dict[str, Any],
                            history: list[Any] | None = None) -> dict[str, Task] | None:
        catalog = self.worker_catalog
        prompt = PLANNER_SYSTEM_PROMPT.format(
            worker_types=", ".join(f"{w} ({catalog.get(w, {}).get('description') or TASK_DESCRIPTIONS.get(w, '')})"
                                   for w in self.worker_types),
            templates={k: list(v) for k, v in self.templates.items() if v},
            intent=intent,
            entities=ents.brief(),
        )
        plan = invoke_structured(self.llm, prompt, inputs["query"], PlanModel, what="plan", history=history)
        if plan is None:
            return None
        problems = validate_plan(plan.tasks, self.worker_types)
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
    def ready_tasks(tasks: dict[str, Task]) -> list[str]:
        """Every pending task (plan order) whose dependencies are all satisfied: they may run in parallel."""
        return [tid for tid, task in tasks.items() if task.get("status") == "pending" and all(
            satisfied(tasks.get(d, {})) for d in task.get("depends_on", []))]

    @staticmethod
    def _pick_next_task(tasks: dict[str, Task]) -> str | None:
        """First ready task (plan order), or None."""
        ready = PlannerAgent.ready_tasks(tasks)
        return ready[0] if ready else None

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
                       if out.get(d, {}).get("status") in ("failed", "skipped") and not satisfied(out.get(d, {}))]
                if bad:
                    task["status"] = "skipped"
                    task["error"] = (f"依赖任务 {', '.join(bad)} 未完成" if language == "zh"
                                     else f"dependency {', '.join(bad)} did not complete")
                    changed = True
        return out  # type: ignore[return-value]

    @staticmethod
    def prune(tasks: dict[str, Task], results: dict[str, Any], language: str = "en") -> dict[str, Task]:
        """Drop ready tasks that would add nothing (status ``skipped`` with ``dropped`` = why).

        - ``validation`` of route searches whose every target is sold (verified stock): nothing to validate;
        - ``reporter`` whose ancestors hold no route, no partial route and no SAR result: nothing to report.
        """
        out = {k: dict(v) for k, v in tasks.items()}
        zh = language == "zh"
        for tid in PlannerAgent.ready_tasks(out):  # type: ignore[arg-type]
            task = out[tid]
            deps = [results.get(d) or {} for d in _ancestors(out, tid)]
            why = ""
            if task.get("type") == "validation" and not (task.get("inputs") or {}).get("reaction_smiles"):
                searches = [results.get(d) or {} for d in task.get("depends_on") or []
                            if (out.get(d) or {}).get("type") == "disconnection"]
                records = [r for s in searches for r in (s.get("targets") or [s])]
                if records and all(r.get("purchasable") for r in records):
                    why = ("每个目标都可直接购买（已验证库存），无需验证路线" if zh
                           else "every target is sold (verified stock): no route to validate")
            elif task.get("type") == "reporter":
                has_route = any(r.get("route_graph") or r.get("partial_route")
                                for d in deps for r in (d.get("targets") or [d]) if isinstance(r, dict))
                has_sar = any(d.get("sar_result_file") or d.get("n_cliff_pairs") is not None for d in deps)
                if deps and not has_route and not has_sar:
                    why = "没有可写入报告的路线或 SAR 结果" if zh else "no route, partial route or SAR result to report"
            if why:
                task.update(status="skipped", dropped=why)
        return out  # type: ignore[return-value]

    # -- REFLECT -------------------------------------------------------------------------------
    def derive_reflection(self, state: AgentState) -> dict[str, Any]:
        return derive_reflection(state, self.settings.max_iterations)

    _derive_reflection_from_state = derive_reflection  # name used in the seed's module guide

    def reflect(self, state: AgentState) -> dict[str, Any]:
        reflection = self.derive_reflection(state)
        if self.llm is not None and state.get("tasks"):
            prompt = REFLECT_SYSTEM_PROMPT.format(max_iterations=self.settings.max_iterations,
                                                  iteration=state.get("iteration", 0) or 0)
            user = json.dumps({"query": state.get("user_query", ""), "tasks": task_digest(state),
                               "issues": reflection["issues"][:30]}, ensure_ascii=False, default=str)
            answer = invoke_structured(self.llm, prompt, user, ReflectionModel, what="reflection")
            if answer is not None:
                # Statuses and verdicts are facts; the LLM may veto a re-plan and add a summary, not invent success.
                reflection["should_replan"] = reflection["should_replan"] and answer.should_replan
                reflection["llm_issues"] = list(answer.issues)
                reflection["llm_summary"] = answer.summary
                reflection["source"] = "rules+llm"
        return {"reflection": reflection, "reflections": [reflection]}

    # -- OPTIMIZE ------------------------------------------------------------------------------
    def optimize(self, state: AgentState) -> dict[str, Any]:
        tasks = {k: dict(v) for k, v in (state.get("tasks") or {}).items()}
        reflection = state.get("reflection") or {}
        actions = list(reflection.get("actions") or [])
        iteration = (state.get("iteration", 0) or 0) + 1
        new_tasks, source = None, "rules"
        if self.llm is not None and actions:
            new_tasks = self._invoke_optimize_llm(state, tasks, reflection)
            source = "llm" if new_tasks is not None else "rules"
        if new_tasks is None:
            new_tasks = apply_changes(tasks, actions)
        reason = "; ".join(a.get("why", a.get("strategy", "")) for a in actions)
        logger.info("optimize round %d (%s): %s", iteration, source, reason)
        return {"tasks": new_tasks, "iteration": iteration,
                "plan_history": [plan_entry(new_tasks, iteration, f"replan-{source}", reason, actions)]}

    def _invoke_optimize_llm(self, state: AgentState, tasks: dict[str, Any],
                             reflection: dict[str, Any]) -> dict[str, Any] | None:
        catalog = self.worker_catalog
        option_keys = {w: tuple(c["option_keys"]) for w, c in catalog.items() if c.get("option_keys") is not None}
        prompt = OPTIMIZE_SYSTEM_PROMPT.format(
            worker_types=json.dumps({w: {"description": c.get("description", ""),
                                         "options": list(c.get("option_keys") or [])} for w, c in catalog.items()},
                                    ensure_ascii=False),
            plan=json.dumps(task_digest(state), ensure_ascii=False, default=str)[:6000],
            issues=json.dumps(reflection.get("issues") or [], ensure_ascii=False, default=str)[:3000],
            proposal=json.dumps(reflection.get("actions") or [], ensure_ascii=False, default=str)[:2000],
        )
        plan = invoke_structured(self.llm, prompt, state.get("user_query", ""), PlanModel, what="re-plan")
        if plan is None:
            return None
        done = {k for k, t in tasks.items() if t.get("status") == "done"}
        problems = validate_plan(plan.tasks, self.worker_types, known_ids=set(tasks), option_keys=option_keys)
        if not problems:
            merged_deps = {k: list(t.get("depends_on") or []) for k, t in tasks.items()}
            merged_deps.update({t.id: list(t.depends_on) for t in plan.tasks})
            if _has_cycle(merged_deps):
                problems.append("dependency cycle with the current plan")
        if problems:
            logger.warning("LLM re-plan rejected (%s); using the rules' changes", "; ".join(problems))
            return None
        out = copy.deepcopy(tasks)
        rerun: list[str] = []
        base_inputs = next((t.get("inputs") for t in tasks.values()), {}) or {}
        for t in plan.tasks:
            old = out.get(t.id)
            inputs = copy.deepcopy((old or {}).get("inputs") or base_inputs)
            opts = dict(inputs.get("options") or {})
            new_opts = t.inputs.get("options") if isinstance(t.inputs.get("options"), dict) else {}
            opts.update(new_opts)
            opts["strategy"] = "llm"
            opts["tried"] = [*(opts.get("tried") or []), "llm"]
            inputs["options"] = opts
            out[t.id] = {**(old or {}), "id": t.id, "type": t.type,
                         "description": t.description or (old or {}).get("description") or TASK_DESCRIPTIONS.get(t.type, ""),
                         "inputs": inputs, "depends_on": list(t.depends_on), "status": "pending"}
            for key in ("error", "error_class", "dropped"):
                out[t.id].pop(key, None)
            rerun.append(t.id)
        for tid in rerun:
            for dep in dependants(out, tid):
                if dep not in rerun and out[dep].get("status") in ("done", "failed", "skipped"):
                    out[dep]["status"] = "pending"
                    for key in ("error", "error_class", "dropped"):
                        out[dep].pop(key, None)
        logger.info("LLM re-plan accepted: rerun %s (kept done: %s)", rerun, sorted(done - set(rerun)))
        return out


def _ancestors(tasks: dict[str, Any], tid: str) -> list[str]:
    seen: list[str] = []
    queue = list((tasks.get(tid) or {}).get("depends_on") or [])
    while queue:
        d = queue.pop(0)
        if d not in seen:
            seen.append(d)
            queue += list((tasks.get(d) or {}).get("depends_on") or [])
    return seen


def task_digest(state: AgentState) -> list[dict[str, Any]]:
    """What an LLM sees of each task: type, status, options, summary, verdict, issues and the error text."""
    results = state.get("results") or {}
    out = []
    for tid, t in (state.get("tasks") or {}).items():
        r = results.get(tid) or {}
        row: dict[str, Any] = {"id": tid, "type": t.get("type"), "status": t.get("status"),
                               "depends_on": list(t.get("depends_on") or []),
                               "options": (t.get("inputs") or {}).get("options") or {},
                               "summary": str(r.get("summary", ""))[:300],
                               "attempts": len(t.get("attempts") or [])}
        if r.get("verdict"):
            row["verdict"] = r["verdict"]
            row["verdict_rank"] = verdict_rank(r["verdict"])
        if t.get("status") == "failed":
            err = r.get("error") if isinstance(r.get("error"), dict) else {}
            row["error"] = {"code": err.get("code"), "message": err.get("message") or t.get("error"),
                            "hint": err.get("hint"), "class": t.get("error_class")}
        if t.get("dropped"):
            row["dropped"] = t["dropped"]
        out.append(row)
    return out


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
    "task_digest",
    "plan_entry",
]

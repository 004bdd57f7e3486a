"""Guided retrosynthesis: the ``disconnection`` worker drives the seed-000 pipeline, one decision at a time.

``retro_mode="guided"`` (``run --retro-mode guided``, ``MOLX_RETRO_MODE``): instead of returning the route search's
best route, the worker runs the pause/resume pipeline (:mod:`molx_agent.interfaces.pipeline`) and answers each
``DecisionContext`` with a ``DecisionInstruction``:

- with an LLM, :class:`LLMDecider` asks it (structured output, validated).  It sees the context, the actions, the
  single-step model's proposals and the reactions of the route search's best routes that make the molecule
  (``search_options``), and may call the exploration tools within the decision's budget first.  A failed or
  invalid reply (down, timeout, malformed JSON, an action or params the pipeline rejects) falls back to
  ``use_default`` with a warning;
- without an LLM, every decision is ``use_default`` (the pipeline's rules);
- with ``ask`` (``run --retro-mode guided --ask``), the chemist answers: each decision is a LangGraph
  ``interrupt()`` whose payload has ``kind="retro_decision"`` and whose answer is a DecisionInstruction dict
  (``{"action": "use_default"}``; ``task_id`` may be left out).  An invalid answer asks the same decision again with
  ``error.code == "invalid_answer"``.

Resuming is cheap: LangGraph runs the interrupted node again from its start, so the pipeline's own state lives in a
session directory keyed by the thread, the node run (its checkpoint namespace, which a replay keeps), the task,
its attempt and the target (``output_dir/retro/guided_*``): the
route file is saved after every decision, the route search's result is cached there (``search.json``), and the
answers already given are logged (``guided.json``) so that the replay consumes them in order (each ``interrupt()``
call of a replay returns its stored answer at once) and only the next open decision is asked.

Every decision is recorded in the route (``decision_history``: action, resolved action, reasoning, ``decided_by``
= llm | chemist | rules, ``fallback`` and its reason), in the worker's record (``guided.decisions``) and in the
route report's decision table.
"""

from __future__ import annotations

import hashlib
import json
import logging
import uuid
from pathlib import Path
from typing import Any

from langgraph.errors import GraphBubbleUp
from pydantic import BaseModel, Field

from molx_agent.agents.modules.llm import invoke_structured
from molx_agent.agents.modules.prompts import GUIDED_DECISION_PROMPT
from molx_agent.errors import RetroError, ValidationError
from molx_agent.io_utils import atomic_write_json

logger = logging.getLogger(__name__)

RETRO_MODES = ("auto", "guided")
MAX_DECISIONS = 200
MAX_ASKS_PER_DECISION = 20
MAX_SEARCH_OPTIONS = 5
_CONTEXT_CHARS = 9000


class ExploreCall(BaseModel):
    tool: str
    params: dict[str, Any] = Field(default_factory=dict)


class DecisionReply(BaseModel):
    """The LLM's answer at a decision point: a decision, or one exploration call first."""

    action: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)
    reasoning: str = ""
    reaction_conditions: dict[str, Any] | None = None
    explore: ExploreCall | None = None


def _canonical(smiles: str) -> str:
    from molx_agent.retro.stock import canonical_smiles

    return canonical_smiles(smiles) or smiles


def search_options(graphs: list[dict[str, Any]], smiles: str, limit: int = MAX_SEARCH_OPTIONS) -> list[dict[str, Any]]:
    """Reactions of the route search's routes (best first) whose product is ``smiles``: what a chemist could take
    as this molecule's disconnection (``custom_reaction`` with its ``reaction_smiles``)."""
    from molx_agent.retro.route import RetroGraph

    want = _canonical(smiles)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for rank, data in enumerate(graphs or [], start=1):
        try:
            graph = RetroGraph.from_dict(data)
        except Exception:  # noqa: BLE001 - a malformed cached route is skipped
            continue
        for rxn in graph.reaction_nodes:
            product = graph.molecule_nodes[rxn.product_node].smiles
            if _canonical(product) != want:
                continue
            precursors = [graph.molecule_nodes[r].smiles for r in rxn.reactant_nodes]
            rxn_smiles = rxn.reaction_smiles or f"{'.'.join(precursors)}>>{product}"
            if rxn_smiles in seen:
                continue
            seen.add(rxn_smiles)
            out.append({"id": f"search_route_{rank}", "route_rank": rank, "reaction_smiles": rxn_smiles,
                        "precursors": precursors, "reaction_type": rxn.reaction_type,
                        "route_steps": graph.n_steps, "route_complete": graph.is_complete()})
            if len(out) >= limit:
                return out
    return out


def _brief(value: Any, limit: int = _CONTEXT_CHARS) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + " ...(cut)"


class LLMDecider:
    """DecisionContext -> DecisionInstruction dict by the LLM (or ``None``: the caller falls back to use_default;
    ``problem`` then says why).  ``explore(tool, params)`` runs one exploration tool on the paused route."""

    def __init__(self, llm: Any, explore: Any, options_for: Any, target: str) -> None:
        self.llm = llm
        self.explore = explore
        self.options_for = options_for
        self.target = target
        self.problem = ""

    def __call__(self, ctx: Any) -> dict[str, Any] | None:
        self.problem = ""
        explored: list[dict[str, Any]] = []
        budget = int(ctx.exploration_budget)
        options = self.options_for(ctx)
        for _ in range(budget + 1):
            system = GUIDED_DECISION_PROMPT.format(target=self.target, decision_type=ctx.decision_type.value,
                                                   task_id=ctx.task_id, budget=budget)
            user = _brief({"decision_type": ctx.decision_type.value, "task_id": ctx.task_id,
                           "context": ctx.context, "available_actions": ctx.available_actions,
                           "search_options": options, "exploration_tools": ctx.exploration_tools if budget else [],
                           "explorations": explored, "earlier_decisions": ctx.decision_history[-6:]})
            reply = invoke_structured(self.llm, system, user, DecisionReply,
                                      what=f"guided {ctx.decision_type.value} decision")
            if reply is None:
                self.problem = "the LLM gave no usable reply (unavailable, timed out or invalid JSON)"
                return None
            if reply.explore is not None and not reply.action:
                if budget <= 0:
                    self.problem = "the LLM asked for an exploration beyond the budget"
                    return None
                try:
                    result = self.explore(reply.explore.tool, reply.explore.params)
                    explored.append({"tool": reply.explore.tool, "params": reply.explore.params,
                                     "result": result.get("result"), "log_line": result.get("log_line")})
                    budget = int(result.get("exploration_budget", budget - 1))
                except RetroError as exc:
                    explored.append({"tool": reply.explore.tool, "params": reply.explore.params,
                                     "error": exc.message})
                    budget -= 1
                continue
            if not reply.action:
                self.problem = "the LLM reply named no action"
                return None
            return {"task_id": ctx.task_id, "action": reply.action, "params": reply.params,
                    "reasoning": reply.reasoning or None, "reaction_conditions": reply.reaction_conditions,
                    "exploration_log": [str(e.get("log_line") or e.get("error") or e["tool"]) for e in explored]
                    or None}
        self.problem = "the LLM kept exploring past its budget"
        return None


def decision_payload(ctx: Any, options: list[dict[str, Any]], target: str, language: str,
                     error: dict[str, Any] | None = None) -> dict[str, Any]:
    """The ``interrupt()`` payload of a guided decision (kind ``retro_decision``, see notes/contract26)."""
    label = ctx.decision_type.value.replace("_", " ")
    mol = ctx.context.get("molecule_smiles") or ctx.context.get("product_smiles") or target
    question = (f"路线决策（{label}，任务 {ctx.task_id}）：{mol} 应如何处理？" if language == "zh"
                else f"Route decision ({label}, task {ctx.task_id}) for {mol}: which action?")
    opts: list[dict[str, Any]] = [{"id": a["action_id"], "label": a.get("description", a["action_id"]),
                                   "params": a.get("params", [])} for a in ctx.available_actions]
    for p in ctx.context.get("model_proposals") or []:
        if isinstance(p, dict) and p.get("reaction_smiles"):
            opts.append({"id": f"model_proposal_{p.get('rank', len(opts))}", "label":
                         f"model proposal: {p.get('reaction_name') or p.get('category') or ''} "
                         f"{p['reaction_smiles']}".strip(),
                         "answer": {"action": "custom_reaction", "params": {"reaction_smiles": p["reaction_smiles"]}},
                         "score": p.get("score")})
    for o in options:
        opts.append({"id": o["id"], "label": f"search route #{o['route_rank']} step: {o['reaction_smiles']}",
                     "answer": {"action": "custom_reaction", "params": {"reaction_smiles": o["reaction_smiles"]}},
                     "reaction_type": o.get("reaction_type")})
    payload = {
        "kind": "retro_decision",
        "question": question,
        "decision_type": ctx.decision_type.value,
        "task_id": ctx.task_id,
        "target_smiles": target,
        "context": json.loads(_brief(ctx.context, 20000)) if len(_brief(ctx.context, 20000)) < 20000 else
        {k: ctx.context.get(k) for k in ("molecule_smiles", "product_smiles", "reaction_smiles", "precursors",
                                         "is_valid", "verdict", "issues") if k in ctx.context},
        "options": opts,
        "default": {"action": "use_default"},
        "answer_schema": {"action": "one of the action ids above (or use an option's 'answer')",
                          "params": "object with the action's params", "reasoning": "optional text",
                          "task_id": f"optional; must be {ctx.task_id!r}"},
    }
    if error:
        payload["error"] = error
    return payload


def _session_key(task: dict[str, Any], target: str, turn: str = "") -> str:
    """Same key when LangGraph replays the node (same thread, turn, task, attempt, target); fresh outside a graph.
    ``turn`` tells the turns of one conversation apart (a later turn never finds an earlier turn's session)."""
    try:
        from langgraph.config import get_config

        configurable = get_config().get("configurable") or {}
    except RuntimeError:  # not inside a graph run
        configurable = {}
    thread = configurable.get("thread_id")
    if not thread:
        return uuid.uuid4().hex[:12]
    # the node's checkpoint namespace names this run of the node ("work:<task id>"): LangGraph keeps it when it
    # replays the node on resume (its interrupts are matched by it) and a later turn gets a new one
    node_run = configurable.get("checkpoint_ns") or ""
    attempt = len(task.get("attempts") or []) + 1
    raw = f"{thread}|{node_run}|{turn}|{task.get('id')}|{attempt}|{_canonical(target)}"
    return hashlib.sha1(raw.encode()).hexdigest()[:12]


def in_graph_with_checkpointer() -> bool:
    """Inside a LangGraph run whose graph has a checkpointer (``interrupt()`` can pause and resume)."""
    try:
        from langgraph.config import get_config

        configurable = get_config().get("configurable", {})
    except RuntimeError:
        return False
    try:
        from langgraph._internal._constants import CONFIG_KEY_CHECKPOINTER
    except ImportError:  # pragma: no cover - the constant's home in langgraph 1.x
        CONFIG_KEY_CHECKPOINTER = "__pregel_checkpointer"  # noqa: N806
    return configurable.get(CONFIG_KEY_CHECKPOINTER) is not None


class GuidedRetro:
    """One guided route per call of :meth:`run` (see the module docstring)."""

    def __init__(self, engine: Any, llm: Any, *, ask: bool, language: str, root: Path, search: Any,
                 limits: Any = None, progress: Any = None) -> None:
        from molx_agent.interfaces.pipeline.limits import LIMITS

        self.engine = engine
        self.llm = llm
        self.ask = ask
        self.language = language
        self.root = Path(root)
        self.search = search  # (smiles, name) -> search record (route_graphs, ...); called at most once per target
        self.limits = limits or LIMITS
        self.progress = progress  # ``progress(stage, force=..., **fields)`` (agents.modules.events) or None
        self.warnings: list[str] = []

    # -- session and caches ----------------------------------------------------------------------
    def session_dir(self, task: dict[str, Any], target: str, name: str, turn: str = "") -> Path:
        stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in (name or "target"))[:40]
        return self.root / f"guided_{stem}_{_session_key(task, target, turn)}"

    def _search_record(self, session: Path, target: str, name: str, needed: bool) -> dict[str, Any]:
        cache = session / "search.json"
        if cache.exists():
            try:
                return json.loads(cache.read_text(encoding="utf-8"))
            except (OSError, json.JSONDecodeError):
                logger.info("unreadable search cache %s; searching again", cache)
        if not needed:
            return {}
        rec = dict(self.search(target, name) or {})
        from molx_agent.io_utils import to_jsonable

        atomic_write_json(cache, to_jsonable(rec))
        return rec

    @staticmethod
    def _answers(session: Path) -> list[Any]:
        path = session / "guided.json"
        if not path.exists():
            return []
        try:
            return list(json.loads(path.read_text(encoding="utf-8")).get("answers") or [])
        except (OSError, json.JSONDecodeError, AttributeError):
            return []

    @staticmethod
    def _log_answer(session: Path, answers: list[Any], answer: Any) -> None:
        answers.append(answer)
        atomic_write_json(session / "guided.json", {"answers": answers})

    # -- the run ---------------------------------------------------------------------------------
    def run(self, task: dict[str, Any], target: str, name: str, turn: str = "") -> dict[str, Any]:
        """The guided route of ``target``; ``turn`` identifies the conversation turn (see :func:`_session_key`)."""
        from molx_agent.interfaces.pipeline.models import RouteStatus
        from molx_agent.interfaces.pipeline.orchestrator import Orchestrator
        from molx_agent.interfaces.pipeline.route_ops import TaskLimitExceeded
        from molx_agent.interfaces.pipeline.service import plan_session
        from molx_agent.interfaces.pipeline.session_store import SessionStore

        session = self.session_dir(task, target, name, turn)
        store = SessionStore(session)
        if not store.exists():
            plan_session(target, session, name=name, language=self.language, engine=self.engine)
        meta = store.load_meta()
        route_id = store.resolve_route(meta, meta["routes"][0] if meta.get("routes") else None)
        asking = self.ask
        if asking and not in_graph_with_checkpointer():
            asking = False
            self.warnings.append("--ask needs a run with a checkpointer (a thread to resume): the decisions were "
                                 "taken " + ("by the LLM" if self.llm is not None else "by the rules"))
        search = self._search_record(session, target, name, needed=asking or self.llm is not None)
        graphs = list(search.get("route_graphs") or []) or ([search["route_graph"]] if search.get("route_graph")
                                                            else [])
        answers = self._answers(session) if asking else []
        if asking:
            from langgraph.types import interrupt

            for old in list(answers):  # replay: every answer already given is returned at once, in order
                got = interrupt({"kind": "retro_decision", "replay": True})
                if got != old:
                    logger.info("guided replay: a stored answer differs from the session log (%r != %r)", got, old)

        def options_for(ctx: Any) -> list[dict[str, Any]]:
            mol = ctx.context.get("molecule_smiles")
            return search_options(graphs, mol) if mol else []

        with store.locked():
            rt = Orchestrator(store.load_route(route_id), limits=self.limits, stock=meta.get("stock"),
                              with_proposals=bool(meta.get("with_proposals", True)), engine=self.engine)
            rt.run()
            store.save_route(rt.route)
            decider = LLMDecider(self.llm, rt.explore, options_for, target) if self.llm is not None else None
            for _ in range(MAX_DECISIONS):
                pending = rt.route.pending_decision
                if rt.route.status != RouteStatus.PAUSED or pending is None:
                    break
                try:
                    if asking:
                        self._ask_chemist(rt, pending, options_for(pending), target, session, answers)
                    else:
                        self._decide(rt, pending, decider)
                except TaskLimitExceeded as exc:
                    rt.route.status = RouteStatus.LIMIT_REACHED
                    rt.route.last_error = exc.to_dict()
                    rt.sync()
                    store.save_route(rt.route)
                    break
                store.save_route(rt.route)
                self._report_decision(rt, target)
                rt.run()
                store.save_route(rt.route)
        return self._record(session, store, route_id, target, name, search, decided_by=(
            "chemist" if asking else "llm" if self.llm is not None else "rules"))

    def _report_decision(self, rt: Any, target: str) -> None:
        """A ``guided_decision`` progress event for the decision just taken (live in ``run --stream``)."""
        if not self.progress or not rt.route.decision_history:
            return
        entry = rt.route.decision_history[-1]
        action = str(entry.get("action"))
        if entry.get("resolved_action") and entry.get("resolved_action") != action:
            action += f" → {entry['resolved_action']}"
        self.progress("guided_decision", force=True, target=target, decision=len(rt.route.decision_history),
                      decision_type=entry.get("decision_type"), action=action,
                      decided_by=entry.get("decided_by"), fallback=bool(entry.get("fallback")))

    def _decide(self, rt: Any, pending: Any, decider: LLMDecider | None) -> None:
        """One decision by the LLM (``decider``) or the rules; a bad reply falls back to use_default."""
        instruction = None
        source = "rules"
        problem: dict[str, Any] | None = None
        if decider is not None:
            source = "llm"
            try:
                instruction = decider(pending.model_copy(deep=True))
            except GraphBubbleUp:
                raise
            except Exception as exc:  # noqa: BLE001 - any decider failure falls back to the rule default
                problem = {"code": "decider_error", "message": f"{type(exc).__name__}: {exc}"}
            if instruction is None and problem is None:
                problem = {"code": "no_instruction", "message": decider.problem or "no decision"}
        else:
            instruction = {"task_id": pending.task_id, "action": "use_default"}
        if instruction is not None:
            try:
                rt.decide(instruction, resume=False)
                self._annotate(rt, source, instruction, None)
                return
            except GraphBubbleUp:
                raise
            except Exception as exc:  # noqa: BLE001 - the pipeline rejected the reply (it left the route unchanged)
                if getattr(exc, "code", None) == "task_limit_exceeded":
                    raise
                problem = (exc.to_dict() if isinstance(exc, RetroError)
                           else {"code": "invalid_instruction", "message": f"{type(exc).__name__}: {exc}"})
        message = (f"guided {pending.decision_type.value} decision (task {pending.task_id}): the LLM's reply was "
                   f"not usable ({(problem or {}).get('message', '')[:200]}); the rule default was used")
        logger.warning("%s", message)
        self.warnings.append(message)
        rt.decide({"task_id": pending.task_id, "action": "use_default"}, resume=False)
        self._annotate(rt, source, instruction, problem)

    def _ask_chemist(self, rt: Any, pending: Any, options: list[dict[str, Any]], target: str, session: Path,
                     answers: list[Any]) -> None:
        from langgraph.types import interrupt

        error: dict[str, Any] | None = None
        for _ in range(MAX_ASKS_PER_DECISION):
            answer = interrupt(decision_payload(pending, options, target, self.language, error))
            self._log_answer(session, answers, answer)
            instruction, error = _instruction_from_answer(answer, pending.task_id)
            if instruction is None:
                continue
            try:
                rt.decide(instruction, resume=False)
            except GraphBubbleUp:
                raise
            except Exception as exc:  # noqa: BLE001 - the pipeline rejected the answer (it left the route unchanged)
                if getattr(exc, "code", None) == "task_limit_exceeded":
                    raise
                error = ({"code": "invalid_answer", "message": exc.message, "reason": exc.code, "hint": exc.hint}
                         if isinstance(exc, RetroError) else
                         {"code": "invalid_answer", "message": f"{type(exc).__name__}: {exc}", "reason": "invalid"})
                continue
            self._annotate(rt, "chemist", instruction, None)
            return
        raise ValidationError("invalid_answer", f"no valid answer after {MAX_ASKS_PER_DECISION} tries",
                              value=pending.task_id)

    @staticmethod
    def _annotate(rt: Any, source: str, instruction: Any, problem: dict[str, Any] | None) -> None:
        entry = rt.route.decision_history[-1]
        reasoning = (instruction or {}).get("reasoning") if isinstance(instruction, dict) else None
        entry.update(decided_by=source, fallback=problem is not None, reasoning=(reasoning or
                                                                                  entry.get("reasoning_preview")))
        if problem is not None:
            entry["fallback_from"] = problem
            if isinstance(instruction, dict):
                entry["rejected"] = {k: instruction.get(k) for k in ("action", "params")}
        rt.sync()

    # -- result ----------------------------------------------------------------------------------
    def _record(self, session: Path, store: Any, route_id: str, target: str, name: str, search: dict[str, Any],
                decided_by: str) -> dict[str, Any]:
        from molx_agent.interfaces.pipeline.service import finalize_route
        from molx_agent.retro.export import to_aizynth_tree
        from molx_agent.retro.route import RetroGraph

        route = store.load_route(route_id)
        rows = decision_rows(route)
        with store.locked():  # the report's decision table reads the route's audit state
            route.audit["decision_history"] = rows
            store.save_route(route)
        try:
            final = finalize_route(session, route_id)
        except RetroError as exc:
            logger.info("guided route report not written: %s", exc)
            final = {"report_paths": {}}
        graph = RetroGraph.from_dict(route.graph)
        graph.metadata.update(source="guided", strategy="guided", route_id=route_id, decided_by=decided_by,
                              decisions=rows)
        data = graph.to_dict()
        complete = graph.is_complete()
        solved = complete and route.status.value == "completed"
        n_fallbacks = sum(1 for r in route.decision_history if r.get("fallback") or r.get("fallback_from"))
        label = name or target
        if self.language == "zh":
            summary = (f"{label} 的引导式逆合成（决策者：{decided_by}）：{graph.n_steps} 步，路线"
                       f"{'完整' if solved else '不完整'}；{len(rows)} 个决策"
                       + (f"，其中 {n_fallbacks} 个回退为规则默认" if n_fallbacks else "") + "。")
        else:
            summary = (f"Guided retrosynthesis of {label} (decisions by {decided_by}): {graph.n_steps} step(s), "
                       f"route {'complete' if solved else 'incomplete'}; {len(rows)} decision(s)"
                       + (f", {n_fallbacks} fell back to the rule default" if n_fallbacks else "") + ".")
        tree = to_aizynth_tree(graph)
        return {"target_smiles": _canonical(target), "target_name": name, "solved": solved,
                "route_graph": data, "route_graphs": [data] if solved else [], "routes": [tree] if solved else [],
                "partial_route": None if solved else tree, "n_steps": graph.n_steps,
                "n_expansions": int(search.get("n_expansions") or 0), "time_s": search.get("time_s") or 0.0,
                "stock": search.get("stock") or "", "reasons": list(route.notes), "stopped_by": "",
                "summary": summary,
                "guided": {"session_dir": str(session), "route_id": route_id, "status": route.status.value,
                           "decided_by": decided_by, "decisions": rows, "n_decisions": len(rows),
                           "n_fallbacks": n_fallbacks, "report_paths": final.get("report_paths") or {},
                           "search_routes": len(search.get("route_graphs") or []),
                           "warnings": list(self.warnings)}}


def _instruction_from_answer(answer: Any, task_id: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    if isinstance(answer, str):
        try:
            answer = json.loads(answer)
        except json.JSONDecodeError:
            return None, {"code": "invalid_answer", "message": "the answer is not JSON",
                          "hint": '{"action": "use_default"}'}
    if not isinstance(answer, dict) or not isinstance(answer.get("action"), str):
        return None, {"code": "invalid_answer", "message": "the answer must be a JSON object with an 'action'",
                      "hint": '{"action": "use_default"} or {"action": "...", "params": {...}}'}
    return {"task_id": task_id, **answer}, None


def decision_rows(route: Any) -> list[dict[str, Any]]:
    """The route's decisions as rows of the report's decision table (and of the worker's record)."""
    rows = []
    for h in route.decision_history:
        task = route.tasks.get(str(h.get("task_id")))
        action = str(h.get("action"))
        if h.get("resolved_action") and h.get("resolved_action") != action:
            action += f" → {h['resolved_action']}"
        by = h.get("decided_by") or "rules"
        reasoning = f"[{by}] " + str(h.get("reasoning") or h.get("reasoning_preview") or "")
        if h.get("fallback_from"):
            reasoning = (f"[{by}: fallback to use_default: {str(h['fallback_from'].get('message', ''))[:160]}] "
                         + str(h.get("reasoning_preview") or ""))
        rows.append({"step_id": h.get("task_id"), "decision_type": h.get("decision_type"),
                     "molecule": task.smiles if task is not None else "", "action": action,
                     "params": h.get("params") or {}, "outcome": h.get("outcome"),
                     "decided_by": by, "fallback": bool(h.get("fallback_from")),
                     "reasoning_summary": reasoning[:400]})
    return rows


def retro_mode_of(options: dict[str, Any], run_options: dict[str, Any], settings: Any) -> str:
    mode = options.get("retro_mode") or run_options.get("retro_mode") or getattr(settings, "retro_mode", "auto")
    if mode not in RETRO_MODES:
        raise ValidationError("invalid_retro_mode", f"unknown retro mode {mode!r}", value=mode,
                              hint="use auto or guided")
    return str(mode)


__all__ = ["GuidedRetro", "LLMDecider", "DecisionReply", "decision_payload", "search_options", "decision_rows",
           "retro_mode_of", "RETRO_MODES"]

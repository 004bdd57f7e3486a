"""A chemist in the loop: the questions the graph stops at (LangGraph ``interrupt()``) and the answers it accepts.

Every question is a JSON-able payload (``docs/architecture.md``, "A chemist in the loop")::

    {"kind": "plan_approval" | "route_choice" | "retro_decision",
     "question": "...", "options": [{"id": ..., "label": ..., ...}], "default": <answer>, "answer_schema": {...}}

Answers: ``plan_approval`` -> ``{"approve": true}`` or ``{"approve": false, "feedback": "text"}`` (the feedback
re-plans; no feedback ends the run without running the plan); ``route_choice`` -> ``{"route": i}`` (0-based index
into ``options``); ``retro_decision`` -> a decision instruction dict (checked by the check registered for the
kind, see :func:`register_answer_check`).

:func:`check_answer` validates an answer (``ValidationError("invalid_answer")``), :func:`ask` asks inside a graph
node and asks again, with the error, until the answer is valid (so a thread never ends up stuck on a bad answer),
:func:`parse_answer_text` reads a typed answer (JSON or a shortcut such as ``yes`` / ``2`` / free-text feedback)
and :func:`describe_interrupt` writes the question for a person.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from molx_agent.agents.modules.prompts import route_judgement_head, verdict_zh
from molx_agent.errors import ValidationError

KINDS = ("plan_approval", "route_choice", "retro_decision")

#: kind -> function(payload, answer) returning the normalised answer or raising ValidationError("invalid_answer").
_CHECKS: dict[str, Callable[[dict[str, Any], Any], Any]] = {}


def register_answer_check(kind: str, check: Callable[[dict[str, Any], Any], Any]) -> None:
    """Use ``check(payload, answer) -> normalised answer`` for the answers of ``kind`` (it raises
    ``ValidationError("invalid_answer", ...)`` on a bad one)."""
    _CHECKS[kind] = check


def invalid(message: str, payload: dict[str, Any], answer: Any) -> ValidationError:
    schema = payload.get("answer_schema")
    hint = f"a valid answer: {json.dumps(schema, ensure_ascii=False)}" if schema else None
    return ValidationError("invalid_answer", f"invalid answer to the {payload.get('kind', 'pending')} question: "
                           f"{message}", value=_short(answer), hint=hint)


def _short(value: Any) -> Any:
    text = repr(value)
    return text if len(text) <= 200 else text[:200] + "..."


def _check_plan(payload: dict[str, Any], answer: Any) -> dict[str, Any]:
    if isinstance(answer, bool):
        answer = {"approve": answer}
    if not isinstance(answer, dict) or "approve" not in answer:
        raise invalid('expected {"approve": true} or {"approve": false, "feedback": "what to change"}', payload,
                      answer)
    approve = answer["approve"]
    if not isinstance(approve, bool):
        raise invalid(f'"approve" must be true or false, got {approve!r}', payload, answer)
    feedback = answer.get("feedback", "")
    if feedback is None:
        feedback = ""
    if not isinstance(feedback, str):
        raise invalid('"feedback" must be text', payload, answer)
    if len(feedback) > 4000:
        raise invalid('"feedback" is too long (at most 4000 characters)', payload, answer)
    out: dict[str, Any] = {"approve": approve}
    if not approve:
        out["feedback"] = feedback.strip()
    return out


def _check_route(payload: dict[str, Any], answer: Any) -> dict[str, Any]:
    n = len(payload.get("options") or [])
    if isinstance(answer, int) and not isinstance(answer, bool):
        answer = {"route": answer}
    if not isinstance(answer, dict) or "route" not in answer:
        raise invalid(f'expected {{"route": i}} with i from 0 to {n - 1}', payload, answer)
    route = answer["route"]
    if isinstance(route, str) and route.strip().isdigit():
        route = int(route.strip())
    if isinstance(route, bool) or not isinstance(route, int) or not 0 <= route < n:
        raise invalid(f'"route" must be a route number from 0 to {n - 1}, got {route!r}', payload, answer)
    return {"route": route}


def _check_decision(payload: dict[str, Any], answer: Any) -> dict[str, Any]:
    if isinstance(answer, str):
        try:
            answer = json.loads(answer)
        except json.JSONDecodeError:
            pass
    if not isinstance(answer, dict) or not answer:
        raise invalid('expected a decision instruction object, e.g. {"action": "use_default"}', payload, answer)
    action = answer.get("action")
    if not isinstance(action, str) or not action.strip():
        raise invalid('the instruction needs an "action" (e.g. "use_default")', payload, answer)
    options = [o for o in payload.get("options") or [] if isinstance(o, dict)]
    if options:  # the actions this decision offers: its own action ids, the ready-made answers, use_default
        allowed = {"use_default"}
        for o in options:
            ready = o.get("answer")
            if isinstance(ready, dict) and isinstance(ready.get("action"), str):
                allowed.add(ready["action"])
            elif o.get("id"):
                allowed.add(str(o["id"]))
        if action not in allowed:
            raise invalid(f'unknown action {action!r}; this decision offers: {", ".join(sorted(allowed))}',
                          payload, answer)
    return answer


_BUILTIN: dict[str, Callable[[dict[str, Any], Any], Any]] = {
    "plan_approval": _check_plan, "route_choice": _check_route, "retro_decision": _check_decision}


def check_answer(payload: dict[str, Any], answer: Any) -> Any:
    """The normalised ``answer`` to the question ``payload``; ``ValidationError("invalid_answer")`` when it is not
    a valid answer (``None`` is never one: an accepted default is sent as the ``default`` itself)."""
    if answer is None:
        raise invalid("no answer given", payload, answer)
    kind = str(payload.get("kind") or "")
    check = _CHECKS.get(kind) or _BUILTIN.get(kind)
    return check(payload, answer) if check is not None else answer


def ask(payload: dict[str, Any]) -> Any:
    """Inside a graph node: stop the run with ``payload`` and return the chemist's (valid, normalised) answer.

    An invalid answer asks the same question again with ``error`` set (LangGraph matches the answers to the
    ``interrupt()`` calls of a node in order, so every retry is a new interrupt of the same node).
    """
    from langgraph.types import interrupt

    question = payload
    while True:
        answer = interrupt(question)
        try:
            return check_answer(payload, answer)
        except ValidationError as exc:
            question = {**payload, "error": exc.message}


_YES = {"y", "yes", "ok", "okay", "approve", "approved", "go", "run", "accept", "是", "好", "确认", "同意", "可以"}
_NO = {"n", "no", "reject", "stop", "cancel", "否", "不", "取消", "不同意"}


def parse_answer_text(payload: dict[str, Any], text: str) -> Any:
    """A typed answer: JSON, else a shortcut -- an empty line or ``default`` accepts the default; for a plan
    ``yes`` / ``no`` / any other text (the feedback to re-plan with); for a route choice its number."""
    raw = (text or "").strip()
    if not raw or raw.lower() in ("default", "d"):
        return payload.get("default")
    try:
        return json.loads(raw)
    except ValueError:
        pass
    kind = payload.get("kind")
    low = raw.lower().rstrip(".!")
    if kind == "plan_approval":
        if low in _YES:
            return {"approve": True}
        if low in _NO:
            return {"approve": False}
        for sep in (":", "：", ","):
            head, _, tail = raw.partition(sep)
            if tail and head.strip().lower() in _NO:
                return {"approve": False, "feedback": tail.strip()}
        return {"approve": False, "feedback": raw}
    if kind == "route_choice":
        digits = low.removeprefix("route").strip().lstrip("#")
        if digits.isdigit():
            return {"route": int(digits)}
    return raw


def describe_interrupt(payload: dict[str, Any], thread_id: str | None = None) -> str:
    """The question for a person: the question, the options, the default and how to answer."""
    lines = []
    if payload.get("error"):
        lines.append(f"(previous answer rejected: {payload['error']})")
    lines.append(str(payload.get("question") or "The run waits for an answer."))
    for opt in payload.get("options") or []:
        if isinstance(opt, dict):
            lines.append(f"  [{opt.get('id')}] {opt.get('label', '')}")
            lines += [f"        {r}" for r in (opt.get("reactions") or [])[:8]]
    default = payload.get("default")
    if default is not None:
        lines.append(f"Default: {json.dumps(default, ensure_ascii=False)}")
    schema = payload.get("answer_schema")
    if schema:
        lines.append(f"Answer: {json.dumps(schema, ensure_ascii=False)}")
    if thread_id:
        example = json.dumps(default if default is not None else {}, ensure_ascii=False)
        lines.append(f"Continue with: molx-agent resume {thread_id} --answer '{example}'")
    return "\n".join(lines)


# -- the questions ---------------------------------------------------------------------------------------------------
def plan_approval_payload(state: dict[str, Any]) -> dict[str, Any]:
    """The plan-approval question of the plan in ``state["tasks"]``."""
    zh = state.get("language") == "zh"
    tasks = state.get("tasks") or {}
    options = []
    for tid, t in tasks.items():
        inputs = t.get("inputs") or {}
        opts = {k: v for k, v in (inputs.get("options") or {}).items() if k in ("time_limit", "strategy", "mode")}
        options.append({"id": tid, "label": f"{t.get('type')}: {t.get('description', '')}".strip(),
                        "type": t.get("type"), "depends_on": list(t.get("depends_on") or []),
                        "smiles": list(inputs.get("smiles") or []), "files": list(inputs.get("files") or []),
                        "options": opts})
    feedback = list(state.get("plan_feedback") or [])
    if zh:
        question = f"批准以下计划吗（{len(tasks)} 个任务）？同意则执行；不同意可附上修改意见以重新规划。"
    else:
        question = (f"Approve this plan ({len(tasks)} task(s))? Approve to run it, or reject it with feedback to "
                    "re-plan.")
    return {"kind": "plan_approval", "question": question, "options": options, "default": {"approve": True},
            "answer_schema": {"approve": "boolean", "feedback": "text (with approve=false: what to change; "
                                                                  "no feedback ends the run)"},
            "intent": state.get("intent"), "query": state.get("user_query", ""), "feedback_so_far": feedback}


def _route_label(route: dict[str, Any], zh: bool) -> str:
    steps = route.get("n_steps")
    score = route.get("score")
    score_text = f", score {score:.2f}" if isinstance(score, (int, float)) else ""
    how = f" (attempt {route['attempt']}, {route['strategy']})" if route.get("strategy") not in (None, "search") \
        else ""
    if zh:
        return f"{steps} 步，判定{verdict_zh(route.get('verdict'))}（置信度 {verdict_zh(route.get('confidence'))}）{score_text}{how}"
    return f"{steps} step(s), verdict {route.get('verdict')} (confidence {route.get('confidence')}){score_text}{how}"


def route_choice_payload(target: dict[str, Any], graphs: list[dict[str, Any]], language: str = "en",
                         task_id: str = "") -> dict[str, Any]:
    """The route-choice question of one judged target (``validation`` result ``targets[i]``) whose route graphs
    are ``graphs`` (the ``disconnection`` record's ``route_graphs``, same order as ``target["routes"]``)."""
    zh = language == "zh"
    label = target.get("target_name") or target.get("target_smiles")
    options = []
    for i, route in enumerate(target.get("routes") or []):
        graph = graphs[i] if i < len(graphs) else {}
        reactions = [r.get("reaction_smiles", "") for r in graph.get("reaction_nodes") or []]
        leaves = [m.get("smiles") for m in (graph.get("molecule_nodes") or {}).values()
                  if isinstance(m, dict) and m.get("role") in ("terminal", "leaf", "stock")] \
            if isinstance(graph.get("molecule_nodes"), dict) else []
        options.append({"id": i, "label": _route_label(route, zh), "n_steps": route.get("n_steps"),
                        "verdict": route.get("verdict"), "confidence": route.get("confidence"),
                        "score": route.get("score"), "reactions": reactions, "starting_materials": leaves,
                        "issues": [str(x.get("message", x.get("code"))) for x in (route.get("issues") or [])][:4]})
    best = target.get("best_route") or 0
    question = (f"为 {label} 找到 {len(options)} 条路线（路线 0 至 {len(options) - 1}），报告哪一条？（默认：评估最佳的路线 {best}）"
                if zh else
                f"{len(options)} routes were found for {label}; which one should be reported? "
                f"(default: route {best}, the best judged)")
    return {"kind": "route_choice", "question": question, "options": options, "default": {"route": best},
            "answer_schema": {"route": f"integer, 0 to {len(options) - 1}"}, "task_id": task_id,
            "target_smiles": target.get("target_smiles"), "target_name": target.get("target_name", "")}


def apply_route_choice(result: dict[str, Any], target_index: int, route: int, language: str = "en",
                       by: str = "chemist") -> dict[str, Any]:
    """The ``validation`` result with route ``route`` of target ``target_index`` as the reported route: the
    target's ``best_route``, verdict, confidence and issues follow the choice, as do the result's verdict,
    ``steps`` (first target) and summary.  ``route_choice`` records every choice."""
    from molx_agent.agents.validation import overall_verdict

    zh = language == "zh"
    out = json.loads(json.dumps(result))
    targets = out.get("targets") or []
    target = targets[target_index]
    chosen = target["routes"][route]
    judged_best = target.get("best_route")
    target.update(best_route=route, verdict=chosen.get("verdict"), confidence=chosen.get("confidence"),
                  issues=list(chosen.get("issues") or []), chosen_by=by)
    label = target.get("target_name") or target.get("target_smiles")
    if route != judged_best:
        note = (f"{label}：化学家选择了路线 {route}（{chosen.get('n_steps')} 步，判定{verdict_zh(chosen.get('verdict'))}），"
                f"而非评估最佳的路线 {judged_best}。" if zh else
                f"{label}: the chemist chose route {route} ({chosen.get('n_steps')} step(s), verdict "
                f"{chosen.get('verdict')}) over the best judged route {judged_best}.")
    else:
        note = (f"{label}：化学家确认了评估最佳的路线 {route}。" if zh else
                f"{label}: the chemist confirmed the best judged route {route}.")
    target["summary"] = f"{target.get('summary', '')} {note}".strip()
    choices = dict(out.get("route_choice") or {})
    choices[str(target.get("target_smiles"))] = {"route": route, "by": by, "judged_best": judged_best}
    out["route_choice"] = choices
    out["verdict"] = overall_verdict(targets)
    out["issues"] = [dict(i, target=t["target_smiles"], target_name=t.get("target_name", ""))
                     for t in targets if t.get("verdict") != "accept" for i in t.get("issues") or []]
    if target_index == 0:
        steps = chosen.get("steps") or []
        n_valid = sum(1 for s in steps if s.get("is_valid"))
        out.update(steps=steps, n_steps=len(steps), n_valid=n_valid, all_valid=bool(steps) and n_valid == len(steps))
    head = route_judgement_head(out["verdict"], language)
    out["summary"] = " ".join([head, *(str(t.get("summary", "")) for t in targets)])
    return out


def apply_route_choice_to_search(result: dict[str, Any], target_smiles: str, route: int,
                                 language: str = "en") -> dict[str, Any]:
    """The ``disconnection`` result with route ``route`` of ``target_smiles`` as its ``route_graph`` and, when it is
    not the search's best route, its forward steps added to the summary (so the answer follows the choice)."""
    from molx_agent.retro.route import RetroGraph
    from molx_agent.retro.search_routes import route_steps_text

    out = json.loads(json.dumps(result))
    records = out.get("targets") or [out]
    for rec in records:
        graphs = rec.get("route_graphs") or []
        if rec.get("target_smiles") != target_smiles or not 0 <= route < len(graphs):
            continue
        chosen = graphs[route]
        if rec.get("route_graph") == chosen:
            continue
        steps = route_steps_text(RetroGraph.from_dict(chosen), language)
        label = rec.get("target_name") or target_smiles
        note = (f"{label}：化学家选择的路线 {route}：{steps}。" if language == "zh" else
                f"{label}: the chemist chose route {route}; its forward steps: {steps}.")
        rec.update(route_graph=chosen, n_steps=len(chosen.get("reaction_nodes") or []), chosen_route=route,
                   summary=f"{rec.get('summary', '')} {note}".strip())
        if rec is not out:
            if out.get("target_smiles") == target_smiles:  # the first target is also the top-level record
                out.update(route_graph=chosen, n_steps=rec["n_steps"], chosen_route=route)
            out["summary"] = f"{out.get('summary', '')} {note}".strip()
    return out


__all__ = ["KINDS", "ask", "check_answer", "register_answer_check", "parse_answer_text", "describe_interrupt",
           "plan_approval_payload", "route_choice_payload", "apply_route_choice", "apply_route_choice_to_search"]

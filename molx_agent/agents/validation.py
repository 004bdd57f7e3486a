"""ValidationAgent: checks reactions (``reaction_validation`` intent) and the steps of a planned route.

- ``inputs["reaction_smiles"]`` (one or more ``a.b>reagents>p`` strings): each goes through
  :func:`molx_agent.chem.validate_reaction`; one reaction gives its result dict plus ``summary``, several give
  ``reactions`` (one result or error record each), ``all_valid`` and ``summary``.
- otherwise the results of ``disconnection`` dependencies: **every route of every target** is judged with the
  engine (``RetroEngine.judge_route``: leaf tiers, analog shortcuts, implausible or failing steps; plus
  ``RetroEngine.judge_step`` on every step: forward validation, plausibility, functional-group conflicts).  Each
  target gets a verdict (``accept`` / ``weak`` / ``reject``) with reasons and its best route; an unsolved search is
  a ``reject`` (``not_solved``), never a success; a target that is sold is ``accept`` ("buy it").  The result holds
  ``verdict`` (all targets), ``issues``, ``targets`` and, for the first target's best route, ``steps``,
  ``n_steps``, ``n_valid``, ``all_valid`` and ``target_smiles``.

The summary states the verdict and the balance details (formulas, byproducts, unexplained atoms) in
``state["language"]``.
"""

from __future__ import annotations

import logging
from typing import Any

from molx_agent.agents.base import BaseAgent
from molx_agent.agents.modules.prompts import route_judgement_head, verdict_zh
from molx_agent.agents.modules.state import AgentState, Task
from molx_agent.errors import RetroError, ValidationError

logger = logging.getLogger(__name__)


def _formula(counts: dict[str, int]) -> str:
    from molx_agent.chem.utils import formula_string

    return formula_string(counts) or "-"


def _atoms(counts: dict[str, int]) -> str:
    return ", ".join(f"{k}{v if v != 1 else ''}" for k, v in counts.items())


def _template_name(template_id: str | None) -> str | None:
    if not template_id:
        return None
    try:
        from molx_agent.chem.templates import get_template

        return get_template(template_id).name
    except (ImportError, RetroError):
        return None


def describe_validation(result: dict[str, Any], lang: str = "en") -> str:
    """Prose verdict of one ``validate_reaction`` result, with the balance details."""
    bal = result["atom_balance"]
    fa = result["feasibility_assessment"]
    byp = result.get("byproducts") or []
    lost = ", ".join(f"{b['count']}×{b['name']}" if b["count"] > 1 else b["name"] for b in byp)
    rxn = ".".join(result["reactants"]) + ">>" + ".".join(result["products"])
    errors = [i for i in result["issues"] if i["severity"] == "error"]
    warnings = [i for i in result["issues"] if i["severity"] != "error"]
    pre, post = _formula(bal["precursor_atoms"]), _formula(bal["product_atoms"])
    tpl = fa["steps"].get("template_forward", {})
    named = _template_name(tpl.get("template_id")) if tpl.get("reproduced") else None
    band_zh = {"high": "高", "medium": "中等", "low": "低"}[fa["feasibility"]]
    if lang == "zh":
        if bal["balanced"]:
            head = "原子守恒" + (f"（扣除副产物 {lost} 后）" if lost else "（两侧完全一致）")
        else:
            parts = []
            if bal["adjusted_excess"]:
                parts.append(f"产物多出无来源的原子 {_atoms(bal['adjusted_excess'])}")
            if bal["adjusted_deficit"]:
                parts.append(f"前体有未解释的离去原子 {_atoms(bal['adjusted_deficit'])}")
            head = "原子不守恒：" + "；".join(parts)
        text = (f"反应 {rxn} {'有效' if result['is_valid'] else '无效'}。{head}"
                f"（平衡分 {bal['balance_score']:.2f}）。前体合计 {pre}，产物合计 {post}。"
                f"正向验证可行性{band_zh}（{fa['feasibility_score']:.2f}）。")
        if named:
            text += f"与命名反应模板 {named}（{tpl['template_id']}）一致。"
        if errors:
            text += "硬性问题：" + "；".join(f"{i['code']}（{i['message']}）" for i in errors) + "。"
        if warnings:
            text += "提示：" + "；".join(i["code"] for i in warnings) + "。"
        return text
    if bal["balanced"]:
        head = "it is atom-balanced" + (f" once {lost} {'is' if len(byp) == 1 and byp[0]['count'] == 1 else 'are'} released"
                                         if lost else " (both sides identical)")
    else:
        parts = []
        if bal["adjusted_excess"]:
            parts.append(f"the product has atoms no precursor provides ({_atoms(bal['adjusted_excess'])})")
        if bal["adjusted_deficit"]:
            parts.append(f"the precursors carry unexplained leaving atoms ({_atoms(bal['adjusted_deficit'])})")
        head = "it is not atom-balanced: " + "; ".join(parts)
    text = (f"Reaction {rxn} is {'valid' if result['is_valid'] else 'NOT valid'}: {head} "
            f"(balance score {bal['balance_score']:.2f}; precursors {pre}, product side {post}). "
            f"Forward-validation feasibility is {fa['feasibility']} ({fa['feasibility_score']:.2f}).")
    if named:
        text += f" It matches the named reaction {named} ({tpl['template_id']})."
    if errors:
        text += " Hard failures: " + "; ".join(f"{i['code']} ({i['message']})" for i in errors) + "."
    if warnings:
        text += " Notes: " + "; ".join(i["code"] for i in warnings) + "."
    return text


def _named_template(template_id: str | None) -> str | None:
    """``template_id`` when it is a named (expert) template the validator can re-apply, else None."""
    return template_id if template_id and _template_name(template_id) else None


def _mapped_form(mapped: str, rxn: str) -> str:
    """``mapped`` when it is the atom-mapped form of the step ``rxn``, else ``""`` (see ``mapped_step_mols``)."""
    from molx_agent.chem.forward_validate import mapped_step_mols

    if not mapped or rxn.count(">") != 2:
        return ""
    left, _, right = rxn.split(">")
    try:
        ok = mapped_step_mols(mapped, [x for x in left.split(".") if x], right) is not None
    except RetroError:
        return ""
    return mapped if ok else ""


_VERDICT_RANK = {"accept": 2, "weak": 1, "reject": 0}
_CONF_RANK = {"high": 2, "medium": 1, "low": 0}
MAX_JUDGED_ROUTES = 8


def judge_route_dict(engine: Any, graph_dict: dict[str, Any]) -> dict[str, Any]:
    """One route judged by the engine: route verdict plus every step's ``judge_step`` verdict and FG conflicts."""
    from molx_agent.retro.route import RetroGraph

    graph = RetroGraph.from_dict(graph_dict)
    route = engine.judge_route(graph)
    issues = list(route.get("issues") or [])
    steps = []
    for rxn in graph.forward_order():
        product = graph.molecule_nodes[rxn.product_node].smiles
        precursors = [graph.molecule_nodes[r].smiles for r in rxn.reactant_nodes]
        step_smiles = f"{'.'.join(precursors)}>>{product}"
        ev = rxn.template_evidence
        row: dict[str, Any] = {"step_id": rxn.step_id, "reaction_smiles": step_smiles,
                               "reaction_type": rxn.reaction_type or ev.category or None}
        try:
            judged = engine.judge_step(precursors, product, reaction_type=ev.category or None,
                                       template_id=_named_template(ev.template_id),
                                       mapped_reaction=rxn.mapped_reaction or None, score=rxn.score)
        except RetroError as exc:
            row.update(verdict="invalid", is_valid=False, error=exc.to_dict())
            issues.append({"code": "failed_validation", "message": f"step {step_smiles} cannot be checked: "
                                                                   f"{exc.message}", "step": step_smiles})
            steps.append(row)
            continue
        fg = ((judged.get("steps") or {}).get("fg_compatibility") or {}).get("warnings") or []
        aligned = ((judged.get("steps") or {}).get("mcs_alignment") or {}).get("source")
        row["atom_map_source"] = "template" if aligned == "atom_maps" else "alignment"
        row.update(verdict=judged.get("verdict"), is_valid=judged.get("verdict") != "invalid",
                   plausibility=judged.get("plausibility"), feasibility_score=judged.get("feasibility_score"),
                   hard_fail_reasons=judged.get("hard_fail_reasons"), fg_warnings=list(fg),
                   issues=[dict(i, step=step_smiles) for i in judged.get("issues") or []])
        issues += row["issues"]
        for w in fg:
            issues.append({"code": "fg_conflict", "message": f"{w} (step {step_smiles})", "step": step_smiles})
        steps.append(row)
    codes = {i.get("code") for i in issues}
    verdict = route.get("verdict") or "weak"
    if any(s.get("verdict") == "invalid" for s in steps):
        verdict = "reject"
    elif verdict == "accept" and (codes & {"implausible_step", "fg_conflict"}):
        verdict = "weak"
    seen, unique = set(), []
    for i in issues:
        key = (i.get("code"), i.get("smiles"), i.get("step"), i.get("message") if not (i.get("smiles") or
                                                                                     i.get("step")) else "")
        if key not in seen:
            seen.add(key)
            unique.append(i)
    meta = graph.metadata or {}
    return {"verdict": verdict, "confidence": route.get("confidence"), "score": route.get("score"),
            "n_steps": graph.n_steps, "issues": unique, "steps": steps, "attempt": meta.get("attempt"),
            "strategy": meta.get("strategy")}


#: Chinese summaries of the issue codes this agent adds to the route judge's (``retro.search_routes``'s table).
_AGENT_ISSUE_ZH = {
    "fg_conflict": "有步骤中的官能团可能不耐受该反应条件或发生副反应",
    "protection_needed": "分析认为需要保护某些基团，但路线没有保护步骤，且有步骤存在官能团冲突",
}


def issue_summary(issue: dict[str, Any], lang: str) -> str:
    """An issue in the answer's language: its message, or for Chinese the one-line summary of its code when there is
    one (the message, in English, carries the details: atoms, SMILES, scores)."""
    message = str(issue.get("message") or issue.get("code") or "")
    if lang != "zh":
        return message
    from molx_agent.retro.search_routes import issue_summary_zh

    code = str(issue.get("code") or "")
    return issue_summary_zh(code, [message]) or _AGENT_ISSUE_ZH.get(code) or message


def _why(issues: list[dict[str, Any]], lang: str) -> str:
    msgs = list(dict.fromkeys(issue_summary(i, lang) for i in issues))[:3]
    return ("；" if lang == "zh" else "; ").join(msgs)


def _best_route_key(route: dict[str, Any]) -> tuple[int, int, int, float]:
    """Which judged route of a target is its best: the better verdict, then confidence, then the route search's own
    tier (``retro.judge.route_rank_tier``: a route without a step a chemist would not run, an analog shortcut or a
    self-reactive intermediate before one with), then the lower search score."""
    from molx_agent.retro.judge import route_rank_tier

    score = route["score"] if isinstance(route["score"], (int, float)) else 1e9
    tier = route_rank_tier(i.get("code") for i in route.get("issues") or [])
    return (_VERDICT_RANK.get(route["verdict"], 0), _CONF_RANK.get(route["confidence"], 0), -tier, -score)


def _avoided_steps(record: dict[str, Any]) -> set[tuple[tuple[str, ...], str]]:
    """The steps the target's searches were told to avoid (``exclude_steps`` of a re-plan), as search step keys."""
    from molx_agent.retro.search import step_key

    keys = (step_key(step) for search in record.get("searches") or [] if isinstance(search, dict)
            for step in search.get("exclude_steps") or [])
    return {key for key in keys if key is not None}


def _keeps_avoided_step(route: dict[str, Any], avoided: set[tuple[tuple[str, ...], str]]) -> bool:
    from molx_agent.retro.search import step_key

    return any(step_key(str(step.get("reaction_smiles") or "")) in avoided for step in route.get("steps") or [])


def _not_first_note(first: dict[str, Any], best: dict[str, Any], lang: str) -> str:
    """The judged best route when it is not the search's first (the route the search's summary describes): which
    one it is, why the first is not, and its forward steps, so the answer never describes one route as the best
    and judges another best without saying so."""
    from molx_agent.retro.search_routes import steps_text

    rows = []
    for step in best.get("steps") or []:  # in forward order (``judge_route_dict``)
        left, _, right = str(step.get("reaction_smiles") or "").partition(">>")
        rows.append((step.get("reaction_type"), left.split("."), right))
    steps = steps_text(rows, lang)
    first_issues = list(first.get("issues") or [])
    k = best["index"]
    if lang == "zh":
        why = f"，原因：{_why(first_issues, lang)}" if first_issues else ""
        return (f"评估最佳的是搜索结果中的路线 {k}（路线按搜索排序从 0 编号），而非排序第一的路线 0（即上文所述路线；判定"
                f"{verdict_zh(first['verdict'])}，置信度 {verdict_zh(first['confidence'])}{why}）"
                + (f"。路线 {k} 的正向步骤：{steps}。" if steps else "。"))
    why = f": {_why(first_issues, lang)}" if first_issues else ""
    return (f"The best judged route is route {k} of the search's list, not its first (route 0, the one described "
            f"above: verdict {first['verdict']}, confidence {first['confidence']}{why})"
            + (f". Route {k}'s forward steps: {steps}." if steps else "."))


def judge_target(engine: Any, record: dict[str, Any], lang: str) -> dict[str, Any]:
    """The verdict of one target of a ``disconnection`` result, with its judged routes and the best one."""
    label = record.get("target_name") or record.get("target_smiles", "?")
    out: dict[str, Any] = {"target_smiles": record.get("target_smiles"), "target_name": record.get("target_name", ""),
                           "purchasable": bool(record.get("purchasable")), "solved": bool(record.get("solved"))}
    if record.get("purchasable"):
        out.update(verdict="accept", confidence="high", routes=[], best_route=None, issues=[],
                   summary=(f"{label}：可直接购买。" if lang == "zh" else f"{label}: sold as such, buy it."))
        return out
    if record.get("error"):
        err = record["error"]
        out.update(verdict="reject", confidence="low", routes=[], best_route=None,
                   issues=[{"code": err.get("code", "search_failed"), "message": err.get("message", "")}],
                   summary=f"{label}: {err.get('message', '')}")
        return out
    graphs = list(record.get("route_graphs") or [])[:MAX_JUDGED_ROUTES]
    if not graphs and record.get("route_graph") and record.get("solved") is not False:
        graphs = [record["route_graph"]]  # a route handed over as such (not a search result)
    routes = [dict(judge_route_dict(engine, g), index=i) for i, g in enumerate(graphs)]
    if routes:
        avoided = _avoided_steps(record)
        for route in routes if avoided else ():
            route["keeps_avoided_step"] = _keeps_avoided_step(route, avoided)
        # a route kept from an earlier attempt that holds a step a re-plan set out to avoid ranks after every route
        # without one (it stays the answer only when no search found another)
        best = max(routes, key=lambda r: (not r.get("keeps_avoided_step"), *_best_route_key(r)))
        issues = list(best["issues"])
        guide = record.get("guidance") or {}
        protect = list(guide.get("protection") or [])
        has_pg_step = any("protect" in str(st.get("reaction_type") or "").lower() for st in best["steps"])
        if protect and not has_pg_step and any(i.get("code") == "fg_conflict" for i in issues):
            issues.append({"code": "protection_needed",
                           "message": f"the analysis flags {', '.join(protect)} as needing protection and the route "
                                      "has no protecting-group step while a step has a functional-group conflict"})
        out.update(verdict=best["verdict"], confidence=best["confidence"], routes=routes, best_route=best["index"],
                   issues=issues)
        n_acc = sum(r["verdict"] == "accept" for r in routes)
        if lang == "zh":
            out["summary"] = (f"{label}：评估了 {len(routes)} 条路线（{n_acc} 条可接受）；最佳路线 {best['n_steps']} 步，"
                              f"判定{verdict_zh(best['verdict'])}（置信度 {verdict_zh(best['confidence'])}）"
                              + (f"，原因：{_why(issues, lang)}" if issues else "") + "。")
        else:
            out["summary"] = (f"{label}: {len(routes)} route(s) judged ({n_acc} acceptable); best route "
                              f"{best['n_steps']} step(s), verdict {best['verdict']} (confidence {best['confidence']})"
                              + (f" because {_why(issues, lang)}" if issues else "") + ".")
        if best["index"] != 0:
            out["summary"] += " " + _not_first_note(routes[0], best, lang)
        return out
    reasons = [r for r in record.get("reasons") or [] if r][:2]
    message = ("the search found no route ending in purchasable materials"
               + (f": {'; '.join(reasons)}" if reasons else ""))
    issues = [{"code": "not_solved", "message": message}]
    partial = record.get("route_graph")
    partial_judged = judge_route_dict(engine, partial) if partial and partial.get("reaction_nodes") else None
    if partial_judged:
        issues += [i for i in partial_judged["issues"] if i.get("code") == "unresolved_leaf"][:3]
    out.update(verdict="reject", confidence="low", routes=[], best_route=None, issues=issues,
               partial_route=partial_judged,
               summary=(f"{label}：未找到完整路线（判定不可接受）：{message}。" if lang == "zh"
                        else f"{label}: no complete route (verdict reject): {message}."))
    return out


def overall_verdict(targets: list[dict[str, Any]]) -> str:
    """accept when every target is accepted, reject when none is better than reject, weak otherwise."""
    ranks = [_VERDICT_RANK.get(t.get("verdict"), 0) for t in targets]
    if ranks and min(ranks) == 2:
        return "accept"
    if not ranks or max(ranks) == 0:
        return "reject"
    return "weak"


class ValidationAgent(BaseAgent):
    """Worker ``validation``: reaction validation, and the judgement of every searched route."""

    name = "validation"
    description = "Validates reactions (atom balance, forward validation, byproducts) and judges every searched route."
    option_keys = ("reaction_class",)

    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        lang = state.get("language") or "en"
        inputs = task.get("inputs") or {}
        options = inputs.get("options") or {}
        reactions = inputs.get("reaction_smiles") or []
        if isinstance(reactions, str):
            reactions = [reactions]
        if reactions:
            return self._validate_reactions(reactions, options.get("reaction_class"), lang)
        searches = [d for d in self.dependency_results(task, state)
                    if isinstance(d, dict) and ("route_graph" in d or "targets" in d or "purchasable" in d)]
        if searches:
            return self.judge_searches(searches, lang)
        route = next((d["route_graph"] for d in self.ancestor_results(task, state)
                      if isinstance(d, dict) and d.get("route_graph")), None)
        if route:
            return self.judge_searches([{"target_smiles": route.get("target_smiles"), "route_graphs": [route],
                                         "solved": True}], lang)
        raise ValidationError(
            "no_reaction", "no reaction SMILES and no route to validate", value=inputs.get("query"),
            hint="write the reaction as 'reactants>>product', e.g. CC(=O)Cl.Nc1ccc(O)cc1>>CC(=O)Nc1ccc(O)cc1",
        )

    @staticmethod
    def _validate_reactions(reactions: list[str], reaction_class: str | None, lang: str) -> dict[str, Any]:
        from molx_agent.chem import validate_reaction

        results: list[dict[str, Any]] = []
        for rxn in reactions:
            try:
                res = validate_reaction(rxn, reaction_class, search_templates=True)
                res["summary"] = describe_validation(res, lang)
            except RetroError as exc:  # one bad reaction is a record, not a lost batch
                res = {"reaction_smiles": rxn, "is_valid": False, "error": exc.to_dict(),
                       "summary": (f"无法解析反应 {rxn}：{exc.message}" if lang == "zh"
                                   else f"Could not read reaction {rxn}: {exc.message}")}
            results.append(res)
        if len(results) == 1:
            if "error" in results[0]:
                err = results[0]["error"]
                raise ValidationError(err["code"], err["message"], value=reactions[0], hint=err.get("hint"))
            return results[0]
        n_valid = sum(1 for r in results if r.get("is_valid"))
        head = (f"{len(results)} 个反应中 {n_valid} 个有效。" if lang == "zh"
                else f"{n_valid} of {len(results)} reactions are valid.")
        return {"reactions": results, "all_valid": n_valid == len(results), "n_valid": n_valid,
                "summary": head + " " + " ".join(r["summary"] for r in results)}

    def judge_searches(self, searches: list[dict[str, Any]], lang: str) -> dict[str, Any]:
        """Judge every route of every target of the ``disconnection`` results ``searches``."""
        records = [r for s in searches for r in (s.get("targets") or [s])]
        targets = [judge_target(self.engine, r, lang) for r in records]
        verdict = overall_verdict(targets)
        issues = [dict(i, target=t["target_smiles"], target_name=t.get("target_name", ""))
                  for t in targets if t["verdict"] != "accept" for i in t["issues"]]
        first = targets[0]
        best = first["routes"][first["best_route"]] if first.get("best_route") is not None else None
        steps = (best or {}).get("steps") or []
        n_valid = sum(1 for s in steps if s.get("is_valid"))
        head = route_judgement_head(verdict, lang)
        return {"mode": "routes", "verdict": verdict, "issues": issues, "targets": targets,
                "target_smiles": first["target_smiles"], "steps": steps, "n_steps": len(steps), "n_valid": n_valid,
                "all_valid": bool(steps) and n_valid == len(steps),
                "summary": " ".join([head, *(t["summary"] for t in targets)]),
                "attempt_summary": "; ".join(f"{t.get('target_name') or t['target_smiles']}: {t['verdict']}"
                                             for t in targets)}


__all__ = ["ValidationAgent", "describe_validation", "judge_route_dict", "judge_target", "overall_verdict"]

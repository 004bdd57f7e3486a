"""ValidationAgent: checks reactions (``reaction_validation`` intent) and the steps of a planned route.

- ``inputs["reaction_smiles"]`` (one or more ``a.b>reagents>p`` strings): each goes through
  :func:`molx_agent.chem.validate_reaction`; one reaction gives its result dict plus ``summary``, several give
  ``reactions`` (one result or error record each), ``all_valid`` and ``summary``.
- otherwise a dependency result carrying ``route_graph`` (``RetroGraph.to_dict()``, from the
  ``disconnection`` worker): every step is validated (its ``reaction_type`` as the reaction class) and the
  result holds ``steps``, ``all_valid``, ``n_steps``, ``n_valid`` and ``summary``.

The summary states the verdict and the balance details (formulas, byproducts, unexplained atoms) in
``state["language"]``.
"""

from __future__ import annotations

import logging
from typing import Any

from molx_agent.agents.base import BaseAgent
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


class ValidationAgent(BaseAgent):
    """Worker ``validation``: reaction validation and per-step route validation."""

    name = "validation"
    description = "Validates reactions (atom balance, forward validation, byproducts) and route steps."

    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        from molx_agent.chem import validate_reaction

        lang = state.get("language") or "en"
        inputs = task.get("inputs") or {}
        options = inputs.get("options") or {}
        reactions = inputs.get("reaction_smiles") or []
        if isinstance(reactions, str):
            reactions = [reactions]
        reaction_class = options.get("reaction_class")
        if reactions:
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
        route = next((d["route_graph"] for d in self.dependency_results(task, state)
                      if isinstance(d, dict) and d.get("route_graph")), None)
        if route:
            return self._validate_route(route, lang)
        raise ValidationError(
            "no_reaction", "no reaction SMILES and no route to validate", value=inputs.get("query"),
            hint="write the reaction as 'reactants>>product', e.g. CC(=O)Cl.Nc1ccc(O)cc1>>CC(=O)Nc1ccc(O)cc1",
        )

    @staticmethod
    def _validate_route(route: dict[str, Any], lang: str) -> dict[str, Any]:
        from molx_agent.chem import validate_reaction

        steps = []
        for node in route.get("reaction_nodes") or []:
            rxn = node.get("reaction_smiles") or ""
            rclass = node.get("reaction_type") or (node.get("template_evidence") or {}).get("category") or None
            row: dict[str, Any] = {"step_id": node.get("step_id"), "reaction_smiles": rxn, "reaction_type": rclass}
            try:
                # as the route search judged the step: with the proposing template's atom map when the step
                # has one, and a named template that regenerates the step overrides the alignment gates
                mapped = _mapped_form(node.get("mapped_reaction") or "", rxn)
                res = validate_reaction(mapped or rxn, rclass, search_templates=True)
                row["atom_map_source"] = "template" if mapped else "alignment"
                row.update({
                    "is_valid": res["is_valid"], "verdict": res["verdict"], "issues": res["issues"],
                    "byproducts": res["byproducts"], "balance_score": res["atom_balance"]["balance_score"],
                    "feasibility_score": res["feasibility_assessment"]["feasibility_score"],
                    "hard_fail_reasons": res["feasibility_assessment"]["hard_fail_reasons"],
                })
            except RetroError as exc:
                row.update({"is_valid": False, "error": exc.to_dict()})
            steps.append(row)
        n_valid = sum(1 for s in steps if s.get("is_valid"))
        target = route.get("target_smiles", "")
        if not steps:
            summary = ("路线没有反应步骤可验证（目标可能已是起始原料）。" if lang == "zh"
                       else "The route has no reaction steps to validate (the target may already be a starting material).")
        elif lang == "zh":
            bad = [f"{s['step_id']}（{', '.join(s.get('hard_fail_reasons') or [s.get('error', {}).get('code', '?')])}）"
                   for s in steps if not s.get("is_valid")]
            summary = f"{target} 路线共 {len(steps)} 步，{n_valid} 步通过正向验证。" + (
                "未通过：" + "；".join(bad) + "。" if bad else "所有步骤原子守恒检查与硬性门槛均通过。")
        else:
            bad = [f"{s['step_id']} ({', '.join(s.get('hard_fail_reasons') or [s.get('error', {}).get('code', '?')])})"
                   for s in steps if not s.get("is_valid")]
            summary = f"Route to {target}: {n_valid} of {len(steps)} steps pass forward validation." + (
                " Failing: " + "; ".join(bad) + "." if bad else " Every step passes the atom-balance and hard-gate checks.")
        return {"target_smiles": target, "steps": steps, "n_steps": len(steps), "n_valid": n_valid,
                "all_valid": bool(steps) and n_valid == len(steps), "summary": summary}


__all__ = ["ValidationAgent", "describe_validation"]

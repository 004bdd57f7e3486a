"""Session commands that change the state: init, next, try_*, custom_cap, select, commit, accept, skip, ..."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from molx_agent.errors import ChemistryError, ValidationError
from molx_agent.interfaces._engine import resolve_target
from molx_agent.interfaces.session import engine
from molx_agent.interfaces.session.commands import (
    bond_atoms,
    bond_row,
    compact_context,
    current_context,
    linear_target_for,
    require_current,
    status_view,
)
from molx_agent.interfaces.session.context import (
    build_decision_context,
    no_disconnection,
    quick_terminal,
    reaction_type_name,
)
from molx_agent.interfaces.session.engine import SessionEngine
from molx_agent.interfaces.session.sandbox import attempt_summary, evaluate_attempt
from molx_agent.interfaces.session.state import SessionState, empty_sandbox
from molx_agent.retro.route import (
    DecisionRecord,
    LLMDecision,
    ProtectionEntry,
    ReactionNode,
    TemplateEvidence,
)


# ------------------------------------------------------------------------------------------------
# init / next
# ------------------------------------------------------------------------------------------------
def cmd_init(session_file: Path, a: dict[str, Any], retro: SessionEngine) -> tuple[SessionState, dict[str, Any]]:
    if session_file.is_dir():
        raise ValidationError("session_not_a_file", f"session path is a directory: {session_file}",
                              value=str(session_file), hint="give a file name, e.g. session.json")
    if session_file.exists() and not a["overwrite"]:
        raise ValidationError("session_exists", f"session file already exists: {session_file}",
                              value=str(session_file), hint="pick another file or pass \"overwrite\": true")
    smiles, resolved_name = resolve_target(
        a["target"], message="init: RDKit cannot parse the target SMILES {text!r} (nor is it a known name)")
    target = engine.canonical_or_none(smiles)
    if target is None:  # pragma: no cover - the resolver returns parsable SMILES only
        raise ChemistryError("invalid_smiles", f"init: RDKit cannot parse the target SMILES {a['target']!r}",
                             value=a["target"])
    name = a["name"] or resolved_name
    config: dict[str, Any] = {}
    for key in ("terminal_cs_threshold", "max_steps", "max_depth", "stock", "language", "top_k"):
        if a[key] is not None:
            config[key] = a[key]
    for key in ("max_steps", "max_depth", "top_k"):
        if key in config and config[key] < 1:
            raise ValidationError("bad_argument_value", f"init: {key} must be >= 1", value=config[key])
    state = SessionState.new(target, name, config)
    if "stock" in config:  # fail now on an unreadable stock, not in the middle of the session
        retro.availability(target, config["stock"])
    cs = engine.cs_score(target, float(state.config["terminal_cs_threshold"]))
    state.target["cs_score"] = cs["cs_score"]
    node = state.graph.molecule_nodes[state.graph.target_id]
    node.complexity = cs
    node.availability = retro.availability(target, str(state.config["stock"]))
    state.audit.target_cs_score = float(cs["cs_score"] or 0.0)
    state.audit.max_linear_target = linear_target_for(cs["cs_score"])
    if a["strategic_plan"]:
        state.audit.strategic_plan.update(a["strategic_plan"])
    return state, {"ok": True, "session_id": state.session_id, "session_file": str(session_file),
                   "target": target, "name": name, "cs_score": cs["cs_score"],
                   "classification": cs["classification"], "max_linear_target": state.audit.max_linear_target,
                   "in_stock": node.availability["available"], "stock_source": node.availability["source"]}


def _mark_terminal(state: SessionState, node_id: str, reason: str, availability: dict[str, Any] | None = None,
                   complexity: dict[str, Any] | None = None) -> None:
    node = state.graph.molecule_nodes[node_id]
    node.role = "terminal"
    node.llm_analysis = {**node.llm_analysis, "terminal_reason": reason}
    if availability is not None:
        node.availability = availability
    if complexity is not None:
        node.complexity = complexity


def cmd_next(state: SessionState, a: dict[str, Any], cmd: Any) -> dict[str, Any]:
    if state.current:
        return {**compact_context(state), "note": "a molecule is already awaiting a decision"}
    auto_terminal: list[dict[str, Any]] = []
    while state.queue:
        smiles, depth = state.queue[0]
        node_id = state.node_by_smiles(smiles)
        node = state.graph.molecule_nodes.get(node_id) if node_id else None
        if node is None or node.role not in ("pending", "target") or state.graph.reaction_for(node.node_id):
            state.queue.pop(0)
            continue
        is_target = node.role == "target"
        if not is_target:
            q = quick_terminal(smiles, state.config, cmd.engine)
            if q["terminal"]:
                state.queue.pop(0)
                _mark_terminal(state, node.node_id, q["reason"], q["availability"], q["complexity"])
                auto_terminal.append({"smiles": smiles, "node_id": node.node_id, "reason": q["reason"]})
                continue
        ctx = build_decision_context(smiles, node.node_id, depth, is_target=is_target, config=state.config,
                                     retro=cmd.engine)
        state.queue.pop(0)
        node.decision_context = ctx
        node.complexity = {"cs_score": ctx["cs_score"], "classification": ctx["classification"],
                           "is_terminal": ctx["is_terminal"]}
        if not is_target and no_disconnection(ctx):
            reason = "no disconnectable bond and no FGI"
            _mark_terminal(state, node.node_id, reason)
            auto_terminal.append({"smiles": smiles, "node_id": node.node_id, "reason": reason})
            continue
        state.current = {"smiles": smiles, "node_id": node.node_id, "depth": depth, "sandbox": empty_sandbox()}
        state.status["status"] = "in_progress"  # work resumed after a finalize
        out = compact_context(state)
        out["auto_terminal"] = auto_terminal
        return out
    state.current = None
    return {"action": "queue_empty", "tree_complete": state.graph.is_complete(), "auto_terminal": auto_terminal,
            "unresolved": [n.node_id for n in state.graph.leaves() if n.role != "terminal"],
            "status": status_view(state)}


# ------------------------------------------------------------------------------------------------
# sandbox
# ------------------------------------------------------------------------------------------------
def cmd_try_bond(state: SessionState, a: dict[str, Any], cmd: Any) -> dict[str, Any]:
    require_current(state, "try_bond")
    row = bond_row(state, a["bond_idx"], "try_bond")
    alts = row["alternatives"]
    if not alts:
        raise ValidationError("no_alternatives", f"try_bond: bond {a['bond_idx']} has no template or model "
                              "proposal", value=a["bond_idx"],
                              hint="use smart_cap/custom_cap or try_precursors with your own precursors")
    if not 0 <= a["alt_idx"] < len(alts):
        raise ValidationError("invalid_alt_idx", f"try_bond: bond {a['bond_idx']} has alternatives "
                              f"0..{len(alts) - 1}", value=a["alt_idx"])
    alt = alts[a["alt_idx"]]
    return evaluate_attempt(state, alt["precursors"], engine=cmd.engine, source=alt["source"],
                            reaction_type=reaction_type_name(alt["template"]),
                            template_id=alt.get("template_id", ""), template_name=alt["template"],
                            category=alt.get("category") or "", confidence=alt.get("score"),
                            mapped_reaction=alt.get("mapped_reaction", ""), model_score=alt.get("model_score"),
                            origin={"bond_idx": a["bond_idx"], "alt_idx": a["alt_idx"]})


def cmd_try_precursors(state: SessionState, a: dict[str, Any], cmd: Any) -> dict[str, Any]:
    require_current(state, "try_precursors")
    if not a["precursors"]:
        raise ValidationError("missing_argument", "try_precursors: give at least one precursor SMILES",
                              value="precursors")
    return evaluate_attempt(state, a["precursors"], engine=cmd.engine, source="llm_proposed",
                            reaction_type=a["reaction_type"], template_id=a["template_id"],
                            category=a["category"] or None)


def cmd_try_fgi(state: SessionState, a: dict[str, Any], cmd: Any) -> dict[str, Any]:
    ctx = current_context(state, "try_fgi")
    fgis = ctx["fgi"]
    if not 0 <= a["fgi_idx"] < len(fgis):
        raise ValidationError("invalid_fgi_idx", f"try_fgi: FGI index {a['fgi_idx']} does not exist "
                              + (f"(0..{len(fgis) - 1})" if fgis else "(no FGI proposed for this molecule)"),
                              value=a["fgi_idx"])
    f = fgis[a["fgi_idx"]]
    return evaluate_attempt(state, f["precursors"], engine=cmd.engine, source="fgi",
                            reaction_type=reaction_type_name(f["template"]),
                            template_id=f.get("template_id", ""), template_name=f["template"],
                            category=f.get("category") or "", confidence=f.get("score"),
                            mapped_reaction=f.get("mapped_reaction", ""), model_score=f.get("model_score"),
                            origin={"fgi_idx": a["fgi_idx"]})


def cmd_custom_cap(state: SessionState, a: dict[str, Any], cmd: Any) -> dict[str, Any]:
    ctx = current_context(state, "custom_cap")
    atoms = bond_atoms(state, a["bond_idx"], "custom_cap")
    capped = engine.custom_capping(ctx["smiles"], atoms, a["cap_i"], a["cap_j"])
    fragments = capped.get("fragments") or []
    reaction_type = a["reaction_type"] or capped.get("reaction_type") or "custom capping"
    attempt = evaluate_attempt(state, fragments, engine=cmd.engine, source="custom_cap", reaction_type=reaction_type,
                               origin={"bond_idx": a["bond_idx"], "cap_i": a["cap_i"], "cap_j": a["cap_j"]})
    return {"ok": bool(fragments), "fragments": fragments, "capping": capped, **attempt}


def cmd_sandbox_clear(state: SessionState, a: dict[str, Any], _cmd: Any) -> dict[str, Any]:
    cur = require_current(state, "sandbox_clear")
    n = cur["sandbox"]["n_attempts"]
    cur["sandbox"] = empty_sandbox()
    return {"ok": True, "cleared": n}


def cmd_select(state: SessionState, a: dict[str, Any], _cmd: Any) -> dict[str, Any]:
    cur = require_current(state, "select")
    attempts = cur["sandbox"]["attempts"]
    if not 0 <= a["idx"] < len(attempts):
        raise ValidationError("invalid_attempt_idx", f"select: sandbox attempt {a['idx']} does not exist "
                              + (f"(0..{len(attempts) - 1})" if attempts else "(the sandbox is empty)"),
                              value=a["idx"], hint="try_bond / try_precursors / try_fgi add attempts")
    cur["sandbox"]["selected"] = a["idx"]
    return {"ok": True, "selected": a["idx"], "attempt": attempt_summary(attempts[a["idx"]])}


# ------------------------------------------------------------------------------------------------
# commit / accept / skip / finalize
# ------------------------------------------------------------------------------------------------
def _pg_names(groups: list[Any], protects: dict[str, str] | None = None) -> set[str]:
    names = set()
    for g in groups or []:
        name = str(g.get("name")) if isinstance(g, dict) else str(g)
        names.add(name)
        if protects is not None and isinstance(g, dict) and g.get("protects"):
            protects[name] = str(g["protects"])
    return names


def _update_protections(state: SessionState, step_id: str, product: str, precursors: list[str]) -> list[str]:
    """Forward-sense protection lifecycle from the protecting groups gained or lost at this step."""
    protects: dict[str, str] = {}  # PG name -> the functional group it protects
    try:
        prod_pg = _pg_names(engine.analyze(product).get("protecting_groups"), protects)
        prec_pg: set[str] = set()
        for p in precursors:
            prec_pg |= _pg_names(engine.analyze(p).get("protecting_groups"), protects)
    except ChemistryError:
        return []
    events = []
    for pg in sorted(prec_pg - prod_pg):  # forward: the PG is removed by this step
        state.audit.protections.append(ProtectionEntry(functional_group=protects.get(pg, ""), protection=pg,
                                                       install_step="planned", remove_step=step_id,
                                                       status="planned"))
        events.append(f"{pg} removed in {step_id}")
    for pg in sorted(prod_pg - prec_pg):  # forward: installed here; a protection only if removed later
        entry = next((p for p in state.audit.protections if p.protection == pg and p.install_step == "planned"),
                     None)
        if entry is not None:  # otherwise the group is part of the final product, not a protection
            entry.install_step = step_id
            entry.status = "removed"
            events.append(f"{pg} installed in {step_id}")
    return events


def cmd_commit(state: SessionState, a: dict[str, Any], cmd: Any) -> dict[str, Any]:
    cur = require_current(state, "commit")
    sandbox = cur["sandbox"]
    idx = a["idx"] if a["idx"] is not None else sandbox["selected"]
    if idx is None:
        raise ValidationError("nothing_selected", "commit: no sandbox attempt is selected", value=None,
                              hint="give \"idx\" or call select first; sandbox_list shows the attempts")
    if not 0 <= idx < len(sandbox["attempts"]):
        raise ValidationError("invalid_attempt_idx", f"commit: sandbox attempt {idx} does not exist "
                              + (f"(0..{len(sandbox['attempts']) - 1})" if sandbox["attempts"] else
                                 "(the sandbox is empty)"), value=idx)
    if state.graph.n_steps >= int(state.config["max_steps"]):
        raise ValidationError("max_steps_reached", f"commit: the session allows {state.config['max_steps']} steps",
                              value=state.graph.n_steps, hint="accept or skip the remaining molecules")
    if cur["depth"] >= int(state.config["max_depth"]):
        raise ValidationError("max_depth_reached", f"commit: {cur['smiles']} is at depth {cur['depth']} "
                              f"(max_depth {state.config['max_depth']})", value=cur["depth"],
                              hint="accept it as a starting material or skip it")
    att = sandbox["attempts"][idx]
    graph = state.graph
    product_id = cur["node_id"]
    reaction_name = att.get("reaction_type") or att.get("template_name") or ""
    if att["errors"] or (not att["success"] and not a["override_gates"]):
        reasons = [e["message"] for e in att["errors"]] or list(
            (att.get("forward_validation") or {}).get("hard_fail_reasons") or ["forward validation failed"])
        state.audit.decision_history.append(DecisionRecord(
            step_id="", molecule=cur["smiles"], action="propose" if att["source"] == "llm_proposed" else "decide",
            reaction_name=reaction_name, reasoning_summary=a["reasoning"][:300], outcome="gate_failed",
            confidence=a["confidence"]))
        return {"success": False, "outcome": "gate_failed", "attempt_idx": idx, "reasons": reasons,
                "hint": "pick another attempt; override_gates=true commits a valid but gate-failing step "
                        "on your responsibility" if not att["errors"] else "these precursors cannot be committed"}
    decision = LLMDecision(selection_reasoning=a["reasoning"], confidence=a["confidence"],
                           rejected_alternatives=list(a["rejected"]), protection_needed=a["protection_needed"],
                           risk_assessment=a["risk_assessment"] or (
                               "committed against failed forward-validation gates" if not att["success"] else ""))
    source = att["source"] if att["source"] in ("template", "llm_proposed", "fgi", "single_step_model") else (
        "llm_proposed")
    evidence = TemplateEvidence(template_id=att.get("template_id", ""), template_name=att.get("template_name") or
                                reaction_name, category=att.get("category", ""),
                                confidence=float(att.get("confidence") or 0.0), source=source)
    depth = cur["depth"] + 1
    reactant_ids: list[str] = []
    new_terminal: list[str] = []
    new_pending: list[str] = []
    reused: list[str] = []
    for smi in att["precursors"]:
        existing = state.node_by_smiles(smi)
        if existing is not None:
            reactant_ids.append(existing)
            reused.append(smi)
            continue
        node = graph.add_molecule(smi, role="pending", depth=depth)
        reactant_ids.append(node.node_id)
        state.seen_smiles.append(smi)
        q = quick_terminal(smi, state.config, cmd.engine)
        if q["terminal"]:
            _mark_terminal(state, node.node_id, q["reason"], q["availability"], q["complexity"])
            new_terminal.append(smi)
        else:
            node.complexity, node.availability = q["complexity"], q["availability"]
            state.queue.append([smi, depth])
            new_pending.append(smi)
    product = graph.molecule_nodes[product_id]
    if product.role != "target":
        product.role = "intermediate"
    product.llm_analysis = {**product.llm_analysis, "reasoning": a["reasoning"], "confidence": a["confidence"]}
    step_id = f"rxn_{graph.n_steps + 1}"
    fv = dict(att.get("forward_validation") or {})
    if att.get("atom_balance") and "atom_balance" not in fv:
        fv["atom_balance"] = att["atom_balance"]
    rxn = ReactionNode(step_id=step_id, depth=cur["depth"], reaction_smiles=att["reaction_smiles"],
                       product_node=product_id, reactant_nodes=reactant_ids, reaction_type=reaction_name,
                       template_evidence=evidence, llm_decision=decision, forward_validation=fv,
                       score=att.get("confidence"))
    graph.reaction_nodes.append(rxn)
    protection_events = _update_protections(state, step_id, cur["smiles"], att["precursors"])
    for p in a["protections"]:
        state.audit.protections.append(ProtectionEntry.from_dict(p))
    if a["strategic_plan"]:
        state.audit.strategic_plan.update(a["strategic_plan"])
    state.audit.decision_history.append(DecisionRecord(
        step_id=step_id, molecule=cur["smiles"], action="propose" if source == "llm_proposed" else "decide",
        reaction_name=reaction_name, reasoning_summary=a["reasoning"][:300], outcome="committed",
        confidence=a["confidence"]))
    state.audit.linear_step_count = graph.longest_linear_sequence()
    state.current = None
    if state.status.get("status") != "in_progress":
        state.status["status"] = "in_progress"
    out_fv = {k: fv.get(k) for k in ("ok", "pass", "feasibility_score", "hard_fail_reasons")}
    result = {"success": True, "step_id": step_id, "reaction_smiles": rxn.reaction_smiles,
              "new_pending": new_pending, "new_terminal": new_terminal, "reused": reused,
              "tree_complete": graph.is_complete(), "forward_validation": out_fv,
              "linear_steps": state.audit.linear_step_count, "max_linear_target": state.audit.max_linear_target}
    if protection_events:
        result["protection_events"] = protection_events
    if state.audit.linear_step_count > state.audit.max_linear_target:
        result["warning"] = (f"longest linear sequence {state.audit.linear_step_count} exceeds the target "
                             f"{state.audit.max_linear_target} for this molecule")
    return result


def cmd_accept(state: SessionState, a: dict[str, Any], _cmd: Any) -> dict[str, Any]:
    cur = require_current(state, "accept")
    reason = a["reason"] or "accepted as starting material"
    node = state.graph.molecule_nodes[cur["node_id"]]
    _mark_terminal(state, cur["node_id"], f"accepted: {reason}")  # the target too (e.g. it is in stock)
    state.audit.decision_history.append(DecisionRecord(step_id="", molecule=cur["smiles"], action="accept-terminal",
                                                       reasoning_summary=reason[:300], outcome="terminal",
                                                       confidence="high"))
    state.current = None
    return {"success": True, "node_id": cur["node_id"], "smiles": cur["smiles"], "role": node.role,
            "tree_complete": state.graph.is_complete(), "pending_count": len(state.queue)}


def cmd_skip(state: SessionState, a: dict[str, Any], _cmd: Any) -> dict[str, Any]:
    cur = require_current(state, "skip")
    reason = a["reason"] or "skipped"
    node = state.graph.molecule_nodes[cur["node_id"]]
    node.llm_analysis = {**node.llm_analysis, "skipped": reason}
    state.audit.decision_history.append(DecisionRecord(step_id="", molecule=cur["smiles"], action="skip",
                                                       reasoning_summary=reason[:300], outcome="skipped",
                                                       confidence="low"))
    state.current = None
    return {"success": True, "node_id": cur["node_id"], "smiles": cur["smiles"], "skipped": True,
            "unresolved": True, "pending_count": len(state.queue)}


def cmd_finalize(state: SessionState, a: dict[str, Any], _cmd: Any) -> dict[str, Any]:
    g = state.graph
    complete = g.is_complete() and not state.current and not state.queue
    state.status["status"] = "completed" if complete else "incomplete"
    state.status["summary"] = a["summary"]
    unresolved = [n.smiles for n in g.leaves() if n.role != "terminal"]
    return {"success": True, "status": state.status["status"], "tree_complete": complete,
            "steps": g.n_steps, "starting_materials": len([n for n in g.leaves() if n.role == "terminal"]),
            "unresolved": unresolved, "summary": a["summary"]}


__all__ = ["cmd_init", "cmd_next", "cmd_try_bond", "cmd_try_precursors", "cmd_try_fgi", "cmd_custom_cap",
           "cmd_sandbox_clear", "cmd_select", "cmd_commit", "cmd_accept", "cmd_skip", "cmd_finalize"]

"""``disconnection`` worker: multi-step route search for the target(s) of a task, through the injected engine.

Targets come from ``inputs["smiles"]``; without SMILES, from the ``top_compounds`` of a ``sar`` ancestor (most
potent first, ties broken by LLE then LE; at most ``options["max_targets"]``, default 3).  A SAR hit that is itself
sold (verified stock tier) is reported as "buy it" and not searched.  Several targets are searched in parallel
processes (:mod:`molx_agent.agents.search_pool`).

Search settings come from ``SearchConfig`` (the engine's config); task options override them: ``time_limit``,
``max_expansions``, ``max_depth``, ``n_routes``, ``expansion_top_k``, ``exclude_leaves``, ``exclude_steps``,
``allow_probable_leaves`` (what OPTIMIZE changes), ``first_disconnection`` (``{target: {fragments, reaction_type,
label, ...}}``: disconnect there first, then search each fragment), ``research_targets`` (on a re-plan, only these
are searched again), ``stock`` (a :func:`~molx_agent.retro.stock.load_stock` spec).

The ``analysis`` worker's synthesis guidance for a target (strategy, strategic bonds, protection needs) is recorded in
its record (``guidance``) and is what a re-plan uses for the first disconnection.  Routes of earlier attempts are
kept (``route_graphs``, each labelled with its attempt and strategy; ``searches`` lists every search made), so a
re-plan never loses a route and the validation worker judges them all.

Result: the first target's record (``target_smiles``, ``target_name``, ``solved``, ``purchasable``, ``route_graph``,
``route_graphs``, ``routes``, ``partial_route``, ``n_steps``, ``n_expansions``, ``time_s``, ``stock``, ``reasons``,
``stopped_by``, ``searches``, ``guidance``, ``summary``) plus, for several targets, ``targets`` (one such record
each), and ``strategy`` / ``attempt_summary`` (what this attempt did).
"""

from __future__ import annotations

import logging
from typing import Any

from molx_agent.agents.analysis import bond_label_zh, capping_name_zh
from molx_agent.agents.base import BaseAgent
from molx_agent.agents.guided import retro_mode_of
from molx_agent.agents.modules.events import progress_emitter, search_progress
from molx_agent.agents.modules.prompts import verdict_zh
from molx_agent.agents.modules.state import AgentState, Task
from molx_agent.agents.search_pool import SearchJob, run_searches, search_kwargs
from molx_agent.errors import ValidationError

logger = logging.getLogger(__name__)

DEFAULT_MAX_TARGETS = 3
MAX_KEPT_ROUTES = 8


def _canonical(smiles: str) -> str:
    from molx_agent.retro.stock import canonical_smiles

    return canonical_smiles(smiles) or smiles


def _name_for(smiles: str, names: list[str]) -> str:
    """The user's name for ``smiles`` when one of ``names`` resolves to it."""
    from molx_agent.chem.names import resolve_name

    can = _canonical(smiles)
    for name in names:
        resolved = resolve_name(name)
        if resolved and _canonical(resolved) == can:
            return name
    return ""


def _targets(task: Task, state: AgentState, ancestors: list[dict[str, Any]]) -> tuple[list[tuple[str, str]], bool]:
    """``([(smiles, name)], from_hits)``."""
    inputs = task.get("inputs") or {}
    options = inputs.get("options") or {}
    names = [str(n) for n in inputs.get("names") or []]
    smiles = [str(s) for s in inputs.get("smiles") or [] if str(s).strip()]
    if smiles:
        return [(s, _name_for(s, names)) for s in smiles], False
    max_targets = int(options.get("max_targets", DEFAULT_MAX_TARGETS))
    for dep in ancestors:
        top = dep.get("top_compounds") or []
        if top:
            return [(str(c["smiles"]), str(c.get("id") or "")) for c in top[:max_targets] if c.get("smiles")], True
    return [], False


def _guidance(ancestors: list[dict[str, Any]], smiles: str, old: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The ``analysis`` worker's synthesis guidance for ``smiles``; without an analysis task (SAR hits) it is
    computed here, so a re-plan can still disconnect at a strategic bond."""
    want = _canonical(smiles)
    for dep in ancestors:
        for mol in dep.get("molecules") or []:
            if isinstance(mol, dict) and mol.get("guidance") and _canonical(str(mol.get("smiles"))) == want:
                return mol["guidance"]
    if old and old.get("guidance"):
        return old["guidance"]
    from molx_agent.agents.analysis import synthesis_guidance
    from molx_agent.chem import analyze_molecule
    from molx_agent.errors import RetroError

    try:
        return synthesis_guidance(smiles, analyze_molecule(smiles))
    except RetroError as exc:
        logger.info("no synthesis guidance for %s: %s", smiles, exc)
        return None


def _buy_record(smiles: str, name: str, leaf: dict[str, Any], language: str) -> dict[str, Any]:
    label = name or smiles
    source = leaf.get("source") or "stock"
    summary = (f"{label} 本身可购买（已验证库存：{source}）：直接购买即可，无需合成。" if language == "zh"
               else f"{label} is itself sold (verified stock: {source}): buy it, no synthesis needed.")
    return {"target_smiles": smiles, "target_name": name, "purchasable": True, "solved": True,
            "availability": {"tier": leaf.get("tier"), "source": source}, "route_graph": None, "route_graphs": [],
            "routes": [], "n_steps": 0, "searches": [], "summary": summary}


def _stock_record(smiles: str, leaf: dict[str, Any], language: str) -> dict[str, Any]:
    """A fragment that may end a route as it is (no search needed: a search of a stock molecule finds no route)."""
    source = leaf.get("source") or "stock"
    return {"target_smiles": smiles, "solved": True, "in_stock": True, "route_graphs": [], "route_graph": None,
            "n_expansions": 0, "time_s": 0.0, "stock": source, "reasons": [],
            "availability": {"available": True, "source": source, "tier": leaf.get("tier")},
            "summary": f"{smiles}: 库存中有（{source}）" if language == "zh" else f"{smiles}: in stock ({source})"}


def graft_route(graph: Any, node_id: str, sub: Any) -> None:
    """Attach the route ``sub`` (a RetroGraph) under molecule ``node_id`` of ``graph``."""
    mapping = {sub.target_id: node_id}
    top = graph.molecule_nodes[node_id]
    src = sub.molecule_nodes[sub.target_id]
    top.availability = dict(src.availability)
    top.complexity = dict(src.complexity)
    if not sub.reaction_nodes:
        top.role = "terminal" if src.in_stock else src.role if src.role != "target" else "pending"
        return

    def walk(old_id: str) -> None:
        rxn = sub.reaction_for(old_id)
        if rxn is None:
            return
        new = graph.add_reaction(
            mapping[old_id], [sub.molecule_nodes[r].smiles for r in rxn.reactant_nodes], rxn.reaction_smiles,
            reaction_type=rxn.reaction_type, template_evidence=rxn.template_evidence, llm_decision=rxn.llm_decision,
            forward_validation=dict(rxn.forward_validation), score=rxn.score, mapped_reaction=rxn.mapped_reaction)
        for old_r, new_r in zip(rxn.reactant_nodes, new.reactant_nodes, strict=True):
            mapping[old_r] = new_r
            o, n = sub.molecule_nodes[old_r], graph.molecule_nodes[new_r]
            n.role, n.availability, n.complexity, n.name = o.role, dict(o.availability), dict(o.complexity), o.name
            walk(old_r)

    walk(sub.target_id)


def compose_first_disconnection(target: str, name: str, spec: dict[str, Any], judgement: dict[str, Any],
                                fragment_records: list[dict[str, Any]], language: str) -> dict[str, Any]:
    """One route: the strategic first step, then each fragment's best route (or the fragment left unsolved)."""
    from molx_agent.retro.export import to_aizynth_tree
    from molx_agent.retro.route import RetroGraph, TemplateEvidence

    fragments = list(spec.get("fragments") or [])
    graph = RetroGraph.new(target, name)
    evidence = TemplateEvidence(template_name=str(spec.get("reaction_type") or ""),
                                category=str(spec.get("reaction_type") or ""),
                                confidence=float(spec.get("confidence") or 0.0), source="strategic_disconnection")
    rxn = graph.add_reaction(graph.target_id, fragments, reaction_type=str(spec.get("reaction_type") or ""),
                             template_evidence=evidence,
                             forward_validation={k: v for k, v in judgement.items() if k != "steps"})
    solved_frags = []
    for node_id, rec in zip(rxn.reactant_nodes, fragment_records, strict=True):
        node = graph.molecule_nodes[node_id]
        if rec.get("in_stock"):
            node.role, node.availability = "terminal", dict(rec["availability"])
            solved_frags.append(True)
            continue
        sub = (rec.get("route_graphs") or [None])[0] if rec.get("solved") else \
            (rec.get("route_graph") or rec.get("partial_route_graph"))
        if sub:
            graft_route(graph, node_id, RetroGraph.from_dict(sub))
        solved_frags.append(bool(rec.get("solved")))
    step_ok = judgement.get("verdict") != "invalid"
    solved = step_ok and all(solved_frags)
    graph.metadata.update(source="strategic_disconnection", strategy="strategic_disconnection",
                          first_disconnection={k: spec.get(k) for k in ("label", "reaction_type", "fragments")})
    label = name or target
    frag_text = "; ".join(f"{f}: {'solved' if ok else 'unsolved'}" for f, ok in zip(fragments, solved_frags,
                                                                                      strict=True))
    if language == "zh":
        summary = (f"在战略键（{bond_label_zh(spec.get('label'))}，{capping_name_zh(spec.get('reaction_type'))}）处先切断 "
                   f"{label}，再分别搜索片段："
                   f"{frag_text}；第一步判定：{verdict_zh(judgement.get('verdict'))}。")
    else:
        summary = (f"First disconnection of {label} at the strategic bond ({spec.get('label')}, "
                   f"{spec.get('reaction_type')}) into {' + '.join(fragments)}, then fragment searches: {frag_text}; "
                   f"first step judged {judgement.get('verdict')}.")
    return {"solved": solved, "graph": graph.to_dict(), "tree": to_aizynth_tree(graph), "summary": summary,
            "step_judgement": {k: judgement.get(k) for k in ("verdict", "issues", "feasibility_score",
                                                             "hard_fail_reasons")},
            "fragments": [{"smiles": f, "solved": ok, "summary": r.get("summary")}
                          for f, ok, r in zip(fragments, solved_frags, fragment_records, strict=True)]}


def _route_key(graph: dict[str, Any]) -> tuple[str, ...]:
    return tuple(sorted(r.get("reaction_smiles", "") for r in graph.get("reaction_nodes") or []))


def _merge_routes(new: list[dict[str, Any]], old: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out, seen = [], set()
    for g in [*new, *old]:
        key = _route_key(g)
        if key and key not in seen:
            seen.add(key)
            out.append(g)
    return out[:MAX_KEPT_ROUTES]


class DisconnectionAgent(BaseAgent):
    """Finds routes to purchasable materials with the engine's route search (see the module docstring)."""

    name = "disconnection"
    description = "Multi-step retrosynthesis: best-first route search ending in purchasable materials"
    option_keys = ("time_limit", "max_expansions", "max_depth", "n_routes", "expansion_top_k", "exclude_leaves",
                   "exclude_steps", "allow_probable_leaves", "first_disconnection", "max_targets", "stock",
                   "research_targets", "retro_mode")

    def _engine_for(self, options: dict[str, Any]) -> Any:
        engine = self.engine
        if options.get("stock"):
            from molx_agent.retro.engine import RetroEngine

            return RetroEngine(model=engine.model, stock=options["stock"], config=engine.config)
        return engine

    def _run(self, task: Task, state: AgentState) -> dict[str, Any]:
        language = state.get("language", "en") or "en"
        options = dict((task.get("inputs") or {}).get("options") or {})
        ancestors = self.ancestor_results(task, state)
        targets, from_hits = _targets(task, state, ancestors)
        if not targets:
            raise ValidationError(
                "no_target",
                "no target molecule for route search" if language != "zh" else "没有可用于路线搜索的目标分子",
                hint="give the target as a SMILES or a known name, e.g. 'Plan a synthesis of CC(=O)Nc1ccc(O)cc1'",
            )
        engine = self._engine_for(options)
        attempt = len(task.get("attempts") or []) + 1
        run_options = dict(state.get("options") or {})
        if retro_mode_of(options, run_options, self.settings) == "guided":
            return self._run_guided(task, state, targets, from_hits, engine, options, run_options, ancestors,
                                    language)
        strategy = options.get("strategy") or "search"
        previous = {_canonical(r.get("target_smiles", "")): r
                    for r in _records((state.get("results") or {}).get(task.get("id", "")) or {})}
        research = {_canonical(s) for s in options.get("research_targets") or []}
        kwargs = search_kwargs(options)
        first_dis = options.get("first_disconnection") or {}
        records: list[dict[str, Any] | None] = []
        jobs: list[SearchJob] = []
        plan: list[tuple[int, str, Any]] = []  # (record index, kind, payload)
        for smiles, name in targets:
            can = _canonical(smiles)
            old = previous.get(can)
            if old is not None and research and can not in research:
                records.append(dict(old))  # accepted last time: not searched again
                continue
            leaf = engine.judge_leaf(smiles)
            if from_hits and leaf.get("tier") == "verified":
                records.append(_buy_record(smiles, name, leaf, language))
                continue
            idx = len(records)
            records.append(None)
            spec = first_dis.get(can) if isinstance(first_dis, dict) else None
            if spec and spec.get("fragments"):
                slots: list[Any] = []
                for frag in spec["fragments"]:
                    frag_leaf = engine.judge_leaf(frag)
                    if frag_leaf.get("accept"):
                        slots.append(_stock_record(frag, frag_leaf, language))
                    else:
                        slots.append(len(jobs))
                        jobs.append(SearchJob(frag, "", kwargs, language))
                plan.append((idx, "strategic", (smiles, name, spec, slots, leaf)))
            else:
                plan.append((idx, "search", (smiles, name, len(jobs), leaf)))
                jobs.append(SearchJob(smiles, name, kwargs, language))
        emit = progress_emitter(self.name, task.get("id"))
        for job in jobs:
            emit("search_start", force=True, target=job.target, target_name=job.name or None,
                 time_limit=job.search.get("time_limit", engine.config.time_limit), n_searches=len(jobs))
        done = run_searches(
            engine, jobs, self.options.get("search_workers"),
            progress=(lambda job: search_progress(emit, job.target, job.name)) if emit else None,
            on_done=(lambda job, rec: emit("search_done", force=True, target=job.target, target_name=job.name or None,
                                           expansions=rec.get("n_expansions"), solved=bool(rec.get("solved")),
                                           routes_found=len(rec.get("route_graphs") or []),
                                           time_s=rec.get("time_s"))) if emit else None)
        for idx, kind, payload in plan:
            if kind == "search":
                smiles, name, j, leaf = payload
                rec = done[j]
            else:
                smiles, name, spec, slots, leaf = payload
                frag_recs = [done[x] if isinstance(x, int) else x for x in slots]
                # the capping's own atom map (each atom of the target mapped to itself) when the analysis gave one:
                # a mapper guessing it can swap two like rings and see a C-C cleavage that is not there
                judgement = engine.judge_step(spec["fragments"], smiles, reaction_type=spec.get("reaction_type"),
                                              mapped_reaction=spec.get("mapped_reaction"))
                comp = compose_first_disconnection(smiles, name, spec, judgement, frag_recs, language)
                rec = {"target_smiles": _canonical(smiles), "target_name": name, "solved": comp["solved"],
                       "route_graphs": [comp["graph"]] if comp["solved"] else [],
                       "route_graph": comp["graph"], "routes": [comp["tree"]] if comp["solved"] else [],
                       "partial_route": None if comp["solved"] else comp["tree"],
                       "n_steps": len(comp["graph"].get("reaction_nodes") or []),
                       "n_expansions": sum(int(r.get("n_expansions") or 0) for r in frag_recs),
                       "time_s": round(sum(float(r.get("time_s") or 0) for r in frag_recs), 3),
                       "stock": next((r.get("stock") for r in frag_recs if r.get("stock")), ""),
                       "reasons": [x for r in frag_recs for x in r.get("reasons") or []],
                       "stopped_by": "", "first_disconnection": {**spec, **{k: comp[k] for k in (
                           "step_judgement", "fragments")}}, "summary": comp["summary"]}
            records[idx] = self._finish(rec, leaf, previous.get(_canonical(smiles)), attempt, strategy, options,
                                        _guidance(ancestors, smiles, previous.get(_canonical(smiles))), from_hits,
                                        language)
        final = [r for r in records if r is not None]
        result = dict(final[0])
        if len(final) > 1:
            result["targets"] = final
            n_solved = sum(bool(r.get("solved")) for r in final)
            n_buy = sum(bool(r.get("purchasable")) for r in final)
            head = (f"{n_solved}/{len(final)} 个目标有完整路线或可直接购买。" if language == "zh"
                    else f"Routes found for {n_solved} of {len(final)} targets"
                    + (f" ({n_buy} sold as such)." if n_buy else "."))
            result["summary"] = " ".join([head, *(r["summary"] for r in final)])
        result["strategy"] = strategy
        result["attempt_summary"] = ("；" if language == "zh" else "; ").join(
            _attempt_line(r, attempt, language) for r in final)
        return result

    def _run_guided(self, task: Task, state: AgentState, targets: list[tuple[str, str]], from_hits: bool,
                    engine: Any, options: dict[str, Any], run_options: dict[str, Any],
                    ancestors: list[dict[str, Any]], language: str) -> dict[str, Any]:
        """``retro_mode="guided"``: the seed-000 pipeline, each decision by the LLM, the chemist (``ask``) or the
        rules (:mod:`molx_agent.agents.guided`); one route per target."""
        from pathlib import Path

        from molx_agent.agents.guided import GuidedRetro

        attempt = len(task.get("attempts") or []) + 1
        kwargs = search_kwargs(options)
        previous = {_canonical(r.get("target_smiles", "")): r
                    for r in _records((state.get("results") or {}).get(task.get("id", "")) or {})}

        def search(smiles: str, name: str) -> dict[str, Any]:
            return run_searches(engine, [SearchJob(smiles, name, kwargs, language)],
                                self.options.get("search_workers"))[0]

        ask = bool(options.get("ask", run_options.get("ask", False)))
        guided = GuidedRetro(engine, self.llm, ask=ask, language=language,
                             root=Path(self.settings.output_dir) / "retro", search=search,
                             progress=progress_emitter(self.name, task.get("id")))
        turn = str(state.get("user_query", ""))  # the node run itself is told apart by its checkpoint namespace
        final = []
        for smiles, name in targets:
            leaf = engine.judge_leaf(smiles)
            if from_hits and leaf.get("tier") == "verified":
                final.append(_buy_record(smiles, name, leaf, language))
                continue
            rec = guided.run(dict(task), smiles, name, turn=turn)
            old = previous.get(_canonical(smiles))
            final.append(self._finish(rec, leaf, old, attempt, "guided", options,
                                      _guidance(ancestors, smiles, old), from_hits, language))
        result = dict(final[0])
        if len(final) > 1:
            result["targets"] = final
            result["summary"] = " ".join(r["summary"] for r in final)
        if guided.warnings:
            result["warnings"] = list(dict.fromkeys(guided.warnings))
        result["strategy"] = "guided"
        result["attempt_summary"] = ("；" if language == "zh" else "; ").join(
            _attempt_line(r, attempt, language) for r in final)
        return result

    def _finish(self, rec: dict[str, Any], leaf: dict[str, Any], old: dict[str, Any] | None, attempt: int,
                strategy: str, options: dict[str, Any], guidance: dict[str, Any] | None, from_hits: bool,
                language: str) -> dict[str, Any]:
        cfg = self.engine.config
        search = {"attempt": attempt, "strategy": strategy, "solved": bool(rec.get("solved")),
                  "n_routes": len(rec.get("route_graphs") or []), "n_expansions": rec.get("n_expansions", 0),
                  "time_s": rec.get("time_s"), "stopped_by": rec.get("stopped_by"),
                  "reasons": list(rec.get("reasons") or [])[:3],
                  "time_limit": options.get("time_limit", cfg.time_limit),
                  "expansion_top_k": options.get("expansion_top_k", cfg.expansion_top_k),
                  **{k: options[k] for k in ("exclude_leaves", "exclude_steps", "allow_probable_leaves")
                     if k in options}}
        for g in rec.get("route_graphs") or []:
            g.setdefault("metadata", {}).update(attempt=attempt, strategy=strategy)
        old = old or {}
        rec["route_graphs"] = _merge_routes(rec.get("route_graphs") or [], old.get("route_graphs") or [])
        rec["searches"] = [*(old.get("searches") or []), search]
        if rec["route_graphs"] and not rec.get("solved"):
            # this attempt found nothing, an earlier one did: keep its best route as the record's route
            rec["solved"] = True
            rec["route_graph"] = rec["route_graphs"][0]
            rec["summary"] += (" 之前的尝试找到的路线予以保留。" if language == "zh"
                               else " Routes found by earlier attempts are kept.")
        rec["purchasable"] = False
        rec["availability"] = {"tier": leaf.get("tier"), "source": leaf.get("source")}
        if leaf.get("tier") == "verified" and not from_hits:
            rec["summary"] += (f" 注意：该目标本身可直接购买（{leaf.get('source')}）。" if language == "zh"
                               else f" Note: the target itself is sold ({leaf.get('source')}).")
        if guidance:
            rec["guidance"] = guidance
        return rec


def _attempt_line(record: dict[str, Any], attempt: int, language: str = "en") -> str:
    """What this attempt's search gave for one target (not the routes kept from earlier attempts), in English or
    Chinese."""
    label = record.get("target_name") or record.get("target_smiles")
    zh = language == "zh"
    if record.get("purchasable"):
        return f"{label}：可直接购买" if zh else f"{label}: buy it"
    search = (record.get("searches") or [{}])[-1]
    if search.get("attempt") != attempt:
        return f"{label}：沿用第 {search.get('attempt')} 次尝试的结果" if zh else \
            f"{label}: kept from attempt {search.get('attempt')}"
    kept = len(record.get("route_graphs") or []) - int(search.get("n_routes") or 0)
    expansions, limit = search.get("n_expansions", 0), search.get("time_limit", "?")
    if zh:
        outcome = f"找到 {search.get('n_routes')} 条新路线" if search.get("solved") else "未找到新路线"
        return (f"{label}：{outcome}（{expansions} 次扩展，时限 {limit} 秒"
                + (f"；保留之前的 {kept} 条路线" if kept > 0 else "") + "）")
    outcome = f"new route(s) found ({search.get('n_routes')})" if search.get("solved") else "no new route"
    return (f"{label}: {outcome} ({expansions} expansions, {limit} s limit"
            + (f"; {kept} earlier route(s) kept" if kept > 0 else "") + ")")


def _records(result: dict[str, Any]) -> list[dict[str, Any]]:
    if not result or result.get("error"):
        return []
    return list(result.get("targets") or [result])


__all__ = ["DisconnectionAgent", "graft_route", "compose_first_disconnection", "DEFAULT_MAX_TARGETS"]

"""Turn a finished :class:`~molx_agent.retro.search.RetroStarSearch` tree into :class:`RetroGraph` routes.

- :func:`build_routes`: the ``k`` best solved routes, ranked by (number of steps, total cost), by a
  k-best dynamic programme over the AND-OR tree (exact for additive costs; each molecule keeps its
  ``k`` best sub-routes).
- :func:`partial_route`: the most promising unsolved tree when nothing is solved, its open leaves
  marked ``pending`` with the reason they are open.
- :func:`unsolved_reasons`: plain-language reasons for an unsolved search.
"""

from __future__ import annotations

import functools
import heapq
import math
import time
from typing import TYPE_CHECKING, Any

from molx_agent.retro.judge import judge_route, route_rank_tier
from molx_agent.retro.route import LLMDecision, RetroGraph, TemplateEvidence
from molx_agent.retro.search_types import reaction_type_of

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from molx_agent.retro.search import RetroStarSearch
    from molx_agent.retro.search_types import MolNode, ReactionEdge

# (n_steps, cost, reaction ids in pre-order, structure, n_flags); structure = (mol, reaction | None, [structures]);
# n_flags counts analog shortcuts and implausible steps (routes with fewer flags rank first under "score")
Entry = tuple[int, float, tuple[int, ...], tuple[Any, Any, list[Any]], int]


def _key_steps(entry: Any) -> tuple[Any, ...]:
    return entry[0], round(entry[1], 9), entry[2]


def _key_cost(entry: Any) -> tuple[Any, ...]:
    return round(entry[1], 9), entry[0], entry[2]


def _key_score(step_weight: float) -> Any:
    """Route score ranking: fewer flags (analog shortcuts, implausible steps) first, then the route score
    ``cost + step_weight x steps`` (calibrated step costs, leaf costs and a cost per step), then fewer steps."""

    def key(entry: Any) -> tuple[Any, ...]:
        return entry[4], round(entry[1] + step_weight * entry[0], 9), entry[0], entry[2]

    return key


def rank_key(rank_by: str, step_weight: float = 1.0) -> Any:
    """The k-best ordering of ``SearchConfig.rank_by`` (every key is additive over sub-routes, so k-best is exact)."""
    if rank_by == "score":
        return _key_score(step_weight)
    return {"steps": _key_steps, "cost": _key_cost}[rank_by]


def route_score(entry: Any, step_weight: float = 1.0) -> float:
    """The route score of a k-best entry: its total cost plus ``step_weight`` per step (lower is better)."""
    return round(entry[1] + step_weight * entry[0], 4)


def _combine(a: Any, b: Any) -> Any:
    """One more child's sub-route ``b`` added to a partial combination ``a`` of a reaction's children."""
    return a[0] + b[0], a[1] + b[1], a[2] + b[2], [*a[3], b[3]], a[4] + b[4]


def _merge(k: int, left: list[Any], right: list[Any], key: Any) -> list[Any]:
    """The ``k`` best combinations of one entry of ``left`` with one of ``right``, both sorted by ``key``, best first.

    Every key is additive over sub-routes (counts and costs add, reaction ids concatenate in pre-order, and two
    different sub-routes of one molecule never have one id sequence a prefix of the other), so ``left[i] + right[j]``
    never ranks before ``left[i-1] + right[j]`` or ``left[i] + right[j-1]``: a walk from (0, 0) that pops the best
    combination and offers its two successors finds the ``k`` best after about ``2k`` combinations instead of all
    ``len(left) x len(right)``."""
    if not left or not right:
        return []

    def entry(i: int, j: int) -> tuple[Any, int, int, Any]:
        c = _combine(left[i], right[j])
        return key((c[0], c[1], c[2], None, c[4])), i, j, c

    heap = [entry(0, 0)]
    seen = {(0, 0)}
    out: list[Any] = []
    while heap and len(out) < k:
        _, i, j, c = heapq.heappop(heap)
        out.append(c)
        for ni, nj in ((i + 1, j), (i, j + 1)):
            if ni < len(left) and nj < len(right) and (ni, nj) not in seen:
                seen.add((ni, nj))
                heapq.heappush(heap, entry(ni, nj))
    return out


def _kbest(mol: MolNode, k: int, memo: dict[int, list[Entry]], key: Any = _key_steps,
           validated_only: bool = False, leaf_flags: Callable[[MolNode], int] | None = None) -> list[Entry]:
    if mol.in_stock:
        return [(0, mol.leaf_cost, (), (mol, None, []), mol.n_flags if leaf_flags is None else leaf_flags(mol))]
    if mol.id in memo:
        return memo[mol.id]
    candidates: list[Entry] = []
    for rxn in mol.reactions:
        if not rxn.solved or (validated_only and not rxn.validated):
            continue
        combos: list[tuple[int, float, tuple[int, ...], list[Any], int]] = [(0, 0.0, (), [], 0)]
        for child in rxn.children:
            combos = _merge(k, combos, _kbest(child, k, memo, key, validated_only, leaf_flags), key)
            if not combos:
                break
        for steps, cost, ids, kids, flags in combos:
            candidates.append((steps + 1, cost + rxn.cost, (rxn.id, *ids), (mol, rxn, kids),
                               flags + int(rxn.implausible)))
    memo[mol.id] = heapq.nsmallest(k, candidates, key=key)
    return memo[mol.id]


def _availability(node: MolNode, stock_name: str, reason: str = "") -> dict[str, Any]:
    data: dict[str, Any] = {"available": node.in_stock, "source": node.source, "stock": stock_name,
                            "tier": node.tier if node.in_stock else "unavailable"}
    leaf = node.leaf or {}
    if node.in_stock:
        data["leaf_cost"] = round(node.leaf_cost, 4)
        if leaf.get("false_positive_rate") is not None:
            data["false_positive_rate"] = leaf["false_positive_rate"]
        if leaf.get("reactive"):
            data["reactive"] = leaf["reactive"]
        if node.analog is not None:
            data["analog_of_target"] = node.analog
    else:
        data["stock_tier"] = node.tier  # what the stock said, when the leaf policy refused it
        if leaf.get("reason"):
            data["not_a_leaf_because"] = leaf["reason"]
    if node.reacting:
        data["reacts_as"] = node.reacting  # the stock lists the molecule in another form (e.g. neutral parent)
    if reason:
        data["reason"] = reason
    return data


def _add_step(graph: RetroGraph, product_id: str, rxn: ReactionEdge, kids: list[Any]) -> list[str]:
    pred = rxn.prediction
    score = float(getattr(pred, "score", 0.0) or 0.0)
    name = getattr(pred, "reaction_name", "") or ""
    category = getattr(pred, "category", "") or ""
    siblings = rxn.parent.reactions
    rank = siblings.index(rxn) + 1
    alternatives = [
        {"method": getattr(r.prediction, "reaction_name", "") or getattr(r.prediction, "template_id", ""),
         "reason": f"higher route cost ({r.value:.2f} vs {rxn.value:.2f})" if r.value < math.inf else "dead end"}
        for r in siblings if r is not rxn
    ][:3]
    step = graph.add_reaction(
        product_id,
        [child[0].smiles for child in kids],
        reaction_type=reaction_type_of(pred),
        template_evidence=TemplateEvidence(
            template_id=str(getattr(pred, "template_id", "") or ""),
            template_name=name,
            category=category,
            confidence=round(score, 6),
            source="single_step_model",
        ),
        llm_decision=LLMDecision(
            selection_reasoning=(
                f"Retro* search (rules): accepted proposal {rank} of {len(siblings)} for this molecule; "
                f"model score {score:.3g}, step cost {rxn.cost:.2f}"
                + ("" if rxn.full_score is None else
                   f"; full single-step model {rxn.full_score:.3g}" if rxn.full_score > 0 else
                   "; not proposed by the full single-step model (routes re-ranked with it)")
                + (" (under the plausibility floor: used because nothing better solved this molecule)"
                   if rxn.implausible else "")
            ),
            confidence="high" if score >= 0.5 else "medium" if score >= 0.1 else "low",
            rejected_alternatives=alternatives,
        ),
        forward_validation=dict(rxn.validation),
        score=round(score, 6),
        mapped_reaction=getattr(pred, "mapped_reaction", "") or "",
    )
    return step.reactant_nodes


def _fill(graph: RetroGraph, node_id: str, structure: Any, stock_name: str) -> None:
    mol, rxn, kids = structure
    gnode = graph.molecule_nodes[node_id]
    if rxn is None:
        gnode.availability = _availability(mol, stock_name, "" if mol.in_stock else _open_reason(mol))
        gnode.role = "terminal" if mol.in_stock else "pending"
        return
    gnode.availability = _availability(mol, stock_name)
    for child_id, child in zip(_add_step(graph, node_id, rxn, kids), kids, strict=True):
        _fill(graph, child_id, child, stock_name)


def _open_reason(mol: MolNode) -> str:
    if mol.note:
        return mol.note
    return "not expanded before the search stopped" if not mol.expanded else "no solved disconnection"


def _graph(search: RetroStarSearch, structure: Any, name: str, meta: dict[str, Any]) -> RetroGraph:
    graph = RetroGraph.new(search.target, name=name)
    stock_name = search.stock.name
    _fill(graph, graph.target_id, structure, stock_name)
    target = graph.molecule_nodes[graph.target_id]
    target.role = "target"
    target.availability = {"available": search.target_source is not None, "source": search.target_source,
                           "stock": stock_name, "tier": search.target_tier}
    graph.metadata.update({"source": "retro_star_search", "stock": stock_name, "n_steps": graph.n_steps,
                           "longest_linear_sequence": graph.longest_linear_sequence(), **meta})
    judged = judge_route(graph, search.stock, search.config)
    graph.metadata["route"] = {"confidence": judged["confidence"], "verdict": judged["verdict"],
                               "issues": judged["issues"], "score": meta.get("route_score")}
    return graph


def kbest_routes(search: RetroStarSearch, k: int, rank_by: str = "steps", validated_only: bool = False,
                 leaf_flags: Callable[[MolNode], int] | None = None) -> list[Entry]:
    """The ``k`` best solved routes as k-best entries (no validation; see ``RetroStarSearch.confirm_best``).

    ``validated_only``: only routes whose every step has already passed forward validation.  ``leaf_flags``: the
    flags a bought molecule adds to a route (default: its ``n_flags``, an analog bought one step from the target).
    """
    key = rank_key(rank_by, search.config.route_step_weight)
    return _kbest(search.root, k, {}, key, validated_only, leaf_flags) if search.root.solved else []


def _route_nodes(entry: Entry) -> Iterator[tuple[Any, Any, list[Any]]]:
    """Every (molecule, reaction | None, children) node of one k-best entry's structure, depth first."""
    stack = [entry[3]]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(node[2])  # a leaf has no children


def route_reactions(entry: Entry) -> list[ReactionEdge]:
    """Every reaction of one k-best entry."""
    return [rxn for _mol, rxn, _kids in _route_nodes(entry) if rxn is not None]


def route_leaves(entry: Entry) -> list[MolNode]:
    """Every starting material (bought leaf) of one k-best entry."""
    return [mol for mol, rxn, _kids in _route_nodes(entry) if rxn is None]


def build_routes(search: RetroStarSearch, k: int, name: str = "") -> list[RetroGraph]:
    """The ``k`` best solved routes in ``SearchConfig.rank_by`` order (default: route score, flagged routes last:
    :func:`judge.route_rank_tier`; by default the best routes re-ranked with the full model first:
    ``RetroStarSearch.final_routes``), every step forward-validated; each carries ``metadata.route`` =
    ``{confidence, verdict, issues, score}`` and, when re-ranked, ``metadata.search_route_score`` (the search's own
    route score beside ``route_score``)."""
    entries = search.final_routes(k)
    weight = search.config.route_step_weight

    def built(entry: Entry, **extra: Any) -> RetroGraph:
        meta = {"rank": 0, "solved": True, "total_cost": round(entry[1], 4), "route_score": route_score(entry, weight),
                "n_flags": entry[4], "rank_by": search.config.rank_by, **extra}
        if entry[2] in search.search_costs:  # re-ranked with the full model: the search's own score beside it
            meta["search_route_score"] = route_score((entry[0], search.search_costs[entry[2]]), weight)
        return _graph(search, entry[3], name, meta)

    graphs = [built(entry) for entry in entries]
    worst = min(map(_tier, graphs), default=0)
    if search.config.rank_by == "score" and search.config.clean_alternatives > 0 and worst > 0:
        if worst == 2:
            # every route is an analog shortcut (or has an implausible step or an unisolable molecule): the best
            # solved routes without one, if the search has any, go first (SearchConfig.clean_alternatives)
            alternatives = search.clean_alternatives(search.config.clean_alternatives, {e[2] for e in entries})
            extra = [g for g in (built(e, clean_alternative=True) for e in alternatives) if _tier(g) < 2]
        else:
            # every route has a step a chemist would not run (a mechanism flag): the best solved routes without any,
            # if the search has some among its next best, go first (moxonidine's verified-only routes of 2026-12-07
            # all aminated C5 of 4,5,6-trichloropyrimidine while the process route was the search's sixth)
            extra = _unflagged_alternatives(search, entries, built)
        search.n_clean_alternatives = len(extra)
        graphs = (extra + graphs)[:k]
    if search.config.rank_by == "score" and graphs:
        # the search penalises an analog bought one step from the target; the route judgement also finds one bought
        # several functional-group interconversions away, and steps whose mechanism fails: among the routes
        # returned, a route with an analog shortcut, an implausible step or an unisolable molecule never ranks above
        # one without, nor a route with a mechanism flag above a route with none (judge.route_rank_tier; stable:
        # otherwise the route score's order)
        graphs.sort(key=_tier)
    for i, graph in enumerate(graphs, start=1):
        graph.metadata["rank"] = i
    return graphs


#: How many of the search's next best routes :func:`_unflagged_alternatives` judges at most, and for how long.
ALTERNATIVE_POOL = 30
ALTERNATIVE_SCAN_S = 3.0


def _unflagged_alternatives(search: RetroStarSearch, entries: list[Entry], built: Any) -> list[RetroGraph]:
    """Up to ``SearchConfig.clean_alternatives`` of the search's best solved routes (route-score order, every step
    forward-validated, none of ``entries``) whose route judgement puts them in trust tier 0, built with
    ``clean_alternative=True``.  At most :data:`ALTERNATIVE_POOL` routes beyond ``entries`` are judged, for at most
    :data:`ALTERNATIVE_SCAN_S` seconds."""
    m = search.config.clean_alternatives
    exclude = {e[2] for e in entries}
    stop = time.perf_counter() + ALTERNATIVE_SCAN_S
    out: list[RetroGraph] = []
    for entry in search.confirm_best(len(exclude) + ALTERNATIVE_POOL, rank_by="score"):
        if len(out) >= m or time.perf_counter() > stop:
            break
        if entry[2] in exclude or entry[4]:
            continue  # returned already, or an analog bought or an implausible step (tier 2)
        graph = built(entry, clean_alternative=True)
        if _tier(graph) == 0:
            out.append(graph)
    return out


def _tier(graph: RetroGraph) -> int:
    """The route trust tier of a built route (:func:`judge.route_rank_tier` of its issues)."""
    return route_rank_tier(i["code"] for i in graph.metadata["route"]["issues"])


def _best_partial(search: RetroStarSearch, mol: MolNode) -> tuple[Any, Any, list[Any]]:
    live = [r for r in mol.reactions if search.ensure_valid(r)]
    if mol.in_stock or not live:
        return (mol, None, [])

    def key(r: ReactionEdge) -> tuple[bool, float, int]:
        open_kids = sum(not c.solved for c in r.children)
        return (r.value == math.inf, r.value if r.value < math.inf else float(open_kids), r.id)

    best = min(live, key=key)
    return (mol, best, [_best_partial(search, c) for c in best.children])


def partial_route(search: RetroStarSearch, name: str = "") -> RetroGraph:
    """The most promising unsolved tree (cheapest by the search's values); open leaves are ``pending``."""
    graph = _graph(search, _best_partial(search, search.root), name, {"rank": 0, "solved": False,
                                                               "total_cost": None})
    if not graph.reaction_nodes:
        target = graph.molecule_nodes[graph.target_id]
        target.availability["reason"] = _open_reason(search.root)
    return graph


_STOP_TEXT = {
    "time_limit": "time limit of {time_limit:g} s reached after {n} expansions",
    "max_expansions": "expansion limit of {max_expansions} reached",
    "exhausted": "search space exhausted after {n} expansions: no molecule left to expand within max_depth {max_depth}",
    "n_routes": "stopped after finding the requested routes",
}


def unsolved_reasons(search: RetroStarSearch, stopped_by: str, partial: RetroGraph | None) -> list[str]:
    """Plain-language reasons why no route was found."""
    cfg = search.config
    reasons = [
        "no route ending in stock molecules was found: "
        + _STOP_TEXT.get(stopped_by, stopped_by).format(
            time_limit=cfg.time_limit, n=search.n_expansions, max_expansions=cfg.max_expansions,
            max_depth=cfg.max_depth)
    ]
    if partial is not None:
        for node in partial.leaves():
            if node.role == "pending" or (node.role == "target" and not partial.reaction_nodes):
                why = node.availability.get("reason", "")
                reasons.append(f"{node.smiles}: not in stock ({search.stock.name}){'; ' + why if why else ''}")
    if search.validation_cut and search.root.solved:
        reasons.append("routes to stock were found, but the time limit ended before their steps were all "
                       "forward-validated; a longer time limit can confirm them")
    n_val = search.n_rejected.get("validation", 0)
    if n_val:
        examples = search.rejection_examples.get("validation", [])[:2]
        reasons.append(f"{n_val} proposed steps failed the forward-validation hard gates"
                       + (f" (e.g. {'; '.join(examples)})" if examples else ""))
    n_err = search.n_rejected.get("validator_error", 0)
    if n_err:
        reasons.append(f"{n_err} proposed steps were rejected because forward validation crashed on them")
    return reasons


@functools.lru_cache(maxsize=1)
def _class_names_zh() -> dict[str, str]:
    """A reaction-class name (a step no named template names) -> its Chinese name.
    (Imported here: ``retro.reaction_class`` loads RDKit, which this module does not need otherwise.)"""
    from molx_agent.retro.reaction_class import REACTION_CLASSES, REACTION_CLASSES_ZH

    return {REACTION_CLASSES[k]: v for k, v in REACTION_CLASSES_ZH.items()}


def step_name_zh(kind: str | None) -> str:
    """The Chinese name of a step's name: a reaction class's or a named template's (person names and reagents kept
    as written, "Suzuki 偶联"); "步骤" for an unnamed step, the name itself for any other."""
    if not kind:
        return "步骤"
    if (zh := _class_names_zh().get(kind)) is not None:
        return zh
    from molx_agent.chem.templates import template_name_zh

    return template_name_zh(kind)


def steps_text(steps: list[tuple[str | None, list[str], str]], language: str = "en", max_steps: int = 8) -> str:
    """Steps given as ``(name, reactants, product)`` in forward order, one short clause each (``(1) name: A + B ->
    C``; an unnamed step is called "step"; in Chinese a reaction class or a named reaction is named in Chinese)."""
    parts = []
    for i, (kind, reactants, product) in enumerate(steps[:max_steps], start=1):
        if language == "zh":
            kind = step_name_zh(kind)
        kind = kind or "step"
        parts.append(f"({i}) {kind}: {' + '.join(reactants)} -> {product}")
    if len(steps) > max_steps:
        parts.append(f"... (+{len(steps) - max_steps})")
    return "; ".join(parts)


def route_steps_text(graph: RetroGraph, language: str = "en", max_steps: int = 8) -> str:
    """The steps of a route in forward order, one short clause each (``(1) name: A + B -> C``)."""
    steps = [(rxn.reaction_type or rxn.template_evidence.template_name,
              [graph.molecule_nodes[r].smiles for r in rxn.reactant_nodes],
              graph.molecule_nodes[rxn.product_node].smiles) for rxn in graph.forward_order()]
    return steps_text(steps, language, max_steps)


#: The Chinese clause of each kind of ``reagent_choice`` note, found by a phrase of its English message (the notes of
#: ``chem.fg_warnings.reagent_choice`` and ``chem.mechanism.step_mechanism``).
_REAGENT_CHOICE_ZH = (
    ("nitro group with Fe", "用 Fe/NH4Cl、Fe/AcOH 或 SnCl2 还原硝基，以保留芳基溴/碘、烯烃、炔烃或腈"),
    ("NaBH(OAc)3", "醛的还原胺化用 NaBH(OAc)3，以保留酮"),
    ("LiBH4", "用 LiBH4 而非 LiAlH4 还原酯，以保留酰胺、腈或硝基"),
    ("dianion", "游离羧酸的α-烷基化需经其双负离子（2 当量 LDA，低温），或改为烷基化其酯后再水解"),
    ("iPrMgCl", "带腈基或酯基的芳基/烯基溴或碘化物作有机金属试剂时，用 iPrMgCl·LiCl 低温卤-镁交换（Knochel）制备，"
                "而非镁屑或 -78 °C 以上的正丁基锂"),
)

_ISSUE_ZH = {
    "probable_leaf": "起始原料仅在 ZINC Bloom 过滤器中命中（约 7% 假阳性），需向供应商确认",
    "analog_shortcut": "购买了目标分子的近似类似物并仅做一步官能团转换",
    "implausible_step": "包含模型评分低于合理性下限的步骤",
    "low_score_step": "包含模型评分较低的步骤",
    "reactive_leaf": "起始原料为活性中间体（仅因精确库存条目而接受）",
    "estimated_leaf": "起始原料仅由 SA 评分估计",
    "unresolved_leaf": "有未解决的起始原料",
    "failed_validation": "有步骤未通过正向验证",
    "unvalidated_step": "有步骤未经正向验证",
    "low_feasibility_step": "有步骤的正向验证可行性较低",
    "not_solved": "路线未到达可购原料",
    "competing_reaction": "有步骤存在竞争反应（被消耗的基团也会进攻产物保留的基团）",
    "incompatible_group": "有步骤中产物保留的基团可能无法耐受反应条件（需保护或调整顺序）",
    "reagent_choice": "有步骤需按底物或产物保留的基团选择试剂或条件（" + "；".join(
        clause for _, clause in _REAGENT_CHOICE_ZH) + "）",
    "unactivated_carbanion": "有步骤需要在未活化的 C–H 上生成碳负离子（机理上难以实现；桥头碳的烯醇负离子受 Bredt 规则禁止）",
    "aniline_c_alkylation": "有步骤在游离芳胺存在下对芳环进行 C-烷基化（烷基化剂会先烷基化氮原子）",
    "electrophile_coupling": "有步骤将两个亲电试剂直接偶联成 C–C 键（需还原性交叉亲电偶联或先将一方金属化/硼化，步骤未注明）",
    "unactivated_snar": "有步骤在未活化的芳环上取代氟或烷氧基（亲核芳香取代需要活化基团，Pd/Cu 偶联也不适用）",
    "alcohol_c_acylation": "有步骤让酰卤或磺酰氯与醇（酚）的碳原子成键（实际上羟基会先被酰化/磺酰化生成酯，而非酮或砜）",
    "unsourced_stereocentre": "有步骤由非手性原料生成单一对映体（需不对称催化剂/试剂、手性助剂或拆分，步骤未注明）",
    "unsourced_alkene_geometry": "有步骤新建四取代碳碳双键并给定 E/Z 构型（如 McMurry、Wittig 或脱水），此类反应不控制构型，通常得到 E/Z 混合物，需分离出所画异构体",
    "amine_round_trip": "路线先把芳香碳上的氮除去（如 Sandmeyer 反应），之后又在同一碳上重新连接氮：直接在苯胺上构建新的含氮基团（经异硫氰酸酯、硫脲或肼，或 N-烷基化）通常可省去这段弯路",
    "carried_group": "路线把起始原料上的卤素（或羟基、氨基等）带过若干步后再还原除去，期间没有步骤用到它（若不含该基团的原料有售，直接用它可省去这些步骤）",
    "competing_site": "有步骤只让分子中两个同类基团（胺、醇、酚或酯）之一反应，另一个同样活泼或更活泼（如水解芳酯或位阻酯而保留脂肪族酯；需保护、改用叔丁酯或苄酯，或使用过量对称原料，否则得到混合物）",
    "stripped_amine": "有步骤从叔胺或仲胺（如三乙胺）中剥去烷基来提供氮原子（这类胺只是碱或溶剂，不是氮源）",
    "halide_selectivity": "有步骤在较不活泼的卤素处反应，而同一分子中更活泼的卤素（I > Br > Cl，或环氮、吸电子基邻/对位活化的同种卤素）保留不变（实际会先在更活泼的卤素处反应）",
    "electrophile_selectivity": "有步骤让胺（醇、硫醇、亚磺酸盐）在较弱的亲电位点反应，而产物保留了酰氯、磺酰氯、酸酐、异氰酸酯或α-卤代酮等更强的亲电基团，或让叠氮化物与腈、炔或环氧反应而保留了伯/仲卤代烷或磺酸酯（实际会先与更强的亲电基团反应，需调整步骤顺序）",
    "aromatic_regiochemistry": "有步骤的芳环亲电取代（卤化、硝化、磺化或傅-克反应）发生在取代基不定位、亲电试剂不进攻的位置（如吲哚 C3 空闲时取代其他位置、吡啶环氮的邻位；实际主要生成另一异构体，除非使用步骤未注明的导向金属化或封闭基团）",
    "deactivated_arene": "有步骤对带强吸电子基（硝基、氰基、羰基、磺酰基、三卤甲基）而无给电子基的苯环或吡啶类氮杂环、或给电子基少于环氮的嘧啶类环进行傅-克反应，或对无给电子基的吡啶类环进行硝化、磺化（氯磺化）（这样钝化的环不发生这些取代，强酸还会使环氮质子化，正向得不到产物；需改用金属有机试剂、Pd 催化偶联，由羟基、氨基吡啶（如4-羟基吡啶-3-磺酸）或重氮化引入，或在取代之后再引入该基团）",
    "destabilised_carbocation": "有步骤用羰基、氰基、磺酰基或硝基 α 位的卤代烃对苯环类芳环进行傅-克烷基化（该吸电子基使所需的碳正离子不稳定，Lewis 酸反而与其配位，正向得不到产物，该碳上的立体中心也无法保留；应改用芳基卤化物的 Pd/Ni 催化 α-芳基化、Negishi 或 Kumada 偶联，或先傅-克酰基化再重排或增碳）",
    "carbocation_rearrangement": "有步骤用伯卤代烃（或磺酸酯）对苯环类芳环进行傅-克烷基化：伯碳正离子会先经 1,2-氢或烷基迁移重排为更稳定的仲或叔碳正离子（正丙基氯与苯得异丙苯，异丁基溴得叔丁苯），正向主要得到支链异构体；直链烷基应先傅-克酰基化再还原羰基（Wolff-Kishner、Clemmensen 或 Et3SiH/TFA），或用芳基卤化物与烷基试剂偶联（Kumada、Negishi 或烷基硼的 Suzuki 偶联）",
    "benzylic_halogenation": "有步骤在分子保留游离芳胺、烷基胺或 N-H 吡咯（吲哚）环时对苄位 C–H 卤代（NBS、NCS 或卤素会先在氨基邻/对位或吡咯环的空位卤代芳环，或使烷基胺 N-卤代、氧化，而非夺取苄位氢；应先保护氨基，或由苄醇、醛制备卤甲基）",
    "unprotected_c_acylation": "有步骤在分子保留游离醇羟基或烷基胺（伯胺、仲胺）时对芳环 C–H 进行酰化（酰氯、氯甲酸酯或酸酐会先酰化该羟基或氨基，生成酯、碳酸酯或酰胺，胺还会络合 Lewis 酸；应先保护该基团，或在引入它之前酰化芳环）",
    "mustard_nucleophile": "有步骤以游离的2-卤乙胺（氮芥类，如双(2-氯乙基)胺）的氮作亲核试剂进行芳基化或烷基化，而产物保留其2-卤乙基（游离碱会先环化成氮丙啶鎓离子，自身烷基化或与底物、碱反应；氮芥应由双(2-羟乙基)胺经 SOCl2、POCl3 或 MsCl 氯化制得，只有低温下的酰化或磷酰化可直接使用其盐）",
    "organometallic_carried": "有步骤让有机锂、格氏试剂、有机锌或铜试剂的碳–金属键原样经过另一个反应（这类试剂须现制现用，并在其碳–金属键的反应中消耗；其他反应的酸、亲电试剂或质子性试剂会先使其质子化或进攻它；应先在卤代物或芳烃上完成该步，再制备有机金属试剂）",
    "diaryl_ketone_condensation": "有步骤让二芳基酮（如二苯甲酮、二苯并环庚酮）与仅被一个羰基、亚胺或氰基活化的 C–H 一步缩合成烯（二芳基酮是最弱的羰基亲电体，其羟醛加成可逆，二苯甲酮与丙酮不发生羟醛缩合；一步缩合只适用于双活化 C–H（丙二腈、氰乙酸酯，Knoevenagel 反应，常用 TiCl4）或磷叶立德；否则应先在 -78 °C 加入锂烯醇盐再脱水，或加入另一侧的格氏试剂后使叔醇脱水）",
    "ipso_substitution": "有步骤对保留芳基硼酸（酯）、芳基硅烷或芳基锡烷的分子进行芳环亲电取代（卤化、硝化、磺化或傅-克反应；亲电试剂会先取代硼、硅或锡基团（ipso 取代），强酸还会使芳基硼酸脱硼；应在取代之后再引入该基团）",
    "unprotected_amino_acid": "有步骤在羧酸分子自身保留游离伯胺（或 N-甲基仲胺，如肌氨酸；或与另一游离氨基酸偶联时保留任何游离胺 N-H）的情况下活化该羧酸进行酰胺偶联（活化的羧酸也会酰化自身的氨基，氨基酸自身缩合；应使用 Boc、Cbz 或 Fmoc 保护的衍生物（或 Dane 盐、酰氯盐酸盐）再脱保护）",
    "arene_hydroxylation": "有步骤用过氧化物（H2O2、过氧酸等）直接把芳环 C–H 羟基化（过氧化物不能干净、定位地羟基化芳环；酚应来自芳基硼酸（需先 C–H 硼化或金属化，步骤未注明）、芳基卤化物、甲醚或重氮盐）",
    "oxidation_without_oxidant": "有步骤以水、氢氧根或碳酸盐的氧原子氧化硫、氮或磷（这些不是氧化剂，需要 H2O2、mCPBA 等氧化剂，步骤未注明）",
    "halogen_from_solvent": "有步骤把二氯甲烷、氯仿等溶剂写作卤素来源（溶剂不提供卤素，步骤缺少 SOCl2、NCS、HCl 等卤化试剂，文献记录常省略它）",
    "amide_condensation": "有步骤让胺与酰胺、脲、氨基甲酸酯或酯的羰基直接缩合成脒、胍或亚氨酸酯，或让碳亲核试剂加成到带 N-H 的酰胺或内酰胺羰基上（这类羰基不像酮那样反应，需先用 POCl3、Tf2O、Lawesson 试剂、Meerwein 盐或 N-Boc 等活化，步骤未注明；胍通常由氨腈、S-甲基异硫脲或吡唑甲脒制备，而非脲）",
    "amide_reductive_amination": "有步骤让酰胺、氨基甲酸酯、脲或磺酰胺的 N-H 与酮进行还原胺化，或让内酰胺、酰亚胺等仲酰胺 N-H 与醛进行还原胺化（这类氮的亲核性太弱，不能与酮形成亚胺离子；醛在 Et3SiH/TFA 下只与伯酰胺 NH2 反应，甲酰胺可进行 Leuckart 反应），正向得不到产物；应先烷基化游离胺再酰化，或用卤代烃在碱作用下烷基化酰胺",
    "self_reactive_molecule": "路线中的中间体同时含游离胺与酰氯、磺酰氯、酸酐、异（硫）氰酸酯或β-酮羰基（或为2-卤乙胺），或同时含游离伯/仲醇、硫醇与酰氯，或同时含 N-H 四唑与苄位/烯丙位卤代物，会自身反应（需以盐的形式存在或先保护氨基、羟基、巯基或四唑，路线未注明）",
    "strained_molecule": ("路线需要无法分离的分子（如小环炔烃、违反 Bredt 规则的桥头双键、会脱去 CO2 的氨基甲酸、会脱去卤化氢的 α-卤代胺），"
                          "只能作为瞬态物种存在"),
}
_CONFIDENCE_ZH = {"high": "高", "medium": "中", "low": "低"}


def issue_summary_zh(code: str, messages: Any = ()) -> str | None:
    """The Chinese one-line summary of a route issue code (``retro.judge.ISSUE_TEXT``'s codes; ``None``: another).
    ``messages``: the issues' English messages, which pick the clauses of a ``reagent_choice`` summary that apply
    (every clause when none is recognised)."""
    if code == "reagent_choice":
        text = " ".join(str(m) for m in messages)
        clauses = [clause for phrase, clause in _REAGENT_CHOICE_ZH if phrase in text]
        if clauses:
            return "有步骤需按保留的基团选择试剂或条件：" + "；".join(clauses)
    return _ISSUE_ZH.get(code)


def route_trust_text(graph: RetroGraph, language: str = "en", max_issues: int = 3) -> str:
    """One sentence on a route's confidence and its main issues (from ``metadata.route``)."""
    route = graph.metadata.get("route") or {}
    confidence = route.get("confidence")
    if not confidence:
        return ""
    issues = list(route.get("issues") or [])
    codes = list(dict.fromkeys(i.get("code") for i in issues if i.get("code")))
    if language == "zh":
        text = f"路线可信度：{_CONFIDENCE_ZH.get(confidence, confidence)}"
        if codes:
            text += "（" + "；".join(
                issue_summary_zh(c, [i.get("message") for i in issues if i.get("code") == c]) or c
                for c in codes[:max_issues]) + "）"
        return text + "。"
    text = f"Route confidence: {confidence}"
    if codes:
        first = {c: next(i["message"] for i in issues if i.get("code") == c) for c in codes[:max_issues]}
        text += " (" + "; ".join(f"{c}: {m}" for c, m in first.items()) + ")"
    return text + "."


def route_summary_text(result: Any, *, name: str = "", language: str = "en") -> str:
    """A few sentences about a search result (counts, sources, the top-ranked route's steps), in English or Chinese."""
    label = name or result.target
    if result.solved:
        best = result.routes[0]
        leaves = best.leaves()
        sources = sorted({str(n.availability.get("source")) for n in leaves})
        steps = route_steps_text(best, language)
        trust = route_trust_text(best, language)
        if language == "zh":
            return (f"已为 {label} 找到 {len(result.routes)} 条以可购原料结尾的路线（搜索 {result.time_s:.1f} 秒，"
                    f"{result.n_expansions} 次扩展）。排名第一的路线共 {best.n_steps} 步，最长线性序列 {best.longest_linear_sequence()} 步，"
                    f"{len(leaves)} 个起始原料（来源：{', '.join(sources)}）。正向步骤：{steps}。{trust}")
        return (f"Found {len(result.routes)} route(s) to {label} ending in purchasable materials "
                f"({result.time_s:.1f} s, {result.n_expansions} expansions). The top-ranked route has {best.n_steps} step(s) "
                f"(longest linear sequence {best.longest_linear_sequence()}) and {len(leaves)} starting materials "
                f"(sources: {', '.join(sources)}). Forward steps: {steps}. {trust}")
    why = next((r for r in result.reasons if r.startswith("no route")), result.reasons[0] if result.reasons else "no route found")
    if language == "zh":
        return f"未能为 {label} 找到以可购原料结尾的完整路线（{result.time_s:.1f} 秒，{result.n_expansions} 次扩展）；给出最佳部分路线。原因：{why}"
    return f"No complete route to {label} was found ({result.time_s:.1f} s, {result.n_expansions} expansions); the best partial route is shown. Reason: {why}"


__all__ = [
    "issue_summary_zh",
    "rank_key",
    "route_score",
    "build_routes",
    "kbest_routes",
    "route_leaves",
    "route_reactions",
    "partial_route",
    "unsolved_reasons",
    "route_summary_text",
    "route_steps_text",
    "route_trust_text",
    "step_name_zh",
    "steps_text",
]

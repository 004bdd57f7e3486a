"""Value types of the route search: configuration, internal tree nodes, caches and the result."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from molx_agent.retro.route import RetroGraph

INF = math.inf
ProgressCallback = Callable[[dict[str, Any]], None]


@dataclass
class SearchConfig:
    """Tunable knobs of the search (defaults used by the CLI and the agents)."""

    time_limit: float = 60.0
    # a safety bound: at 60 s the time limit binds (3,000-8,000 expansions); 2,000 stopped 134 of the 600 ref-lin-600
    # targets with time left and 44 of them unsolved (docs/benchmarks.md, "Expansion limit"); peak RSS ~0.6 GB at 10,000
    max_expansions: int = 10_000
    max_depth: int = 7
    n_routes: int = 5
    expansion_top_k: int = 50
    min_score: float = 1e-3
    step_penalty: float = 0.1
    leaf_cost: float = 1.0
    # size-aware leaf estimate: an unexpanded molecule outside the stock costs
    # max(leaf_cost, leaf_cost_base + leaf_cost_per_atom * heavy atoms), the line fitted to the cost of making the
    # intermediates of development reference routes (benchmarks/leaf_cost_fit.py); 0 / 0: the constant leaf_cost
    leaf_cost_base: float = 1.34
    leaf_cost_per_atom: float = 0.234
    # "size" (default): the heavy-atom line above; "learned": the learned value (retro.value: the reactions a
    # molecule's PaRoutes sub-route needs, predicted from its fingerprint, mapped onto the size line's units),
    # at least leaf_cost.  Not the default: no gain on the 100-target route sample (docs/benchmarks.md)
    leaf_estimate: str = "size"
    # the target's own expansion: "union" (default) the search view's predictions and the full single-step model's
    # (learned policy, general templates, reaction scorer), each step at the higher of its two scores, one more model
    # call per search; "search" the search view's alone, like every other molecule.  Measured in docs/benchmarks.md
    # ("The full single-step model for the target's own expansion"): more reference routes in the top 10, the
    # default-stock realism figures unchanged
    target_expansion: str = "union"
    # with target_expansion "union": molecules expanded at depth < union_depth get the union (1: the target alone;
    # 2, the default: the target and its precursors), one more model call per such molecule.  Measured in
    # docs/benchmarks.md ("The union one level down"): more targets solved, the realism figures unchanged
    union_depth: int = 2
    validate: bool = True
    # True: stop once n_routes solved routes exist (a fast first answer); False (default): search to the time or
    # expansion limit and return the best routes found, not the first ones
    stop_at_n_routes: bool = False
    # "score" (default): the route score (calibrated step costs + leaf costs + route_step_weight per step), routes
    # with an analog shortcut or an implausible step after the others; "steps": fewest steps, then lowest cost;
    # "cost": lowest total cost
    rank_by: str = "score"
    route_step_weight: float = 1.0  # route score: added per step (each step costs yield and time)
    # -- leaf policy (retro.judge.judge_leaf) --
    # a Bloom-filter-only (probable) molecule ends a route only when building-block-like ... (15 heavy atoms:
    # measured on the default-stock realism sample, where 18 let 16-atom Bloom hits stand in for 5-step routes)
    probable_leaf_max_atoms: int = 15
    probable_leaf_max_rings: int = 2
    probable_leaf_max_stereocentres: int = 1
    # ... and costs probable_leaf_cost_base + probable_leaf_cost_per_atom x (heavy atoms - 6): never free
    probable_leaf_cost_base: float = 0.5
    probable_leaf_cost_per_atom: float = 0.1
    # a bought near analog of the target (same Murcko scaffold, Tanimoto >= analog_similarity on Morgan radius-2
    # fingerprints) turned into the target by one step that adds at most analog_max_added_atoms heavy atoms (a
    # functional-group interconversion, not a disconnection) is an analog shortcut: analog_penalty is added to its
    # cost and the route ranks after every route without one (naproxen from bromo-naproxen: 0.59, 0 atoms added)
    analog_similarity: float = 0.5
    # ... and at least analog_similarity_single_ring when the target's ring skeleton is one ring (a benzene, pyridine,
    # pyrazine) and the bought molecule lacks part of the target: every building block with that ring shares it, so
    # the skeleton says nothing of how far the molecule is along a synthesis (pyrazinamide from methyl pyrazinoate and
    # ammonia, 0.55, is its synthesis); one that holds the whole target (an ester, ether or halogenated analog:
    # ibuprofen's ethyl ester, 0.64, chloro-ibuprofen, 0.56) keeps the first floor
    analog_similarity_single_ring: float = 0.6
    analog_max_added_atoms: int = 2
    analog_penalty: float = 5.0
    # when every route returned has an analog shortcut, an implausible step or an unisolable molecule (route trust
    # tier 2), up to clean_alternatives of the best solved routes without an analog bought at any depth or an
    # implausible step join them, first (naproxen's five routes of 2026-12-06 all bought 5-chloro-naproxen, while the
    # search had solved real disconnections); likewise when every route returned has a mechanism flag (tier 1), up to
    # clean_alternatives of the search's next best routes that the route judgement puts in tier 0 (at most 30 judged,
    # for at most 3 s: search_routes.ALTERNATIVE_POOL, ALTERNATIVE_SCAN_S); 0 turns both off
    clean_alternatives: int = 2
    # -- constraints a re-plan may add (the agent's OPTIMIZE) --
    allow_probable_leaves: bool = True  # False: only verified (exact stock) molecules end a route
    exclude_leaves: tuple[str, ...] = ()  # SMILES never used as starting materials (canonicalised by the search)
    exclude_steps: tuple[str, ...] = ()  # "reactants>>product" steps never used (canonical, order-insensitive)
    # -- step plausibility (retro.judge.judge_step) --
    # a step the model rates under plausibility_floor costs implausible_penalty more (used only when nothing
    # better solves the molecule) and is flagged; low_score_step flags weak (not implausible) steps
    plausibility_floor: float = 1e-3
    implausible_penalty: float = 10.0
    low_score_step: float = 0.01
    # -- re-ranking the finished routes with the full single-step model (target_expansion "union") --
    # the search expands with the fast view of the model (no learned policy below union_depth); once it stops, the
    # rescore_routes best routes (route score order) get every step re-scored with the full model's probability of
    # the same precursors, p = p_search^(1 - rescore_weight) x p_full^rescore_weight (0.5: the geometric mean; a set
    # the full model does not propose counts as min_score), and the routes are returned in that order (flags and
    # trust tiers first, as always).  rescore_share of the time limit is kept for the extra model calls once the
    # target is solved (5 % left a quarter of the re-rankings without time on the 100-target sample); when they do
    # not all fit, the routes whose tables fit are re-ranked (at least n_routes of them, else the search's order
    # stands).  0 routes: off.  Measured in docs/benchmarks.md ("The finished routes re-ranked with the full model")
    rescore_routes: int = 50
    rescore_weight: float = 0.5
    rescore_share: float = 0.1
    # in that re-ranking, each step the route judgement would warn about at a chemist's glance (a group the step
    # consumes that would also attack one the product keeps, or a kept group the reaction attacks:
    # ``judge.PENALISED_SELECTIVITY_ISSUES``) costs selectivity_penalty more, so a route that needs a protection or
    # another order the route does not show ranks after a clean one of similar score (atenolol: the glycidyl ether
    # opened by isopropylamine before the amino chlorohydrin alkylating the phenol).  Measured in docs/benchmarks.md
    # ("A selectivity warning costs a route 1.5 in the final re-ranking"); so does each aryl nitrogen a route takes off
    # and puts back on the same carbon (``judge.amine_round_trip_count``: clonidine's Sandmeyer bromide aminated
    # again); 0: off (and neither is counted)
    selectivity_penalty: float = 1.5
    # in that re-ranking, a route with any Bloom-filter-only (probable) starting material costs probable_route_penalty
    # more, once per route: a route from verified starting materials alone ranks first when its score is within this
    # of a probable one (metformin's dimethylamine + dicyandiamide route fifth behind four routes from a Bloom-filter
    # hit, tizanidine's literature condensation second).  The search's own leaf cost (probable_leaf_cost_base ...)
    # already prices a probable leaf; this is the chemist's preference for a route whose every bottle is known to be
    # sold.  Measured in docs/benchmarks.md ("Routes from verified starting materials first"); 0: off
    probable_route_penalty: float = 1.0
    reuse_solved: bool = True  # a molecule solved in one branch is solved at once where it recurs (no model call)
    twin_values: bool = True  # a new leaf expanded elsewhere starts from that node's value, not the leaf estimate


def reaction_type_of(prediction: Any) -> str:
    """The reaction type a search step is written and judged under: the proposal's reaction name, else its category
    ("" when it has neither); the route graph's steps (``search_routes._add_step``) and the final re-ranking's
    selectivity check (``RetroStarSearch._rerank``) both read it here."""
    return getattr(prediction, "reaction_name", "") or getattr(prediction, "category", "") or ""


@dataclass(slots=True)  # a search holds hundreds of thousands of nodes: no per-instance dict
class MolNode:
    """An OR node of the search tree (internal)."""

    id: int
    smiles: str
    depth: int
    parent: ReactionEdge | None
    ancestors: frozenset[str]
    in_stock: bool
    source: str | None
    value: float = 0.0
    solved: bool = False
    expanded: bool = False
    reactions: list[ReactionEdge] = field(default_factory=list)
    note: str = ""  # why the molecule could not be expanded (for unsolved reports)
    reacting: str | None = None  # the form the step's template wrote, when the stock lists another (``[C-]#N``)
    tier: str = "unavailable"  # purchasability tier of a leaf (retro.judge.judge_leaf): verified / probable / ...
    leaf_cost: float = 0.0  # cost of buying it (probable leaves are not free; analog shortcuts are penalised)
    leaf: dict[str, Any] | None = None  # the leaf judgement (retro.judge.judge_leaf) when the stock has the molecule
    analog: float | None = None  # Tanimoto to the target when this bought molecule is an analog shortcut
    n_flags: int = 0  # analog shortcuts counted on this leaf (route ranking puts flagged routes last)
    # the selection's next event below this expanded molecule: (V_t contribution, kind, id), see
    # RetroStarSearch._select_once; kept up to date with the values (``_update_mol``)
    event: tuple[float, int, int] = field(default=(INF, 2, 0), repr=False, compare=False)


@dataclass(slots=True)
class ReactionEdge:
    """An AND node of the search tree (internal): one proposal applied to its parent molecule."""

    id: int
    parent: MolNode
    prediction: Any
    cost: float
    validation: dict[str, Any]
    children: list[MolNode] = field(default_factory=list)
    value: float = 0.0
    solved: bool = False
    validated: bool = False  # forward validation is run lazily, before the step is relied upon
    dead: bool = False  # failed the forward-validation hard gates
    implausible: bool = False  # the model's score is under SearchConfig.plausibility_floor (penalised, flagged)
    # the full model's probability of this step when the final re-ranking scored it (0.0: the full model does not
    # propose it), None when it did not (RetroStarSearch._rerank)
    full_score: float | None = None
    # the selection's next event in this reaction's cheapest subtree (see MolNode.event; ``_update_reaction``)
    event: tuple[float, int, int] = field(default=(INF, 2, 0), repr=False, compare=False)


@dataclass
class SearchResult:
    """Outcome of :func:`search_routes`."""

    target: str
    solved: bool
    routes: list[RetroGraph]
    n_expansions: int
    time_s: float
    reasons: list[str]
    stock: str
    partial_route: RetroGraph | None = None
    stopped_by: str = ""
    stats: dict[str, Any] = field(default_factory=dict)

    @property
    def best_route(self) -> RetroGraph | None:
        """The best solved route, else the best partial route."""
        return self.routes[0] if self.routes else self.partial_route

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "solved": self.solved,
            "routes": [g.to_dict() for g in self.routes],
            "partial_route": self.partial_route.to_dict() if self.partial_route else None,
            "n_expansions": self.n_expansions,
            "time_s": round(self.time_s, 3),
            "reasons": list(self.reasons),
            "stock": self.stock,
            "stopped_by": self.stopped_by,
            "stats": dict(self.stats),
        }


@dataclass
class SearchCaches:
    """Per-molecule caches that may be shared between searches with the same model, stock and settings."""

    predictions: dict[str, list[Any]] = field(default_factory=dict)
    validations: dict[tuple[tuple[str, ...], str], dict[str, Any]] = field(default_factory=dict)
    stock: dict[str, str | None] = field(default_factory=dict)
    tiers: dict[str, tuple[str | None, str]] = field(default_factory=dict)  # SMILES -> (source, tier)
    leaves: dict[str, dict[str, Any]] = field(default_factory=dict)  # SMILES -> leaf judgement
    listed: dict[str, str] = field(default_factory=dict)  # SMILES -> the form the stock lists it in
    heavy_atoms: dict[str, int] = field(default_factory=dict)  # SMILES -> heavy-atom count (leaf estimates)
    predicted_steps: dict[str, float] = field(default_factory=dict)  # SMILES -> learned value's reaction count
    # SMILES -> {canonical precursor set: probability}: the full model's table for route re-scoring
    full_scores: dict[str, dict[tuple[str, ...], float]] = field(default_factory=dict)


__all__ = ["SearchConfig", "SearchResult", "SearchCaches", "MolNode", "ReactionEdge", "ProgressCallback", "INF",
           "reaction_type_of"]

"""Multi-step route search: Retro*-style best-first search over an AND-OR tree.

Molecule (OR) nodes are solved when in stock or when one of their reactions is solved; reaction (AND)
nodes are solved when all their precursors are.  Costs follow Retro* (Chen et al., ICML 2020):

- a step costs ``-log(p) + step_penalty`` where ``p`` is the single-step model's score (clipped);
- a stock molecule costs 0; an unexpanded molecule outside the stock costs an estimate of making it
  (:meth:`RetroStarSearch.leaf_estimate`): ``leaf_cost_base + leaf_cost_per_atom x heavy atoms``, at least
  ``leaf_cost`` (larger molecules are further from the stock; the line is fitted on development reference
  routes by ``benchmarks/leaf_cost_fit.py``; with both at 0 it is the constant ``leaf_cost``), or with
  ``leaf_estimate="learned"`` a value learned from PaRoutes routes (:mod:`molx_agent.retro.value`, Retro*'s
  value network in ridge form; opt-in until measured on the route benchmark); a molecule
  that cannot be expanded (no proposal, or at ``max_depth``) costs infinity;
- ``V(m) = min_r V(r)``, ``V(r) = cost(r) + sum V(children)``; the next molecule to expand is the
  unexpanded one on the cheapest tree through it (``V_t``), found by a best-first descent from the
  target (``V_t`` never decreases going down, so the descent stops at the first frontier molecule); every
  expanded molecule and reaction keeps its subtree's next event of that walk (a molecule to expand, a step to
  validate), updated with the values, so a descent follows one path however many cheaper trees are solved.

Every step the search relies on must pass the chemistry core's forward-validation hard gates
(:func:`molx_agent.chem.validate_forward`, cached per step), called with the prediction's atom-mapped reaction
(the bond-change gates read the proposing template's own mapping, not a heuristic alignment) and its named
template id (a curated template that regenerates the step overrides the alignment gates).  Validation is lazy: a step is validated
when the best-first descent first passes through it and, for returned routes, before they are counted
or returned; a failing step gets infinite cost and the values above it are updated.  Steps whose precursors repeat an
ancestor (cycles, the target as its own precursor) or hold a molecule no one can isolate (a ring alkyne under 8
atoms, a ring allene under 9: ``chem.mechanism.strained_ring``) are dropped.  Model predictions, canonical SMILES and
stock answers are cached per molecule.

The tree holds one node per occurrence of a molecule, so a molecule met in several branches is shared by
value, not by node (``SearchConfig.reuse_solved`` and ``twin_values``):

- once a molecule is solved in one branch, an occurrence elsewhere is expanded along that solved route
  from the cached proposals (no model call, no selection per level), when it is selected, or at once when
  every open precursor of a new step is solved elsewhere; cycles and ``max_depth`` apply in its own branch;
- a new leaf whose molecule was expanded elsewhere starts from that node's value (its cost if solved, at
  least its own leaf estimate otherwise) instead of the leaf estimate.

``n_expansions`` counts the molecules selected for expansion; the occurrences expanded along a twin's
route are counted apart (``stats["n_replicated"]``).  Node ids and tie-breaks follow creation order, so the
search is deterministic for the same inputs and expansion limits.

The search stops at ``time_limit`` (checked before each expansion; a model call that would end past the
limit if it took as long as the slowest of the last five is not started, and a model that accepts ``deadline=``
stops applying templates at the limit), at
``max_expansions``, when nothing is left to expand, or once ``n_routes`` solved routes exist.  Routes
are extracted best first by (number of steps, total cost) as :class:`RetroGraph` objects
(:mod:`molx_agent.retro.search_routes`).
"""

from __future__ import annotations

import logging
import math
import operator
import time
from collections.abc import Callable
from typing import Any

from rdkit import Chem

from molx_agent.chem.mechanism import strained_ring
from molx_agent.errors import ChemistryError, DataError, ValidationError
from molx_agent.retro.fast_rdkit import fast_atom_iteration
from molx_agent.retro.judge import is_analog_shortcut, judge_leaf, judge_step
from molx_agent.retro.search_types import (
    INF,
    MolNode,
    ProgressCallback,
    ReactionEdge,
    SearchCaches,
    SearchConfig,
    SearchResult,
    reaction_type_of,
)
from molx_agent.retro.stock import Stock, canonical_smiles, listed_form, load_stock, stock_tier

logger = logging.getLogger(__name__)


TARGET_EXPANSIONS = ("search", "union")


def step_cost(score: Any, *, min_score: float, step_penalty: float) -> float:
    """Cost of one step in the search's units: ``-log(p) + step_penalty``, ``p`` the model's score clipped to
    ``[min_score, 1]`` (``min_score`` when it is missing or not a number)."""
    return -math.log(_clip(score, min_score)) + step_penalty


def _clip(score: Any, floor: float) -> float:
    """A model score as a probability in ``[floor, 1]`` (``floor`` when missing or not a number)."""
    try:
        p = float(score)
    except (TypeError, ValueError):
        return floor
    return min(max(p, floor), 1.0) if p == p else floor


def _takes_deadline(model: Any) -> bool:
    """Whether ``model.predict`` accepts ``deadline=`` (the packaged model does; a toy model may not)."""
    import inspect

    try:
        params = inspect.signature(model.predict).parameters
    except (TypeError, ValueError, AttributeError):
        return False
    return "deadline" in params or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values())


def _below(score: Any, floor: float) -> bool:
    try:
        p = float(score)
    except (TypeError, ValueError):
        return True
    return not p >= floor  # NaN counts as below


def step_key(step: str) -> tuple[tuple[str, ...], str] | None:
    """``((sorted canonical reactants), canonical product)`` of a ``reactants>>product`` string, or ``None``: how
    ``SearchConfig.exclude_steps`` names a step, whatever order and SMILES it was written in."""
    if not isinstance(step, str) or ">>" not in step:
        return None
    left, _, right = step.partition(">>")
    product = canonical_smiles(right.strip())
    reactants = [canonical_smiles(x) for x in left.split(".") if x.strip()]
    if product is None or not reactants or any(r is None for r in reactants):
        return None
    return tuple(sorted(reactants)), product  # type: ignore[arg-type]


_step_key = step_key  # the name before it was public


def _forward_validator() -> Callable[..., dict[str, Any]] | None:
    try:
        from molx_agent.chem import validate_forward
    except ImportError:
        try:
            from molx_agent.chem.forward_validate import validate_forward
        except ImportError:
            return None
    return validate_forward


LEAF_ESTIMATES = ("size", "learned")


def _value_model(config: SearchConfig) -> Any:
    """The learned value when ``config.leaf_estimate`` is ``"learned"``, else ``None`` (the size line)."""
    if config.leaf_estimate not in LEAF_ESTIMATES:
        raise ValidationError("invalid_leaf_estimate", "leaf_estimate must be 'size' or 'learned'",
                              value=config.leaf_estimate)
    if config.leaf_estimate == "size":
        return None
    from molx_agent.retro.value import VALUE_FILE, load_value_model

    model = load_value_model()
    if model is None:
        raise DataError("missing_data_file", f"the learned value ({VALUE_FILE}) is not installed",
                        value=VALUE_FILE, hint="rebuild it with scripts/train_value_model.py, or use leaf_estimate='size'")
    return model


_NO_EVENT = (INF, 2, 0)  # a subtree where the selection has nothing left to do


_reaction_event = operator.attrgetter("event")


def _mol_event(mol: MolNode) -> tuple[float, int, int]:
    """The selection's first event under ``mol``: itself when it is unexpanded (and can be expanded), none when it
    is bought, else the kept event of its reactions."""
    if mol.in_stock:
        return _NO_EVENT
    if not mol.expanded:
        return (mol.value, 0, mol.id) if mol.value < INF else _NO_EVENT
    return mol.event


def _child_event(mol: MolNode) -> tuple[float, int, int]:
    """:func:`_mol_event` relative to the molecule's own value (what the event adds to a tree through it)."""
    event = _mol_event(mol)
    return (event[0] - mol.value, event[1], event[2]) if event[0] < INF else _NO_EVENT


class RetroStarSearch:
    """One search over one target (see the module docstring)."""

    def __init__(self, target: str, model: Any, stock: Stock, config: SearchConfig,
                 progress: ProgressCallback | None = None, caches: SearchCaches | None = None,
                 target_model: Any = None) -> None:
        self.model = model
        # ``config.target_expansion == "union"``: the model whose predictions join the search model's for the target
        # (and the molecules above ``config.union_depth``)
        self.target_model = target_model if target_model is not model else None
        self._unions: dict[str, list[Any]] = {}  # the union's predictions per molecule (this search only)
        self._full_raw: dict[str, list[Any]] = {}  # target_model's own predictions for those molecules (complete only)
        self._final: dict[int, list[Any]] = {}  # final_routes per k
        self.search_costs: dict[tuple[int, ...], float] = {}  # re-ranked route (reaction ids) -> the search's cost
        self.rescoring: dict[str, Any] = {}  # what the final re-ranking did (SearchResult.stats["rescoring"])
        self.stock = stock
        self.config = config
        self.progress = progress
        self.caches = caches or SearchCaches()
        self.value_model = _value_model(config)
        self.validator = _forward_validator() if config.validate else None
        self._next_id = 0
        self.n_expansions = 0
        self.n_replicated = 0  # expansions that copied a solved twin's route (no model call)
        # a solved node per molecule: another occurrence of the molecule is expanded along its route
        self.solved_twins: dict[str, MolNode] = {}
        self.expanded_twins: dict[str, MolNode] = {}  # the first expanded node per molecule
        self.first_solution_s: float | None = None  # seconds until the target was first solved
        self.confirm_deadline: float | None = None  # no step is validated for the final routes after this
        self.validation_cut = False  # the final routes were limited to steps validated before the deadline
        self.n_rejected = {"validation": 0, "validator_error": 0, "cycle": 0, "duplicate": 0, "invalid": 0,
                           "excluded": 0, "strained": 0}
        self.rejection_examples: dict[str, list[str]] = {}
        self.model_errors: dict[str, str] = {}
        self.deadline: float | None = None  # time.perf_counter() value, set by run()
        self._model_takes_deadline = _takes_deadline(model)
        self.n_cut_short = 0  # predictions the model cut short at the deadline
        self.n_model_calls = 0  # single-step model calls made by this search (cached tables are not counted)
        self.model_time_s = 0.0  # seconds spent in those calls
        self.n_validations = 0  # step judgements (forward validation) made by this search
        self.validation_time_s = 0.0
        self._cut_predictions: dict[str, list[Any]] = {}  # cut-short tables (this search only)
        self.excluded_leaves = frozenset(filter(None, (canonical_smiles(x) for x in config.exclude_leaves)))
        self.excluded_steps = frozenset(filter(None, (step_key(x) for x in config.exclude_steps)))
        self.n_analog_shortcuts = 0
        self.n_clean_alternatives = 0  # routes without an analog shortcut put before all-demoted ones (build_routes)
        self._analogs: dict[str, float | None] = {}  # bought SMILES -> Tanimoto to this search's target, or None
        self.n_implausible = 0
        self.target = target
        self.root = self._new_mol(target, 0, None, frozenset())
        # The target is always expanded, even when it is purchasable itself.
        self.root.in_stock, self.root.source, self.root.solved = False, None, False
        self.root.leaf_cost, self.root.leaf, self.root.analog, self.root.n_flags = 0.0, None, None, 0
        self.root.value = self.leaf_estimate(target)
        self.target_source, self.target_tier = self._tier(target)

    # -- caches --------------------------------------------------------------------------------------
    def _stock_source(self, smiles: str) -> str | None:
        """The stock that has ``smiles`` as a starting material under the leaf policy, or ``None``."""
        leaf = self._leaf(smiles)
        return leaf["source"] if leaf["accept"] else None

    def _tier(self, smiles: str) -> tuple[str | None, str]:
        cache = self.caches.tiers
        if smiles not in cache:
            cache[smiles] = stock_tier(self.stock, smiles)
        return cache[smiles]

    def _leaf(self, smiles: str) -> dict[str, Any]:
        """The leaf judgement of ``smiles`` (:func:`molx_agent.retro.judge.judge_leaf`, cached): may it end a route
        (verified, or probable and building-block-like; reactive intermediates only from exact stocks), at what cost."""
        cache = self.caches.leaves
        hit = cache.get(smiles)
        if hit is None:
            source, tier = self._tier(smiles)
            if tier == "probable" and not self.config.allow_probable_leaves:
                hit = {"smiles": smiles, "tier": tier, "source": source, "accept": False, "cost": INF,
                       "reason": "Bloom-filter-only molecules are not accepted (verified stock only)", "issues": []}
            elif smiles in self.excluded_leaves:
                hit = {"smiles": smiles, "tier": tier, "source": source, "accept": False, "cost": INF,
                       "reason": "excluded as a starting material by the request", "issues": []}
            elif source is None:
                hit = {"smiles": smiles, "tier": tier, "source": None, "accept": False, "cost": INF,
                       "reason": "", "issues": []}
            else:
                hit = judge_leaf(smiles, self.stock, self.config, tier=tier, source=source)
            cache[smiles] = hit
        return hit

    def _listed(self, smiles: str) -> str:
        """The form the stock lists ``smiles`` in (``C#N`` for ``[C-]#N``), or ``smiles`` (also when not in stock)."""
        cache = self.caches.listed
        if smiles not in cache:
            cache[smiles] = (listed_form(self.stock, smiles) if self._stock_source(smiles) else None) or smiles
        return cache[smiles]

    def _predictions(self, smiles: str, depth: int) -> list[Any]:
        """The predictions a molecule expanded at ``depth`` gets: the union above ``config.union_depth`` (the target
        is the only molecule at depth 0: a precursor equal to an ancestor is rejected as a cycle)."""
        preds = self._model_predictions(smiles)
        if self.target_model is None or depth >= self.config.union_depth:
            return preds
        if smiles not in self._unions:
            self._unions[smiles] = self._union_with_target_model(smiles, preds)
        return self._unions[smiles]

    def _union_with_target_model(self, smiles: str, preds: list[Any]) -> list[Any]:
        """A molecule's predictions (the target's, and to ``union_depth`` its precursors'): the search model's and
        ``target_model``'s, each precursor set once at the higher of its scores (the search model's prediction kept
        when it scores at least as high), best first."""
        try:
            extra = self._call_model(self.target_model, _takes_deadline(self.target_model), smiles)
        except Exception as exc:  # noqa: BLE001 - the search model's predictions stand alone
            logger.info("target model failed on %s: %s", smiles, exc)
            return preds
        if not getattr(extra, "cut_short", False):
            self._full_raw[smiles] = list(extra)  # the full model's table, reused by the route re-ranking
        best = {tuple(p.reactants): p for p in preds}
        for p in extra:
            key = tuple(p.reactants)
            if key not in best or p.score > best[key].score:
                best[key] = p
        merged = sorted(best.values(), key=lambda p: (-p.score, tuple(p.reactants)))
        return merged[: self.config.expansion_top_k]

    def _call_model(self, model: Any, takes_deadline: bool, smiles: str) -> Any:
        """``model.predict(smiles)`` with the search's deadline when the model takes one (it then stops applying
        templates at the deadline, so one expansion of a very large molecule cannot overrun the time limit); counted
        in ``n_model_calls`` and timed in ``model_time_s``."""
        self.n_model_calls += 1
        t0 = time.perf_counter()
        try:
            if takes_deadline and self.deadline is not None:
                return model.predict(smiles, top_k=self.config.expansion_top_k, deadline=self.deadline)
            return model.predict(smiles, top_k=self.config.expansion_top_k)
        finally:
            self.model_time_s += time.perf_counter() - t0

    def _model_predictions(self, smiles: str) -> list[Any]:
        cache = self.caches.predictions
        if smiles in self._cut_predictions:
            return self._cut_predictions[smiles]
        if smiles not in cache:
            try:
                preds = self._call_model(self.model, self._model_takes_deadline, smiles)
            except Exception as exc:  # noqa: BLE001 - one molecule the model cannot handle is a dead end, recorded
                logger.info("single-step model failed on %s: %s", smiles, exc)
                self.model_errors[smiles] = f"{type(exc).__name__}: {exc}"
                cache[smiles] = []
                return cache[smiles]
            if getattr(preds, "cut_short", False):
                # a table the deadline cut short is kept for this search only (the shared caches never hold it: a
                # later search with more time predicts again)
                self.n_cut_short += 1
                self._cut_predictions[smiles] = list(preds)
                return self._cut_predictions[smiles]
            cache[smiles] = list(preds)
        return cache[smiles]

    def _validate(self, reactants: tuple[str, ...], product: str, pred: Any) -> dict[str, Any]:
        if self.validator is None:
            return {}
        key = (reactants, product)
        cache = self.caches.validations
        if key not in cache:
            # the engine's one step judgement (retro.judge.judge_step): reaction_type = the step's category;
            # template_id = only an expert (named) template id, which the validator can re-apply (USPTO template ids
            # are not in its table); mapped_reaction = the proposing template's atom map, so the bond-change gates
            # read the template's own mapping rather than the environment heuristic.  A crash rejects the step.
            self.n_validations += 1
            t0 = time.perf_counter()
            cache[key] = judge_step(list(reactants), product,
                                    reaction_type=getattr(pred, "category", None) or None,
                                    template_id=getattr(pred, "named_template_id", None) or None,
                                    mapped_reaction=getattr(pred, "mapped_reaction", None) or None,
                                    score=getattr(pred, "score", None), config=self.config,
                                    validator=self.validator)
            self.validation_time_s += time.perf_counter() - t0
        return cache[key]

    # -- tree construction -----------------------------------------------------------------------------
    def _new_mol(self, smiles: str, depth: int, parent: ReactionEdge | None, ancestors: frozenset[str],
                 reacting: str | None = None) -> MolNode:
        leaf = self._leaf(smiles)
        source = leaf["source"] if leaf["accept"] else None
        node = MolNode(self._next_id, smiles, depth, parent, ancestors | {smiles}, source is not None, source,
                       reacting=reacting, tier=leaf["tier"], leaf=leaf)
        self._next_id += 1
        if node.in_stock:
            node.leaf_cost = float(leaf["cost"])
            if depth == 1 and self.config.analog_penalty:
                # bought and turned into the target in one step: an analog shortcut when it is a near analog
                sim = self.analog_of_target(smiles)
                if sim is not None:
                    node.analog, node.n_flags = round(sim, 3), 1
                    node.leaf_cost += self.config.analog_penalty
                    self.n_analog_shortcuts += 1
            node.value, node.solved = node.leaf_cost, True
        elif depth >= self.config.max_depth:
            node.value, node.note = INF, f"max_depth {self.config.max_depth} reached"
        else:
            node.value = self.leaf_estimate(smiles)
            twin = self.expanded_twins.get(smiles) if self.config.twin_values else None
            if twin is not None and twin.value < INF:
                # expanded elsewhere: its value there is a better estimate than the leaf estimate
                node.value = twin.value if twin.solved else max(twin.value, node.value)
        return node

    def analog_of_target(self, smiles: str) -> float | None:
        """:func:`~molx_agent.retro.judge.is_analog_shortcut` of a bought molecule against this search's target, once
        per molecule; an analog misses at most ``analog_max_added_atoms`` of the target's heavy atoms, so a smaller
        molecule (most leaves) is none without a fingerprint."""
        cache = self._analogs
        if smiles not in cache:
            near = self._heavy_atoms(smiles) >= self._heavy_atoms(self.target) - self.config.analog_max_added_atoms
            cache[smiles] = is_analog_shortcut(smiles, self.target, self.config) if near else None
        return cache[smiles]

    def _heavy_atoms(self, smiles: str) -> int:
        cache = self.caches.heavy_atoms
        n = cache.get(smiles)
        if n is None:
            mol = Chem.MolFromSmiles(smiles, sanitize=False)
            n = cache[smiles] = mol.GetNumHeavyAtoms() if mol is not None else 0
        return n

    def leaf_estimate(self, smiles: str) -> float:
        """Estimated cost of making an unexpanded molecule outside the stock: ``leaf_cost``, or with
        ``leaf_cost_per_atom`` a linear function of its heavy-atom count (larger molecules need more steps), or
        with ``leaf_estimate="learned"`` the learned value (:mod:`molx_agent.retro.value`); at least ``leaf_cost``."""
        cfg = self.config
        if self.value_model is not None:
            steps = self.caches.predicted_steps.get(smiles)
            if steps is None:
                from molx_agent.retro.value import MIN_STEPS  # loaded with the value model (_value_model)

                steps = self.value_model.steps(smiles)
                steps = self.caches.predicted_steps[smiles] = steps if steps is not None else MIN_STEPS
            return max(cfg.leaf_cost, self.value_model.cost_of_steps(steps))
        if not cfg.leaf_cost_per_atom and not cfg.leaf_cost_base:
            return cfg.leaf_cost
        return max(cfg.leaf_cost, cfg.leaf_cost_base + cfg.leaf_cost_per_atom * self._heavy_atoms(smiles))

    def step_cost(self, score: Any) -> float:
        return step_cost(score, min_score=self.config.min_score, step_penalty=self.config.step_penalty)

    def _reject(self, kind: str, text: str) -> None:
        self.n_rejected[kind] += 1
        examples = self.rejection_examples.setdefault(kind, [])
        if len(examples) < 5:
            examples.append(text)

    def expand(self, mol: MolNode, deadline: float, replicate: bool = True) -> None:
        """Add ``mol``'s proposals as reactions; with ``replicate``, a new reaction whose open precursors are
        all solved elsewhere in the tree gets their routes copied at once (see :meth:`replicate`)."""
        mol.expanded = True
        self.expanded_twins.setdefault(mol.smiles, mol)
        seen: set[tuple[str, ...]] = set()
        n_preds = 0
        for pred in self._predictions(mol.smiles, mol.depth):
            n_preds += 1
            if time.perf_counter() > deadline:
                mol.note = "expansion cut short by the time limit"
                break
            raw = list(getattr(pred, "reactants", []) or [])
            reactants = [canonical_smiles(s) for s in raw]
            if not reactants or any(r is None for r in reactants):
                self._reject("invalid", f"{'.'.join(raw)}>>{mol.smiles}")
                continue
            # a leaf is written as the stock lists it (what is bought); the step keeps the reacting form
            listed = [self._listed(r) for r in reactants]  # type: ignore[arg-type]
            key = tuple(sorted(listed))
            if key in seen:
                self._reject("duplicate", f"{'.'.join(key)}>>{mol.smiles}")
                continue
            seen.add(key)
            if any(r in mol.ancestors for r in key) or any(r in mol.ancestors for r in reactants):
                self._reject("cycle", f"{'.'.join(key)}>>{mol.smiles}")
                continue
            if any(strained_ring(r) for r in reactants):  # cyclopentyne: a transient species, not a precursor
                self._reject("strained", f"{'.'.join(key)}>>{mol.smiles}")
                continue
            if self.excluded_steps and ((key, mol.smiles) in self.excluded_steps
                                        or (tuple(sorted(reactants)), mol.smiles) in self.excluded_steps):
                self._reject("excluded", f"{'.'.join(key)}>>{mol.smiles}")
                continue
            score = getattr(pred, "score", 0.0)
            rxn = ReactionEdge(self._next_id, mol, pred, self.step_cost(score), {})
            if _below(score, self.config.plausibility_floor):
                # implausible by the model's own rating: used only when nothing better solves the molecule
                rxn.implausible = True
                rxn.cost += self.config.implausible_penalty
                self.n_implausible += 1
            rxn.validated = self.validator is None
            self._next_id += 1
            rxn.children = [self._new_mol(name, mol.depth + 1, rxn, mol.ancestors, None if name == r else r)
                            for r, name in zip(reactants, listed, strict=True)]
            self._update_reaction(rxn)
            mol.reactions.append(rxn)
        if replicate and self.config.reuse_solved:
            for rxn in mol.reactions:
                open_kids = [c for c in rxn.children if not c.in_stock]
                twins = [self.twin_of(c) for c in open_kids]
                if open_kids and all(t is not None for t in twins):
                    for child, twin in zip(open_kids, twins, strict=True):
                        self.replicate(child, twin, deadline)  # type: ignore[arg-type]
        if not mol.reactions and not mol.note:
            if mol.smiles in self.model_errors:
                mol.note = f"the single-step model failed: {self.model_errors[mol.smiles]}"
            elif n_preds == 0:
                mol.note = "no template applies"
            else:
                mol.note = f"all {n_preds} proposals were rejected (cycles or invalid precursors)"
        self._propagate(mol)

    # -- transpositions ------------------------------------------------------------------------------------
    def twin_of(self, mol: MolNode) -> MolNode | None:
        """A solved node of the same molecule elsewhere in the tree (not ``mol`` itself), or ``None``."""
        twin = self.solved_twins.get(mol.smiles) if self.config.reuse_solved else None
        if twin is None or twin is mol or not twin.solved:
            return None
        return twin

    def replicate(self, mol: MolNode, twin: MolNode, deadline: float) -> None:
        """Expand ``mol`` and, along ``twin``'s cheapest solved route, the molecules under it.

        The search is a tree, so a molecule met in several branches is one node per branch; once one of
        them is solved, the others are expanded again from the cached proposals (no model call) and the
        twin's route is followed down, so the solution is found at once wherever the molecule recurs.
        Each step is still a reaction of this branch: cycles with this branch's ancestors are rejected and
        ``max_depth`` applies, so a route that does not fit here is simply not completed.
        """
        stack = [(mol, twin)]
        while stack:
            node, other = stack.pop()
            if node.expanded or node.in_stock or node.value == INF or not other.solved:
                continue
            if time.perf_counter() > deadline:
                return
            self.expand(node, deadline, replicate=False)
            self.n_replicated += 1  # counted apart from n_expansions: no model call, no selection
            best = min((r for r in other.reactions if r.solved), key=lambda r: (r.value, r.id), default=None)
            if best is None:
                continue
            twin_kids = {c.smiles: c for c in best.children}
            key = sorted(twin_kids)
            for rxn in node.reactions:
                if not rxn.dead and sorted(c.smiles for c in rxn.children) == key:
                    stack.extend((c, twin_kids[c.smiles]) for c in reversed(rxn.children)
                                 if not c.in_stock and not c.expanded)
                    break

    # -- lazy forward validation -------------------------------------------------------------------------
    def ensure_valid(self, rxn: ReactionEdge) -> bool:
        """Run the forward-validation gates on ``rxn`` once; a failing step becomes dead (cost infinity)."""
        if rxn.dead:
            return False
        if rxn.validated:
            return True
        rxn.validated = True
        product = rxn.parent.smiles
        key = tuple(sorted(c.reacting or c.smiles for c in rxn.children))  # validated as the template wrote it
        rxn.validation = self._validate(key, product, rxn.prediction)
        if not rxn.validation.get("hard_fail_reasons"):
            self._update_reaction(rxn)  # the selection's next event under it is now in its subtree
            self._propagate(rxn.parent)
            return True
        kind = "validator_error" if "validator_error" in rxn.validation else "validation"
        self._reject(kind, f"{'.'.join(key)}>>{product}: {rxn.validation['hard_fail_reasons']}")
        rxn.dead = True
        self._update_reaction(rxn)  # infinite value, no event
        mol = rxn.parent
        if all(r.dead for r in mol.reactions) and not mol.note:
            mol.note = f"all {len(mol.reactions)} proposals failed forward validation"
        self._propagate(mol)
        return False

    def clean_alternatives(self, m: int, exclude: set[tuple[int, ...]]) -> list[Any]:
        """Up to ``m`` of the best solved routes (k-best entries, route-score order, every step forward-validated)
        that buy no analog of the target at any depth (:meth:`analog_of_target`) and have no implausible step, leaving
        out the entries whose reaction ids are in ``exclude``."""
        def flags(mol: MolNode) -> int:
            return mol.n_flags or int(self.analog_of_target(mol.smiles) is not None)

        entries = self.confirm_best(m + len(exclude), leaf_flags=flags, rank_by="score")
        return [e for e in entries if e[4] == 0 and e[2] not in exclude][:m]

    def confirm_best(self, k: int, leaf_flags: Callable[[MolNode], int] | None = None,
                     rank_by: str | None = None) -> list[Any]:
        """The ``k`` best solved routes (k-best entries), after forward-validating every step they use.

        A failing step becomes dead and the routes are recomputed, so only the steps of candidate routes
        are validated (not the whole solved tree).  Past ``confirm_deadline`` (set by :meth:`run`: the time
        limit plus 5 %) no more step is validated: the best routes made of already validated steps are
        returned (``validation_cut`` is set), so a large solved tree cannot overrun the time limit.
        """
        from molx_agent.retro.search_routes import kbest_routes, route_reactions

        rank_by = rank_by or self.config.rank_by
        while True:
            if not self.root.solved:
                return []
            if self.validation_cut:
                return kbest_routes(self, k, rank_by, validated_only=True, leaf_flags=leaf_flags)
            entries = kbest_routes(self, k, rank_by, leaf_flags=leaf_flags)
            clean = True
            for entry in entries:
                for rxn in route_reactions(entry):
                    if rxn.validated:
                        continue
                    if self._validation_cut_now():
                        return kbest_routes(self, k, rank_by, validated_only=True, leaf_flags=leaf_flags)
                    if not self.ensure_valid(rxn):
                        clean = False
            if clean:
                return entries

    # -- the routes returned: re-ranked with the full model -----------------------------------------------------
    def rescoring_enabled(self) -> bool:
        """Whether the finished routes are re-ranked with the full model (``config.rescore_routes`` > 0, a full
        model apart from the search's view, and the route-score order)."""
        cfg = self.config
        return self.target_model is not None and cfg.rescore_routes > 0 and cfg.rank_by == "score"

    def final_routes(self, k: int) -> list[Any]:
        """The ``k`` routes the search returns (k-best entries, every step forward-validated): those of
        :meth:`confirm_best`, re-ranked with the full model when :meth:`rescoring_enabled` (:meth:`_rerank`).
        Computed once per ``k``."""
        if k not in self._final:
            entries = self.confirm_best(k)
            if entries and self.rescoring_enabled():
                entries = self._rerank(entries, k)
            self._final[k] = entries
        return self._final[k]

    def full_table(self, smiles: str) -> dict[tuple[str, ...], float] | None:
        """The full model's probability per canonical precursor set of ``smiles`` (its top ``expansion_top_k``),
        from the union's call when there was one, else one more model call; ``None`` when the deadline has passed
        or cut the call short."""
        from molx_agent.retro.single_step import canonical_reactant_set

        cache = self.caches.full_scores
        if smiles in cache:
            return cache[smiles]
        preds = self._full_raw.get(smiles)
        if preds is None:
            if self.deadline is not None and time.perf_counter() >= self.deadline:
                return None
            try:
                preds = self._call_model(self.target_model, _takes_deadline(self.target_model), smiles)
            except Exception as exc:  # noqa: BLE001 - a molecule the full model cannot take: no probability
                logger.info("full model failed on %s: %s", smiles, exc)
                preds = []
            if getattr(preds, "cut_short", False):
                return None
        table: dict[tuple[str, ...], float] = {}
        for pred in preds:
            key = canonical_reactant_set(".".join(getattr(pred, "reactants", []) or []))
            if key is not None and key not in table:
                table[key] = float(getattr(pred, "score", 0.0) or 0.0)
        cache[smiles] = table
        return table

    def _rerank(self, entries: list[Any], k: int) -> list[Any]:
        """Re-rank the ``config.rescore_routes`` best routes with the full model's step probabilities.

        Every step of the pool gets ``p = p_search^(1-w) x p_full^w`` (``w = rescore_weight``; ``p_full`` is the
        full model's probability of the same precursor set, ``min_score`` when it does not propose it; both
        clipped as step costs are) and its route the difference in step cost, plus ``selectivity_penalty`` per step
        the route judgement warns about (``judge.selectivity_warned``) and per aryl nitrogen the route takes off and
        puts back (``judge.amine_round_trip_count``), plus ``probable_route_penalty`` once when a starting material
        is only a Bloom-filter hit (tier ``probable``); the pool is sorted by the same key
        (flags, route score, steps) and the first ``k`` routes whose steps pass forward validation are returned.
        The tables are computed route by route, best first, until the time limit: when they cover fewer than the
        pool's routes, the routes they cover are re-ranked, and when they cover fewer than ``k``, ``entries`` (the
        search's order) stand.  ``self.rescoring`` records what happened; :attr:`search_costs` keeps each re-ranked route's
        search cost."""
        from molx_agent.retro.judge import amine_round_trip_count, selectivity_warned
        from molx_agent.retro.search_routes import kbest_routes, rank_key, route_leaves, route_reactions
        from molx_agent.retro.single_step import canonical_reactant_set

        cfg = self.config
        t0, calls0 = time.perf_counter(), self.n_model_calls
        pool = kbest_routes(self, max(k, cfg.rescore_routes), cfg.rank_by, validated_only=self.validation_cut)
        info: dict[str, Any] = {"applied": False, "weight": cfg.rescore_weight}
        self.rescoring = info
        # the full model's table of every product, route by route (best first), as long as the time allows
        tables: dict[str, dict[tuple[str, ...], float]] = {}
        n_scored = 0
        for entry in pool:
            for rxn in route_reactions(entry):
                smiles = rxn.parent.smiles
                if smiles not in tables:
                    table = self.full_table(smiles)
                    if table is None:
                        break
                    tables[smiles] = table
            else:
                n_scored += 1
                continue
            break
        info.update(routes=n_scored, pool=len(pool), molecules=len(tables), n_model_calls=self.n_model_calls - calls0)
        if n_scored < min(k, len(pool)):
            info.update(reason="the full model's tables did not fit in the time limit: the search's order stands",
                        time_s=round(time.perf_counter() - t0, 3))
            return entries
        if n_scored < len(pool):  # the first n_scored routes (the k best among them) are re-ranked
            info["reason"] = f"the time limit allowed the full model's tables of {n_scored} of the {len(pool)} routes"
            pool = pool[:n_scored]
        w, floor = cfg.rescore_weight, cfg.min_score
        deltas: dict[int, float] = {}

        def delta(rxn: ReactionEdge) -> float:
            if rxn.id not in deltas:
                pred = rxn.prediction
                p_search = _clip(getattr(pred, "score", None), floor)
                key = canonical_reactant_set(".".join(getattr(pred, "reactants", []) or []))
                rxn.full_score = tables[rxn.parent.smiles].get(key, 0.0) if key is not None else 0.0
                p_full = _clip(rxn.full_score, floor)
                p = math.exp((1.0 - w) * math.log(p_search) + w * math.log(p_full))
                deltas[rxn.id] = self.step_cost(p) - self.step_cost(p_search)
            return deltas[rxn.id]

        warned: dict[int, bool] = {}

        def selectivity(rxn: ReactionEdge) -> float:
            # the route judgement's selectivity warning on this step (judge.selectivity_warned), as a cost
            if rxn.id not in warned:
                warned[rxn.id] = selectivity_warned([c.smiles for c in rxn.children], rxn.parent.smiles,
                                                    reaction_type_of(rxn.prediction))
            return cfg.selectivity_penalty if warned[rxn.id] else 0.0

        rescored = []
        n_round_trips = n_probable = 0
        for entry in pool:
            self.search_costs[entry[2]] = entry[1]
            rxns = route_reactions(entry)
            penalty = 0.0
            if cfg.selectivity_penalty:
                # each warned step, and each aryl nitrogen the route takes off and puts back (judge: amine_round_trip)
                trips = amine_round_trip_count(rxns)
                n_round_trips += trips
                penalty = sum(map(selectivity, rxns)) + trips * cfg.selectivity_penalty
            if cfg.probable_route_penalty and any(leaf.tier == "probable" for leaf in route_leaves(entry)):
                n_probable += 1  # a Bloom-filter-only starting material: a verified route of similar score goes first
                penalty += cfg.probable_route_penalty
            rescored.append((entry[0], entry[1] + sum(map(delta, rxns)) + penalty, *entry[2:]))
        info["selectivity_warned_steps"] = sum(warned.values())
        info["amine_round_trips"] = n_round_trips
        info["probable_routes"] = n_probable
        rescored.sort(key=rank_key(cfg.rank_by, cfg.route_step_weight))
        out = []
        for entry in rescored:
            if len(out) >= k:
                break
            if self._confirm_entry(entry):
                out.append(entry)
        moved = [e[2] for e in out] != [e[2] for e in entries[: len(out)]]
        info.update(applied=True, reordered=moved, time_s=round(time.perf_counter() - t0, 3))
        return out

    def _confirm_entry(self, entry: Any) -> bool:
        """Forward-validate the steps of one k-best entry (until ``confirm_deadline``); whether all pass."""
        from molx_agent.retro.search_routes import route_reactions

        for rxn in route_reactions(entry):
            if not rxn.validated and self._validation_cut_now():
                return False
            if not self.ensure_valid(rxn):
                return False
        return True

    def _validation_cut_now(self) -> bool:
        """Whether no more step may be validated for the routes returned: ``confirm_deadline`` has passed (then
        ``validation_cut`` is set)."""
        if self.confirm_deadline is not None and time.perf_counter() > self.confirm_deadline:
            self.validation_cut = True
        return self.validation_cut

    # -- values ------------------------------------------------------------------------------------------
    @staticmethod
    def _update_reaction(rxn: ReactionEdge) -> None:
        if rxn.dead:
            rxn.value, rxn.solved, rxn.event = INF, False, _NO_EVENT
            return
        rxn.value = rxn.cost + sum(c.value for c in rxn.children)
        rxn.solved = all(c.solved for c in rxn.children)
        if rxn.value == INF:
            rxn.event = _NO_EVENT
        elif not rxn.validated:
            rxn.event = (rxn.value, 1, rxn.id)  # the walk validates the step before it goes below it
        else:
            best = min(map(_child_event, rxn.children), default=_NO_EVENT)
            rxn.event = (rxn.value + best[0], best[1], best[2]) if best[0] < INF else _NO_EVENT

    def _update_mol(self, mol: MolNode) -> None:
        if mol.in_stock:
            mol.value, mol.solved = mol.leaf_cost, True
        elif not mol.expanded:
            return
        else:
            mol.value = min((r.value for r in mol.reactions), default=INF)
            mol.solved = any(r.solved for r in mol.reactions)
            mol.event = min(map(_reaction_event, mol.reactions), default=_NO_EVENT)
            if mol.solved:
                twin = self.solved_twins.get(mol.smiles)
                if twin is None or not twin.solved:
                    self.solved_twins[mol.smiles] = mol

    def _propagate(self, mol: MolNode) -> None:
        node: MolNode | None = mol
        while node is not None:
            self._update_mol(node)
            rxn = node.parent
            if rxn is None:
                break
            self._update_reaction(rxn)
            node = rxn.parent

    # -- selection -----------------------------------------------------------------------------------------
    def select(self) -> MolNode | None:
        """The unexpanded molecule on the cheapest (partial) tree, by best-first descent on V_t.

        Steps met on the way are forward-validated first; when one fails, values change and the
        descent restarts from the target.
        """
        while True:
            found = self._select_once()
            if found is not False:
                return found  # type: ignore[return-value]

    def _select_once(self) -> MolNode | None | bool:
        """One descent along the selection's next event; ``False`` when a step was validated on the way (descend
        again).

        The events are those of a best-first walk over V_t (Retro*'s selection): reaching an unexpanded molecule
        (kind 0, the one selected) and passing a step not yet validated (kind 1, validated then). Each expanded
        molecule and each reaction keeps the first event of its subtree as ``event = (V_t contribution, kind,
        id)``, updated with the values (:meth:`_update_reaction`, :meth:`_update_mol`), so the descent follows one
        path instead of walking every cheaper solved tree. Events come in V_t order, as the walk that pops V_t from
        a heap meets them; two events of equal V_t go by (kind, id) of the event itself, which the heap walk (it
        orders the entries on the way to them) need not do, and two sums that differ in the last bit may swap."""
        if self.root.value == INF:
            return None
        node = self.root
        while True:
            if not node.expanded:
                return node if node.value < INF and not node.in_stock else None
            if node.event[0] == INF:
                return None
            rxn = min(node.reactions, key=_reaction_event)
            if not rxn.validated:
                self.ensure_valid(rxn)  # pass or fail, the events above it are updated
                return False
            node = min(rxn.children, key=_child_event)

    def count_routes(self, cap: int) -> int:
        """Number of distinct solved routes to the target (capped at ``cap``)."""
        memo: dict[int, int] = {}

        def count(mol: MolNode) -> int:
            if mol.in_stock:
                return 1
            if mol.id in memo:
                return memo[mol.id]
            total = 0
            for rxn in mol.reactions:
                if rxn.solved:
                    prod = 1
                    for child in rxn.children:
                        prod = min(cap, prod * count(child))
                    total = min(cap, total + prod)
            memo[mol.id] = total
            return total

        return count(self.root) if self.root.solved else 0

    # -- main loop -------------------------------------------------------------------------------------------
    def run(self) -> tuple[str, float]:
        """Search until a stop condition; returns (what stopped it, seconds)."""
        with fast_atom_iteration():  # model and validator iterate over atoms a lot (retro.fast_rdkit)
            return self._run()

    def _run(self) -> tuple[str, float]:
        cfg = self.config
        start = time.perf_counter()
        deadline = start + cfg.time_limit
        self.deadline = deadline
        self.confirm_deadline = deadline + 0.05 * cfg.time_limit
        stopped_by = "exhausted"
        # once the target is solved, the search stops this much early: the full model re-scores the best routes
        reserve = cfg.rescore_share * cfg.time_limit if self.rescoring_enabled() else 0.0
        recent: list[float] = []  # durations of the last expansions that called the model
        while True:
            if cfg.stop_at_n_routes and self.root.solved and len(self.confirm_best(cfg.n_routes)) >= cfg.n_routes:
                stopped_by = "n_routes"
                break
            if self.n_expansions >= cfg.max_expansions:
                stopped_by = "max_expansions"
                break
            limit = deadline - reserve if self.root.solved else deadline
            if time.perf_counter() >= limit:
                stopped_by = "time_limit"
                break
            node = self.select()
            if node is None:
                stopped_by = "exhausted"
                break
            cached = node.smiles in self.caches.predictions
            now = time.perf_counter()
            if not cached and recent and now + max(recent[-5:]) > limit:
                # the model call cannot be interrupted: do not start one that would overrun the limit
                stopped_by = "time_limit"
                break
            self.n_expansions += 1  # molecules selected; copies along a solved twin's route count in n_replicated
            twin = self.twin_of(node)
            if twin is not None:
                self.replicate(node, twin, deadline)
            else:
                self.expand(node, deadline)
            if self.first_solution_s is None and self.root.solved:
                self.first_solution_s = time.perf_counter() - start
            if not cached:
                recent.append(time.perf_counter() - now)
                del recent[:-10]
            if self.progress is not None:
                self.progress({
                    "n_expansions": self.n_expansions,
                    "max_expansions": cfg.max_expansions,
                    "elapsed_s": time.perf_counter() - start,
                    "time_limit": cfg.time_limit,
                    "solved": self.root.solved,
                    "n_routes": self.count_routes(cfg.n_routes) if self.root.solved else 0,  # before confirmation
                    # the first answer is shown as soon as it exists while the search goes on for better routes
                    "first_solution_s": self.first_solution_s,
                    "best_value": self.root.value if self.root.solved else None,
                })
        self.final_routes(cfg.n_routes)
        return stopped_by, time.perf_counter() - start


def _model_info(model: Any) -> dict[str, Any]:
    """A single-step model's name and whether it has the learned policy (search statistics)."""
    return {"name": str(getattr(model, "name", type(model).__name__)), "policy": getattr(model, "policy", None) is not None}


def _load_model(model: Any) -> Any:
    """The model the search expands with: ``model``'s search view (``for_search``: the default model without the
    learned policy unless ``MOLX_SEARCH_POLICY=on``), or the packaged model's when ``model`` is ``None``."""
    from molx_agent.retro.single_step import load_search_model, search_model

    return load_search_model() if model is None else search_model(model)


def search_routes(
    target: str,
    *,
    stock: Stock | str | None = None,
    model: Any = None,
    time_limit: float = SearchConfig.time_limit,
    max_expansions: int = SearchConfig.max_expansions,
    max_depth: int = SearchConfig.max_depth,
    n_routes: int = SearchConfig.n_routes,
    progress: ProgressCallback | None = None,
    config: SearchConfig | None = None,
    caches: SearchCaches | None = None,
    name: str = "",
) -> SearchResult:
    """Find synthesis routes from ``target`` down to stock molecules.

    ``stock``: a :class:`Stock`, a spec for :func:`load_stock` or ``None`` (packaged common reagents +
    ZINC in-stock).  ``model``: a ``SingleStepModel`` (default :func:`load_single_step_model`; a model with a ``for_search`` view
    expands with that view, see :func:`molx_agent.retro.single_step.search_model`).
    ``progress`` is called after every expansion with a dict (``n_expansions``, ``max_expansions``,
    ``elapsed_s``, ``time_limit``, ``solved``, ``n_routes``).  An explicit ``config`` overrides the
    keyword limits.  An unsolved target is not an error: ``solved`` is False, ``partial_route`` holds the
    best partial route and ``reasons`` say why.
    """
    from molx_agent.retro.search_routes import build_routes, partial_route, unsolved_reasons

    if not isinstance(target, str) or not target.strip():
        raise ChemistryError("invalid_smiles", "empty target SMILES", value=target, hint="give the target as a SMILES")
    from molx_agent.limits import check_heavy_atoms, check_smiles_text

    text = check_smiles_text(target, what="target SMILES")  # no whitespace inside, not too long
    parsed = Chem.MolFromSmiles(text, sanitize=False)
    if parsed is not None:
        check_heavy_atoms(parsed, retro=True, what="target", value=text)  # molecule_too_large, before any work
    target_can = canonical_smiles(text)
    if target_can is None:
        raise ChemistryError("invalid_smiles", f"RDKit cannot parse target SMILES {target!r}", value=target,
                             hint="check valences and ring closures, or give a known name")
    if "." in target_can:
        raise ValidationError("multi_component_target", "the target must be a single molecule", value=target,
                              hint="give one molecule (drop salts and counter-ions)")
    cfg = config or SearchConfig(time_limit=float(time_limit), max_expansions=int(max_expansions),
                                 max_depth=int(max_depth), n_routes=int(n_routes))
    if cfg.rank_by not in ("score", "steps", "cost"):
        raise ValidationError("invalid_rank_by", "rank_by must be 'score', 'steps' or 'cost'", value=cfg.rank_by)
    if cfg.time_limit <= 0 or cfg.max_expansions < 1 or cfg.max_depth < 1 or cfg.n_routes < 1:
        raise ValidationError("invalid_search_limits", "time_limit, max_expansions, max_depth and n_routes must be positive",
                              value={"time_limit": cfg.time_limit, "max_expansions": cfg.max_expansions,
                                     "max_depth": cfg.max_depth, "n_routes": cfg.n_routes})
    _value_model(cfg)  # a bad leaf_estimate or a missing value file fails before any loading
    if cfg.target_expansion not in TARGET_EXPANSIONS:
        raise ValidationError("invalid_target_expansion", "target_expansion must be 'search' or 'union'",
                              value=cfg.target_expansion)
    if isinstance(cfg.union_depth, bool) or not isinstance(cfg.union_depth, int) or cfg.union_depth < 1:
        raise ValidationError("invalid_union_depth", "union_depth must be a positive integer",
                              value=cfg.union_depth)
    for field_name in ("selectivity_penalty", "probable_route_penalty"):
        penalty = getattr(cfg, field_name)
        if isinstance(penalty, bool) or not isinstance(penalty, (int, float)) or not 0 <= penalty < math.inf:
            raise ValidationError(f"invalid_{field_name}", f"{field_name} must be a finite number >= 0",
                                  value=penalty)
    stock_obj = load_stock(stock)
    mdl = _load_model(model)
    target_model = None
    if cfg.target_expansion == "union":
        from molx_agent.retro.single_step import load_single_step_model

        target_model = load_single_step_model() if model is None else model
    search = RetroStarSearch(target_can, mdl, stock_obj, cfg, progress=progress, caches=caches,
                             target_model=target_model)
    if search.validator is None and cfg.validate:
        logger.warning("forward validation unavailable (molx_agent.chem.validate_forward missing): steps are not gated")
    from rdkit import rdBase

    _block = rdBase.BlockLogs()  # RDKit's C++ warnings from templates/validation would flood stderr
    try:
        stopped_by, elapsed = search.run()
        routes = build_routes(search, cfg.n_routes, name=name)
        reasons: list[str] = []
        if search.target_source:
            reasons.append(f"the target itself is in stock ({search.target_source}); routes to it are shown anyway")
        if search.validator is None and cfg.validate:
            reasons.append("forward validation was unavailable: steps were not checked by the hard gates")
        partial = None
        if not routes:
            partial = partial_route(search, name=name)
            reasons.extend(unsolved_reasons(search, stopped_by, partial))
    finally:
        del _block
    stats = {
        "stopped_by": stopped_by,
        # model calls and time made by this search (a table already in shared caches costs no call)
        "n_model_calls": search.n_model_calls,
        "model_time_s": round(search.model_time_s, 3),
        "n_validations": search.n_validations,
        "validation_time_s": round(search.validation_time_s, 3),
        "n_replicated": search.n_replicated,
        "n_predictions_cut_short": search.n_cut_short,
        "n_analog_shortcuts": search.n_analog_shortcuts,
        "n_clean_alternatives": search.n_clean_alternatives,
        "n_implausible_steps": search.n_implausible,
        "n_nodes": search._next_id,
        # the final re-ranking of the best routes with the full model (SearchConfig.rescore_routes)
        "rescoring": dict(search.rescoring),
        # which single-step model expanded (the default search: the kNN + named-template model, no policy)
        "single_step_model": _model_info(mdl),
        # target_expansion "union": the model whose predictions joined the search model's for the target
        "target_model": None if search.target_model is None else _model_info(search.target_model),
        "rejected": dict(search.n_rejected),
        "rejection_examples": dict(search.rejection_examples),
        "model_errors": dict(search.model_errors),
        "target_in_stock": search.target_source,
        "first_solution_s": None if search.first_solution_s is None else round(search.first_solution_s, 3),
        "validation_cut": search.validation_cut,
        "config": {"time_limit": cfg.time_limit, "max_expansions": cfg.max_expansions, "max_depth": cfg.max_depth,
                   "n_routes": cfg.n_routes, "expansion_top_k": cfg.expansion_top_k, "validate": cfg.validate,
                   "reuse_solved": cfg.reuse_solved, "twin_values": cfg.twin_values, "leaf_cost": cfg.leaf_cost,
                   "leaf_cost_base": cfg.leaf_cost_base, "leaf_cost_per_atom": cfg.leaf_cost_per_atom,
                   "leaf_estimate": cfg.leaf_estimate, "target_expansion": cfg.target_expansion,
                   "union_depth": cfg.union_depth, "rescore_routes": cfg.rescore_routes,
                   "rescore_weight": cfg.rescore_weight, "rescore_share": cfg.rescore_share,
                   "clean_alternatives": cfg.clean_alternatives, "selectivity_penalty": cfg.selectivity_penalty,
                   "probable_route_penalty": cfg.probable_route_penalty},
    }
    return SearchResult(
        target=target_can,
        solved=bool(routes),
        routes=routes,
        n_expansions=search.n_expansions,
        time_s=elapsed,
        reasons=reasons,
        stock=stock_obj.name,
        partial_route=partial,
        stopped_by=stopped_by,
        stats=stats,
    )


__all__ = ["SearchConfig", "SearchResult", "SearchCaches", "RetroStarSearch", "search_routes"]

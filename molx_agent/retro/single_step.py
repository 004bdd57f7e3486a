"""Single-step retrosynthesis: product SMILES in, ranked precursor sets out.

The default model (:class:`TemplateKNNModel`) ranks templates learned from the USPTO-50K training reactions and the
PaRoutes route reactions that share no patent and no product with a reported benchmark (``retro.templates_db``,
built by ``scripts/build_templates.py --paroutes``) by nearest neighbours, RetroSim-style:

1. the product's Morgan fingerprint is compared with every training product at once (packed ``uint64``
   bit matrix, vectorised Tanimoto, a few ms);
2. the templates of the ``n_neighbours`` most similar training products are screened with a
   substructure pre-check and applied with rdchiral (compiled once, cached; duplicate matches dropped);
3. the learned template-relevance policy (``retro.policy``, a NeuralSym-style network over the library's USPTO-50K
   templates, the first ones of the library)
   names the most relevant templates for the product; those no neighbour used are applied as well, and every
   candidate learns the policy's probability of the templates that give it (``MOLX_SINGLE_STEP_POLICY=off``:
   no policy, the model before issue 28);
4. the general policy (``retro.policy.load_general_policy``) names the most relevant **general** (radius-0)
   templates of the library (only the atoms that change and the leaving groups); they are applied too, and precursor
   sets no specific template gave join the candidates (``source="general_templates"``); every candidate learns the
   general policy's probability of its general templates (no general templates without the policy);
5. the named expert templates of the chemistry core (``chem.templates``) are applied too; their
   precursor sets join the candidates (merged: a set both sources give is one candidate);
6. each distinct precursor set collects its evidence: every supporting neighbour's product similarity
   and the similarity of the proposed precursors to that neighbour's recorded reactants (RetroSim),
   the best product x precursor similarity over all neighbours, template popularity, the reaction
   class, whether a named expert template gives the same precursors, and the policy's probabilities;
7. a linear ranker over these features (``retro.ranker``; with the policy trained on validation products by
   ``scripts/train_policy_ranker.py``, without it on leave-one-out training queries by
   ``scripts/train_single_step_ranker.py``) scores the candidates; a softmax over one product's
   candidates gives ``Prediction.score`` (probabilities summing to 1 before the ``top_k`` cut).

``predict(product, top_k, deadline=t)`` stops applying templates at ``t`` (a ``time.perf_counter()`` value; checked
between templates and inside template application) and ranks what it found by then; the returned
:class:`PredictionList` says ``cut_short``.  Without a deadline the predictions are exactly those of a call without
the keyword.  A product above ``MOLX_MAX_RETRO_HEAVY_ATOMS`` heavy atoms (default 150) is refused
(``ChemistryError("molecule_too_large")``), as is a SMILES with whitespace inside (``molx_agent.limits``).

Precursor sets are unique (canonical, sorted SMILES).  Reaction names come from the named template
when one reproduces the precursors, otherwise from the template's Schneider class (rule-inferred,
``retro.reaction_class``).  Any other model plugs in by implementing :class:`SingleStepModel`.
"""

from __future__ import annotations

import copy
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Protocol, runtime_checkable

import numpy as np
from rdchiral.initialization import rdchiralReactants, rdchiralReaction
from rdkit import Chem

from molx_agent.chem.utils import map_free_mol, map_free_smiles
from molx_agent.errors import ChemistryError
from molx_agent.limits import check_heavy_atoms, check_smiles_text
from molx_agent.retro.fast_rdchiral import run_template
from molx_agent.retro.named_templates import (
    NamedMatch,
    NamedTemplateMatcher,
    application_deadline,
    compile_template,
    rdchiral_quiet,
)
from molx_agent.retro.policy import TemplatePolicy, load_general_policy, load_policy
from molx_agent.retro.ranker import (
    FEATURES,
    CandidateEvidence,
    LinearRanker,
    Support,
    candidate_features,
    load_policy_ranker,
    load_ranker,
)
from molx_agent.retro.reactant_counts import ReactantCounts, load_reactant_counts
from molx_agent.retro.reaction_class import infer_reaction_class, reaction_class_category, reaction_class_name
from molx_agent.retro.reaction_scorer import (
    ReactionScorer,
    SparseCounts,
    count_fingerprint,
    count_fingerprint_and_words,
    difference_features,
    load_reaction_scorer,
)
from molx_agent.retro.sn2_stereo import invert_substitution_centres
from molx_agent.retro.templates_db import (
    TemplateLibrary,
    TemplateRecord,
    fingerprint_bits_of_mol,
    fingerprint_words_of_mol,
    load_template_library,
)

log = logging.getLogger(__name__)

#: Environment variable: ``off`` runs the model without the learned template policy (the kNN + named-template
#: model with its own ranker, as before issue 28), for comparison.  Default: the policy when it is packaged.
POLICY_ENV = "MOLX_SINGLE_STEP_POLICY"


#: Environment variable: ``on`` lets the multi-step search use the learned policy as well.  Default ``off``: the
#: search expands with the kNN + named-template model (same templates, same evidence, its own ranker), while
#: single-step predictions (skills, pipeline, session) use the policy.  With the policy the search solves more
#: benchmark targets at the same route match, but the first routes to famous drugs get worse (the industrial
#: epichlorohydrin routes to propranolol and metoprolol are lost: the policy has no output for the PaRoutes template
#: of their last step); docs/benchmarks.md, "The policy-guided search on the default stock and on 20 drugs".
SEARCH_POLICY_ENV = "MOLX_SEARCH_POLICY"

_FALSE = ("off", "0", "false", "no")

#: How many of the general policy's most relevant general (radius-0) templates the default model applies.
GENERAL_TEMPLATES = 50
#: The policies' template lists stop once they hold this share of the probability.
TEMPLATE_MASS = 0.999
#: How many nearest training products contribute their general templates.
GENERAL_NEIGHBOURS = 0
#: How many of the general policy's most probable templates are screened for a product-side match, so that its list
#: can reach past templates that cannot apply (0: no screen, the policy's raw list).  Off by default: 300 adds about
#: 0.7 points of top-50 on validation products for 7-15 % more time per product (docs/benchmarks.md, "General
#: templates screened for a match").
GENERAL_SCREEN = 0


def policy_enabled() -> bool:
    """Whether the default model uses the learned policy (``MOLX_SINGLE_STEP_POLICY`` is not ``off``/``0``)."""
    return os.environ.get(POLICY_ENV, "on").strip().lower() not in _FALSE


def search_policy_enabled() -> bool:
    """Whether the multi-step search expands with the learned policy too (``MOLX_SEARCH_POLICY=on``, and the
    policy itself is not switched off by ``MOLX_SINGLE_STEP_POLICY=off``).  Default: no."""
    value = os.environ.get(SEARCH_POLICY_ENV, "off").strip().lower()
    return policy_enabled() and value not in _FALSE and value != ""


def _resolve_default(value: Any, name: str, kind: str, load: Callable[[], Any]) -> Any:
    """A model part given as ``"default"`` loaded by ``load`` (which may give ``None``); an object or ``None`` as is;
    any other string a ``ValueError``."""
    if not isinstance(value, str):
        return value
    if value != "default":
        raise ValueError(f"{name} must be {kind}, None or 'default', not {value!r}")
    return load()


@dataclass(frozen=True)
class Prediction:
    """One proposed disconnection: the precursors that make ``product`` in one step."""

    reactants: list[str]  # canonical SMILES, sorted
    score: float  # in (0, 1]; higher is better; comparable within one call
    template_id: str
    reaction_name: str
    category: str
    mapped_reaction: str  # atom-mapped "reactants>>product" as produced by the template
    product: str = ""  # canonical product SMILES
    reaction_class: int | None = None  # Schneider class (1-10) when known
    # "uspto50k_templates", "paroutes_templates", "general_templates" (radius-0 templates alone) or "named_template"
    source: str = "uspto50k_templates"
    template_ids: tuple[str, ...] = ()  # every template that gave these precursors, best first
    named_template_id: str = ""  # the expert template that reproduces the precursors, if any
    evidence: dict[str, Any] = field(default_factory=dict)  # neighbour similarity, support, template count

    @property
    def reaction_smiles(self) -> str:
        """Unmapped ``reactants>>product``."""
        return ".".join(self.reactants) + ">>" + self.product

    def to_dict(self) -> dict[str, Any]:
        return {
            "reactants": list(self.reactants),
            "score": self.score,
            "template_id": self.template_id,
            "reaction_name": self.reaction_name,
            "category": self.category,
            "mapped_reaction": self.mapped_reaction,
            "product": self.product,
            "reaction_smiles": self.reaction_smiles,
            "reaction_class": self.reaction_class,
            "source": self.source,
            "template_ids": list(self.template_ids),
            "named_template_id": self.named_template_id,
            "evidence": dict(self.evidence),
        }


class PredictionList(list):
    """Predictions, best first, and whether a deadline cut the prediction short.

    ``cut_short`` is true when ``predict(..., deadline=...)`` stopped applying templates before it had tried
    them all: the list holds the best of what was found by then.  A caller that caches predictions should not
    cache a list cut short as the molecule's answer.
    """

    cut_short: bool = False

    def __init__(self, items: Any = (), *, cut_short: bool = False) -> None:
        super().__init__(items)
        self.cut_short = cut_short


@runtime_checkable
class SingleStepModel(Protocol):
    """Anything that proposes ranked one-step precursor sets for a product."""

    def predict(self, product_smiles: str, top_k: int = 50, *, deadline: float | None = None) -> list[Prediction]:
        """Unique precursor sets for ``product_smiles``, best first, at most ``top_k``.

        ``deadline``: a ``time.perf_counter()`` value; a model that can stop early returns what it has by then
        (a :class:`PredictionList` with ``cut_short=True``); one that cannot may ignore it.
        Raises :class:`~molx_agent.errors.ChemistryError` (code ``invalid_smiles``) for bad input.
        """
        ...


def _top_templates(probs: np.ndarray, n: int, mass: float = TEMPLATE_MASS) -> np.ndarray:
    """Indices of the ``n`` most probable templates, best first (ties by index), stopping once they hold ``mass``
    of the probability (99.9 % by default; ``mass >= 1``: all ``n``)."""
    n = min(n, probs.shape[0])
    if n <= 0:
        return np.zeros(0, dtype=np.int64)
    top = np.argpartition(-probs, n - 1)[:n]
    top = top[np.lexsort((top, -probs[top]))]
    if mass >= 1.0:
        return top
    keep = int(np.searchsorted(np.cumsum(probs[top]), mass)) + 1
    return top[:keep]


def parse_product(smiles: str) -> Chem.Mol:
    """The product as an RDKit molecule without atom maps; ``ChemistryError`` when unusable.

    Codes: ``invalid_smiles``, ``smiles_contains_whitespace``, ``smiles_too_long`` and ``molecule_too_large``
    (above the retrosynthesis heavy-atom limit, ``molx_agent.limits``).
    """
    if not isinstance(smiles, str) or not smiles.strip():
        raise ChemistryError("invalid_smiles", "Empty product SMILES", value=smiles,
                             hint="give the target as a SMILES string, e.g. CC(=O)Nc1ccc(O)cc1")
    text = check_smiles_text(smiles, what="product SMILES")
    with rdchiral_quiet():
        mol = Chem.MolFromSmiles(text)
    if mol is None or mol.GetNumAtoms() == 0:
        raise ChemistryError("invalid_smiles", f"Invalid product SMILES: {smiles!r}", value=smiles,
                             hint="check ring closures, brackets and aromaticity")
    check_heavy_atoms(mol, retro=True, what="product", value=text)
    return map_free_mol(mol)  # a mapped input: the same molecule as the unmapped input gives


def canonical_reactant_set(smiles: str) -> tuple[str, ...] | None:
    """Sorted canonical SMILES of the components of ``smiles`` (maps removed); ``None`` if unparsable.

    Each component is written as RDKit's canonical SMILES of the map-free molecule
    (``molx_agent.chem.utils.map_free_smiles``): the same string whether ``smiles`` was atom-mapped or not.
    """
    parts = []
    for piece in smiles.split("."):
        mol = Chem.MolFromSmiles(piece)
        if mol is None:
            return None
        parts.append(map_free_smiles(mol))
    return tuple(sorted(parts))


class TemplateKNNModel:
    """Nearest-neighbour template model with a learned linear ranker (the default model).

    Parameters
    ----------
    library:
        The template library (default: the packaged one).
    n_neighbours:
        How many most-similar training products contribute their templates.  100 (RetroSim's choice): on
        1,000 validation products it ranks as well as 300 (top-1 / top-10 45.5 / 83.7 vs 45.2 / 84.2 %) at
        about two thirds of the time; the ranker was trained with 300 (``scripts/train_single_step_ranker.py``).
    ranker:
        Orders the candidates (default: the packaged trained ranker, see ``retro.ranker``).
    named_templates:
        Annotate (and rank up) candidates that a named expert template reproduces.
    merge_named:
        Also propose the named expert templates' own precursor sets that no neighbour's template gives
        (``source="named_template"``); the ranker scores them with the same features.
    policy:
        The learned template-relevance policy (``retro.policy``): its most relevant templates are applied too
        and its probabilities become ranker features.  ``"default"``: the packaged policy unless
        ``MOLX_SINGLE_STEP_POLICY=off``; ``None``: no policy (the model before issue 28).
    policy_templates:
        At most this many of the policy's templates are applied (fewer when the best ones already hold 99.9 %
        of its probability).
    search_policy:
        Whether the multi-step search uses the policy too (:meth:`for_search`).  ``"default"``: as
        ``MOLX_SEARCH_POLICY`` says (off unless set) when the policy is the packaged one, yes for a policy given
        explicitly.
    general_policy:
        The general policy (``retro.policy.load_general_policy``): it names the library's most relevant general
        (radius-0) templates, which are applied too.  ``"default"``: the packaged one when the model has a policy
        and the packaged library; ``None``: no general template is applied (the model before them).
    general_templates:
        At most this many of the general policy's templates are applied (fewer once they hold 99.9 % of its
        probability).  50: on validation products the candidates then hold the truth for 93.8 % instead of 89 %.
    general_mass:
        The share of the general policy's probability at which its list stops (``1.0``: always
        ``general_templates`` of them).  With 200 templates and no stop the candidates hold the truth for about
        1.5 points more validation products, for about twice the time (docs/benchmarks.md).
    general_neighbours:
        Also apply the general templates of this many nearest training products (0: none; 20 added no coverage).
    general_screen:
        Screen the general policy's this many most probable templates for a product-side substructure match (about
        1-2 ms for 300) and reach down its order past the templates that cannot apply (:meth:`_general_list`).
        About half of the raw top 50 do not match a typical product.  ``0`` (default): the raw list.  300: the
        candidates hold the truth for 10 more of 1,500 validation products (top-50 94.2 -> 94.9 %, top-10 the
        same) for 7-15 % more time per product (docs/benchmarks.md).
    reaction_scorer:
        The learned score of each whole candidate reaction (``retro.reaction_scorer``: product and precursors as a
        difference fingerprint), one more ranker feature.  ``"default"``: the packaged scorer when the model has a
        policy and the packaged library; ``None``: none (the feature is 0 and cancels in the softmax).
    reactant_counts:
        How often each precursor is a reactant in the library's reactions (``retro.reactant_counts``), four more
        ranker features.  ``"default"``: the packaged table when the model has a policy and the packaged library;
        ``None``: none (the features are 0).
    """

    name = "uspto50k-template-knn"
    #: Precursor molecules whose fingerprint, heavy-atom and ring counts are kept (about 0.4 kB each).
    precursor_cache_size = 20_000

    def __init__(
        self,
        library: TemplateLibrary | None = None,
        *,
        n_neighbours: int = 100,
        ranker: LinearRanker | None = None,
        named_templates: bool = True,
        merge_named: bool = True,
        policy: TemplatePolicy | None | str = "default",
        policy_templates: int = 50,
        search_policy: bool | str = "default",
        general_policy: TemplatePolicy | None | str = "default",
        general_templates: int = GENERAL_TEMPLATES,
        general_mass: float = TEMPLATE_MASS,
        general_neighbours: int = GENERAL_NEIGHBOURS,
        general_screen: int = GENERAL_SCREEN,
        reaction_scorer: ReactionScorer | None | str = "default",
        reactant_counts: ReactantCounts | None | str = "default",
    ) -> None:
        self.library = library if library is not None else load_template_library()
        self.n_neighbours = n_neighbours
        if isinstance(search_policy, str):
            if search_policy != "default":
                raise ValueError(f"search_policy must be a bool or 'default', not {search_policy!r}")
            search_policy = search_policy_enabled() if isinstance(policy, str) else True
        self.search_policy = bool(search_policy)
        packaged = library is None
        policy = _resolve_default(policy, "policy", "a TemplatePolicy",
                                  lambda: load_policy() if policy_enabled() and packaged else None)
        if policy is not None and policy.n_templates not in (len(self.library.templates),
                                                             self.library.n_uspto_templates):
            raise ValueError(f"the policy has {policy.n_templates} outputs for {len(self.library.templates)} templates"
                             f" ({self.library.n_uspto_templates} from USPTO-50K)")
        self.policy = policy
        self.policy_templates = policy_templates
        # the general policy, the reaction scorer and the reactant counts serve the packaged model with the policy
        with_policy = policy is not None and packaged
        general_policy = _resolve_default(general_policy, "general_policy", "a TemplatePolicy",
                                          lambda: load_general_policy() if with_policy else None)
        if general_policy is not None and not self.library.has_general:
            raise ValueError("a general policy needs a template library with general templates")
        if general_policy is not None and general_policy.n_templates != len(self.library.general_templates):
            raise ValueError(f"the general policy has {general_policy.n_templates} outputs for "
                             f"{len(self.library.general_templates)} general templates")
        self.general_policy = general_policy
        self.general_templates = general_templates
        if not 0.0 < general_mass <= 1.0:
            raise ValueError(f"general_mass must be in (0, 1], not {general_mass!r}")
        self.general_mass = general_mass
        self.general_neighbours = general_neighbours
        if general_screen < 0:
            raise ValueError(f"general_screen must be >= 0, not {general_screen!r}")
        self.general_screen = general_screen
        self.reaction_scorer = _resolve_default(reaction_scorer, "reaction_scorer", "a ReactionScorer",
                                                lambda: load_reaction_scorer() if with_policy else None)
        self.reactant_counts = _resolve_default(reactant_counts, "reactant_counts", "a ReactantCounts",
                                                lambda: load_reactant_counts() if with_policy else None)
        if ranker is None and policy is not None:
            ranker = load_policy_ranker()
        self.ranker = ranker if ranker is not None else load_ranker()
        self._compiled: dict[int, rdchiralReaction | None] = {}
        self._patterns: dict[int, Chem.Mol | None] = {}
        self._lock = threading.Lock()
        self._named = NamedTemplateMatcher.load() if named_templates else None
        self.merge_named = merge_named
        # template indices: the library's templates, then its general templates (index n_specific + g)
        self._n_specific = len(self.library.templates)
        general_classes, self._general_of = self._general_forms()
        self._counts = np.array([t.count for t in self.library.templates]
                                + [t.count for t in self.library.general_templates], dtype=np.float64)
        self._classes = [t.reaction_class for t in self.library.templates] + general_classes
        self._precursor_cache: dict[str, tuple[np.ndarray, int, int, SparseCounts | None]] = {}
        self._search_view: TemplateKNNModel | None = None

    # -- the search's view ------------------------------------------------------------------------
    def for_search(self) -> TemplateKNNModel:
        """The model the multi-step search expands with: this one, or (policy present, ``search_policy`` off) the
        same model without the policy and the general templates -- the kNN + named-template candidates ranked by the
        ranker trained without policy features, exactly the ``MOLX_SINGLE_STEP_POLICY=off`` model.  The view shares this model's template
        caches (compiled templates, patterns, precursor descriptors), so it costs no second library."""
        if (self.policy is None and self.general_policy is None) or self.search_policy:
            return self
        with self._lock:
            if self._search_view is None:
                view = copy.copy(self)  # shares the library, caches and lock
                view.policy = None
                view.general_policy = None
                view.reaction_scorer = None
                view.reactant_counts = None
                view.ranker = load_ranker()
                view.search_policy = True
                view._search_view = None
                self._search_view = view
            return self._search_view

    def _general_forms(self) -> tuple[list[int | None], np.ndarray]:
        """Per general template its usual reaction class (that of most of its training reactions' templates), and
        per library template its usual general form (-1: none), from the training reactions."""
        lib = self.library
        n_general = len(lib.general_templates)
        if not lib.has_general:
            return [], np.full(self._n_specific, -1, dtype=np.int64)
        assert lib.general_idx is not None
        rows = lib.general_idx >= 0
        spec, gen = lib.template_idx[rows].astype(np.int64), lib.general_idx[rows].astype(np.int64)
        pairs, counts = np.unique(np.stack([spec, gen]), axis=1, return_counts=True)
        general_of = np.full(self._n_specific, -1, dtype=np.int64)
        best = np.zeros(self._n_specific, dtype=np.int64)
        for (t, g), c in zip(pairs.T.tolist(), counts.tolist(), strict=True):  # pairs sorted: ties go to lower g
            if c > best[t]:
                general_of[t], best[t] = g, c
        votes: list[dict[int, int]] = [{} for _ in range(n_general)]
        for (t, g), c in zip(pairs.T.tolist(), counts.tolist(), strict=True):
            cls = lib.templates[t].reaction_class
            if cls:
                votes[g][cls] = votes[g].get(cls, 0) + c
        classes = [min(v, key=lambda c: (-v[c], c)) if v else None for v in votes]
        return classes, general_of

    def _template_smarts(self, idx: int) -> str:
        """The retro SMARTS of template ``idx`` (library templates first, then the general ones)."""
        if idx < self._n_specific:
            return self.library.templates[idx].retro_smarts
        return self.library.general_templates[idx - self._n_specific].retro_smarts

    def _template_id(self, idx: int) -> str:
        if idx < self._n_specific:
            return self.library.templates[idx].id
        return self.library.general_templates[idx - self._n_specific].id

    # -- precursor descriptors ------------------------------------------------------------------
    def _precursor_info(self, smiles: str) -> tuple[np.ndarray, int, int, SparseCounts | None] | None:
        """(packed library fingerprint, heavy atoms, rings, count fingerprint) of one precursor molecule; ``None`` if
        unparsable.  The count fingerprint (``retro.reaction_scorer``) is computed only for a model with a reaction
        scorer (``None`` otherwise).

        Cached per SMILES (bounded): reagents and building blocks recur across candidates and products.
        """
        info = self._precursor_cache.get(smiles)
        if info is None or (info[3] is None and self.reaction_scorer is not None):
            mol = Chem.MolFromSmiles(smiles)
            if mol is None:
                return None
            if self.reaction_scorer is not None:
                bits, counts = count_fingerprint_and_words(mol)  # one Morgan pass for both
            else:
                bits, counts = fingerprint_words_of_mol(mol), None
            bits.flags.writeable = False  # shared by every candidate that contains this molecule
            info = (bits, mol.GetNumHeavyAtoms(), mol.GetRingInfo().NumRings(), counts)
            with self._lock:
                if len(self._precursor_cache) >= self.precursor_cache_size:
                    self._precursor_cache.pop(next(iter(self._precursor_cache)))  # oldest first
                self._precursor_cache[smiles] = info
        return info

    # -- template application -------------------------------------------------------------------
    def _pattern(self, idx: int) -> Chem.Mol | None:
        """Product-side pattern of a template: a cheap substructure pre-check before rdchiral."""
        patt = self._patterns.get(idx, False)
        if patt is False:
            patt = Chem.MolFromSmarts(self._template_smarts(idx).split(">>")[0])
            if patt is not None:
                patt.UpdatePropertyCache(strict=False)
            with self._lock:
                self._patterns[idx] = patt
        return patt

    def _template(self, idx: int) -> rdchiralReaction | None:
        rxn = self._compiled.get(idx, False)
        if rxn is False:
            try:
                rxn = compile_template(self._template_smarts(idx))
            except Exception:  # noqa: BLE001 - a template RDKit cannot compile is skipped, once
                log.warning("template %s does not compile", self._template_id(idx))
                rxn = None
            with self._lock:
                self._compiled[idx] = rxn
        return rxn

    def _apply(self, idx: int, target: rdchiralReactants) -> list[tuple[tuple[str, ...], str]]:
        patt = self._pattern(idx)
        if patt is None or not target.reactants_achiral.HasSubstructMatch(patt):
            return []
        rxn = self._template(idx)
        if rxn is None:
            return []
        try:
            outcomes, mapped = run_template(rxn, target, combine_enantiomers=False, return_mapped=True)
            outcomes, mapped = invert_substitution_centres(rxn, target, outcomes, mapped)
        except Exception:  # noqa: BLE001 - rdchiral raises on odd stereo cases; the template just fails
            return []
        # rdchiral's outcomes are already canonical SMILES without atom maps, components sorted; rdchiral lists
        # them from a set (order varies with PYTHONHASHSEED), so sort them: candidates keep one order everywhere
        return [(tuple(smi.split(".")), mapped.get(smi, ("", ()))[0]) for smi in sorted(outcomes)]

    # -- prediction ----------------------------------------------------------------------------
    def neighbours(
        self, mol: Chem.Mol, n: int | None = None, exclude: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Indices and similarities of the ``n`` training products most similar to ``mol``.

        ``exclude``: training rows left out (leave-one-out evaluation on the training set).
        """
        return self._neighbours(fingerprint_bits_of_mol(mol), n, exclude)

    def _neighbours(
        self, bits: list[int], n: int | None = None, exclude: np.ndarray | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        n = n or self.n_neighbours
        lib = self.library
        sims = lib.product_index.tanimoto(bits, lib.product_counts)  # bulk_tanimoto's values, from posting lists
        if exclude is not None and len(exclude):
            sims[exclude] = -1.0
        n = min(n, sims.shape[0])
        top = np.argpartition(-sims, n - 1)[:n]
        order = np.lexsort((top, -sims[top]))  # by similarity, ties by training index (deterministic)
        top = top[order]
        keep = sims[top] > 0
        return top[keep], sims[top][keep]

    def candidates(
        self, product_smiles: str, exclude: np.ndarray | None = None
    ) -> tuple[str, str, list[CandidateEvidence], np.ndarray]:
        """Canonical product, mapped product, candidate evidence and their feature matrix."""
        product, mapped_product, cands, feats, _, _ = self._candidates(product_smiles, exclude)
        return product, mapped_product, cands, feats

    def _candidates(
        self, product_smiles: str, exclude: np.ndarray | None = None, deadline: float | None = None
    ) -> tuple[str, str, list[CandidateEvidence], np.ndarray, dict[tuple[str, ...], tuple[NamedMatch, str]], bool]:
        """:meth:`candidates`, the named templates' precursor table and whether ``deadline`` cut them short."""
        mol = parse_product(product_smiles)
        product = Chem.MolToSmiles(mol)
        lib = self.library
        bits = fingerprint_bits_of_mol(mol)
        idx, sims = self._neighbours(bits, exclude=exclude)
        policy_probs = self.policy.probabilities(bits) if self.policy is not None else None
        general_probs = self.general_policy.probabilities(bits) if self.general_policy is not None else None
        found: dict[tuple[str, ...], CandidateEvidence] = {}
        applied: dict[int, list[tuple[tuple[str, ...], str]]] = {}
        # per candidate: Tanimoto of its precursors to each neighbour's recorded reactants (neighbour rank order)
        reac_sim: dict[tuple[str, ...], list[float]] = {}
        nb_fps, nb_counts = lib.reactant_fps[idx], lib.reactant_counts[idx]

        def new_candidate(canon: tuple[str, ...], mapped: str) -> CandidateEvidence | None:
            """The evidence of a new candidate, registered in ``found``; ``None`` (not registered) if unparsable."""
            parts = [self._precursor_info(smi) for smi in canon]
            if any(part is None for part in parts):
                log.debug("unparsable precursors %s for %s: dropped", canon, product)
                return None
            # a Morgan bit set of disconnected molecules is the union of theirs (no environment crosses molecules)
            bits = parts[0][0] if len(parts) == 1 else np.bitwise_or.reduce([part[0] for part in parts])
            count = int(np.bitwise_count(bits).sum())
            # RetroSim's score over every neighbour, whatever template it used
            common = np.bitwise_count(nb_fps & bits).sum(axis=1)
            denom = count + nb_counts - common
            rsim = np.divide(common, denom, out=np.zeros(len(idx)), where=denom > 0)
            reac_sim[canon] = rsim.tolist()
            found[canon] = CandidateEvidence(
                canon, mapped,
                reactant_heavy_atoms=tuple(part[1] for part in parts),
                reactant_rings=sum(part[2] for part in parts),
                nn_sim_x_rsim=float((sims * rsim).max()) if len(idx) else 0.0,
            )
            return found[canon]

        named: dict[tuple[str, ...], tuple[NamedMatch, str]] = {}
        with rdchiral_quiet(), application_deadline(deadline) as budget:
            target = rdchiralReactants(product)
            mapped_product = Chem.MolToSmiles(target.reactants)
            for rank, (j, sim) in enumerate(zip(idx.tolist(), sims.tolist(), strict=True)):
                t = int(lib.template_idx[j])
                if t not in applied:
                    if budget.expired():  # the templates of the remaining neighbours are not applied
                        break
                    applied[t] = self._apply(t, target)
                for canon, mapped in applied[t]:
                    if canon == (product,):
                        continue
                    cand = found.get(canon) or new_candidate(canon, mapped)
                    if cand is None:
                        continue
                    cand.supports.append(Support(sim, reac_sim[canon][rank], t, rank))
            if policy_probs is not None:
                # the policy's most relevant templates: those no neighbour used give candidates without supports
                top = _top_templates(policy_probs, self.policy_templates)
                for t in top.tolist():
                    if t in applied:
                        continue
                    if budget.expired():
                        break
                    applied[t] = self._apply(t, target)
                    for canon, mapped in applied[t]:
                        if canon == (product,) or canon in found:
                            continue
                        new_candidate(canon, mapped)
                # every candidate learns the policy's probability of each template that gives it (a policy trained
                # on the USPTO-50K templates has no output for the PaRoutes-only ones that follow them)
                n_policy = policy_probs.shape[0]
                for t, outcomes in applied.items():
                    if t >= n_policy:
                        continue
                    p = float(policy_probs[t])
                    for canon, _ in outcomes:
                        cand = found.get(canon)
                        if cand is not None:
                            cand.policy_probs[t] = p
            if general_probs is not None:
                self._apply_general(idx, sims, general_probs, target, applied, found, reac_sim, new_candidate,
                                    product, budget)
            if self._named is not None and not budget.expired():
                named, _ = self._named.precursor_table_until(product, target, deadline=deadline)
                for canon, cand in found.items():
                    cand.named = canon in named
                if self.merge_named:
                    # the expert templates' own proposals join the candidates (ranked by the same model)
                    for canon, (match, mapped) in named.items():
                        if canon in found or canon == (product,) or product in canon:
                            continue
                        cand = new_candidate(canon, mapped)
                        if cand is None:
                            continue
                        cand.named = cand.named_only = True
                        # the template's class measured on training products, else inferred from this step
                        cand.named_class = self._named.reaction_class(match.id)
                        if cand.named_class is None and mapped:
                            cand.named_class = infer_reaction_class(f"{mapped}>>{mapped_product}")
        cands = list(found.values())
        if policy_probs is not None:
            for cand in cands:
                best = max(cand.policy_probs.values(), default=None)
                # 0-based rank of the candidate's best template in the policy's order (the named-only: all ranked)
                cand.policy_rank = int(np.count_nonzero(policy_probs > best)) if best is not None \
                    else len(policy_probs)
        if general_probs is not None:
            for cand in cands:
                best = max(cand.general_probs.values(), default=None)
                cand.general_rank = int(np.count_nonzero(general_probs > best)) if best is not None \
                    else len(general_probs)
        if self.reaction_scorer is not None and cands:
            product_counts = count_fingerprint(mol)
            diffs = [difference_features(product_counts, [self._precursor_info(s)[3] for s in c.reactants])
                     for c in cands]
            for cand, score in zip(cands, self.reaction_scorer.scores(product_counts, diffs).tolist(), strict=True):
                cand.reaction_score = score
        if self.reactant_counts is not None:
            for cand in cands:
                cand.reactant_counts = tuple(self.reactant_counts.count(s) for s in cand.reactants)
        n_heavy = mol.GetNumHeavyAtoms()
        n_rings = mol.GetRingInfo().NumRings()
        feats = np.array(
            [
                candidate_features(c, product_heavy_atoms=n_heavy, product_rings=n_rings,
                                   template_counts=self._counts, template_classes=self._classes,
                                   n_neighbours=self.n_neighbours, n_templates=self._n_specific,
                                   n_general=len(self.library.general_templates))
                for c in cands
            ],
            dtype=np.float64,
        ).reshape(len(cands), len(FEATURES))
        return product, mapped_product, cands, feats, named, budget.cut

    def _apply_general(self, idx: np.ndarray, sims: np.ndarray, general_probs: np.ndarray,
                       target: rdchiralReactants, applied: dict, found: dict, reac_sim: dict, new_candidate: Any,
                       product: str, budget: Any) -> None:
        """Apply the general (radius-0) templates: those of the ``general_neighbours`` nearest training products and
        the general policy's ``general_templates`` most relevant ones.  Precursor sets no specific template gave join
        the candidates (``general_only``); every candidate learns the general policy's probability of the general
        templates that give it and of the general forms of its specific templates."""
        lib = self.library
        assert lib.general_idx is not None
        n_spec = self._n_specific
        order: dict[int, None] = {}
        for j in idx[: self.general_neighbours].tolist():
            g = int(lib.general_idx[j])
            if g >= 0:
                order.setdefault(g)
        for g in self._general_list(general_probs, target).tolist():
            order.setdefault(int(g))
        gives: dict[tuple[str, ...], set[int]] = {}
        for g in order:
            u = n_spec + g
            if u not in applied:
                if budget.expired():
                    break
                applied[u] = self._apply(u, target)
            for canon, mapped in applied[u]:
                if canon == (product,):
                    continue
                cand = found.get(canon)
                if cand is None:
                    cand = new_candidate(canon, mapped)
                    if cand is None:
                        continue
                    cand.general_only = True
                gives.setdefault(canon, set()).add(g)
        # the neighbours whose general template gives a candidate support it (RetroSim's evidence, general form)
        for rank, (j, sim) in enumerate(zip(idx[: self.general_neighbours].tolist(), sims.tolist(), strict=False)):
            g = int(lib.general_idx[j])
            for canon, _ in applied.get(n_spec + g, ()) if g >= 0 else ():
                cand = found.get(canon)
                if cand is not None:
                    cand.general_supports.append(Support(sim, reac_sim[canon][rank], n_spec + g, rank))
        # the general forms of the specific templates that give each candidate
        for t, outcomes in applied.items():
            if t >= n_spec or self._general_of[t] < 0:
                continue
            for canon, _ in outcomes:
                if canon in found:
                    gives.setdefault(canon, set()).add(int(self._general_of[t]))
        for canon, gs in gives.items():
            cand = found[canon]
            for g in gs:
                cand.general_probs[g] = float(general_probs[g])
            if cand.general_only:
                g_best = min(gs, key=lambda g: (-general_probs[g], g))
                cand.named_class = self._classes[n_spec + g_best]

    def _general_list(self, general_probs: np.ndarray, target: rdchiralReactants) -> np.ndarray:
        """The general templates to apply, best first by the general policy.

        The raw list: its ``general_templates`` most probable templates, stopping once they hold ``general_mass`` of
        its probability.  With ``general_screen`` > 0 its ``general_screen`` most probable templates are screened for
        a product-side match, and the matching ones are taken in the policy's order until both every matching
        template of the raw list is taken and those taken hold ``general_mass`` of the matching templates'
        probability (at most ``general_templates`` for the second rule): a template that cannot apply holds no
        share, so the list reaches further down for templates that can.  The raw list's templates that do not match
        would give nothing, so they are left out.
        """
        raw = _top_templates(general_probs, self.general_templates, self.general_mass)
        if self.general_screen <= 0:
            return raw
        top = _top_templates(general_probs, max(self.general_screen, self.general_templates), 1.0)
        mol = target.reactants_achiral
        n_spec = self._n_specific
        matching = np.asarray([g for g in top.tolist()
                               if (patt := self._pattern(n_spec + g)) is not None and mol.HasSubstructMatch(patt)],
                              dtype=np.int64)
        if not matching.size:
            return matching
        probs = general_probs[matching].astype(np.float64)
        total = float(probs.sum())
        # the raw list is a prefix of ``top``, so its matching templates are a prefix of ``matching``
        n_raw = int(np.isin(matching, raw).sum())
        n_mass = int(np.searchsorted(np.cumsum(probs) / total, self.general_mass)) + 1 \
            if self.general_mass < 1.0 and total > 0.0 else matching.size
        return matching[: max(n_raw, min(n_mass, self.general_templates))]

    def predict(self, product_smiles: str, top_k: int = 50, *, deadline: float | None = None) -> PredictionList:
        """Unique precursor sets for ``product_smiles``, best first, at most ``top_k``.

        ``deadline``: a ``time.perf_counter()`` value after which no further template is applied (checked
        between templates and inside template application); the candidates found by then are ranked and
        returned with ``cut_short=True``.  ``None`` (default): every template is applied.
        """
        if top_k <= 0:
            parse_product(product_smiles)  # still reject bad input
            return PredictionList()
        product, mapped_product, cands, feats, named, cut = self._candidates(product_smiles, deadline=deadline)
        if not cands:
            return PredictionList(cut_short=cut)
        probs = self.ranker.probabilities(feats)
        order = sorted(range(len(cands)), key=lambda i: (-probs[i], cands[i].reactants))[:top_k]
        preds = PredictionList((self._to_prediction(cands[i], float(probs[i]), product, mapped_product, named)
                                for i in order), cut_short=cut)
        for i, pred in zip(order, preds, strict=True):
            if self.reaction_scorer is not None:
                pred.evidence["reaction_score"] = round(cands[i].reaction_score, 4)
            if self.reactant_counts is not None:
                pred.evidence["reactant_counts"] = list(cands[i].reactant_counts)
        return preds

    def _to_prediction(self, cand: CandidateEvidence, prob: float, product: str, mapped_product: str,
                       named_table: dict[tuple[str, ...], tuple[NamedMatch, str]]) -> Prediction:
        mapped = f"{cand.mapped}>>{mapped_product}" if cand.mapped else ""
        best = cand.best_support()
        hit = named_table.get(tuple(sorted(cand.reactants))) if cand.named else None
        named = hit[0] if hit is not None else None
        if best is None and cand.policy_probs:  # proposed by the policy's templates alone
            return self._policy_prediction(cand, prob, product, mapped, named)
        if best is None and cand.general_only:  # proposed by general templates alone
            return self._general_prediction(cand, prob, product, mapped, named)
        if best is None:  # proposed by a named expert template alone
            assert named is not None, "a candidate without supports comes from a named template"
            return Prediction(
                reactants=list(cand.reactants),
                score=max(round(prob, 6), 1e-6),
                template_id=named.id,
                reaction_name=named.name,
                category=named.category,
                mapped_reaction=mapped,
                product=product,
                reaction_class=cand.named_class,
                source="named_template",
                template_ids=(named.id,),
                named_template_id=named.id,
                evidence={
                    "best_similarity": 0.0,
                    "nn_similarity_x_reactant_similarity": round(cand.nn_sim_x_rsim, 4),
                    "n_supporting_neighbours": 0,
                    "template_count": 0,
                },
            )
        rec = self.library.templates[best.template]
        name, category, named_id = _labels(rec.reaction_class, named)
        evidence = {}
        if cand.policy_probs:
            evidence["policy_probability"] = round(sum(cand.policy_probs.values()), 6)
        per_template: dict[int, float] = {}
        for s in cand.supports:
            per_template[s.template] = max(per_template.get(s.template, 0.0), s.similarity * s.reactant_similarity)
        order = sorted(per_template, key=lambda t: (-per_template[t], t))
        return Prediction(
            reactants=list(cand.reactants),
            score=max(round(prob, 6), 1e-6),
            template_id=rec.id,
            reaction_name=name,
            category=category,
            mapped_reaction=mapped,
            product=product,
            reaction_class=rec.reaction_class,
            source=self._template_source(rec),
            template_ids=tuple(self.library.templates[t].id for t in order),
            named_template_id=named_id,
            evidence={
                "best_similarity": round(float(best.similarity), 4),
                "best_reactant_similarity": round(float(best.reactant_similarity), 4),
                "nn_similarity_x_reactant_similarity": round(cand.nn_sim_x_rsim, 4),
                "n_supporting_neighbours": len(cand.supports),
                "template_count": rec.count,
                **evidence,
            },
        )

    def _template_source(self, rec: TemplateRecord) -> str:
        """``uspto50k_templates``, or ``paroutes_templates`` for a template only PaRoutes route reactions give."""
        return "paroutes_templates" if rec.index >= self.library.n_uspto_templates else "uspto50k_templates"

    def _general_prediction(self, cand: CandidateEvidence, prob: float, product: str, mapped: str,
                            named: NamedMatch | None) -> Prediction:
        """A candidate that only general (radius-0) templates give: its reaction centre was seen in training, its
        surroundings were not.  ``template_id`` is the general template the general policy ranks first."""
        order = sorted(cand.general_probs, key=lambda g: (-cand.general_probs[g], g))
        rec = self.library.general_templates[order[0]]
        cls = cand.named_class
        name, category, named_id = _labels(cls, named)
        best = max(cand.general_supports, key=lambda s: (s.similarity * s.reactant_similarity, -s.rank),
                   default=None)
        return Prediction(
            reactants=list(cand.reactants),
            score=max(round(prob, 6), 1e-6),
            template_id=rec.id,
            reaction_name=name,
            category=category,
            mapped_reaction=mapped,
            product=product,
            reaction_class=cls,
            source="general_templates",
            template_ids=tuple(self.library.general_templates[g].id for g in order),
            named_template_id=named_id,
            evidence={
                "best_similarity": round(float(best.similarity), 4) if best is not None else 0.0,
                "nn_similarity_x_reactant_similarity": round(cand.nn_sim_x_rsim, 4),
                "n_supporting_neighbours": 0,
                "n_general_supporting_neighbours": len(cand.general_supports),
                "template_count": rec.count,
                "general_policy_probability": round(sum(cand.general_probs.values()), 6),
            },
        )

    def _policy_prediction(self, cand: CandidateEvidence, prob: float, product: str, mapped: str,
                           named: NamedMatch | None) -> Prediction:
        """A candidate that only the policy's templates (no neighbour's) give."""
        order = sorted(cand.policy_probs, key=lambda t: (-cand.policy_probs[t], t))
        rec = self.library.templates[order[0]]
        name, category, named_id = _labels(rec.reaction_class, named)
        return Prediction(
            reactants=list(cand.reactants),
            score=max(round(prob, 6), 1e-6),
            template_id=rec.id,
            reaction_name=name,
            category=category,
            mapped_reaction=mapped,
            product=product,
            reaction_class=rec.reaction_class,
            source=self._template_source(rec),
            template_ids=tuple(self.library.templates[t].id for t in order),
            named_template_id=named_id,
            evidence={
                "best_similarity": 0.0,
                "nn_similarity_x_reactant_similarity": round(cand.nn_sim_x_rsim, 4),
                "n_supporting_neighbours": 0,
                "template_count": rec.count,
                "policy_probability": round(sum(cand.policy_probs.values()), 6),
            },
        )


def _labels(reaction_class: int | None, named: NamedMatch | None) -> tuple[str, str, str]:
    """Reaction name, category and named-template id of a prediction: the named expert template's when one reproduces
    the precursors, else the name and category of the reaction class (no named id)."""
    if named is not None:
        return named.name, named.category, named.id
    return reaction_class_name(reaction_class), reaction_class_category(reaction_class), ""


@lru_cache(maxsize=1)
def load_single_step_model() -> TemplateKNNModel:
    """The default single-step model (packaged USPTO-50K templates, the learned policy unless
    ``MOLX_SINGLE_STEP_POLICY=off``), built once per process."""
    return TemplateKNNModel()


def search_model(model: Any) -> Any:
    """The model a multi-step search expands with, given the engine's model: its :meth:`TemplateKNNModel.for_search`
    view when it has one (the default model: without the policy unless ``MOLX_SEARCH_POLICY=on``), else itself."""
    view = getattr(model, "for_search", None)
    return view() if callable(view) else model


def load_search_model() -> Any:
    """The default model of the multi-step search (see :func:`search_model`)."""
    return search_model(load_single_step_model())


__all__ = [
    "Prediction",
    "PredictionList",
    "SingleStepModel",
    "TemplateKNNModel",
    "load_single_step_model",
    "load_search_model",
    "search_model",
    "policy_enabled",
    "search_policy_enabled",
    "parse_product",
    "canonical_reactant_set",
]

"""Features and the linear ranker that order the single-step model's candidate precursor sets.

Each candidate precursor set is described by the evidence that produced it (which nearest training
products support it, how similar they and their reactants are, how popular the templates are, whether
a named expert template reproduces it) and by a few structural features of the disconnection.  A linear
model over these features, trained as a conditional logit (softmax over the candidates of one product)
by ``scripts/train_single_step_ranker.py`` on leave-one-out queries from the *training* reactions,
gives the ranking score; the softmax turns scores into probabilities that sum to 1 over one
product's candidates.  Without a trained weight file the ranker falls back to the kNN vote
``sum(similarity**4 * reactant_similarity)``.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from molx_agent.errors import DataError
from molx_agent.retro.reactant_counts import REACTANT_COUNT_FEATURES, reactant_count_features
from molx_agent.retro.templates_db import DATA_DIR

RANKER_FILE = "retro_ranker.json"  # the ranker of the model without the learned policy (kNN + named templates)
POLICY_RANKER_FILE = "retro_ranker_policy.json"  # the ranker of the ensemble with the learned policy

FEATURES: tuple[str, ...] = (
    "log_vote_s4",
    "log_vote_s1",
    "log_vote_s8",
    "max_sim",
    "max_sim_x_rsim",
    "log_support",
    "log_n_templates",
    "log_template_count",
    "first_support_rank",
    "one_reactant",
    "three_plus_reactants",
    "leaving_atoms",
    "largest_fraction",
    "ring_change",
    "named_template",
    "named_only",
    "nn_sim_x_rsim",
    *(f"class_{c}" for c in range(1, 11)),
    # the learned template-relevance policy (``retro.policy``); all 0 when the model runs without it
    "policy_log_prob",
    "policy_log_max_prob",
    "policy_rank",
    "policy_only",
    # general (radius-0) templates and the general policy (``retro.policy``); all 0 when the model runs without them
    "general_only",
    "general_log_vote_s4",
    "general_policy_log_prob",
    "general_policy_rank",
    # the learned score of the whole candidate reaction (``retro.reaction_scorer``); 0 when the model runs without it
    "reaction_score",
    # how often each precursor is a reactant in the library's reactions (``retro.reactant_counts``); all 0 when the
    # model runs without the table
    *REACTANT_COUNT_FEATURES,
)
#: ``log(policy probability)`` given to a candidate none of whose templates the policy ranks (named-only ones)
POLICY_LOG_FLOOR = math.log(1e-6)


@dataclass
class Support:
    """One training neighbour whose template produced the candidate."""

    similarity: float  # Tanimoto product vs neighbour's product
    reactant_similarity: float  # Tanimoto candidate precursors vs neighbour's reactants
    template: int
    rank: int  # 0-based rank of the neighbour


@dataclass
class CandidateEvidence:
    """Everything known about one candidate precursor set before ranking."""

    reactants: tuple[str, ...]
    mapped: str = ""
    supports: list[Support] = field(default_factory=list)
    reactant_heavy_atoms: tuple[int, ...] = ()
    reactant_rings: int = 0
    named: bool = False  # a named expert template reproduces these precursors
    # Proposed only by a named expert template (no training neighbour's template gives it): no supports.
    named_only: bool = False
    # Schneider class of a candidate no specific template gives: inferred from the named template's mapped reaction
    # (named-only), or the usual class of its best general template (general-only)
    named_class: int | None = None
    # max over the nearest training products j of sim(product, j) * sim(precursors, reactants of j),
    # whichever template j used (RetroSim's score; defined for every candidate, named-only ones included)
    nn_sim_x_rsim: float = 0.0
    # the policy's probability of every library template that gives these precursors (the neighbours' and the
    # policy's own; filled in when the model has a policy)
    policy_probs: dict[int, float] = field(default_factory=dict)
    # 0-based rank of the candidate's best template in the policy's order (None: no policy)
    policy_rank: int | None = None
    # Proposed only by general (radius-0) templates: no specific template, no named one gives it.
    general_only: bool = False
    # training neighbours whose general template gives these precursors (``template``: the general template index)
    general_supports: list[Support] = field(default_factory=list)
    # the general policy's probability of every general template that gives these precursors, or that is the
    # general form of a specific template giving them (filled in when the model applies general templates)
    general_probs: dict[int, float] = field(default_factory=dict)
    # 0-based rank of the best of those in the general policy's order (None: the model applies no general template)
    general_rank: int | None = None
    # the reaction scorer's score of product + these precursors (``retro.reaction_scorer``; 0: no scorer)
    reaction_score: float = 0.0
    # per precursor, the number of library reactions it is a reactant of (``retro.reactant_counts``; (): no table)
    reactant_counts: tuple[int, ...] = ()

    def best_support(self) -> Support | None:
        if not self.supports:
            return None
        return max(self.supports, key=lambda s: (s.similarity * s.reactant_similarity, -s.rank))


def _log(x: float) -> float:
    return math.log(x + 1e-4)


def candidate_features(
    cand: CandidateEvidence,
    *,
    product_heavy_atoms: int,
    product_rings: int,
    template_counts: np.ndarray,
    template_classes: list[int | None],
    n_neighbours: int,
    n_templates: int | None = None,
    n_general: int | None = None,
) -> np.ndarray:
    """The feature vector (order of :data:`FEATURES`) of one candidate."""
    sup = cand.supports
    s = np.array([x.similarity for x in sup], dtype=np.float64)
    r = np.array([x.reactant_similarity for x in sup], dtype=np.float64)
    templates = {x.template for x in sup}
    best = cand.best_support()
    heavy = cand.reactant_heavy_atoms or (product_heavy_atoms,)
    f = [
        _log(float(np.sum(s**4 * r))),
        _log(float(np.sum(s * r))),
        _log(float(np.sum(s**8 * r))),
        float(s.max()) if sup else 0.0,
        float((s * r).max()) if sup else 0.0,
        math.log1p(len(sup)),
        math.log1p(len(templates)),
        math.log1p(float(max(template_counts[t] for t in templates))) if templates else 0.0,
        math.log1p(min(x.rank for x in sup)) / math.log1p(max(n_neighbours, 1)) if sup else 1.0,
        1.0 if len(cand.reactants) == 1 else 0.0,
        1.0 if len(cand.reactants) >= 3 else 0.0,
        min(max(sum(heavy) - product_heavy_atoms, 0), 30) / 10.0,
        max(heavy) / max(product_heavy_atoms, 1),
        float(product_rings - cand.reactant_rings),
        1.0 if cand.named else 0.0,
        1.0 if cand.named_only else 0.0,
        float(cand.nn_sim_x_rsim),
    ]
    if best is not None:
        cls = template_classes[best.template]
    elif cand.policy_probs:  # proposed by the policy's templates alone: the most relevant one's class
        cls = template_classes[min(cand.policy_probs, key=lambda t: (-cand.policy_probs[t], t))]
    else:
        cls = cand.named_class
    f.extend(1.0 if cls == c else 0.0 for c in range(1, 11))
    if cand.policy_rank is None:  # no policy
        f.extend((0.0, 0.0, 0.0, 0.0))
    else:
        total = sum(cand.policy_probs.values())
        top = max(cand.policy_probs.values(), default=0.0)
        f.extend((
            max(math.log(total), POLICY_LOG_FLOOR) if total > 0 else POLICY_LOG_FLOOR,
            max(math.log(top), POLICY_LOG_FLOOR) if top > 0 else POLICY_LOG_FLOOR,
            math.log1p(cand.policy_rank) / math.log1p(max(n_templates or 1, 1)),
            1.0 if not sup and not cand.named_only and not cand.general_only else 0.0,
        ))
    if cand.general_rank is None:  # no general templates
        f.extend((0.0, 0.0, 0.0, 0.0))
    else:
        gs = np.array([x.similarity for x in cand.general_supports], dtype=np.float64)
        gr = np.array([x.reactant_similarity for x in cand.general_supports], dtype=np.float64)
        total = sum(cand.general_probs.values())
        f.extend((
            1.0 if cand.general_only else 0.0,
            _log(float(np.sum(gs**4 * gr))),
            max(math.log(total), POLICY_LOG_FLOOR) if total > 0 else POLICY_LOG_FLOOR,
            math.log1p(cand.general_rank) / math.log1p(max(n_general or 1, 1)),
        ))
    f.append(float(cand.reaction_score))
    f.extend(reactant_count_features(cand.reactant_counts))
    return np.asarray(f, dtype=np.float64)


@dataclass(frozen=True)
class LinearRanker:
    """``score = weights . features``; probabilities by a softmax over one product's candidates."""

    weights: np.ndarray
    features: tuple[str, ...] = FEATURES
    trained: bool = False
    meta: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def default(cls) -> LinearRanker:
        w = np.zeros(len(FEATURES))
        w[FEATURES.index("log_vote_s4")] = 1.0
        return cls(w, FEATURES, trained=False, meta={"source": "fallback: kNN vote sum(sim^4 * reactant_sim)"})

    def scores(self, feats: np.ndarray) -> np.ndarray:
        return feats @ self.weights

    def probabilities(self, feats: np.ndarray) -> np.ndarray:
        z = self.scores(feats)
        z = z - z.max()
        e = np.exp(z)
        return e / e.sum()

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(self.features), "weights": [round(float(x), 6) for x in self.weights],
                "meta": self.meta}


def read_ranker(path: str | Path) -> LinearRanker:
    """A trained ranker from its JSON file; ``DataError`` when unreadable or for unknown features.

    A file may name a subset of :data:`FEATURES` (a ranker trained before features were added): the features it
    does not name get weight 0.
    """
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        names = tuple(data.get("features", ()))
        values = [float(x) for x in data["weights"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError("bad_data_file", f"Ranker weights unreadable: {path}", value=str(path)) from exc
    if not names or len(names) != len(values) or len(set(names)) != len(names) or not set(names) <= set(FEATURES):
        raise DataError("bad_data_file", "Ranker weights were trained on other features", value=str(path),
                        hint="retrain with scripts/train_single_step_ranker.py")
    weights = np.zeros(len(FEATURES))
    for name, value in zip(names, values, strict=True):
        weights[FEATURES.index(name)] = value
    return LinearRanker(weights, FEATURES, True, data.get("meta", {}))


@lru_cache(maxsize=1)
def load_ranker() -> LinearRanker:
    """The packaged trained ranker of the model without the policy, or the kNN-vote fallback when absent."""
    path = DATA_DIR / RANKER_FILE
    if not path.is_file():
        return LinearRanker.default()
    return read_ranker(path)


@lru_cache(maxsize=1)
def load_policy_ranker() -> LinearRanker | None:
    """The packaged ranker of the ensemble with the learned policy; ``None`` when its file is absent."""
    path = DATA_DIR / POLICY_RANKER_FILE
    if not path.is_file():
        return None
    return read_ranker(path)


__all__ = [
    "FEATURES",
    "RANKER_FILE",
    "POLICY_RANKER_FILE",
    "POLICY_LOG_FLOOR",
    "Support",
    "CandidateEvidence",
    "candidate_features",
    "LinearRanker",
    "read_ranker",
    "load_ranker",
    "load_policy_ranker",
]

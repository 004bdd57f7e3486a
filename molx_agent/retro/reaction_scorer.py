"""A learned score of a whole candidate reaction (product + precursor set), numpy inference only.

The template policies say which *templates* suit a product; nothing in the single-step ranker looked at the
reaction a candidate writes as a whole: which atom environments it forms and which it consumes, which leaving
group or protecting group it brings. :class:`ReactionScorer` is a small network over the reaction's difference
fingerprint (the product's Morgan count fingerprint minus the sum of its precursors', as AiZynthFinder's
in-scope filter uses) and the product's own on-bits::

    score = w2 . relu(sum W_prod[product bits] + sum_j d_j W_diff[j] + b1) + b2

trained by ``scripts/train_reaction_scorer.py`` (torch, build time only) as a conditional logit: a softmax over
the candidates the single-step model proposes for one training product, the recorded reactants being the right
one. Its score is one more feature of the single-step ranker (``reaction_score``); the ranker, fitted on
validation products, decides how much it counts. The weights ship as float16 in
``molx_agent/data/retro_reaction_scorer.npz``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from rdkit import Chem
from rdkit.Chem import rdFingerprintGenerator

from molx_agent.errors import DataError
from molx_agent.io_utils import read_npz_with_meta
from molx_agent.retro.templates_db import DATA_DIR, FINGERPRINT, fingerprint_words_of_mol

SCORER_FILE = "retro_reaction_scorer.npz"
#: The count fingerprint of the difference features (products and precursors alike).
REACTION_FINGERPRINT: dict[str, Any] = {"type": "morgan_count", "radius": 2, "fp_size": 2048, "clip": 4}

#: A sparse count fingerprint: (sorted on-bit indices int64, counts float32).
SparseCounts = tuple[np.ndarray, np.ndarray]


@lru_cache(maxsize=1)
def _generator() -> Any:
    return rdFingerprintGenerator.GetMorganGenerator(radius=REACTION_FINGERPRINT["radius"],
                                                     fpSize=REACTION_FINGERPRINT["fp_size"])


def count_fingerprint(mol: Chem.Mol) -> SparseCounts:
    """The sparse Morgan count fingerprint of ``mol`` (radius 2, 2048 bins)."""
    dense = _generator().GetCountFingerprintAsNumPy(mol)
    idx = np.flatnonzero(dense)
    return idx.astype(np.int64), dense[idx].astype(np.float32)


#: Whether the library fingerprint (``templates_db.FINGERPRINT``) is this count fingerprint's on-bits.
_SHARED_PASS = (FINGERPRINT["type"], FINGERPRINT["radius"], FINGERPRINT["fp_size"], FINGERPRINT["chirality"]) == (
    "morgan", REACTION_FINGERPRINT["radius"], REACTION_FINGERPRINT["fp_size"], False)


def count_fingerprint_and_words(mol: Chem.Mol) -> tuple[np.ndarray, SparseCounts]:
    """(the library fingerprint of ``mol`` packed as ``templates_db.fingerprint_words_of_mol`` packs it, its
    :func:`count_fingerprint`) from one Morgan pass when the two fingerprints share radius and size (a library bit
    is on exactly where the count of its bin is non-zero), else from two."""
    if not _SHARED_PASS:
        return fingerprint_words_of_mol(mol), count_fingerprint(mol)
    dense = _generator().GetCountFingerprintAsNumPy(mol)
    idx = np.flatnonzero(dense)
    words = np.packbits(dense > 0, bitorder="little").view(np.uint64)
    return words, (idx.astype(np.int64), dense[idx].astype(np.float32))


def difference_features(product: SparseCounts, precursors: list[SparseCounts]) -> SparseCounts:
    """``clip(product - sum(precursors))`` as sparse (indices, values), zero entries dropped.

    Positive entries are environments the reaction forms, negative ones environments it consumes (leaving groups,
    reagent atoms, the bonds that break)."""
    size = REACTION_FINGERPRINT["fp_size"]
    d = np.zeros(size, dtype=np.float32)
    d[product[0]] += product[1]
    for idx, val in precursors:
        d[idx] -= val
    c = float(REACTION_FINGERPRINT["clip"])
    np.clip(d, -c, c, out=d)
    nz = np.flatnonzero(d)
    return nz.astype(np.int64), d[nz]


@dataclass(frozen=True)
class ReactionScorer:
    """``score = w2 . relu(sum W_prod[product bits] + diff @ W_diff + b1) + b2`` per candidate reaction."""

    w_prod: np.ndarray  # (fp_size, hidden) float32
    w_diff: np.ndarray  # (fp_size, hidden) float32
    b1: np.ndarray  # (hidden,)
    w2: np.ndarray  # (hidden,)
    b2: float
    meta: dict[str, Any] = field(default_factory=dict)

    def scores(self, product: SparseCounts, diffs: list[SparseCounts]) -> np.ndarray:
        """One score per candidate, given the product's count fingerprint and each candidate's difference."""
        n = len(diffs)
        if n == 0:
            return np.zeros(0)
        base = self.w_prod[product[0]].sum(axis=0) + self.b1
        lengths = np.array([len(d[0]) for d in diffs], dtype=np.int64)
        h = np.tile(base, (n, 1))
        if lengths.sum():
            idx = np.concatenate([d[0] for d in diffs])
            val = np.concatenate([d[1] for d in diffs])
            rows = self.w_diff[idx] * val[:, None]
            nonempty = lengths > 0
            starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))[nonempty]
            h[nonempty] += np.add.reduceat(rows, starts, axis=0)
        np.maximum(h, 0.0, out=h)
        return (h @ self.w2 + self.b2).astype(np.float64)


def read_reaction_scorer(path: str | Path) -> ReactionScorer:
    """A scorer from its ``.npz``; ``DataError`` when unreadable or built on another fingerprint."""
    path = Path(path)
    try:
        arrays, meta = read_npz_with_meta(path)
        scorer = ReactionScorer(
            w_prod=arrays["w_prod"].astype(np.float32),
            w_diff=arrays["w_diff"].astype(np.float32),
            b1=arrays["b1"].astype(np.float32),
            w2=arrays["w2"].astype(np.float32),
            b2=float(arrays["b2"]),
            meta=meta,
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise DataError("bad_data_file", f"Reaction scorer unreadable: {path}", value=str(path),
                        hint="retrain with scripts/train_reaction_scorer.py") from exc
    if meta.get("fingerprint") != REACTION_FINGERPRINT:
        raise DataError("bad_data_file", "Reaction scorer was trained on another fingerprint", value=str(path))
    size = REACTION_FINGERPRINT["fp_size"]
    if scorer.w_prod.shape[0] != size or scorer.w_diff.shape != scorer.w_prod.shape:
        raise DataError("bad_data_file", "Reaction scorer weights have the wrong shape", value=str(path))
    return scorer


def scorer_check_data(path: str | Path) -> tuple[SparseCounts, list[SparseCounts], np.ndarray]:
    """The reference input (one product, its candidates' differences) and the trainer's scores (for tests)."""
    with np.load(path, allow_pickle=False) as npz:
        p_idx, p_val = npz["check_product_idx"], npz["check_product_val"]
        d_idx, d_val, d_off = npz["check_diff_idx"], npz["check_diff_val"], npz["check_diff_offsets"]
        scores = npz["check_scores"]
    diffs = [(d_idx[d_off[i]:d_off[i + 1]].astype(np.int64), d_val[d_off[i]:d_off[i + 1]].astype(np.float32))
             for i in range(len(d_off) - 1)]
    return (p_idx.astype(np.int64), p_val.astype(np.float32)), diffs, scores


@lru_cache(maxsize=1)
def load_reaction_scorer() -> ReactionScorer | None:
    """The packaged reaction scorer, or ``None`` when its file is absent (its ranker feature is then 0)."""
    path = DATA_DIR / SCORER_FILE
    if not path.is_file():
        return None
    return read_reaction_scorer(path)


__all__ = ["SCORER_FILE", "REACTION_FINGERPRINT", "ReactionScorer", "count_fingerprint", "count_fingerprint_and_words",
           "difference_features", "read_reaction_scorer", "load_reaction_scorer", "scorer_check_data"]

"""Activity cliffs with MoleculeACE's definition (van Tilborg et al., J. Chem. Inf. Model. 2022).

Two compounds form a cliff when they are structurally similar by ANY of

- Tanimoto similarity of ECFP4 bit vectors (Morgan radius 2, 1024 bits) >= 0.9,
- Tanimoto similarity of the same fingerprint computed on the generic framework
  (``MurckoScaffold.MakeScaffoldGeneric`` applied to the molecule, exactly as MoleculeACE's
  ``get_scaffold_matrix`` does; ``GetScaffoldForMol`` when that fails) >= 0.9,
- normalised Levenshtein similarity of the SMILES strings as given, ``1 - d / max(len_a, len_b)``, >= 0.9,

AND their potencies differ more than 10-fold.  Cliffs are listed as pairs with the three similarities, the
fold change and SALI = |ΔpActivity| / (1 - Tanimoto(ECFP4)) (None when the fingerprints are identical).

The similarity matrices are computed in row blocks with numpy (fingerprint intersections by matrix
product) and rapidfuzz (Levenshtein distances), so thousands of compounds take seconds and memory stays
bounded by the block size.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

import numpy as np

logger = logging.getLogger(__name__)

SIMILARITY_THRESHOLD = 0.9
FOLD_CHANGE_THRESHOLD = 10.0
FP_RADIUS = 2
FP_BITS = 1024


@dataclass(frozen=True)
class CliffPair:
    """One activity cliff.  ``a``/``b`` index the compound list; ``row_a``/``row_b`` the input rows."""

    a: int
    b: int
    row_a: int
    row_b: int
    id_a: str
    id_b: str
    smiles_a: str
    smiles_b: str
    p_a: float
    p_b: float
    tanimoto_ecfp4: float
    tanimoto_scaffold: float
    levenshtein: float
    fold_change: float
    sali: float | None

    @property
    def more_potent(self) -> str:
        return self.id_a if self.p_a >= self.p_b else self.id_b

    def to_dict(self) -> dict:
        d = asdict(self)
        for k in ("tanimoto_ecfp4", "tanimoto_scaffold", "levenshtein"):
            d[k] = round(d[k], 4)
        d["fold_change"] = round(d["fold_change"], 2)
        d["delta_p"] = round(abs(self.p_a - self.p_b), 3)
        d["sali"] = None if self.sali is None else round(self.sali, 3)
        return d


@dataclass
class CliffResult:
    pairs: list[CliffPair]
    cliff_mol: np.ndarray  # bool per compound: in at least one cliff pair
    n_compared: int  # compounds with an exact potency that entered the comparison

    @property
    def n_cliff_molecules(self) -> int:
        return int(self.cliff_mol.sum())

    def to_dict(self, limit: int | None = None) -> dict:
        pairs = self.pairs if limit is None else self.pairs[:limit]
        return {"n_pairs": len(self.pairs), "n_cliff_molecules": self.n_cliff_molecules,
                "n_compared": self.n_compared, "pairs": [p.to_dict() for p in pairs]}


def _morgan_generator():
    from rdkit.Chem import rdFingerprintGenerator

    return rdFingerprintGenerator.GetMorganGenerator(radius=FP_RADIUS, fpSize=FP_BITS)


def ecfp4_bits(mols: Sequence) -> np.ndarray:
    """(n, 1024) uint8 matrix of ECFP4 bits."""
    gen = _morgan_generator()
    out = np.zeros((len(mols), FP_BITS), dtype=np.uint8)
    for i, m in enumerate(mols):
        out[i] = gen.GetFingerprintAsNumPy(m)
    return out


def generic_framework(mol):
    """MoleculeACE's "scaffold": ``MakeScaffoldGeneric`` of the molecule (``GetScaffoldForMol`` on failure)."""
    from rdkit.Chem.Scaffolds import MurckoScaffold

    try:
        return MurckoScaffold.MakeScaffoldGeneric(mol)
    except Exception:  # noqa: BLE001 - MoleculeACE falls back the same way
        return MurckoScaffold.GetScaffoldForMol(mol)


def scaffold_bits(mols: Sequence) -> np.ndarray:
    from rdkit import RDLogger

    RDLogger.DisableLog("rdApp.*")  # MakeScaffoldGeneric logs valence errors before the fallback
    try:
        return ecfp4_bits([generic_framework(m) for m in mols])
    finally:
        RDLogger.EnableLog("rdApp.*")


def tanimoto_block(a: np.ndarray, b: np.ndarray, a_counts: np.ndarray, b_counts: np.ndarray) -> np.ndarray:
    """Tanimoto between every row of ``a`` and every row of ``b`` (float64; 0 when both are empty)."""
    inter = (a.astype(np.float32) @ b.astype(np.float32).T).astype(np.float64)  # exact small integers
    union = a_counts[:, None] + b_counts[None, :] - inter
    with np.errstate(invalid="ignore", divide="ignore"):
        sim = np.where(union > 0, inter / union, 0.0)
    return sim


def levenshtein_similarity(a: str, b: str) -> float:
    """Exact normalised Levenshtein similarity ``1 - d / max(len_a, len_b)`` (1.0 for two empty strings)."""
    from rapidfuzz.distance import Levenshtein

    longest = max(len(a), len(b))
    return 1.0 - Levenshtein.distance(a, b) / longest if longest else 1.0


def levenshtein_block(a: Sequence[str], b: Sequence[str], threshold: float = SIMILARITY_THRESHOLD) -> np.ndarray:
    """Normalised Levenshtein similarity ``1 - d / max(len)``, exact from ``threshold`` up.

    Below ``threshold`` the values are NOT exact: distances beyond the cut-off are not computed, so the
    similarity is overestimated (but stays below ``threshold``).  Use it to decide, and
    :func:`levenshtein_similarity` to report.
    """
    from rapidfuzz import process
    from rapidfuzz.distance import Levenshtein

    la = np.fromiter((len(s) for s in a), dtype=np.float64, count=len(a))
    lb = np.fromiter((len(s) for s in b), dtype=np.float64, count=len(b))
    longest = max(la.max(initial=0), lb.max(initial=0))
    cutoff = int(np.floor((1.0 - threshold) * longest)) + 1  # distances above this cannot reach the threshold
    d = process.cdist(a, b, scorer=Levenshtein.distance, dtype=np.int32, workers=1, score_cutoff=cutoff)
    maxlen = np.maximum(la[:, None], lb[None, :])
    with np.errstate(invalid="ignore", divide="ignore"):
        sim = np.where(maxlen > 0, 1.0 - d / maxlen, 1.0)
    return sim


def find_activity_cliffs(
    mols: Sequence,
    smiles: Sequence[str],
    p_activity: Sequence[float],
    *,
    ids: Sequence[str] | None = None,
    rows: Sequence[int] | None = None,
    exact: Sequence[bool] | None = None,
    similarity: float = SIMILARITY_THRESHOLD,
    fold_change: float = FOLD_CHANGE_THRESHOLD,
    block: int = 1024,
    progress: Callable[[str, int, int], None] | None = None,
) -> CliffResult:
    """All cliff pairs among ``mols`` (RDKit molecules) with potencies ``p_activity`` (-log10 molar).

    ``smiles`` are the SMILES as given (used for the Levenshtein similarity); ``exact`` marks compounds with
    an exact (not censored) potency -- only those take part.  Pairs are sorted by SALI, then fold change.
    """
    n = len(mols)
    if not (len(smiles) == len(p_activity) == n):
        raise ValueError("mols, smiles and p_activity must have the same length")
    ids = [str(x) for x in ids] if ids is not None else [str(i) for i in range(n)]
    rows = list(rows) if rows is not None else list(range(n))
    p = np.asarray(p_activity, dtype=np.float64)
    ok = np.isfinite(p) if exact is None else (np.asarray(exact, dtype=bool) & np.isfinite(p))
    idx = np.flatnonzero(ok)
    m = len(idx)
    cliff_mol = np.zeros(n, dtype=bool)
    if m < 2:
        return CliffResult([], cliff_mol, m)
    sub_mols = [mols[i] for i in idx]
    sub_smiles = [smiles[i] for i in idx]
    fp = ecfp4_bits(sub_mols)
    sc = scaffold_bits(sub_mols)
    fp_c = fp.sum(axis=1).astype(np.float64)
    sc_c = sc.sum(axis=1).astype(np.float64)
    ps = p[idx]
    log_fold = np.log10(fold_change)
    found: list[tuple[int, int, float, float, float]] = []
    for start in range(0, m, block):
        if progress is not None:
            progress("cliffs", start, m)
        stop = min(start + block, m)
        # only the upper triangle: columns from `start` on
        t_fp = tanimoto_block(fp[start:stop], fp[start:], fp_c[start:stop], fp_c[start:])
        t_sc = tanimoto_block(sc[start:stop], sc[start:], sc_c[start:stop], sc_c[start:])
        lev = levenshtein_block(sub_smiles[start:stop], sub_smiles[start:], similarity)
        dp = np.abs(ps[start:stop, None] - ps[None, start:])
        # MoleculeACE compares linear potencies: max/min > fold, i.e. |Δp| > log10(fold)
        similar = (t_fp >= similarity) | (t_sc >= similarity) | (lev >= similarity)
        # rounding keeps an exact 10-fold difference (e.g. 10 vs 100 nM) from passing on float noise
        cliff = similar & (np.round(dp, 9) > log_fold)
        ii, jj = np.nonzero(cliff)
        for r, c in zip(ii.tolist(), jj.tolist(), strict=True):
            a, b = start + r, start + c
            if b <= a:
                continue
            found.append((a, b, float(t_fp[r, c]), float(t_sc[r, c]), float(lev[r, c])))
    pairs: list[CliffPair] = []
    for a, b, tf, ts, lv in found:
        ga, gb = int(idx[a]), int(idx[b])
        if lv < similarity:  # similar by fingerprint only: the block value is a bound, report the exact one
            lv = levenshtein_similarity(smiles[ga], smiles[gb])
        dpv = abs(ps[a] - ps[b])
        sali = dpv / (1.0 - tf) if tf < 1.0 else None
        pairs.append(CliffPair(ga, gb, int(rows[ga]), int(rows[gb]), ids[ga], ids[gb], smiles[ga], smiles[gb],
                               float(ps[a]), float(ps[b]), tf, ts, lv, float(10.0 ** dpv), sali))
        cliff_mol[ga] = cliff_mol[gb] = True
    pairs.sort(key=lambda c: (-(c.sali if c.sali is not None else float("inf")), -c.fold_change, c.a, c.b))
    return CliffResult(pairs, cliff_mol, m)


__all__ = [
    "CliffPair",
    "CliffResult",
    "find_activity_cliffs",
    "ecfp4_bits",
    "generic_framework",
    "tanimoto_block",
    "levenshtein_block",
    "levenshtein_similarity",
    "SIMILARITY_THRESHOLD",
    "FOLD_CHANGE_THRESHOLD",
]

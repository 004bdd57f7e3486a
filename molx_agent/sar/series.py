"""Split compounds into chemical series and choose a meaningful core for each.

Real datasets hold several chemotypes, so one core for everything is wrong.  The split:

1. Butina clustering of ECFP4 fingerprints (Tanimoto >= ``cluster_similarity``, default 0.4);
2. clusters whose most common *generic* Murcko framework is the same are merged (a phenyl -> pyridyl
   change inside the core must not split a series);
3. clusters smaller than ``min_series_size`` are left out; once the cores are chosen, a left-out compound
   that contains a series' core joins that series; the rest stay unassigned (still used for cliffs and
   matched pairs).

Core per series: a maximum common substructure (RDKit FMCS with a timeout, complete rings only, present
in >= 90% of a sample of members) or the series' most common Murcko scaffold, or the user's core
(SMILES or SMARTS).  A core that is trivial for its series -- fewer than 6 heavy atoms, a lone ring, or less
than a third of the series' typical size -- is rejected (listed with the reason), never reported.
"""

from __future__ import annotations

import logging
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from molx_agent.errors import ChemistryError

logger = logging.getLogger(__name__)

MIN_CORE_ATOMS = 6
MIN_CORE_FRACTION = 1 / 3
MCS_TIMEOUT_S = 1
MCS_TOTAL_BUDGET_S = 6.0
MCS_SAMPLE = 20


@dataclass
class Series:
    """A chemical series: its members (compound indices) and its core."""

    id: str
    members: list[int]
    core_smarts: str | None = None
    core_smiles: str | None = None
    core_source: str | None = None  # "mcs", "murcko", "user"
    core_atoms: int = 0
    coverage: float = 0.0  # fraction of members containing the core
    median_atoms: float = 0.0
    rejected_cores: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""
    n_joined_by_core: int = 0  # members added because they contain the core (not clustered with the series)

    @property
    def size(self) -> int:
        return len(self.members)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id, "size": self.size, "core_smiles": self.core_smiles, "core_smarts": self.core_smarts,
            "core_source": self.core_source, "core_atoms": self.core_atoms, "coverage": round(self.coverage, 3),
            "median_atoms": self.median_atoms, "rejected_cores": self.rejected_cores, "note": self.note,
            "n_joined_by_core": self.n_joined_by_core,
        }


def murcko_smiles(mol) -> str:
    from rdkit import Chem
    from rdkit.Chem.Scaffolds import MurckoScaffold

    try:
        return Chem.MolToSmiles(MurckoScaffold.GetScaffoldForMol(mol))
    except Exception:  # noqa: BLE001
        return ""


def generic_murcko_smiles(mol) -> str:
    from rdkit import Chem
    from rdkit.Chem.Scaffolds import MurckoScaffold

    try:
        return Chem.MolToSmiles(MurckoScaffold.MakeScaffoldGeneric(MurckoScaffold.GetScaffoldForMol(mol)))
    except Exception:  # noqa: BLE001
        return ""


def butina_clusters(fp_bits: np.ndarray, similarity: float = 0.4, block: int = 1024) -> list[list[int]]:
    """Taylor-Butina clustering on Tanimoto of bit fingerprints (numpy; deterministic).

    Centroids are picked by neighbour count (ties: lower index); each compound joins the first centroid
    that claims it.
    """
    from molx_agent.sar.cliffs import tanimoto_block

    n = len(fp_bits)
    counts = fp_bits.sum(axis=1).astype(np.float64)
    neighbours: list[np.ndarray] = []
    for start in range(0, n, block):
        sim = tanimoto_block(fp_bits[start:start + block], fp_bits, counts[start:start + block], counts)
        for r in range(sim.shape[0]):
            neighbours.append(np.flatnonzero(sim[r] >= similarity))
    order = sorted(range(n), key=lambda i: (-len(neighbours[i]), i))
    assigned = np.zeros(n, dtype=bool)
    clusters: list[list[int]] = []
    for c in order:
        if assigned[c]:
            continue
        members = [int(j) for j in neighbours[c] if not assigned[j]]
        if c not in members:
            members.append(c)
        assigned[members] = True
        clusters.append(sorted(members))
    return clusters


def split_series(
    mols: Sequence, *, fp_bits: np.ndarray | None = None, cluster_similarity: float = 0.4, min_series_size: int = 5
) -> tuple[list[list[int]], list[int]]:
    """Group compound indices into series; returns ``(series, unassigned)`` (largest series first)."""
    from molx_agent.sar.cliffs import ecfp4_bits

    if fp_bits is None:
        fp_bits = ecfp4_bits(mols)
    clusters = butina_clusters(fp_bits, cluster_similarity)
    generic = [generic_murcko_smiles(m) for m in mols]
    merged: dict[str, list[int]] = {}
    loose: list[list[int]] = []
    for cl in clusters:
        top, cnt = Counter(generic[i] for i in cl).most_common(1)[0]
        if top and cnt >= max(2, len(cl) // 2):
            merged.setdefault(top, []).extend(cl)
        else:
            loose.append(cl)
    groups = [sorted(g) for g in merged.values()] + loose
    series = sorted((g for g in groups if len(g) >= min_series_size), key=lambda g: (-len(g), g[0]))
    unassigned = sorted(i for g in groups if len(g) < min_series_size for i in g)
    return series, unassigned


def parse_core(core: str):
    """A user core as SMILES (preferred) or SMARTS; :class:`ChemistryError` ``invalid_core`` otherwise."""
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    try:
        mol = Chem.MolFromSmiles(core) if core else None
        if mol is None and core:
            mol = Chem.MolFromSmarts(core)
    finally:
        RDLogger.EnableLog("rdApp.*")
    if mol is None or mol.GetNumAtoms() == 0:
        raise ChemistryError("invalid_core", f"core {core!r} is neither valid SMILES nor SMARTS", value=core)
    return mol


def _heavy_atoms(core_mol) -> int:
    return sum(1 for a in core_mol.GetAtoms() if a.GetAtomicNum() != 1 and a.GetAtomicNum() != 0)


def is_lone_ring(core_mol) -> bool:
    """True when the core is one ring and nothing else (benzene, pyridine, piperidine...)."""
    from rdkit import Chem

    work = Chem.Mol(core_mol)
    work.UpdatePropertyCache(strict=False)
    Chem.FastFindRings(work)
    ri = work.GetRingInfo()
    ring_atoms = {a for r in ri.AtomRings() for a in r}
    return ri.NumRings() == 1 and len(ring_atoms) == _heavy_atoms(core_mol)


def trivial_core_reason(core_mol, median_atoms: float) -> str | None:
    """Why a core is too small to be meaningful for a series of typical size ``median_atoms``, or None."""
    heavy = _heavy_atoms(core_mol)
    if heavy < MIN_CORE_ATOMS:
        return f"only {heavy} heavy atoms"
    if median_atoms > 12 and is_lone_ring(core_mol):
        return "a lone ring"
    if heavy < MIN_CORE_FRACTION * median_atoms:
        return f"{heavy} heavy atoms, under a third of the series' median size ({median_atoms:g})"
    return None


def _coverage(query, mols: Sequence) -> float:
    if not mols:
        return 0.0
    return sum(1 for m in mols if m.HasSubstructMatch(query)) / len(mols)


def _core_smiles_from_match(query, mols: Sequence) -> str | None:
    from rdkit import Chem

    for m in mols:
        match = m.GetSubstructMatch(query)
        if match:
            return Chem.MolFragmentToSmiles(m, atomsToUse=list(match), canonical=True)
    return None


def _mcs(mols: Sequence, timeout: int):
    from rdkit import Chem
    from rdkit.Chem import rdFMCS

    params = rdFMCS.MCSParameters()
    params.AtomTyper = rdFMCS.AtomCompare.CompareElements
    params.BondTyper = rdFMCS.BondCompare.CompareOrder
    params.BondCompareParameters.RingMatchesRingOnly = True
    params.BondCompareParameters.CompleteRingsOnly = True
    params.AtomCompareParameters.RingMatchesRingOnly = True
    params.Threshold = 0.9
    params.Timeout = max(1, int(timeout))
    res = rdFMCS.FindMCS(list(mols), params)
    if not res.smartsString or res.numAtoms == 0:
        return None, bool(res.canceled)
    return Chem.MolFromSmarts(res.smartsString), bool(res.canceled)


def choose_core(
    mols: Sequence, *, user_core: str | None = None, mcs_timeout: float = MCS_TIMEOUT_S, use_mcs: bool = True
) -> dict[str, Any]:
    """Pick the core of one series: ``{query, smarts, smiles, source, atoms, coverage, median_atoms, rejected}``.

    ``query`` is None when no candidate is meaningful (all rejected, with reasons).
    """
    from rdkit import Chem

    sizes = sorted(m.GetNumHeavyAtoms() for m in mols)
    median = float(sizes[len(sizes) // 2]) if sizes else 0.0
    rejected: list[dict[str, Any]] = []
    out: dict[str, Any] = {"query": None, "smarts": None, "smiles": None, "source": None, "atoms": 0,
                           "coverage": 0.0, "median_atoms": median, "rejected": rejected}
    if user_core:
        q = parse_core(user_core)
        cov = _coverage(q, mols)
        reason = trivial_core_reason(q, median)
        out.update(query=q, smarts=Chem.MolToSmarts(q), smiles=user_core, source="user", atoms=q.GetNumAtoms(),
                   coverage=cov)
        if reason:
            out["warning"] = f"user core is small for this series ({reason})"
        return out
    candidates: list[tuple[str, Any]] = []
    murcko_ok = False
    top = Counter(murcko_smiles(m) for m in mols).most_common(3)
    for smi, _ in top:
        if smi:
            m = Chem.MolFromSmiles(smi)
            if m is not None:
                candidates.append(("murcko", m))
                # a lone ring (benzene for a set of anilides) never spares the MCS: the series usually
                # shares more than that ring
                murcko_ok = (trivial_core_reason(m, median) is None and not is_lone_ring(m)
                             and _coverage(m, mols) >= 0.9)
                break
    # the MCS is only worth its time when the common scaffold does not already cover the series
    if use_mcs and len(mols) >= 2 and not murcko_ok:
        step = max(1, len(mols) // MCS_SAMPLE)
        sample = list(mols)[::step][:MCS_SAMPLE]
        q, canceled = _mcs(sample, int(mcs_timeout))
        if q is not None:
            candidates.insert(0, ("mcs" + (" (timed out, partial)" if canceled else ""), q))
    best = None
    mcs_atoms = max((_heavy_atoms(q) for src, q in candidates if src.startswith("mcs")
                     and trivial_core_reason(q, median) is None), default=0)
    for source, q in candidates:
        reason = trivial_core_reason(q, median)
        cov = _coverage(q, mols)
        smiles = _core_smiles_from_match(q, mols) if source.startswith("mcs") else Chem.MolToSmiles(q)
        if reason is None and is_lone_ring(q) and mcs_atoms > _heavy_atoms(q):
            reason = f"a lone ring, smaller than the series' common substructure ({mcs_atoms} heavy atoms)"
        if reason is None and cov < 0.5:
            reason = f"found in only {cov:.0%} of the series"
        if reason:
            rejected.append({"source": source, "smiles": smiles, "reason": reason})
            continue
        score = cov * q.GetNumAtoms()
        if best is None or score > best[0]:
            best = (score, source, q, smiles, cov)
    if best is not None:
        _, source, q, smiles, cov = best
        out.update(query=q, smarts=Chem.MolToSmarts(q), smiles=smiles, source=source.split(" ")[0],
                   atoms=q.GetNumAtoms(), coverage=cov)
    return out


def _merge_same_core(series: list[Series], mols: Sequence) -> list[Series]:
    """Clusters that ended with the same core are one series (largest first, renumbered S1, S2, ...)."""
    by_core: dict[str, Series] = {}
    merged: list[Series] = []
    for s in series:
        key = s.core_smarts or ""
        home = by_core.get(key) if key else None
        if home is None:
            if key:
                by_core[key] = s
            merged.append(s)
            continue
        home.members = sorted(home.members + s.members)
        home.rejected_cores += [r for r in s.rejected_cores if r not in home.rejected_cores]
    from rdkit import Chem

    for s in merged:
        if s.core_smarts:
            q = Chem.MolFromSmarts(s.core_smarts)
            n_in = sum(1 for i in s.members if mols[i].HasSubstructMatch(q))
            s.coverage = n_in / len(s.members)
            s.note = (f"{len(s.members) - n_in} member(s) do not contain the core and are not decomposed"
                      if n_in < len(s.members) else "")
    merged.sort(key=lambda s: (-s.size, s.members[0]))
    for k, s in enumerate(merged, 1):
        s.id = f"S{k}"
    return merged


def build_series(
    mols: Sequence,
    *,
    user_core: str | None = None,
    fp_bits: np.ndarray | None = None,
    cluster_similarity: float = 0.4,
    min_series_size: int = 5,
    mcs_budget_s: float = MCS_TOTAL_BUDGET_S,
) -> tuple[list[Series], list[int]]:
    """Series with their cores; ``unassigned`` compounds are those in no series (or not matching its core).

    With ``user_core`` there is one series: every compound that contains the core.
    """
    if user_core:
        q = parse_core(user_core)
        members = [i for i, m in enumerate(mols) if m.HasSubstructMatch(q)]
        if not members:
            raise ChemistryError("core_not_found", f"core {user_core!r} matches none of the compounds", value=user_core)
        core = choose_core([mols[i] for i in members], user_core=user_core)
        s = Series("S1", members, core["smarts"], user_core, "user", core["atoms"], 1.0, core["median_atoms"])
        if core.get("warning"):
            s.note = core["warning"]
        return [s], [i for i in range(len(mols)) if i not in set(members)]
    groups, unassigned = split_series(mols, fp_bits=fp_bits, cluster_similarity=cluster_similarity,
                                      min_series_size=min_series_size)
    from rdkit import Chem

    out: list[Series] = []
    t0 = time.perf_counter()
    for k, g in enumerate(groups, 1):
        remaining = mcs_budget_s - (time.perf_counter() - t0)
        core = choose_core([mols[i] for i in g], mcs_timeout=min(MCS_TIMEOUT_S, max(1.0, remaining)),
                           use_mcs=remaining > 1.0)
        s = Series(f"S{k}", list(g), median_atoms=core["median_atoms"], rejected_cores=core["rejected"])
        if core["query"] is not None:
            q = core["query"]
            matched = [i for i in g if mols[i].HasSubstructMatch(q)]
            s.core_smarts, s.core_smiles, s.core_source = core["smarts"], core["smiles"], core["source"]
            s.core_atoms, s.coverage = core["atoms"], len(matched) / len(g)
            if len(matched) < len(g):
                s.note = f"{len(g) - len(matched)} member(s) do not contain the core and are not decomposed"
        else:
            s.note = "no meaningful common core (diverse cluster); no R-group table"
        out.append(s)
    out = _merge_same_core(out, mols)
    # a compound left out by the clustering but containing a series' core belongs to that series
    queries = [(s, Chem.MolFromSmarts(s.core_smarts)) for s in out if s.core_smarts]
    still: list[int] = []
    for i in unassigned:
        home = next((s for s, q in queries if q is not None and mols[i].HasSubstructMatch(q)), None)
        if home is None:
            still.append(i)
        else:
            home.members.append(i)
            home.n_joined_by_core += 1
    for s in out:
        s.members.sort()
    return out, still


__all__ = ["Series", "build_series", "choose_core", "split_series", "butina_clusters", "parse_core",
           "trivial_core_reason", "is_lone_ring", "murcko_smiles", "generic_murcko_smiles"]

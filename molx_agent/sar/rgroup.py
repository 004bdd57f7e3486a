"""R-group decomposition of a series on its core, per-position statistics, single-point scans.

Uses RDKit's ``rdRGroupDecomposition.RGroupDecompose`` (greedy symmetrised matching up to 60 members,
unsymmetrised beyond, a timeout, hydrogens removed after matching).  Substituents are reported as SMILES with the attachment point written ``*``
(``*Cl``, ``*c1ccccc1``) and ``H`` for hydrogen.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd

logger = logging.getLogger(__name__)

RGD_TIMEOUT_S = 10.0
SYMMETRIZE_MAX = 60
_MAP_RE = re.compile(r"\[\*:\d+\]")


@lru_cache(maxsize=20_000)
def substituent_label(smiles: str | None) -> str:
    """An R group as chemists write it: SMILES rooted at the attachment point ``*``.

    ``'Cl[*:2]'`` -> ``'*Cl'``; ``'FC(F)(F)c1cccc([*:1])c1'`` -> ``'*c1cccc(C(F)(F)F)c1'``; ``'[H][*:1]'`` ->
    ``'H'``.  A group with several attachment points (a ring fused at two positions) keeps its canonical
    SMILES with every ``[*:n]`` written ``*``.
    """
    if not smiles:
        return "H"
    s = _MAP_RE.sub("*", smiles)
    if s in ("[H]*", "*[H]"):
        return "H"
    from rdkit import Chem

    from molx_agent.chem.utils import quiet_rdkit

    with quiet_rdkit():
        mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return s
    dummies = [a.GetIdx() for a in mol.GetAtoms() if a.GetAtomicNum() == 0]
    for a in mol.GetAtoms():
        a.SetAtomMapNum(0)
    if len(dummies) != 1:
        return Chem.MolToSmiles(mol)
    return Chem.MolToSmiles(mol, rootedAtAtom=dummies[0])


@dataclass
class RGroupTable:
    """Decomposition of one series.  ``rows`` has columns index, id, smiles, p_activity, exact, Core, R1..Rn."""

    series_id: str
    core_smarts: str
    positions: list[str]
    rows: pd.DataFrame
    unmatched: list[int] = field(default_factory=list)  # compound indices not decomposed

    _stats_cache: dict[str, list[dict[str, Any]]] = field(default_factory=dict, repr=False)

    def position_stats(self, position: str) -> list[dict[str, Any]]:
        """Per-substituent statistics at one position, best mean pActivity first (exact values only)."""
        if position not in self._stats_cache:
            self._stats_cache[position] = self._position_stats(position)
        return self._stats_cache[position]

    def _position_stats(self, position: str) -> list[dict[str, Any]]:
        df = self.rows[self.rows["exact"]]
        out = []
        for sub, grp in df.groupby(position, sort=False):
            vals = grp["p_activity"].to_numpy(dtype=float)
            out.append({
                "substituent": sub, "n": int(len(vals)), "mean": round(float(vals.mean()), 3),
                "sd": round(float(vals.std(ddof=1)), 3) if len(vals) > 1 else None,
                "min": round(float(vals.min()), 3), "max": round(float(vals.max()), 3),
                "best_id": str(grp.loc[grp["p_activity"].idxmax(), "id"]),
            })
        out.sort(key=lambda d: (-d["mean"], -d["n"], d["substituent"]))
        return out

    def site_summary(self) -> list[dict[str, Any]]:
        """One line per position: distinct substituents and the spread of their mean potencies."""
        out = []
        for pos in self.positions:
            stats = self.position_stats(pos)
            multi = [s for s in stats if s["n"] >= 2]
            out.append({
                "position": pos, "n_substituents": len(stats),
                "mean_range": round(stats[0]["mean"] - stats[-1]["mean"], 3) if len(stats) > 1 else 0.0,
                "mean_range_n2": round(multi[0]["mean"] - multi[-1]["mean"], 3) if len(multi) > 1 else None,
                "best": stats[0]["substituent"] if stats else None,
                "worst": stats[-1]["substituent"] if stats else None,
            })
        return out

    def to_dict(self, max_rows: int | None = None) -> dict[str, Any]:
        rows = self.rows if max_rows is None else self.rows.head(max_rows)
        return {
            "series_id": self.series_id, "core_smarts": self.core_smarts, "positions": list(self.positions),
            "n_decomposed": int(len(self.rows)), "n_unmatched": len(self.unmatched),
            "rows": rows.drop(columns=["exact"]).to_dict(orient="records"),
            "site_summary": self.site_summary(),
            "position_stats": {p: self.position_stats(p) for p in self.positions},
        }


def decompose_series(
    series_id: str,
    core,
    mols: Sequence,
    indices: Sequence[int],
    ids: Sequence[str],
    p_activity: Sequence[float],
    exact: Sequence[bool],
    *,
    timeout: float = RGD_TIMEOUT_S,
) -> RGroupTable:
    """Decompose the compounds ``indices`` (into the full compound list) on ``core`` (an RDKit query/mol)."""
    from rdkit import Chem
    from rdkit.Chem import rdRGroupDecomposition as rgd

    params = rgd.RGroupDecompositionParameters()
    params.removeHydrogensPostMatch = True
    params.onlyMatchAtRGroups = False
    # Greedy symmetrisation keeps symmetric sites (ortho/ortho') consistent; past SYMMETRIZE_MAX members it
    # costs too much time and each compound is matched on its own (NoSymmetrization).
    params.matchingStrategy = (rgd.RGroupMatching.Greedy if len(indices) <= SYMMETRIZE_MAX
                               else rgd.RGroupMatching.NoSymmetrization)
    params.timeout = float(timeout)
    from rdkit import RDLogger

    sub_mols = [mols[i] for i in indices]
    RDLogger.DisableLog("rdApp.*")
    try:
        rows, unmatched = rgd.RGroupDecompose([core], sub_mols, asSmiles=True, asRows=True, options=params)
    except RuntimeError as exc:  # RDKit raises on timeout
        logger.info("R-group decomposition of %s failed: %s", series_id, exc)
        rows, unmatched = [], list(range(len(sub_mols)))
    finally:
        RDLogger.EnableLog("rdApp.*")
    unmatched_set = set(unmatched)
    matched = [indices[k] for k in range(len(sub_mols)) if k not in unmatched_set]
    positions = sorted({k for r in rows for k in r if k != "Core"}, key=lambda s: int(s[1:]) if s[1:].isdigit() else 0)
    records = []
    for gi, r in zip(matched, rows, strict=False):
        rec: dict[str, Any] = {"index": int(gi), "id": str(ids[gi]), "smiles": Chem.MolToSmiles(mols[gi]),
                               "p_activity": float(p_activity[gi]) if p_activity[gi] is not None else np.nan,
                               "exact": bool(exact[gi]), "Core": r.get("Core", "")}
        for pos in positions:
            rec[pos] = substituent_label(r.get(pos))
        records.append(rec)
    df = pd.DataFrame(records, columns=["index", "id", "smiles", "p_activity", "exact", "Core", *positions])
    # drop positions that never vary (e.g. always H): they are not SAR sites
    varied = [p for p in positions if df[p].nunique() > 1]
    df = df.drop(columns=[p for p in positions if p not in varied])
    df = df.sort_values("p_activity", ascending=False, kind="stable").reset_index(drop=True)
    return RGroupTable(series_id, Chem.MolToSmarts(core), varied, df,
                       [indices[k] for k in sorted(unmatched_set)])


def _decompose_job(job: tuple) -> RGroupTable:
    from rdkit import Chem

    series_id, core_smarts, smiles, indices, ids, p, exact = job
    mols = {i: Chem.MolFromSmiles(smi) for i, smi in zip(indices, smiles, strict=True)}
    core = Chem.MolFromSmarts(core_smarts)
    return decompose_series(series_id, core, mols, indices, ids, p, exact)


def decompose_many(
    jobs: Sequence[tuple[str, Any, Sequence[int]]],
    mols: Sequence,
    ids: Sequence[str],
    p_activity: Sequence[float],
    exact: Sequence[bool],
    *,
    workers: int | None = None,
) -> list[RGroupTable]:
    """Decompose several series (``(series_id, core_query, member_indices)``), in a process pool for large sets
    (see :mod:`molx_agent.sar.parallel`); the order of ``jobs`` is kept."""
    from rdkit import Chem

    from molx_agent.sar.parallel import make_pool

    pool = make_pool(workers, sum(len(j[2]) for j in jobs))
    if pool is None:
        return [decompose_series(sid, core, mols, list(idx), ids, p_activity, exact) for sid, core, idx in jobs]
    payload = []
    for sid, core, idx in jobs:
        idx = list(idx)
        payload.append((sid, Chem.MolToSmarts(core), [Chem.MolToSmiles(mols[i]) for i in idx], idx,
                        {i: ids[i] for i in idx}, {i: p_activity[i] for i in idx}, {i: exact[i] for i in idx}))
    # largest first so the two workers finish together; results put back in the original order
    order = sorted(range(len(payload)), key=lambda k: -len(payload[k][3]))
    try:
        done = pool.map(_decompose_job, [payload[k] for k in order], chunksize=1)
    finally:
        pool.close()
        pool.join()
    out: list[RGroupTable | None] = [None] * len(payload)
    for k, table in zip(order, done, strict=True):
        out[k] = table
    return [t for t in out if t is not None]


def context_series(table: RGroupTable, position: str, min_size: int = 2, min_variants: int = 2) -> list[dict[str, Any]]:
    """Compounds (exact potencies) sharing the core and every substituent except ``position``.

    One item per context with at least ``min_size`` members and ``min_variants`` distinct substituents at
    ``position``: ``series_id``, ``position``, ``fixed`` (the other positions), ``members`` (id, substituent,
    p_activity; best first), ``best``, ``worst``, ``range``.  Plain-Python grouping (fast on thousands of rows).
    """
    others = [p for p in table.positions if p != position]
    df = table.rows
    cols = ["Core", *others]
    groups: dict[tuple, list[tuple[str, str, float]]] = defaultdict(list)
    for rec in zip(*(df[c].tolist() for c in cols), df["id"].tolist(), df[position].tolist(),
                   df["p_activity"].tolist(), df["exact"].tolist(), strict=True):
        if not rec[-1]:
            continue
        groups[tuple(rec[:len(cols)])].append((str(rec[-4]), str(rec[-3]), float(rec[-2])))
    out = []
    for key, members in groups.items():
        if len(members) < min_size or len({m[1] for m in members}) < min_variants:
            continue
        members.sort(key=lambda m: -m[2])
        out.append({
            "series_id": table.series_id, "position": position,
            "fixed": dict(zip(others, key[1:], strict=True)),
            "members": [{"id": i, "substituent": sub, "p_activity": round(p, 3)} for i, sub, p in members],
            "best": members[0][1], "worst": members[-1][1],
            "range": round(members[0][2] - members[-1][2], 3),
        })
    return out


def detect_single_point_scans(table: RGroupTable, min_variants: int = 3) -> list[dict[str, Any]]:
    """Single-point scans: >= ``min_variants`` compounds that differ only at one position.

    Each scan lists its members (best first), the best and worst substituent and the pActivity range.
    """
    scans = [sc for pos in table.positions for sc in context_series(table, pos, min_variants, min_variants)]
    scans.sort(key=lambda s: (-len(s["members"]), -s["range"]))
    return scans


__all__ = ["RGroupTable", "context_series", "decompose_many", "decompose_series", "detect_single_point_scans", "substituent_label"]

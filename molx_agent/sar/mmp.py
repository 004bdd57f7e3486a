"""Matched molecular pairs with the mmpdb library (``mmpdblib``: fragment, index).

The compounds are fragmented in memory with mmpdb's own fragmenter (``fragment_records.make_fragment_records``
with mmpdb's default cut SMARTS) and indexed with ``index_algorithm.find_matched_molecular_pairs`` (mmpdb's
default index options: variable part <= 10 heavy atoms); nothing is re-implemented here.  What this module
adds is the SAR view of the pairs:

- ``transforms``: one row per transformation (mmpdb's canonical SMIRKS, e.g. ``[*:1]Cl>>[*:1]F``) with the
  number of pairs and the mean, SD, median, min and max of ΔpActivity (to - from);
- ``pairs``: "pairs in my dataset" -- one row per compound pair, the pair's smallest transformation.

Only exact (not censored) potencies enter the statistics.
"""

from __future__ import annotations

import dataclasses
import logging
import statistics
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from molx_agent.sar.parallel import make_pool

logger = logging.getLogger(__name__)

#: Default number of cuts: single-cut pairs (substituent replacements, the classic MMP definition).  Two or
#: three cuts (linker and core hops) cost 5-10x more fragmentation time; pass ``max_cuts`` to get them.
DEFAULT_MAX_CUTS = 1
@dataclass
class MMPResult:
    pairs: list[dict[str, Any]]
    transforms: list[dict[str, Any]]
    max_cuts: int
    n_fragmented: int
    failed: list[dict[str, str]] = field(default_factory=list)  # compounds mmpdb could not fragment

    def to_dict(self, limit: int | None = None) -> dict[str, Any]:
        return {
            "max_cuts": self.max_cuts, "n_fragmented": self.n_fragmented, "n_pairs": len(self.pairs),
            "n_transforms": len(self.transforms), "failed": self.failed,
            "transforms": self.transforms if limit is None else self.transforms[:limit],
            "pairs": self.pairs if limit is None else self.pairs[:limit],
        }


class _Reader:
    """Minimal SMILES reader for mmpdb: iterates ``(smiles, id)`` and has a ``location``."""

    def __init__(self, items: list[tuple[str, str]]):
        from mmpdblib import fileio

        self.items = items
        self.location = fileio.Location.from_source("<memory>")

    def __iter__(self):
        return iter(self.items)


class _FragmentReader:
    """What ``find_matched_molecular_pairs`` needs from a fragment file: records and their options."""

    def __init__(self, records: list, options):
        self.records = records
        self.options = options

    def __iter__(self):
        return iter(self.records)


#: Molecules per fragmentation job when a process pool is used.
FRAGMENT_CHUNK = 200


def _fragment_chunk(job: tuple[list[tuple[str, str]], int]) -> list:
    """mmpdb fragment records of ``(smiles, id)`` items (runs in a pool worker for large sets)."""
    from mmpdblib import config, fragment_records, reporters
    from rdkit import RDLogger

    items, max_cuts = job
    options = dataclasses.replace(config.DEFAULT_FRAGMENT_OPTIONS, num_cuts=max_cuts)
    RDLogger.DisableLog("rdApp.*")
    return list(fragment_records.make_fragment_records(_Reader(items), options.get_fragment_filter(),
                                                       reporter=reporters.get_reporter("quiet")))


def _heavy(frag: str) -> int:
    from mmpdblib.index_algorithm import get_num_heavies

    return get_num_heavies(frag)


def find_matched_pairs(
    smiles: Sequence[str],
    p_activity: Sequence[float | None],
    *,
    ids: Sequence[str] | None = None,
    exact: Sequence[bool] | None = None,
    max_cuts: int | None = None,
    workers: int | None = None,
    progress: Callable[[str, int, int], None] | None = None,
) -> MMPResult:
    """Matched pairs among ``smiles`` (standardised) and their ΔpActivity statistics.

    ``workers``: processes for mmpdb's fragmentation (its own pool support); None = see
    :func:`molx_agent.sar.parallel.default_workers` (in-process below 20,000 compounds).
    """
    from mmpdblib import config, index_algorithm, reporters
    from rdkit import RDLogger

    n = len(smiles)
    ids = [str(x) for x in ids] if ids is not None else [str(i) for i in range(n)]
    ok = [p is not None and (exact is None or bool(exact[i])) for i, p in enumerate(p_activity)]
    if max_cuts is None:
        max_cuts = DEFAULT_MAX_CUTS
    if max_cuts not in (1, 2, 3):
        raise ValueError("max_cuts must be 1, 2 or 3")
    options = dataclasses.replace(config.DEFAULT_FRAGMENT_OPTIONS, num_cuts=max_cuts)
    items = [(smiles[i], str(i)) for i in range(n) if ok[i]]
    quiet = reporters.get_reporter("quiet")
    RDLogger.DisableLog("rdApp.*")
    try:
        if progress is not None:
            progress("mmp", 0, len(items))
        pool = make_pool(workers, len(items))
        if pool is None:
            records = _fragment_chunk((items, max_cuts))
        else:
            # chunks, not mmpdb's per-record pool jobs: those pickle the fragment filter with every molecule
            chunks = [items[k:k + FRAGMENT_CHUNK] for k in range(0, len(items), FRAGMENT_CHUNK)]
            try:
                parts = pool.map(_fragment_chunk, [(c, max_cuts) for c in chunks], chunksize=1)
            finally:
                pool.close()
                pool.join()
            records = [r for part in parts for r in part]
        good = [r for r in records if not getattr(r, "errmsg", None)]
        failed = [{"id": ids[int(r.id)], "smiles": r.input_smiles, "reason": r.errmsg} for r in records
                  if getattr(r, "errmsg", None)]
        reader = _FragmentReader(good, options)
        index_options = config.DEFAULT_INDEX_OPTIONS
        index = index_algorithm.load_fragment_index(reader, index_options.get_fragment_filter())
        raw = list(index_algorithm.find_matched_molecular_pairs(index, reader, index_options=index_options,
                                                                reporter=quiet))
    finally:
        RDLogger.EnableLog("rdApp.*")

    by_smirks: dict[str, dict[tuple[int, int], float]] = defaultdict(dict)
    best_for_pair: dict[tuple[int, int], tuple[int, str, str]] = {}
    for mp in raw:
        a, b = int(mp.id1), int(mp.id2)
        delta = float(p_activity[b]) - float(p_activity[a])  # type: ignore[arg-type]
        by_smirks[mp.smirks][(a, b)] = delta
        lhs, _, rhs = mp.smirks.partition(">>")
        size = _heavy(lhs) + _heavy(rhs)
        key = (min(a, b), max(a, b))
        prev = best_for_pair.get(key)
        if prev is None or (size, mp.smirks) < (prev[0], prev[1]):
            best_for_pair[key] = (size, mp.smirks, mp.constant_smiles)

    transforms = []
    for smirks, pairs in by_smirks.items():
        deltas = list(pairs.values())
        lhs, _, rhs = smirks.partition(">>")
        transforms.append({
            "transformation": smirks, "from": lhs, "to": rhs, "count": len(deltas),
            "mean_delta": round(statistics.fmean(deltas), 3),
            "sd_delta": round(statistics.stdev(deltas), 3) if len(deltas) > 1 else None,
            "median_delta": round(statistics.median(deltas), 3),
            "min_delta": round(min(deltas), 3), "max_delta": round(max(deltas), 3),
            "pairs": [[ids[a], ids[b]] for a, b in sorted(pairs)],
        })
    transforms.sort(key=lambda t: (-t["count"], -abs(t["mean_delta"]), t["transformation"]))

    pairs_out = []
    for (a, b), (_, smirks, constant) in best_for_pair.items():
        # orient the row as the transformation is written (from a to b)
        delta = by_smirks[smirks].get((a, b))
        if delta is None:
            a, b = b, a
            delta = by_smirks[smirks][(a, b)]
        lhs, _, rhs = smirks.partition(">>")
        pairs_out.append({
            "a": a, "b": b, "id_a": ids[a], "id_b": ids[b], "smiles_a": smiles[a], "smiles_b": smiles[b],
            "p_a": round(float(p_activity[a]), 3), "p_b": round(float(p_activity[b]), 3),  # type: ignore[arg-type]
            "delta_p": round(delta, 3), "transformation": smirks, "from": lhs, "to": rhs, "constant": constant,
        })
    pairs_out.sort(key=lambda r: (-abs(r["delta_p"]), r["a"], r["b"]))
    return MMPResult(pairs_out, transforms, max_cuts, len(good), failed)


__all__ = ["MMPResult", "find_matched_pairs"]

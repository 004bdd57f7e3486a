"""Process pools for the CPU-heavy batch steps (standardisation, mmpdb fragmentation, R-group decomposition).

Measured on the 2-core benchmark machine (docs/benchmarks.md), a 2-process pool did not pay for its start-up
and pickling on sets of a few thousand compounds (mmpdb fragmentation of 3,657 compounds: 37 s with 2 workers,
21 s in-process), so pools are only used from :data:`PARALLEL_MIN` items or when ``workers`` is given.
``fork`` is used only when the process is single-threaded; otherwise ``spawn``.
"""

from __future__ import annotations

import os
import threading

PARALLEL_MIN = 20_000


def default_workers(n: int, workers: int | None = None) -> int:
    """Worker processes for ``n`` items: the explicit value, else 2 for large sets on a multi-core machine."""
    if workers is not None:
        return max(1, int(workers))
    return 2 if n >= PARALLEL_MIN and (os.cpu_count() or 1) >= 2 else 1


def make_pool(workers: int | None, n: int):
    """A ``multiprocessing.Pool`` or None when one process is enough (the caller closes and joins it)."""
    k = default_workers(n, workers)
    if k <= 1:
        return None
    import multiprocessing

    return multiprocessing.get_context("fork" if threading.active_count() == 1 else "spawn").Pool(k)


__all__ = ["default_workers", "make_pool", "PARALLEL_MIN"]

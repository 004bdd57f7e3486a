"""Route searches of several molecules in parallel processes (a bounded pool), or in-process for one.

:func:`run_searches` takes :class:`SearchJob` items and returns one JSON record per job, in order (a job that fails
becomes a record with ``error``; a broken pool falls back to running the rest in-process).  Each child process
rebuilds the engine once from a picklable spec -- the injected single-step model, stock and ``SearchConfig`` when
they pickle (a toy engine), else the packaged defaults (the real model is loaded from its files in the child).
``fork`` is used only when the process is single-threaded; otherwise ``spawn``.
"""

from __future__ import annotations

import logging
import os
import pickle
import threading
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any

from molx_agent.errors import RetroError

logger = logging.getLogger(__name__)

#: Upper bound of search processes whatever the machine.
MAX_SEARCH_WORKERS = 4

#: Keyword arguments of ``RetroEngine.search`` a job may carry (search limits and the re-plan constraints).
SEARCH_KEYS = ("time_limit", "max_expansions", "max_depth", "n_routes", "expansion_top_k", "exclude_leaves",
               "exclude_steps", "allow_probable_leaves")


@dataclass
class SearchJob:
    """One search: ``target`` SMILES, display ``name`` and the ``RetroEngine.search`` keyword arguments."""

    target: str
    name: str = ""
    search: dict[str, Any] = field(default_factory=dict)
    language: str = "en"


def search_kwargs(options: dict[str, Any]) -> dict[str, Any]:
    """The search keyword arguments among task ``options`` (tuples for the exclusion lists)."""
    out: dict[str, Any] = {}
    for key in SEARCH_KEYS:
        if options.get(key) is None:
            continue
        value = options[key]
        if key in ("exclude_leaves", "exclude_steps"):
            value = tuple(str(v) for v in value)
        elif key == "allow_probable_leaves":
            value = bool(value)
        elif key == "time_limit":
            value = float(value)
        else:
            value = int(value)
        out[key] = value
    return out


def search_record(engine: Any, job: SearchJob, progress: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Run one search and turn its result into a JSON record (route graphs as dicts, AiZynth trees, summary);
    ``progress`` is the search's progress callback (``RetroEngine.search(progress=...)``)."""
    from molx_agent.retro.export import to_aizynth_tree
    from molx_agent.retro.search_routes import route_summary_text

    try:
        if progress is not None:
            res = engine.search(job.target, name=job.name, progress=progress, **job.search)
        else:
            res = engine.search(job.target, name=job.name, **job.search)
    except RetroError as exc:
        return {"target_smiles": job.target, "target_name": job.name, "solved": False, "error": exc.to_dict(),
                "summary": str(exc)}
    best = res.best_route
    return {
        "target_smiles": res.target,
        "target_name": job.name,
        "solved": res.solved,
        "route_graphs": [g.to_dict() for g in res.routes],
        "route_graph": best.to_dict() if best is not None else None,
        "routes": [to_aizynth_tree(g) for g in res.routes],
        "partial_route": to_aizynth_tree(res.partial_route) if res.partial_route else None,
        "partial_route_graph": res.partial_route.to_dict() if res.partial_route else None,
        "n_steps": best.n_steps if best is not None else 0,
        "n_expansions": res.n_expansions,
        "time_s": round(res.time_s, 3),
        "stock": res.stock,
        "reasons": list(res.reasons),
        "stopped_by": res.stopped_by,
        "summary": route_summary_text(res, name=job.name, language=job.language),
    }


# -- engine spec for child processes ---------------------------------------------------------------------------------
def _picklable(obj: Any) -> bool:
    try:
        pickle.dumps(obj)
    except Exception:  # noqa: BLE001 - anything that does not pickle is rebuilt in the child
        return False
    return True


def engine_spec(engine: Any) -> bytes:
    """A picklable description of ``engine``: its model and stock when they pickle, else ``None`` (the defaults)."""
    spec = engine.spec()
    model = spec["model"]
    if model is not None and not _picklable(model):
        model = None  # the packaged model (not picklable): the child loads it from its files
    stock = spec["stock"]
    if stock is not None and not _picklable(stock):
        stock = None
    return pickle.dumps((model, stock, spec["config"]))


_CHILD_ENGINE: Any = None


def _init_child(spec: bytes) -> None:
    global _CHILD_ENGINE
    from molx_agent.retro.engine import RetroEngine

    model, stock, config = pickle.loads(spec)  # noqa: S301 - built by engine_spec in the parent
    _CHILD_ENGINE = RetroEngine(model=model, stock=stock, config=config)


def _child_search(job: SearchJob) -> dict[str, Any]:
    return search_record(_CHILD_ENGINE, job)


def default_workers(n_jobs: int, workers: int | None = None) -> int:
    """Processes for ``n_jobs`` searches: the explicit value, else min(jobs, CPUs, :data:`MAX_SEARCH_WORKERS`)."""
    if workers is not None:
        return max(1, min(int(workers), n_jobs))
    return max(1, min(n_jobs, os.cpu_count() or 1, MAX_SEARCH_WORKERS))


def run_searches(engine: Any, jobs: list[SearchJob], workers: int | None = None, *,
                 progress: Callable[[SearchJob], Callable[[dict[str, Any]], None] | None] | None = None,
                 on_done: Callable[[SearchJob, dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:
    """One record per job, in order; several jobs run in a bounded process pool.

    ``progress(job)``: the progress callback of an in-process search (searches in child processes report only
    their end); ``on_done(job, record)`` is called as each search ends."""
    if not jobs:
        return []

    def done(job: SearchJob, record: dict[str, Any]) -> dict[str, Any]:
        if on_done is not None:
            on_done(job, record)
        return record

    def local(job: SearchJob) -> dict[str, Any]:
        return done(job, search_record(engine, job, progress(job) if progress is not None else None))

    k = default_workers(len(jobs), workers)
    if k <= 1:
        return [local(job) for job in jobs]
    import multiprocessing

    ctx = multiprocessing.get_context("fork" if threading.active_count() == 1 else "spawn")
    records: list[dict[str, Any] | None] = [None] * len(jobs)
    try:
        with ProcessPoolExecutor(max_workers=k, mp_context=ctx, initializer=_init_child,
                                 initargs=(engine_spec(engine),)) as pool:
            futures = [pool.submit(_child_search, job) for job in jobs]
            for i, fut in enumerate(futures):
                try:
                    records[i] = done(jobs[i], fut.result())
                except BrokenProcessPool:
                    raise
                except Exception as exc:  # noqa: BLE001 - one failed search is a record, not a lost batch
                    records[i] = {"target_smiles": jobs[i].target, "target_name": jobs[i].name, "solved": False,
                                  "error": {"code": "search_failed", "message": f"{type(exc).__name__}: {exc}"},
                                  "summary": f"search failed: {type(exc).__name__}: {exc}"}
    except BrokenProcessPool as exc:
        logger.warning("search pool broke (%s); running the remaining searches in-process", exc)
    for i, job in enumerate(jobs):
        if records[i] is None:
            records[i] = local(job)
    logger.info("%d searches in %d process(es)", len(jobs), k)
    return [r for r in records if r is not None]


__all__ = ["SearchJob", "run_searches", "search_record", "search_kwargs", "engine_spec", "default_workers",
           "SEARCH_KEYS", "MAX_SEARCH_WORKERS"]

"""Where a route search's time goes, at a fixed number of expansions (deterministic, so two checkouts compare).

For each ``--ids`` target of ref-lin-600 (n5 stock, ``molx-agent route`` defaults otherwise), searches with
``max_expansions=N`` and no time limit, and reports the wall time, the time in the selection's descent
(``RetroStarSearch._select_once``, which includes the forward validations it triggers), the time in forward
validation, the model's own count, and a hash of the order in which molecules were expanded and of the routes
returned: equal hashes in two checkouts mean the same search.

Usage::

    uv run python benchmarks/search_profile.py --expansions 900 --ids n5-00136 n5-00015 [--json OUT]
    # another checkout: copy this file there (it imports the package from its own repository) and run it the same way
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _timed(cls: type, name: str, acc: dict[str, float]) -> None:
    original = getattr(cls, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            acc[name] = acc.get(name, 0.0) + time.perf_counter() - t0

    setattr(cls, name, wrapper)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--expansions", type=int, default=900)
    ap.add_argument("--ids", nargs="+", required=True)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    from benchmarks.multistep import STOCK, graph_reactions, load_targets

    if not STOCK.is_file():
        print(f"stock file not found: {STOCK}", file=sys.stderr)
        return 2
    targets = load_targets()
    unknown = [t for t in args.ids if t not in targets]
    if unknown or args.expansions < 1:
        print(f"unknown target ids: {', '.join(unknown)}" if unknown else "--expansions must be at least 1",
              file=sys.stderr)
        return 2
    logging.disable(logging.WARNING)
    from molx_agent.cli.route import resolve_target, route_engine
    from molx_agent.retro import search as search_mod

    acc: dict[str, float] = {}
    order: list[str] = []
    expand = search_mod.RetroStarSearch.expand

    def recording_expand(self: Any, mol: Any, *rest: Any, **kw: Any) -> Any:
        order.append(mol.smiles)
        return expand(self, mol, *rest, **kw)

    search_mod.RetroStarSearch.expand = recording_expand
    _timed(search_mod.RetroStarSearch, "_select_once", acc)
    _timed(search_mod.RetroStarSearch, "ensure_valid", acc)
    engine = route_engine(None, stock=str(STOCK))
    engine.model.predict("CC(=O)Nc1ccc(O)cc1", top_k=5)  # warm-up, as the route benchmark does
    out = {}
    for tid in args.ids:
        acc.clear()
        order.clear()
        smiles, name = resolve_target(targets[tid]["smiles"])
        t0 = time.perf_counter()
        res = engine.search(smiles, name=name, time_limit=86_400.0, max_expansions=args.expansions)
        wall = time.perf_counter() - t0
        routes = [sorted(map(str, graph_reactions(g))) for g in res.routes]
        out[tid] = {
            "n_expansions": res.n_expansions, "molecules_expanded": len(order),
            "order_sha1": hashlib.sha1("\n".join(order).encode()).hexdigest()[:12],
            "routes_sha1": hashlib.sha1(json.dumps(routes).encode()).hexdigest()[:12], "n_routes": len(res.routes),
            "wall_s": round(wall, 2), "select_s": round(acc.get("_select_once", 0.0), 2),
            "validation_s": round(acc.get("ensure_valid", 0.0), 2), "model_s": res.stats.get("model_time_s"),
        }
        print(tid, json.dumps(out[tid]), flush=True)
    if args.json:
        from molx_agent.io_utils import atomic_write_json

        atomic_write_json(args.json, {"expansions": args.expansions, "targets": out})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

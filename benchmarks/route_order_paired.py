"""Two route orders from one search: the routes returned with a re-ranking penalty of ``SearchConfig`` at 0 and at
its default (or ``--penalty``), computed from the same search tree, so the comparison carries no search noise.
``--field`` names the penalty: ``selectivity_penalty`` (the default) or ``probable_route_penalty`` (a route with a
Bloom-filter-only starting material).

Each target of ``--ids-file`` (ref-lin-600 ids) is searched once as ``molx-agent route`` searches it
(``benchmarks/multistep.py``'s engine, ``--stock``, ``--time-limit``, 10 routes kept); the finished routes are then
built twice (``search_routes.build_routes``: the re-ranking with the full model, the judgement, the trust tiers),
first with the penalty 0, then with the shipped one, whose routes are the search's result.  A JSONL record per
target: the reference route's rank in each order (``rank_0``, ``rank_pen``), each order's issue codes per route, the
first route's steps, confidence and leaf tiers (``first_0``, ``first_pen``), and the re-ranking's statistics; the
summary printed at the end counts top-1/3/5/10 route matches, one-step best routes where the reference has 3 or
more steps, best-route confidences and best routes that carry a selectivity warning, per order.

    uv run python benchmarks/route_order_paired.py --ids-file benchmarks/ref-lin-600_sample100_seed0.txt \
        --stock default --time-limit 60 --workers 2 --out R.jsonl [--field probable_route_penalty]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from collections import Counter
from multiprocessing import Pool
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import benchmarks.multistep as ms  # noqa: E402
from molx_agent.retro import search_routes  # noqa: E402
from molx_agent.retro.judge import PENALISED_SELECTIVITY_ISSUES  # noqa: E402

_ALT: dict[str, Any] = {}
_BUILD = search_routes.build_routes
_PENALTY: list[float | None] = [None]
_FIELD = ["selectivity_penalty"]
FIELDS = ("selectivity_penalty", "probable_route_penalty")


def _paired_build(search: Any, k: int, name: str = "") -> Any:
    """``build_routes`` twice on one search: penalty 0 (kept aside), then the shipped or ``--penalty`` one."""
    field = _FIELD[0]
    shipped = getattr(search.config, field) if _PENALTY[0] is None else _PENALTY[0]
    search.config = dataclasses.replace(search.config, **{field: 0.0})
    search._final.clear()
    _ALT["routes"] = _BUILD(search, k, name)
    _ALT["cut_0"] = search.validation_cut
    search.config = dataclasses.replace(search.config, **{field: shipped})
    search._final.clear()
    routes = _BUILD(search, k, name)
    _ALT["cut_pen"] = search.validation_cut
    _ALT["rescoring"] = dict(search.rescoring or {})
    return routes


def _init(stock: str, penalty: float | None, field: str = "selectivity_penalty") -> None:
    search_routes.build_routes = _paired_build
    _PENALTY[0] = penalty
    _FIELD[0] = field
    ms._init(stock)


def _codes(routes: list[Any]) -> list[list[str]]:
    return [sorted({i["code"] for i in (g.metadata.get("route") or {}).get("issues", [])}) for g in routes]


def _first(routes: list[Any]) -> dict[str, Any] | None:
    if not routes:
        return None
    g = routes[0]
    return {"n_steps": g.n_steps, "confidence": (g.metadata.get("route") or {}).get("confidence"),
            "leaves": [[n.smiles, n.availability.get("tier")] for n in g.leaves()]}


def run_target(args: tuple[str, dict[str, Any], float]) -> dict[str, Any]:
    from molx_agent.cli.route import resolve_target

    tid, target, time_limit = args
    ref = ms.reference_reactions(target["ground_truth"]["target"])
    t0 = time.perf_counter()
    _ALT.clear()
    try:
        smiles, name = resolve_target(target["smiles"])
        res = ms._STATE["engine"].search(smiles, name=name, time_limit=time_limit, n_routes=10)
    except Exception as exc:  # noqa: BLE001 - a failing target is a record, never dropped
        return {"id": tid, "solved": False, "error": f"{type(exc).__name__}: {exc}"}
    alt = _ALT.get("routes", [])

    def rank(routes: list[Any]) -> int | None:
        return next((i for i, g in enumerate(routes, 1) if ms.graph_reactions(g) == ref), None)

    return {"id": tid, "route_length": target.get("route_length"), "solved": res.solved,
            "rank_0": rank(alt), "rank_pen": rank(res.routes), "codes_0": _codes(alt), "codes_pen": _codes(res.routes),
            "first_0": _first(alt), "first_pen": _first(res.routes), "cut_0": _ALT.get("cut_0"),
            "cut_pen": _ALT.get("cut_pen"), "rescoring": _ALT.get("rescoring"),
            "wall_s": round(time.perf_counter() - t0, 1)}


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"n_targets": len(records), "solved": sum(bool(r.get("solved")) for r in records),
                           "errors": sum(1 for r in records if "error" in r)}
    for arm in ("0", "pen"):
        hits, conf = Counter(), Counter()
        long_refs = short = warned = probable = 0
        for r in records:
            mr = r.get("rank_" + arm)
            for k in (1, 3, 5, 10):
                hits[k] += bool(mr is not None and mr <= k)
            first = r.get("first_" + arm)
            if int(r.get("route_length") or 0) >= 3:
                long_refs += 1
                short += bool(first and first["n_steps"] == 1)
            if first:
                conf[first["confidence"]] += 1
                probable += any(tier == "probable" for _, tier in first["leaves"])
            codes = r.get("codes_" + arm) or []
            warned += bool(codes and set(codes[0]) & PENALISED_SELECTIVITY_ISSUES)
        out["penalty_0" if arm == "0" else "penalty_shipped"] = {
            "top1": hits[1], "top3": hits[3], "top5": hits[5], "top10": hits[10],
            "one_step_best_where_ref_3plus": short, "n_ref_3plus": long_refs,
            "best_route_confidence": dict(sorted(conf.items())), "best_routes_with_selectivity_warning": warned,
            "best_routes_with_probable_leaf": probable}
    out["first_route_changed"] = [r["id"] for r in records if r.get("first_0") != r.get("first_pen")]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ids-file", type=Path, required=True)
    ap.add_argument("--benchmark", type=Path, default=ms.BENCH)
    ap.add_argument("--stock", default="default", help="'default' or a stock file (e.g. the n5 stock)")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--penalty", type=float, default=None, help="the penalty compared with 0 (default: shipped)")
    ap.add_argument("--field", choices=FIELDS, default="selectivity_penalty", help="the SearchConfig penalty paired")
    ap.add_argument("--out", type=Path, required=True, help="JSONL records, one per target")
    args = ap.parse_args(argv)
    for path in (args.ids_file, args.benchmark):
        if not path.is_file():
            print(f"error: file not found: {path}", file=sys.stderr)
            return 2
    targets = ms.load_targets(args.benchmark)
    ids = ms.read_ids(args.ids_file)
    unknown = [t for t in ids if t not in targets]
    if unknown:
        print(f"error: ids not in the benchmark: {', '.join(unknown[:5])}", file=sys.stderr)
        return 2
    jobs = [(t, targets[t], args.time_limit) for t in ids]
    records = []
    with Pool(args.workers, initializer=_init, initargs=(args.stock, args.penalty, args.field)) as pool, \
            args.out.open("w", encoding="utf-8") as fh:
        for rec in pool.imap_unordered(run_target, jobs):
            records.append(rec)
            fh.write(json.dumps(rec) + "\n")
            fh.flush()
    print(json.dumps(summarize(records), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

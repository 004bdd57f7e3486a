"""Where is each reference route lost?  A breakdown of the multi-step route match (``benchmarks/multistep.py``).

For every target listed in ``--ids-file`` the Retro* search runs exactly as in ``multistep.py`` (same stock,
limits and knobs, searched to the time limit), and the reference route is then located:

- ``not_proposed``: some reference step is not among the single-step model's top ``expansion_top_k`` proposals
  for its product, so no search can rebuild the route (single-step coverage);
- ``not_in_tree``: every step is proposed, but some step never entered the search tree (its product was not
  expanded in the right place before the time limit: search effort);
- ``not_solved_in_tree``: every step is in the tree, but not every one is solved there (a sub-tree under it was
  left open);
- ``ranked_out``: the reference route is a solved route of the tree but not among the ``--n-routes`` best by
  the configured ranking (``--rank-by``; its rank is also given under the other ranking, up to ``--max-rank``);
- ``matched``: among the ``--n-routes`` best.

A step is identified as in ``multistep.py``: (InChIKey of the product, sorted InChIKeys of the reactants).
Ranks are counted over the solved routes after forward-validating the steps of the ``--max-rank`` best (as the
search does for the routes it returns), so ``matched`` agrees with ``multistep.py``'s top-``n_routes`` match for
the same search.  The search stops at a time limit, so two runs can differ by a few expansions.

    uv run python benchmarks/route_diagnosis.py --ids-file benchmarks/ref-lin-600_dev1_52.txt --time-limit 30 \
        --workers 2 --out /tmp/diag.json
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.multistep import (  # noqa: E402
    _STATE,
    BENCH,
    STOCK,
    _inchikey,
    as_leaf,
    emit,
    load_targets,
    read_ids,
    reference_reactions,
    run_jobs,
    search_knobs,
)
from benchmarks.reference_steps import reference_steps  # noqa: E402

CATEGORIES = ("matched", "ranked_out", "not_solved_in_tree", "not_in_tree", "not_proposed")
Step = tuple[str, tuple[str, ...]]


class _Keys:
    """InChIKeys, computed once per SMILES."""

    def __init__(self) -> None:
        self._cache: dict[str, str] = {}

    def __call__(self, smiles: str) -> str:
        key = self._cache.get(smiles)
        if key is None:
            key = self._cache[smiles] = _inchikey(smiles)
        return key

    def step(self, product: str, reactants: list[str] | tuple[str, ...]) -> Step:
        return self(product), tuple(sorted(self(r) for r in reactants))


def proposed_steps(model: Any, reference: dict[str, Any], top_k: int, keys: _Keys, stock: Any = None) -> dict[Step, bool]:
    """Every step of a RetroCast reference tree -> is it among the model's top ``top_k`` proposals?  With a
    ``stock``, each proposed precursor is compared in the form the stock lists it (as the search writes leaves)."""
    out: dict[Step, bool] = {}
    for _depth, product, reactants in reference_steps(reference):
        want = keys.step(product, reactants)
        try:
            preds = model.predict(product, top_k=top_k)
        except Exception:  # noqa: BLE001 - a product the model rejects proposes nothing
            preds = []
        out[want] = any(keys.step(product, [as_leaf(stock, r) if stock is not None else r for r in p.reactants]) == want
                        for p in preds)
    return out


def locate_reference(search: Any, ref: frozenset[Step], keys: _Keys, *, n_routes: int, max_rank: int = 300,
                     proposed: dict[Step, bool] | None = None) -> dict[str, Any]:
    """Where the reference route (a set of steps) is in a finished ``RetroStarSearch``; see the module docstring."""
    from molx_agent.retro.search_routes import kbest_routes, route_reactions

    present: set[Step] = set()
    solved: set[Step] = set()
    stack = [search.root]
    while stack:
        mol = stack.pop()
        for rxn in mol.reactions:
            step = keys.step(mol.smiles, [c.smiles for c in rxn.children])
            if step in ref:
                present.add(step)
                if rxn.solved:
                    solved.add(step)
            stack.extend(rxn.children)

    def rank(entries: list[Any]) -> int | None:
        for i, entry in enumerate(entries, 1):
            route = frozenset(keys.step(r.parent.smiles, [c.smiles for c in r.children]) for r in route_reactions(entry))
            if route == ref:
                return i
        return None

    configured = search.config.rank_by
    ranked = search.confirm_best(max_rank) if search.root.solved else []  # validates the steps of these routes
    rank_configured = rank(ranked)
    ranks = {order: (rank_configured if order == configured else
                     rank(kbest_routes(search, max_rank, order)) if search.root.solved else None)
             for order in ("score", "steps", "cost")}
    n_proposed = sum(proposed.values()) if proposed is not None else None
    if proposed is not None and n_proposed < len(ref):
        category = "not_proposed"
    elif len(present) < len(ref):
        category = "not_in_tree"
    elif len(solved) < len(ref):
        category = "not_solved_in_tree"
    elif rank_configured is not None and rank_configured <= n_routes:
        category = "matched"
    else:
        category = "ranked_out"
    return {
        "category": category,
        "n_reference_steps": len(ref),
        "n_proposed": n_proposed,
        "n_in_tree": len(present),
        "n_solved_in_tree": len(solved),
        **{f"rank_by_{order}": r for order, r in ranks.items()},
        "n_solved_routes_ranked": len(ranked),
    }


def diagnose_target(tid: str, target: dict[str, Any], time_limit: float, max_expansions: int, n_routes: int,
                    max_depth: int, rank_by: str, knobs: dict[str, Any], max_rank: int) -> dict[str, Any]:
    from rdkit import rdBase

    from molx_agent.retro.search import RetroStarSearch, SearchConfig
    from molx_agent.retro.single_step import search_model
    from molx_agent.retro.stock import canonical_smiles

    keys = _Keys()
    reference = target["ground_truth"]["target"]
    ref = reference_reactions(reference)
    cfg = SearchConfig(time_limit=time_limit, max_expansions=max_expansions, max_depth=max_depth, n_routes=n_routes,
                       stop_at_n_routes=False, rank_by=rank_by, **knobs)
    t0 = time.perf_counter()
    block = rdBase.BlockLogs()
    try:
        model = search_model(_STATE["model"])  # what molx-agent route expands with
        proposed = proposed_steps(model, reference, cfg.expansion_top_k, keys, _STATE["stock"])
        search = RetroStarSearch(canonical_smiles(target["smiles"]) or target["smiles"], model,
                                 _STATE["stock"], cfg)
        stopped_by, elapsed = search.run()
        located = locate_reference(search, ref, keys, n_routes=n_routes, max_rank=max_rank, proposed=proposed)
    except Exception as exc:  # noqa: BLE001 - a failing target is a record, never dropped
        return {"id": tid, "route_length": target.get("route_length"), "category": "error",
                "error": f"{type(exc).__name__}: {exc}", "wall_s": round(time.perf_counter() - t0, 3)}
    finally:
        del block
    return {"id": tid, "route_length": target.get("route_length"), "solved": search.root.solved,
            "n_expansions": search.n_expansions, "time_s": round(elapsed, 3), "stopped_by": stopped_by,
            "wall_s": round(time.perf_counter() - t0, 3), **located}


def _run_packed(args: tuple) -> dict[str, Any]:
    return diagnose_target(*args)


def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    by_len: dict[int, Counter[str]] = defaultdict(Counter)
    for r in records:
        by_len[int(r.get("route_length") or 0)][r["category"]] += 1
    total = Counter(r["category"] for r in records)
    return {
        "n_targets": len(records),
        "solved": sum(1 for r in records if r.get("solved")),
        "categories": {c: total.get(c, 0) for c in (*CATEGORIES, "error") if c != "error" or total.get(c)},
        "by_route_length": {k: {c: v.get(c, 0) for c in CATEGORIES} for k, v in sorted(by_len.items())},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--benchmark", type=Path, default=BENCH)
    ap.add_argument("--stock", type=Path, default=STOCK)
    ap.add_argument("--ids-file", type=Path, required=True, help="target ids, one per line ('#' lines skipped)")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--max-expansions", type=int, default=100_000)
    ap.add_argument("--max-depth", type=int, default=7)
    ap.add_argument("--n-routes", type=int, default=10)
    ap.add_argument("--rank-by", choices=("score", "steps", "cost"), default=None,
                    help="route order (default: the CLI's, SearchConfig.rank_by)")
    ap.add_argument("--max-rank", type=int, default=300, help="rank the reference among this many solved routes")
    ap.add_argument("--leaf-cost", type=float, default=None)
    ap.add_argument("--leaf-cost-base", type=float, default=None)
    ap.add_argument("--leaf-cost-per-atom", type=float, default=None)
    ap.add_argument("--step-penalty", type=float, default=None)
    ap.add_argument("--expansion-top-k", type=int, default=None)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None, help="write per-target records and the summary (JSON)")
    args = ap.parse_args(argv)
    for path in (args.ids_file, args.benchmark, args.stock):
        if not path.is_file():
            print(f"error: missing file: {path}", file=sys.stderr)
            return 2
    if args.time_limit <= 0 or args.max_rank < 1 or args.n_routes < 1 or args.workers < 1:
        print("error: --time-limit, --max-rank, --n-routes and --workers must be positive", file=sys.stderr)
        return 2
    targets = load_targets(args.benchmark)
    ids = read_ids(args.ids_file)
    unknown = [x for x in ids if x not in targets]
    if not ids or unknown:
        print(f"error: {'no target ids in ' + str(args.ids_file) if not ids else f'{len(unknown)} ids not in the benchmark, e.g. {unknown[0]}'}",
              file=sys.stderr)
        return 2
    knobs = search_knobs(args)
    jobs = [(tid, targets[tid], args.time_limit, args.max_expansions, args.n_routes, args.max_depth, args.rank_by,
             knobs, args.max_rank) for tid in ids]
    t0 = time.perf_counter()
    records = run_jobs(_run_packed, jobs, args.stock, args.workers)
    summary = summarize(records)
    summary.update(wall_s=round(time.perf_counter() - t0, 1), config={
        "benchmark": args.benchmark.name, "stock": args.stock.name, "ids_file": str(args.ids_file),
        "time_limit": args.time_limit, "max_expansions": args.max_expansions, "max_depth": args.max_depth,
        "n_routes": args.n_routes, "rank_by": args.rank_by, "max_rank": args.max_rank, "search_knobs": knobs,
        "workers": args.workers})
    emit(summary, records, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

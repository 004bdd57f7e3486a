"""Multi-step benchmark: RetroCast ``ref-lin-600`` with the ``leaves_n5_ref_routes`` stock.

For each target the Retro* search (``molx_agent.retro.search``) runs with the packaged single-step
model (its template library excludes every benchmark target and intermediate, see
``scripts/build_templates.py``) and the benchmark stock only.  Reported:

- solvability: a route was found whose leaves are all in the stock;
- top-k route match: the k-th best route equals the reference route.  Rule: a route is the set of its
  reactions, each reaction written as (InChIKey of the product, sorted InChIKeys of the reactants),
  over every step of the tree; two routes match when these sets are equal (full InChIKeys, so
  stereochemistry counts).  ``top-k (connectivity)`` repeats the test with the first InChIKey block
  only (stereo and protonation ignored);
- time and expansions per target.

Each target is searched to its time/expansion limit unless ``--early-stop`` (then it stops once
``--n-routes`` routes exist, as the CLI does); continuing finds more diverse routes for the top-k match.

Sample: ``--sample N --seed S`` draws a stratified sample by reference route length (proportional
allocation, largest remainders, ids sorted before a seeded shuffle per stratum), so the same N and S
always give the same targets.  ``--write-sample`` saves the drawn ids.

Usage::

    nice -n 10 uv run python benchmarks/multistep.py --sample 20 --seed 0 --time-limit 10 --out /tmp/ms.json
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import json
import math
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
DATA = REPO.parent / "shared" / "data" / "multistep"
BENCH = DATA / "benchmarks" / "ref-lin-600.json.gz"
STOCK = DATA / "stocks" / "leaves_n5_ref_routes.smi.gz"


# -- reference routes --------------------------------------------------------------------------------------
def load_targets(path: Path = BENCH) -> dict[str, dict[str, Any]]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return json.load(fh)["targets"]


def reference_reactions(node: dict[str, Any], block: bool = False) -> frozenset[tuple[str, tuple[str, ...]]]:
    """(product key, sorted reactant keys) of every step of a RetroCast tree."""
    out: set[tuple[str, tuple[str, ...]]] = set()

    def key(n: dict[str, Any]) -> str:
        ik = n.get("inchikey") or _inchikey(n["smiles"])
        return ik.split("-")[0] if block else ik

    def walk(n: dict[str, Any]) -> None:
        step = n.get("synthesis_step")
        if not step:
            return
        kids = step.get("reactants") or []
        out.add((key(n), tuple(sorted(key(k) for k in kids))))
        for k in kids:
            walk(k)

    walk(node)
    return frozenset(out)


def read_ids(path: Path) -> list[str]:
    """Target ids listed in ``path``, one per line; blank lines and ``#`` comment lines skipped."""
    return [line.strip() for line in path.read_text().splitlines() if line.strip() and not line.startswith("#")]


def _inchikey(smiles: str) -> str:
    from molx_agent.retro.stock import inchikey

    return inchikey(smiles) or f"invalid:{smiles}"


def graph_reactions(graph: Any, block: bool = False) -> frozenset[tuple[str, tuple[str, ...]]]:
    def key(smiles: str) -> str:
        ik = _inchikey(smiles)
        return ik.split("-")[0] if block else ik

    out = set()
    for rxn in graph.reaction_nodes:
        product = graph.molecule_nodes[rxn.product_node].smiles
        out.add((key(product), tuple(sorted(key(graph.molecule_nodes[r].smiles) for r in rxn.reactant_nodes))))
    return frozenset(out)


# -- sampling ---------------------------------------------------------------------------------------------------
def stratified_sample(targets: dict[str, dict[str, Any]], n: int | None, seed: int) -> list[str]:
    """Ids stratified by reference route length (proportional allocation, largest remainders)."""
    ids = sorted(targets)
    if not n or n >= len(ids):
        return ids
    strata: dict[int, list[str]] = defaultdict(list)
    for tid in ids:
        strata[int(targets[tid].get("route_length") or 0)].append(tid)
    total = len(ids)
    quotas = {k: n * len(v) / total for k, v in strata.items()}
    alloc = {k: math.floor(q) for k, q in quotas.items()}
    left = n - sum(alloc.values())
    for k in sorted(quotas, key=lambda k: (-(quotas[k] - alloc[k]), k))[:left]:
        alloc[k] += 1
    rng = random.Random(seed)
    chosen: list[str] = []
    for k in sorted(strata):
        members = list(strata[k])
        rng.shuffle(members)
        chosen.extend(sorted(members[: alloc[k]]))
    return chosen


# -- worker ------------------------------------------------------------------------------------------------------
_STATE: dict[str, Any] = {}


def _init(stock_path: str, n_neighbours: int | None = None) -> None:
    import logging

    logging.disable(logging.WARNING)
    from molx_agent.retro.single_step import load_single_step_model
    from molx_agent.retro.stock import FileStock

    if stock_path == "default":  # the product's default stock, as a user gets it (verified + probable tiers)
        from molx_agent.retro.stock import load_stock

        _STATE["stock"] = load_stock(None)
    else:
        _STATE["stock"] = FileStock(stock_path)
    _STATE["model"] = load_single_step_model()
    if n_neighbours:
        _STATE["model"].n_neighbours = n_neighbours
    _STATE["model"].predict("CC(=O)Nc1ccc(O)cc1", top_k=5)  # warm-up: lazy library loading is not search time


def run_target(tid: str, target: dict[str, Any], time_limit: float, max_expansions: int, n_routes: int,
               max_depth: int, early_stop: bool = False, rank_by: str = "steps",
               knobs: dict[str, Any] | None = None) -> dict[str, Any]:
    from molx_agent.retro.search import SearchConfig, search_routes

    ref = target["ground_truth"]["target"]
    ref_full, ref_block = reference_reactions(ref), reference_reactions(ref, block=True)
    t0 = time.perf_counter()
    c0 = time.process_time()
    try:
        cfg = SearchConfig(time_limit=time_limit, max_expansions=max_expansions, max_depth=max_depth,
                           n_routes=n_routes, stop_at_n_routes=early_stop, rank_by=rank_by, **(knobs or {}))
        res = search_routes(target["smiles"], stock=_STATE["stock"], model=_STATE["model"], config=cfg)
    except Exception as exc:  # noqa: BLE001 - a failing target is a record, never dropped
        return {"id": tid, "route_length": target.get("route_length"), "solved": False,
                "error": f"{type(exc).__name__}: {exc}", "time_s": time.perf_counter() - t0}
    match_rank = next((i for i, g in enumerate(res.routes, 1) if graph_reactions(g) == ref_full), None)
    block_rank = next((i for i, g in enumerate(res.routes, 1) if graph_reactions(g, True) == ref_block), None)
    return {
        "id": tid,
        "smiles": target["smiles"],
        "route_length": target.get("route_length"),
        "solved": res.solved,
        "n_routes": len(res.routes),
        "best_n_steps": res.routes[0].n_steps if res.routes else None,
        "route_steps": [g.n_steps for g in res.routes],
        "best_leaves": [[n.smiles, n.availability.get("source"), n.availability.get("tier")]
                        for n in res.routes[0].leaves()] if res.routes else None,
        "best_confidence": (res.routes[0].metadata.get("route") or {}).get("confidence") if res.routes else None,
        "best_issues": sorted({i["code"] for i in (res.routes[0].metadata.get("route") or {}).get("issues", [])})
        if res.routes else None,
        "match_rank": match_rank,
        "match_rank_connectivity": block_rank,
        "n_expansions": res.n_expansions,
        "n_model_calls": res.stats.get("n_model_calls"),
        "n_replicated": res.stats.get("n_replicated"),
        "time_s": round(res.time_s, 3),
        "wall_s": round(time.perf_counter() - t0, 3),
        "cpu_s": round(time.process_time() - c0, 3),
        "stopped_by": res.stopped_by,
        "first_solution_s": res.stats.get("first_solution_s"),
        "rejected": res.stats.get("rejected"),
    }


def _run_packed(args: tuple) -> dict[str, Any]:
    return run_target(*args)


def search_knobs(args: argparse.Namespace) -> dict[str, Any]:
    """The ``SearchConfig`` fields set on the command line (``--leaf-cost``, ``--leaf-cost-base``,
    ``--leaf-cost-per-atom``, ``--step-penalty``, ``--expansion-top-k``, ``--no-reuse-solved``, ``--no-twin-values``)."""
    knobs = {k: v for k, v in (("leaf_cost", args.leaf_cost), ("step_penalty", args.step_penalty),
                               ("expansion_top_k", args.expansion_top_k),
                               ("leaf_cost_base", getattr(args, "leaf_cost_base", None)),
                               ("leaf_cost_per_atom", getattr(args, "leaf_cost_per_atom", None))) if v is not None}
    if getattr(args, "no_reuse_solved", False):
        knobs["reuse_solved"] = False
    if getattr(args, "no_twin_values", False):
        knobs["twin_values"] = False
    for item in getattr(args, "knob", None) or []:
        name, _, value = item.partition("=")
        knobs[name.strip()] = _knob_value(name.strip(), value.strip())
    return knobs


def _knob_value(name: str, value: str) -> Any:
    """``--knob name=value``: any ``SearchConfig`` field, parsed with the field's own type."""
    from molx_agent.retro.search_types import SearchConfig
    fields = {f.name: f for f in dataclasses.fields(SearchConfig)}
    if name not in fields:
        raise SystemExit(f"--knob: unknown SearchConfig field {name!r}")
    default = getattr(SearchConfig(), name)
    if isinstance(default, bool):
        return value.lower() in ("1", "true", "yes")
    if isinstance(default, (int, float)):
        return type(default)(value)
    return value


def run_jobs(packed: Callable[[tuple], dict[str, Any]], jobs: list[tuple], stock: Path, workers: int,
             n_neighbours: int | None = None) -> list[dict[str, Any]]:
    """``packed(job)`` for every job, in order (a process pool when ``workers`` > 1; each process loads the model
    and ``stock`` once), each record printed to stderr as it arrives."""
    records: list[dict[str, Any]] = []

    def collect(results: Iterable[dict[str, Any]]) -> None:
        for rec in results:
            records.append(rec)
            print(json.dumps(rec), file=sys.stderr, flush=True)

    if workers > 1:
        with ProcessPoolExecutor(workers, initializer=_init, initargs=(str(stock), n_neighbours)) as pool:
            collect(pool.map(packed, jobs))
    else:
        _init(str(stock), n_neighbours)
        collect(map(packed, jobs))
    return records


# -- summary -------------------------------------------------------------------------------------------------------
def summarize(records: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(records)

    def pct(count: int) -> float:
        return round(100.0 * count / n, 1) if n else 0.0

    def topk(key: str, k: int) -> float:
        return pct(sum(1 for r in records if r.get(key) is not None and r[key] <= k))

    times = [r["time_s"] for r in records]
    long_refs = [r for r in records if int(r.get("route_length") or 0) >= 3]
    short_best = [r for r in long_refs if r.get("best_n_steps") == 1]
    leaf_tiers: dict[str, int] = defaultdict(int)
    for r in records:
        for leaf in r.get("best_leaves") or []:
            leaf_tiers[str(leaf[2] if len(leaf) > 2 else None)] += 1
    confidences: dict[str, int] = defaultdict(int)
    for r in records:
        if r.get("solved"):
            confidences[str(r.get("best_confidence"))] += 1
    by_len: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        by_len[int(r.get("route_length") or 0)].append(r)
    return {
        "n_targets": n,
        "solvability_pct": pct(sum(bool(r["solved"]) for r in records)),
        "top1_pct": topk("match_rank", 1),
        "top5_pct": topk("match_rank", 5),
        "top10_pct": topk("match_rank", 10),
        "top1_connectivity_pct": topk("match_rank_connectivity", 1),
        "top10_connectivity_pct": topk("match_rank_connectivity", 10),
        "median_time_s": round(statistics.median(times), 2) if times else None,
        "mean_time_s": round(statistics.fmean(times), 2) if times else None,
        "max_time_s": round(max(times), 2) if times else None,
        "median_cpu_s": round(statistics.median([r.get("cpu_s", 0.0) for r in records]), 2) if records else None,
        "median_expansions": statistics.median([r.get("n_expansions", 0) for r in records]) if records else None,
        "n_errors": sum(1 for r in records if "error" in r),
        # targets whose reference route has >= 3 steps but whose best route is one step long (a shortcut)
        "n_ref_3plus": len(long_refs),
        "one_step_best_where_ref_3plus": len(short_best),
        "one_step_best_where_ref_3plus_pct": round(100.0 * len(short_best) / len(long_refs), 1) if long_refs else None,
        "mean_best_n_steps": round(statistics.fmean([r["best_n_steps"] for r in records if r.get("best_n_steps")]), 2)
        if any(r.get("best_n_steps") for r in records) else None,
        "best_route_leaf_tiers": dict(sorted(leaf_tiers.items())),
        "best_route_confidence": dict(sorted(confidences.items())),
        "by_route_length": {
            k: {"n": len(v), "solved": sum(bool(r["solved"]) for r in v),
                "top10": sum(1 for r in v if r.get("match_rank") is not None and r["match_rank"] <= 10)}
            for k, v in sorted(by_len.items())
        },
    }


def as_leaf(stock: Any, smiles: str) -> str:
    """``smiles`` as the search writes a leaf: canonical, in the form ``stock`` lists it when the stock has it
    (``C#N`` for a template's ``[C-]#N`` with the n5 stock; ``retro.stock.listed_form``)."""
    from molx_agent.retro.stock import canonical_smiles, listed_form

    can = canonical_smiles(smiles) or smiles
    return listed_form(stock, can) or can


def emit(summary: dict[str, Any], records: list[dict[str, Any]], out: Path | None) -> None:
    """Print the summary and, with ``out``, write it with every per-target record (atomically)."""
    print(json.dumps(summary, indent=2))
    if out:
        from molx_agent.io_utils import atomic_write_json

        atomic_write_json(out, {"summary": summary, "records": records})


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="RetroCast ref-lin-600 multi-step benchmark")
    ap.add_argument("--benchmark", type=Path, default=BENCH)
    ap.add_argument("--stock", type=Path, default=STOCK,
                    help="benchmark stock file (default: the n5 reference-leaf stock), or 'default' for the product's "
                         "default stock (verified building blocks + ZINC Bloom filter as probable)")
    ap.add_argument("--sample", type=int, default=None, help="number of targets (stratified by route length)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ids-file", type=Path, default=None, help="run exactly the ids listed in this file")
    ap.add_argument("--write-sample", type=Path, default=None, help="write the sampled ids to this file and continue")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--max-expansions", type=int, default=100_000)
    ap.add_argument("--max-depth", type=int, default=7)
    ap.add_argument("--n-routes", type=int, default=10)
    ap.add_argument("--early-stop", action="store_true",
                    help="stop a target once --n-routes routes are found (the CLI default); by default every "
                         "target is searched to its time/expansion limit, as in the published comparisons")
    ap.add_argument("--rank-by", choices=("score", "steps", "cost"), default=None,
                    help="route order: the route score (the CLI default), fewest steps then cost, or lowest total cost")
    ap.add_argument("--leaf-cost", type=float, default=None, help="SearchConfig.leaf_cost (default: the CLI's)")
    ap.add_argument("--leaf-cost-base", type=float, default=None, help="SearchConfig.leaf_cost_base")
    ap.add_argument("--leaf-cost-per-atom", type=float, default=None, help="SearchConfig.leaf_cost_per_atom")
    ap.add_argument("--step-penalty", type=float, default=None, help="SearchConfig.step_penalty (default: the CLI's)")
    ap.add_argument("--expansion-top-k", type=int, default=None,
                    help="SearchConfig.expansion_top_k (default: the CLI's)")
    ap.add_argument("--n-neighbours", type=int, default=None,
                    help="training neighbours whose templates the single-step model applies (default: the model's)")
    ap.add_argument("--no-reuse-solved", action="store_true",
                    help="SearchConfig.reuse_solved=False: a molecule solved in one branch is searched again elsewhere")
    ap.add_argument("--no-twin-values", action="store_true",
                    help="SearchConfig.twin_values=False: every new leaf starts from its leaf estimate")
    ap.add_argument("--knob", action="append", default=[], metavar="FIELD=VALUE",
                    help="set any SearchConfig field (repeatable), e.g. --knob probable_leaf_cost_base=1.0")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None, help="write per-target records and the summary (JSON)")
    args = ap.parse_args(argv)
    if args.rank_by is None:
        from molx_agent.retro.search_types import SearchConfig

        args.rank_by = SearchConfig().rank_by

    targets = load_targets(args.benchmark)
    if args.ids_file:
        ids = read_ids(args.ids_file)
    else:
        ids = stratified_sample(targets, args.sample, args.seed)
    if args.write_sample:
        args.write_sample.write_text(
            f"# ref-lin-600 stratified sample: --sample {args.sample} --seed {args.seed}\n" + "\n".join(ids) + "\n")
    knobs = search_knobs(args)
    jobs = [(tid, targets[tid], args.time_limit, args.max_expansions, args.n_routes, args.max_depth, args.early_stop,
             args.rank_by, knobs) for tid in ids]
    t0 = time.perf_counter()
    records = run_jobs(_run_packed, jobs, args.stock, args.workers, args.n_neighbours)
    summary = summarize(records)
    summary.update(wall_s=round(time.perf_counter() - t0, 1), config={
        "benchmark": args.benchmark.name, "stock": args.stock.name, "sample": args.sample, "seed": args.seed,
        "ids_file": str(args.ids_file) if args.ids_file else None, "time_limit": args.time_limit,
        "max_expansions": args.max_expansions, "max_depth": args.max_depth, "n_routes": args.n_routes,
        "early_stop": args.early_stop, "rank_by": args.rank_by, "search_knobs": knobs, "n_neighbours": args.n_neighbours,
        "workers": args.workers})
    emit(summary, records, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Multi-step benchmark: RetroCast ``ref-lin-600`` with the ``leaves_n5_ref_routes`` stock.

For each target the Retro* search runs as ``molx-agent route`` runs it: the same engine
(``molx_agent.cli.route.route_engine``: the packaged single-step model, whose template library excludes every
benchmark target and intermediate, see ``scripts/build_templates.py``), the same ``SearchConfig`` defaults
(``molx_agent.cli.route.DEFAULTS``) and the same route ranking, except ``--time-limit``, ``--stock`` (default: the
benchmark stock) and ``--n-routes`` (default 10 here, so top-10 can be measured; the CLI returns 5).  This is the
default mode (``mode: cli-defaults`` in the output); any search flag (``--max-expansions``, ``--max-depth``,
``--early-stop``, ``--rank-by``, ``--knob``, ...) changes the mode to ``custom`` and is recorded.
``--bench-defaults`` gives the limits of the earlier benchmark-only runs (``--max-expansions 100000``).

Reported (our own scorer):

- solvability: a route was found whose leaves are all in the stock;
- top-k route match: the k-th best route equals the reference route.  Rule: a route is the set of its
  reactions, each reaction written as (InChIKey of the product, sorted InChIKeys of the reactants),
  over every step of the tree; two routes match when these sets are equal (full InChIKeys, so
  stereochemistry counts).  ``top-k (connectivity)`` repeats the test with the first InChIKey block
  only (stereo and protonation ignored);
- time, expansions, single-step model calls and time in the single-step model per target.

Every record also holds the target's routes (best first, up to ``--n-routes``) as AiZynthFinder-style trees
(``routes``: ``type``/``smiles``/``in_stock``/``children``, the route's ``rank`` and ``score`` in the root's
``metadata``), which RetroCast's ``aizynthfinder`` adapter ingests: ``benchmarks/retrocast_score.py`` scores them
after the fact with the standard scorer.

Long runs: ``--records FILE.jsonl`` appends each record as it arrives (one complete JSON object a line, flushed;
the first line holds the run's configuration) and ``--resume`` skips the ids already there (a target whose record
is an error is run again), so a killed run continues where it stopped; ``--out`` and the summary are computed from
all the records of the file.  A target that raises is a record with ``error``, never dropped.

Sample: ``--sample N --seed S`` draws a stratified sample by reference route length (proportional
allocation, largest remainders, ids sorted before a seeded shuffle per stratum), so the same N and S
always give the same targets.  ``--write-sample`` saves the drawn ids.

Usage::

    nice -n 10 uv run python benchmarks/multistep.py --sample 20 --seed 0 --time-limit 10 --out /tmp/ms.json
    nice -n 10 uv run python benchmarks/multistep.py --time-limit 60 --workers 2 \\
        --records /tmp/ref600.jsonl --resume --out /tmp/ref600.json
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
from collections.abc import Callable
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


def single_step_info() -> dict[str, Any]:
    """Which single-step model the search expands with: the learned policy on or off (off unless
    ``MOLX_SEARCH_POLICY=on``; never with ``MOLX_SINGLE_STEP_POLICY=off``)."""
    from molx_agent.retro.single_step import search_policy_enabled

    return {"policy": search_policy_enabled()}


def _init(stock_path: str, n_neighbours: int | None = None) -> None:
    """Per process: the engine ``molx-agent route --stock STOCK`` searches with (``cli.route.route_engine``: the
    process-wide default engine (settings, packaged model, ``SearchConfig()``) on that stock), model loaded now."""
    import logging

    logging.disable(logging.WARNING)
    from molx_agent.cli.route import route_engine

    # "default": the product's default stock, as a user gets it (verified + probable tiers)
    engine = route_engine(None, stock=None if stock_path == "default" else stock_path)
    model = engine.model
    if n_neighbours:
        model.n_neighbours = n_neighbours
    model.predict("CC(=O)Nc1ccc(O)cc1", top_k=5)  # warm-up: lazy library loading is not search time
    _STATE.update(engine=engine, stock=engine.stock, model=model)


def route_trees(routes: list[Any]) -> list[dict[str, Any]]:
    """The routes as AiZynthFinder-style trees (``retro.export.to_aizynth_tree``) cut to what a scorer reads:
    ``type``, ``smiles``, ``in_stock`` and ``children`` on every node, the reaction's ``score``, and the route's
    ``rank`` (1 = best), ``score`` and ``n_steps`` in the root's ``metadata``, with the route judgement's
    ``confidence`` and sorted issue codes (``issues``) when the route was judged.  RetroCast's ``aizynthfinder``
    adapter ingests a target's list as it is."""
    from molx_agent.retro.export import to_aizynth_tree

    def slim(node: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {"type": node["type"], "smiles": node["smiles"]}
        if node["type"] == "mol":
            out["in_stock"] = bool(node.get("in_stock"))
        else:
            score = (node.get("metadata") or {}).get("score")
            if score is not None:
                out["metadata"] = {"score": score}
        out["children"] = [slim(k) for k in node.get("children") or []]
        return out

    trees = []
    for i, graph in enumerate(routes, start=1):
        tree = slim(to_aizynth_tree(graph))
        route = graph.metadata.get("route") if isinstance(graph.metadata.get("route"), dict) else {}
        tree["metadata"] = {"rank": graph.metadata.get("rank", i), "score": graph.metadata.get("route_score",
                                                                                              route.get("score")),
                            "n_steps": graph.n_steps}
        if graph.metadata.get("search_route_score") is not None:  # re-ranked: the search's own route score too
            tree["metadata"]["search_score"] = graph.metadata["search_route_score"]
        if route.get("confidence"):  # the route judgement, so that a record can be re-ranked or audited afterwards
            tree["metadata"]["confidence"] = route["confidence"]
            tree["metadata"]["issues"] = sorted({i["code"] for i in route.get("issues") or []})
        trees.append(tree)
    return trees


def run_target(tid: str, target: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    """One target searched as ``molx-agent route`` searches (``cli.route.run_route``: ``resolve_target``, then
    ``engine.search`` with ``overrides``, the ``SearchConfig`` fields set for this run), scored by our rule."""
    from molx_agent.cli.route import resolve_target

    ref = target["ground_truth"]["target"]
    ref_full, ref_block = reference_reactions(ref), reference_reactions(ref, block=True)
    t0 = time.perf_counter()
    c0 = time.process_time()
    try:
        smiles, name = resolve_target(target["smiles"])
        res = _STATE["engine"].search(smiles, name=name, **overrides)
        match_rank = next((i for i, g in enumerate(res.routes, 1) if graph_reactions(g) == ref_full), None)
        block_rank = next((i for i, g in enumerate(res.routes, 1) if graph_reactions(g, True) == ref_block), None)
        trees = route_trees(res.routes)
    except Exception as exc:  # noqa: BLE001 - a failing target is a record, never dropped
        return {"id": tid, "smiles": target.get("smiles"), "route_length": target.get("route_length"),
                "solved": False, "error": f"{type(exc).__name__}: {exc}", "time_s": round(time.perf_counter() - t0, 3)}
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
        # wall time inside the single-step model (the search's own count; cache hits cost nothing)
        "model_s": res.stats.get("model_time_s"),
        "n_validations": res.stats.get("n_validations"),
        "validation_s": res.stats.get("validation_time_s"),
        "n_replicated": res.stats.get("n_replicated"),
        "time_s": round(res.time_s, 3),
        "wall_s": round(time.perf_counter() - t0, 3),
        "cpu_s": round(time.process_time() - c0, 3),
        "stopped_by": res.stopped_by,
        "first_solution_s": res.stats.get("first_solution_s"),
        "rejected": res.stats.get("rejected"),
        # the final re-ranking with the full model (SearchConfig.rescore_routes): applied, molecules, calls, seconds
        "rescoring": res.stats.get("rescoring") or None,
        "routes": trees,
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


def search_overrides(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    """``(overrides, changed)``: the ``SearchConfig`` fields this run sets on top of the CLI's engine config, and
    the names of those that differ from ``molx-agent route`` with its defaults (beyond ``time_limit``/``n_routes``,
    which the benchmark always sets).  ``changed`` empty means the run is ``cli-defaults``."""
    from molx_agent.cli.route import DEFAULTS

    overrides: dict[str, Any] = {"time_limit": args.time_limit, "n_routes": args.n_routes}
    if getattr(args, "bench_defaults", False) and args.max_expansions is None:
        args.max_expansions = 100_000
    for name, value in (("max_expansions", args.max_expansions), ("max_depth", args.max_depth),
                        ("rank_by", args.rank_by)):
        if value is not None:
            overrides[name] = value
    if args.early_stop:
        overrides["stop_at_n_routes"] = True
    overrides.update(search_knobs(args))
    changed = sorted(k for k, v in overrides.items()
                     if k not in ("time_limit", "n_routes") and getattr(DEFAULTS, k) != v)
    if getattr(args, "n_neighbours", None):
        changed.append("n_neighbours")
    return overrides, changed


def effective_config(overrides: dict[str, Any]) -> dict[str, Any]:
    """The whole ``SearchConfig`` a target is searched with: the CLI engine's config (``default_engine().config``,
    as ``molx-agent route`` builds it; nothing loads) with ``overrides``, as ``RetroEngine.search`` applies them."""
    from molx_agent.retro.engine import default_engine

    return config_dict(dataclasses.replace(default_engine().config, **overrides))


def config_dict(cfg: Any) -> dict[str, Any]:
    """A ``SearchConfig`` as the records store it (tuples as lists)."""
    return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(cfg).items()}


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


# -- records (JSONL, resumable) ----------------------------------------------------------------------------------
def _same_setting(key: str, recorded: Any, current: Any) -> bool:
    """Whether a records file's setting matches this run's.  A ``search_config`` field the file does not record was
    added to ``SearchConfig`` after the file was written: that run had the field's behaviour before it existed, which
    is its default, so it matches when this run keeps the default."""
    if key != "search_config" or not isinstance(recorded, dict) or not isinstance(current, dict):
        return recorded == current
    from molx_agent.retro.search_types import SearchConfig

    defaults = json.loads(json.dumps(config_dict(SearchConfig())))
    if set(recorded) - set(current):
        return False
    return all(recorded[k] == v if k in recorded else (k in defaults and v == defaults[k]) for k, v in current.items())


def read_records(path: Path) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """``(meta, records)`` of a records file: JSONL (a ``{"meta": ...}`` line, then one record a line; a line cut
    short by a kill is skipped; for an id recorded twice the last record counts) or a ``--out`` JSON
    (``{"summary", "records"}``); either may be gzip-compressed (``.gz``, e.g. a run kept in
    ``benchmarks/results/``)."""
    if path.suffix == ".gz":
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            text = fh.read()
        suffix = Path(path.stem).suffix
    else:
        text = path.read_text(encoding="utf-8")
        suffix = path.suffix
    if suffix != ".jsonl":
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict) and isinstance(data.get("records"), list):
            return (data.get("summary") or {}).get("config"), list(data["records"])
    meta: dict[str, Any] | None = None
    by_id: dict[str, dict[str, Any]] = {}
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError:
            continue  # the last line of a killed run
        if not isinstance(item, dict):
            continue
        if "meta" in item and "id" not in item:
            meta = meta or item["meta"]
        elif "id" in item:
            by_id.pop(str(item["id"]), None)
            by_id[str(item["id"])] = item
    return meta, list(by_id.values())


class RecordWriter:
    """Appends records to a JSONL file, one complete line each, flushed and synced as it arrives."""

    def __init__(self, path: Path, meta: dict[str, Any]) -> None:
        self.path = path
        fresh = not path.exists() or path.stat().st_size == 0
        if not fresh:
            with path.open("rb") as fh:
                fh.seek(-1, 2)
                torn = fh.read(1) != b"\n"
        self.fh = path.open("a", encoding="utf-8")
        if not fresh and torn:
            self.fh.write("\n")  # a line cut short by a kill stays a bad line of its own
        if fresh:
            self.write({"meta": meta})

    def write(self, item: dict[str, Any]) -> None:
        import os

        self.fh.write(json.dumps(item) + "\n")
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def close(self) -> None:
        self.fh.close()


def run_jobs(packed: Callable[[tuple], dict[str, Any]], jobs: list[tuple], stock: Path, workers: int,
             n_neighbours: int | None = None, on_record: Callable[[dict[str, Any]], None] | None = None,
             ) -> list[dict[str, Any]]:
    """``packed(job)`` for every job (a process pool when ``workers`` > 1; each process loads the engine on
    ``stock`` once), each record printed to stderr and passed to ``on_record`` as it arrives (completion order).
    A job whose worker fails (even a dead process) is a record with ``error``: none is dropped."""
    records: list[dict[str, Any]] = []

    def collect(rec: dict[str, Any]) -> None:
        records.append(rec)
        print(json.dumps({k: v for k, v in rec.items() if k != "routes"}), file=sys.stderr, flush=True)
        if on_record is not None:
            on_record(rec)

    def failed(job: tuple, exc: BaseException) -> dict[str, Any]:
        tid, target = job[0], job[1]
        return {"id": tid, "smiles": target.get("smiles"), "route_length": target.get("route_length"),
                "solved": False, "error": f"{type(exc).__name__}: {exc}", "time_s": 0.0}

    if workers > 1:
        from concurrent.futures import as_completed

        with ProcessPoolExecutor(workers, initializer=_init, initargs=(str(stock), n_neighbours)) as pool:
            futures = {pool.submit(packed, job): job for job in jobs}
            try:
                for fut in as_completed(futures):
                    try:
                        rec = fut.result()
                    except Exception as exc:  # noqa: BLE001 - a dead worker is a record, never a lost target
                        rec = failed(futures[fut], exc)
                    collect(rec)
            except BaseException:  # Ctrl-C: drop the queued targets at once (they are not recorded: --resume runs them)
                pool.shutdown(wait=False, cancel_futures=True)
                raise
    else:
        _init(str(stock), n_neighbours)
        for job in jobs:
            try:
                rec = packed(job)
            except Exception as exc:  # noqa: BLE001
                rec = failed(job, exc)
            collect(rec)
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
        "median_model_calls": statistics.median([r.get("n_model_calls") or 0 for r in records]) if records else None,
        # share of the search time spent inside the single-step model's predict (records that measured it)
        "model_time_share_pct": round(100.0 * sum(r["model_s"] for r in records if r.get("model_s") is not None)
                                      / max(1e-9, sum(r["time_s"] for r in records if r.get("model_s") is not None)),
                                      1) if any(r.get("model_s") is not None for r in records) else None,
        "validation_time_share_pct": round(100.0 * sum(r["validation_s"] for r in records
                                                       if r.get("validation_s") is not None)
                                           / max(1e-9, sum(r["time_s"] for r in records
                                                           if r.get("validation_s") is not None)), 1)
        if any(r.get("validation_s") is not None for r in records) else None,
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


def build_parser() -> argparse.ArgumentParser:
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
    ap.add_argument("--n-routes", type=int, default=10,
                    help="routes kept per target (default 10, so top-10 can be measured; the CLI returns 5)")
    ap.add_argument("--cli-defaults", action="store_true",
                    help="search as `molx-agent route` does with its defaults (the default; kept for explicitness): "
                         "every SearchConfig field but --time-limit, --stock and --n-routes is the CLI's")
    ap.add_argument("--bench-defaults", action="store_true",
                    help="the earlier benchmark-only limits: --max-expansions 100000 (unless given)")
    ap.add_argument("--max-expansions", type=int, default=None, help="default: the CLI's (SearchConfig)")
    ap.add_argument("--max-depth", type=int, default=None, help="default: the CLI's (SearchConfig)")
    ap.add_argument("--early-stop", action="store_true",
                    help="stop a target once --n-routes routes are found (the CLI's --first); by default every "
                         "target is searched to its time/expansion limit, as the CLI does")
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
    ap.add_argument("--records", type=Path, default=None,
                    help="append each per-target record to this JSONL file as it arrives (flushed per line)")
    ap.add_argument("--resume", action="store_true",
                    help="with --records: skip the ids already recorded there (errors are run again); the summary "
                         "and --out cover every record of the file")
    ap.add_argument("--out", type=Path, default=None, help="write per-target records and the summary (JSON)")
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    def fail(message: str) -> int:
        print(f"error: {message}", file=sys.stderr)
        return 2

    if args.resume and not args.records:
        return fail("--resume needs --records FILE.jsonl")
    if not args.benchmark.is_file():
        return fail(f"benchmark file not found: {args.benchmark}")
    if str(args.stock) != "default" and not args.stock.is_file():
        return fail(f"stock file not found: {args.stock}")
    if args.ids_file and not args.ids_file.is_file():
        return fail(f"ids file not found: {args.ids_file}")
    targets = load_targets(args.benchmark)
    if args.ids_file:
        ids = read_ids(args.ids_file)
        unknown = [t for t in ids if t not in targets]
        if unknown:
            return fail(f"{len(unknown)} id(s) of {args.ids_file} not in the benchmark, e.g. {unknown[0]}")
    else:
        ids = stratified_sample(targets, args.sample, args.seed)
    if args.write_sample:
        args.write_sample.write_text(
            f"# ref-lin-600 stratified sample: --sample {args.sample} --seed {args.seed}\n" + "\n".join(ids) + "\n")
    overrides, changed = search_overrides(args)
    config = {
        "mode": "cli-defaults" if not changed else "custom", "changed_from_cli": changed,
        "benchmark": args.benchmark.name, "stock": args.stock.name, "sample": args.sample, "seed": args.seed,
        "ids_file": str(args.ids_file) if args.ids_file else None, "time_limit": args.time_limit,
        "n_routes": args.n_routes,
        "n_routes_note": "the benchmark keeps 10 routes per target so top-10 can be measured; molx-agent route "
                         "returns 5 by default" if args.n_routes == 10 else None,
        "overrides": overrides, "search_config": effective_config(overrides), "n_neighbours": args.n_neighbours,
        "single_step": single_step_info(),
    }
    done: set[str] = set()
    writer: RecordWriter | None = None
    if args.records:
        if args.records.suffix == ".gz":
            return fail(f"{args.records} is compressed: records are appended to a plain .jsonl file "
                        f"(decompress it, e.g. gunzip -c {args.records} > RUN.jsonl, and pass that)")
        if args.records.exists() and args.records.stat().st_size and not args.resume:
            return fail(f"{args.records} exists: pass --resume to continue it, or give another file")
        if args.resume and args.records.exists():
            meta, previous = read_records(args.records)
            if meta is not None:
                keys = ("benchmark", "stock", "time_limit", "n_routes", "search_config", "n_neighbours")
                # "single_step" (the model's policy switch) is compared when the file records it
                keys += ("single_step",) if "single_step" in meta else ()
                diff = [k for k in keys if not _same_setting(k, meta.get(k), json.loads(json.dumps(config[k])))]
                if diff:
                    return fail(f"{args.records} was written with another configuration ({', '.join(diff)} differ); "
                                "resume with the same flags or use another file")
            done = {str(r["id"]) for r in previous if "error" not in r}
        writer = RecordWriter(args.records, config)
    todo = [tid for tid in ids if tid not in done]
    if done:
        print(f"resume: {len(ids) - len(todo)} of {len(ids)} target(s) already recorded in {args.records}; "
              f"{len(todo)} to run", file=sys.stderr)
    jobs = [(tid, targets[tid], overrides) for tid in todo]
    t0 = time.perf_counter()
    try:
        records = run_jobs(_run_packed, jobs, args.stock, args.workers, args.n_neighbours,
                           on_record=writer.write if writer else None) if jobs else []
    finally:
        if writer:
            writer.close()
    if args.records:
        records = read_records(args.records)[1]
    summary = summarize(records)
    summary.update(wall_s=round(time.perf_counter() - t0, 1), config={**config, "workers": args.workers})
    emit(summary, records, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

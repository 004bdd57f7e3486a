"""Re-rank each target's recorded routes with the full single-step model's step probabilities (an experiment).

The records of ``benchmarks/multistep.py`` (run with ``--n-routes 50`` to keep a wide pool) hold each route with the
search's score of every step and the route score (step costs ``-log p + step_penalty``, leaf costs, a cost per step).
For every solved target whose reference route is among its routes, this script replaces the step costs ``-log p``
under several rules and reports the rank of the reference route under each (top-1 / 5 / 10 counts):

- ``recorded``: the order the search returned (route score, then the trust tiers of ``judge.route_rank_tier``);
- ``recorded_score``: the recorded route score alone (no tiers).  The tiers only reorder the routes a search
  returns, so with the benchmark's 10 routes this order's top 10 are the routes returned: with a wide pool
  (``--n-routes 50``) compare top-10 counts under this rule and ``search_steps``, not ``recorded``;
- ``search_steps``: the search's route score alone (no tiers; ``search_score`` when the run re-ranked its routes);
- ``full_steps``: the full model's probability of the same precursor set (``TemplateKNNModel().predict(product,
  top_k=50)``; a set it does not propose gets the search's floor, ``SearchConfig.min_score``);
- ``geo_mean``: the geometric mean of the search's and the full model's probabilities;
- ``full_if_known``: the full model's probability where it proposes the set, else the search's.

Usage::

    uv run python benchmarks/route_rescoring.py --records R.jsonl [--limit N]
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

FLOOR = 1e-3  # SearchConfig.min_score: the search clips step scores here
RULES = ("recorded", "recorded_score", "search_steps", "full_steps", "geo_mean", "full_if_known")


def steps_of(tree: dict[str, Any]) -> list[tuple[str, tuple[str, ...], float | None]]:
    """(product, sorted precursors, the search's step score) of every step of a recorded route tree."""
    out: list[tuple[str, tuple[str, ...], float | None]] = []

    def walk(node: dict[str, Any]) -> None:
        for rxn in node.get("children") or []:
            kids = rxn.get("children") or []
            out.append((node["smiles"], tuple(sorted(k["smiles"] for k in kids)), (rxn.get("metadata") or {}).get("score")))
            for kid in kids:
                walk(kid)

    walk(tree)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=Path, required=True)
    ap.add_argument("--limit", type=int, default=None, help="only the first N targets")
    args = ap.parse_args(argv)
    if not args.records.is_file():
        ap.error(f"no such records file: {args.records}")

    from multistep import _inchikey, load_targets, reference_reactions

    from molx_agent.retro.single_step import TemplateKNNModel, canonical_reactant_set

    def route_key(tree: dict[str, Any]) -> frozenset:
        return frozenset((_inchikey(p), tuple(sorted(_inchikey(r) for r in rs))) for p, rs, _ in steps_of(tree))

    opener = gzip.open if args.records.suffix == ".gz" else open
    with opener(args.records, "rt") as fh:
        records = [json.loads(line) for line in fh if line.strip()]
    records = [r for r in records if "id" in r and r.get("routes")][: args.limit]
    targets = load_targets()
    model = TemplateKNNModel()
    cache: dict[str, dict[tuple[str, ...], float]] = {}

    def full(product: str) -> dict[tuple[str, ...], float]:
        if product not in cache:
            try:
                cache[product] = {canonical_reactant_set(".".join(p.reactants)): p.score
                                  for p in model.predict(product, top_k=50)}
            except Exception:  # noqa: BLE001 - a product the model cannot take gives no probabilities
                cache[product] = {}
        return cache[product]

    hits = {rule: [0, 0, 0] for rule in RULES}
    with_reference = 0
    for rec in records:
        ref = reference_reactions(targets[rec["id"]]["ground_truth"]["target"])
        routes = rec["routes"]
        match = [route_key(t) == ref for t in routes]
        if not any(match):
            continue
        with_reference += 1
        # per route: its recorded score and, per step, (the search's probability, the full model's or None)
        # a run that re-ranked its routes records the search's own route score as ``search_score``
        scored = [(float((tree.get("metadata") or {}).get("search_score", (tree.get("metadata") or {}).get("score"))
                         or 0.0),
                   [(max(score or FLOOR, FLOOR), full(product).get(canonical_reactant_set(".".join(precursors))))
                    for product, precursors, score in steps_of(tree)])
                  for tree in routes]
        for rule in RULES:
            costs = []
            for i, (route_score, steps) in enumerate(scored):
                if rule == "recorded":
                    costs.append(float(i))
                    continue
                if rule == "recorded_score":
                    costs.append(float((routes[i].get("metadata") or {}).get("score") or 0.0))
                    continue
                total = route_score
                for ps, pf in steps:
                    p = {"search_steps": ps, "full_steps": max(pf or FLOOR, FLOOR),
                         "geo_mean": math.sqrt(ps * max(pf or FLOOR, FLOOR)),
                         "full_if_known": pf if pf else ps}[rule]
                    total += math.log(ps) - math.log(max(p, FLOOR))
                costs.append(total)
            order = sorted(range(len(routes)), key=lambda i: (costs[i], i))
            rank = 1 + next(j for j, i in enumerate(order) if match[i])
            for j, k in enumerate((1, 5, 10)):
                hits[rule][j] += rank <= k
    summary = {"records": len(records), "with_reference_among_routes": with_reference,
               "top1_5_10": {rule: hits[rule] for rule in RULES}}
    print(json.dumps(summary, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

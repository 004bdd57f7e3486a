"""Near misses of the multi-step route match: the right intermediates, another leaf or reagent.

For every solved target of ``benchmarks/multistep.py`` records (``--records``, JSONL or ``.jsonl.gz``) whose
reference route is not among its top ``--n-routes`` routes, the returned routes are searched for one that makes
exactly the reference's products (the target and every intermediate, by InChIKey) in the same number of steps.
Such a route follows the reference's strategy and differs only in what some step starts from (ethyl bromide for
the iodide, a mesylate for a tosylate, NBS for bromine, the acid for its anhydride): an exact route match is lost
there, not in the strategy. Prints the count per reference length and, with ``--steps``, every differing step.

    uv run python benchmarks/route_near_misses.py --records benchmarks/results/ref-lin-600_4a84872.jsonl.gz \
        [--steps] [--out OUT.json]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.mechanism_flags import _tree_steps  # noqa: E402
from benchmarks.multistep import BENCH, load_targets, read_records  # noqa: E402
from benchmarks.reference_steps import reference_steps  # noqa: E402
from benchmarks.route_diagnosis import _Keys  # noqa: E402
from molx_agent.io_utils import atomic_write_json  # noqa: E402


def near_misses(records: list[dict[str, Any]], targets: dict[str, dict[str, Any]], n_routes: int) -> dict[str, Any]:
    key = _Keys()
    unmatched = 0
    by_length: Counter[int] = Counter()
    found: list[dict[str, Any]] = []
    for rec in records:
        rank = rec.get("match_rank")
        if "id" not in rec or not rec.get("solved") or (rank is not None and rank <= n_routes):
            continue
        unmatched += 1
        ref = reference_steps(targets[rec["id"]]["ground_truth"]["target"])
        ref_by_product = {key(p): sorted(map(key, rs)) for _d, p, rs in ref}
        for i, tree in enumerate((rec.get("routes") or [])[:n_routes], 1):
            steps = list(_tree_steps(tree))
            if len(steps) != len(ref) or {key(p) for p, _ in steps} != set(ref_by_product):
                continue
            differing = [{"product": p, "ours": ".".join(rs),
                          "reference": next(".".join(r) for _d, q, r in ref if key(q) == key(p))}
                         for p, rs in steps if sorted(map(key, rs)) != ref_by_product[key(p)]]
            by_length[rec["route_length"]] += 1
            found.append({"target": rec["id"], "route_length": rec["route_length"], "route_rank": i,
                          "differing_steps": differing})
            break
    return {"solved_unmatched": unmatched, "same_intermediates": len(found),
            "by_reference_length": dict(sorted(by_length.items())), "targets": found}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=Path, required=True)
    ap.add_argument("--benchmark", type=Path, default=BENCH)
    ap.add_argument("--n-routes", type=int, default=10)
    ap.add_argument("--steps", action="store_true", help="print every differing step")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    for path in (args.records, args.benchmark):
        if not path.is_file():
            print(f"Error: no such file: {path}", file=sys.stderr)
            return 2
    res = near_misses(read_records(args.records)[1], load_targets(args.benchmark), args.n_routes)
    print(f"solved without the reference in the top {args.n_routes}: {res['solved_unmatched']}; "
          f"a top-{args.n_routes} route through exactly the reference's intermediates: {res['same_intermediates']} "
          f"(by reference length: {res['by_reference_length']})")
    if args.steps:
        for hit in res["targets"]:
            for step in hit["differing_steps"]:
                print(f"{hit['target']} (route {hit['route_rank']}) {step['product']}\n"
                      f"    reference: {step['reference']}\n    ours:      {step['ours']}")
    if args.out:
        atomic_write_json(args.out, res)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

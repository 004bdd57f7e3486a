"""Single-step recall of the reference routes' steps: the ceiling of the multi-step route match.

For every target of a RetroCast benchmark (default ``ref-lin-600``) listed in ``--ids-file``, every step
of the reference route (product -> reactants) is given to the packaged single-step model; a step is
*proposed* when the canonical reference reactant set is among the model's top ``--top-k`` (default 50,
the search's expansion width) precursor sets, each precursor written as the search writes a leaf (in the form
``--stock`` lists it: ``C#N`` for a template's ``[C-]#N``).  Reported: steps proposed in the top 1/5/10/``top-k``,
by source (learned USPTO-50K templates or named expert templates), the routes whose every step is
proposed (a route the search cannot rebuild otherwise), and the proposed steps the search's forward-validation
hard gates would reject (called as the search calls them).  ``--missing`` lists the steps not proposed and
the proposed ones that fail validation.

Used to choose the expert templates on development samples that share no target with the 100-target
evaluation sample (``benchmarks/ref-lin-600_dev1_52.txt``, ``benchmarks/ref-lin-600_dev2_80.txt``).

    uv run python benchmarks/reference_steps.py --ids-file benchmarks/ref-lin-600_dev1_52.txt [--missing] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.multistep import BENCH, STOCK, as_leaf, load_targets, read_ids  # noqa: E402


def reference_steps(node: dict[str, Any], depth: int = 0) -> list[tuple[int, str, list[str]]]:
    """(depth, product SMILES, reactant SMILES) of every step of a RetroCast reference tree."""
    step = node.get("synthesis_step")
    if not step:
        return []
    kids = step.get("reactants") or []
    out = [(depth, node["smiles"], [k["smiles"] for k in kids])]
    for kid in kids:
        out.extend(reference_steps(kid, depth + 1))
    return out


def evaluate(ids: list[str], targets: dict[str, dict[str, Any]], top_k: int, stock_path: Path = STOCK) -> dict[str, Any]:
    from molx_agent.chem import validate_forward
    from molx_agent.retro.single_step import load_single_step_model
    from molx_agent.retro.stock import FileStock, canonical_smiles

    model = load_single_step_model()
    stock = FileStock(stock_path)  # proposals are compared as the search writes leaves (as_leaf)
    records = []
    t0 = time.perf_counter()
    for tid in ids:
        for depth, product, reactants in reference_steps(targets[tid]["ground_truth"]["target"]):
            prod = canonical_smiles(product) or product
            truth = tuple(sorted(canonical_smiles(s) or s for s in reactants))
            preds = model.predict(prod, top_k=top_k)
            rank, source, valid, hard = None, None, None, None
            for i, p in enumerate(preds, 1):
                if tuple(sorted(as_leaf(stock, s) for s in p.reactants)) == truth:
                    rank, source = i, p.source
                    # the hard gates exactly as the search calls them (retro.search.RetroStarSearch._validate),
                    # with the precursors as the template wrote them
                    reacting = sorted(canonical_smiles(s) or s for s in p.reactants)
                    check = validate_forward(reacting, prod, reaction_type=p.category or None,
                                             template_id=p.named_template_id or None,
                                             mapped_reaction=p.mapped_reaction or None)
                    hard = check.get("hard_fail_reasons")
                    valid = not hard
                    break
            records.append({"id": tid, "depth": depth, "product": prod, "reactants": list(truth),
                            "rank": rank, "source": source, "passes_validation": valid, "hard_fail_reasons": hard})
    n = len(records)
    per_route: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in records:
        per_route[r["id"]].append(r)
    summary = {
        "n_targets": len(ids),
        "n_steps": n,
        "top_k": top_k,
        **{f"steps_top{k}": sum(1 for r in records if r["rank"] and r["rank"] <= k) for k in (1, 5, 10)},
        "steps_proposed": sum(1 for r in records if r["rank"]),
        "proposed_by_source": dict(sorted(Counter(r["source"] for r in records if r["rank"]).items())),
        "routes_all_steps_proposed": sum(all(r["rank"] for r in v) for v in per_route.values()),
        "proposed_steps_failing_validation": sum(1 for r in records if r["rank"] and not r["passes_validation"]),
        "routes_all_steps_proposed_and_valid": sum(all(r["rank"] and r["passes_validation"] for r in v)
                                                   for v in per_route.values()),
        "seconds": round(time.perf_counter() - t0, 1),
    }
    return {"summary": summary, "records": records}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--benchmark", type=Path, default=BENCH)
    ap.add_argument("--ids-file", type=Path, required=True, help="target ids, one per line ('#' lines skipped)")
    ap.add_argument("--top-k", type=int, default=50)
    ap.add_argument("--stock", type=Path, default=STOCK, help="leaves are compared in the form this stock lists them")
    ap.add_argument("--missing", action="store_true", help="also print the steps that are not proposed")
    ap.add_argument("--json", type=Path, default=None, help="write the per-step records and the summary here")
    args = ap.parse_args(argv)
    if not args.ids_file.is_file() or not args.benchmark.is_file():
        print(f"error: missing file: {args.ids_file if not args.ids_file.is_file() else args.benchmark}",
              file=sys.stderr)
        return 2
    targets = load_targets(args.benchmark)
    ids = read_ids(args.ids_file)
    if not ids:
        print(f"error: no target ids in {args.ids_file}", file=sys.stderr)
        return 2
    unknown = [x for x in ids if x not in targets]
    if unknown:
        print(f"error: {len(unknown)} ids not in the benchmark, e.g. {unknown[0]}", file=sys.stderr)
        return 2
    result = evaluate(ids, targets, args.top_k, args.stock)
    print(json.dumps(result["summary"], indent=2))
    if args.missing:
        for r in result["records"]:
            if not r["rank"]:
                print(f"{r['id']}\t{r['product']} <= {'.'.join(r['reactants'])}")
            elif not r["passes_validation"]:
                print(f"{r['id']}\t{r['product']} <= {'.'.join(r['reactants'])}\tproposed, fails {r['hard_fail_reasons']}")
    if args.json:
        from molx_agent.io_utils import atomic_write_json

        atomic_write_json(args.json, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

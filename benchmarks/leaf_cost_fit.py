"""Fit the search's size-aware leaf estimate (``SearchConfig.leaf_cost_base`` + ``leaf_cost_per_atom`` x heavy atoms).

Retro* values an unexpanded molecule by an estimate of the cost of making it.  With a constant estimate
(``leaf_cost``) the best-first search under-values every open molecule of a long route, and it explores
nearly every short partial route before it completes a long one.  This script measures what making an
intermediate really costs in the search's own units, on reference routes of development samples:

for every step of the reference route of every target listed in ``--ids-file`` the packaged single-step
model is asked for its top ``--top-k`` proposals; the step costs ``-log(score) + step_penalty`` (as in the
search) when the reference precursors are among them.  An intermediate's cost is the sum of the step costs
of its reference sub-route (skipped when a step of it is not proposed).  Printed: the median cost per
heavy-atom bin and the least-squares line cost = base + per_atom x heavy atoms.

Fitted on development samples 1-4 (never on the evaluation sample or on the held-out sample 5)::

    cat benchmarks/ref-lin-600_dev{1_52,2_80,3_80,4_80}.txt > /tmp/dev1234.txt
    uv run python benchmarks/leaf_cost_fit.py --ids-file /tmp/dev1234.txt
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.multistep import _STATE, STOCK, _inchikey, _init, as_leaf, load_targets, read_ids  # noqa: E402


def fit_line(xs: list[float], ys: list[float]) -> tuple[float, float]:
    """Least-squares (intercept, slope) of ``ys`` on ``xs``."""
    n = len(xs)
    if n < 2:
        raise ValueError("at least two points are needed")
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    if sxx == 0:
        raise ValueError("all x values are equal")
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / sxx
    return my - slope * mx, slope


def intermediate_costs(reference: dict[str, Any], model: Any, stock: Any, top_k: int,
                       step_penalty: float, min_score: float) -> list[dict[str, Any]]:
    """(SMILES, heavy atoms, cost of its reference sub-route or ``None``) of every product of a reference tree."""
    from rdkit import Chem

    from molx_agent.retro.search import step_cost

    out: list[dict[str, Any]] = []

    def key(smiles: list[str]) -> tuple[str, ...]:
        return tuple(sorted(_inchikey(s) for s in smiles))

    def walk(node: dict[str, Any]) -> float | None:
        step = node.get("synthesis_step")
        if not step:
            return 0.0
        kids = step.get("reactants") or []
        product = node["smiles"]
        want = key([k["smiles"] for k in kids])
        try:
            preds = model.predict(product, top_k=top_k)
        except Exception:  # noqa: BLE001 - a product the model rejects proposes nothing
            preds = []
        score = next((p.score for p in preds if key([as_leaf(stock, r) for r in p.reactants]) == want), None)
        below = [walk(k) for k in kids]
        cost = None
        if score is not None and all(b is not None for b in below):
            cost = (step_cost(score, min_score=min_score, step_penalty=step_penalty)
                    + sum(below))  # type: ignore[arg-type]
        mol = Chem.MolFromSmiles(product)
        out.append({"smiles": product, "heavy_atoms": mol.GetNumHeavyAtoms() if mol is not None else None,
                    "cost": cost})
        return cost

    walk(reference)
    return out


def main(argv: list[str] | None = None) -> int:
    from molx_agent.retro.search_types import SearchConfig

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ids-file", type=Path, required=True)
    ap.add_argument("--stock", type=Path, default=STOCK)
    ap.add_argument("--top-k", type=int, default=SearchConfig.expansion_top_k)
    ap.add_argument("--json", type=Path, default=None, help="write the per-intermediate records here")
    args = ap.parse_args(argv)
    cfg = SearchConfig()
    _init(str(args.stock))
    targets = load_targets()
    records: list[dict[str, Any]] = []
    for tid in read_ids(args.ids_file):
        for rec in intermediate_costs(targets[tid]["ground_truth"]["target"], _STATE["model"], _STATE["stock"],
                                      args.top_k, cfg.step_penalty, cfg.min_score):
            records.append({"id": tid, **rec})
    usable = [r for r in records if r["cost"] is not None and r["heavy_atoms"] is not None]
    bins: dict[int, list[float]] = defaultdict(list)
    for r in usable:
        bins[r["heavy_atoms"] // 4 * 4].append(r["cost"])
    base, per_atom = fit_line([float(r["heavy_atoms"]) for r in usable], [r["cost"] for r in usable])
    summary = {
        "n_intermediates": len(records),
        "n_with_every_step_proposed": len(usable),
        "median_cost_by_heavy_atoms": {f"{k}-{k + 3}": {"n": len(v), "median": round(statistics.median(v), 2)}
                                       for k, v in sorted(bins.items())},
        "fit": {"leaf_cost_base": round(base, 3), "leaf_cost_per_atom": round(per_atom, 4)},
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        args.json.write_text(json.dumps({"summary": summary, "records": records}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python
"""Train the search's learned value for open molecules (``molx_agent/data/retro_value.npz``, issue 28, part 3).

Data: every molecule made in a PaRoutes reference route (``paroutes-n{1,5}-full-buyables``) with the number of
reactions of its sub-route as the label, under the template library's leakage rule (``scripts/paroutes_reactions``):
a molecule is used only when **every** step of its sub-route passes it (no patent of a reported multi-step
benchmark, no benchmark target or intermediate, no patent or product of the USPTO-50K validation and test splits).
A molecule made in several routes keeps its shortest sub-route (the best known cost, as Retro* trains its value).
Molecules are keyed by InChIKey connectivity.

Model: ridge regression (numpy, closed form, the intercept not penalised) from the library fingerprint's on-bits and
``heavy atoms / 30`` to the reaction count.  ``--holdout`` (default 0.1) keeps that fraction of the patents out to
choose the penalty from ``--lambdas`` (lowest held-out mean absolute error) and to report, on the held-out molecules,
the ridge against two baselines: the line in heavy atoms (what the search's default ``size`` estimate ranks by)
and the training mean.  The shipped weights are then refitted on every molecule with the chosen penalty.

Units: the search's costs are ``-log p + step_penalty`` per step.  The size estimate is the line
``leaf_cost_base + leaf_cost_per_atom x heavy atoms`` fitted on development reference routes
(``benchmarks/leaf_cost_fit.py``); the reaction count's own line in heavy atoms over these molecules is
``a + b x heavy atoms``.  The learned estimate is ``cost_base + cost_per_step x steps`` with
``cost_per_step = leaf_cost_per_atom / b`` and ``cost_base = leaf_cost_base - cost_per_step x a``: the two estimates
agree on a molecule of average structure for its size, and the fingerprint moves the estimate from there.

Reads only the shared data folder (build time); writes the ``.npz`` atomically and byte-identically on a re-run
(same machine).  About a minute::

    uv run python scripts/train_value_model.py [--out FILE] [--json SUMMARY]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "scripts"))

import paroutes_reactions as pr  # noqa: E402
from train_template_policy import write_npz_deterministic  # noqa: E402

from molx_agent.retro.templates_db import DATA_DIR, FINGERPRINT  # noqa: E402
from molx_agent.retro.value import ATOM_SCALE, VALUE_FILE  # noqa: E402

FP_SIZE = int(FINGERPRINT["fp_size"])
LAMBDAS = (10.0, 30.0, 100.0, 300.0, 1000.0)


def route_molecules(routes: list[Path], reported: list[Path], uspto_eval: list[Path]) -> tuple[list[dict[str, Any]],
                                                                                                dict[str, int]]:
    """(``smiles``, ``key``, ``steps``, ``patent``) of every made molecule whose whole sub-route passes the leakage
    rule, one per connectivity key (fewest steps; ties: smallest SMILES), sorted by key; and counts."""
    guard = pr.LeakageGuard.load(reported, uspto_eval)
    best: dict[str, tuple[int, str, str]] = {}
    stats = {"made_molecules": 0, "left_out": 0}

    def walk(node: dict[str, Any]) -> tuple[int, bool]:
        """(reactions of the sub-route, whether every one of its steps passes)."""
        step = node.get("synthesis_step")
        if not step:
            return 0, True
        below = [walk(kid) for kid in step.get("reactants") or ()]
        steps = 1 + sum(n for n, _ in below)
        patent = pr._step_patent(step)
        key = pr._connectivity(node.get("smiles"), node.get("inchikey")) or ""
        ok = all(good for _, good in below) and guard.reason(patent, key) is None
        stats["made_molecules"] += 1
        if not ok:
            stats["left_out"] += 1
        elif node.get("smiles"):
            cand = (steps, node["smiles"], patent)
            if key not in best or cand < best[key]:
                best[key] = cand
        return steps, ok

    for path in routes:
        with gzip.open(path, "rb") as fh:
            data = json.loads(fh.read())
        for tid in sorted(data["targets"]):
            root = (data["targets"][tid].get("ground_truth") or {}).get("target")
            if root:
                walk(root)
    rows = [{"key": k, "steps": v[0], "smiles": v[1], "patent": v[2]} for k, v in sorted(best.items())]
    stats["molecules"] = len(rows)
    return rows, stats


def featurise(rows: list[dict[str, Any]]) -> tuple[list[np.ndarray], np.ndarray, np.ndarray, list[dict[str, Any]]]:
    """On-bits, heavy atoms and labels of the rows RDKit parses (and those rows)."""
    from rdkit import Chem, rdBase

    from molx_agent.retro.templates_db import fingerprint_bits_of_mol

    bits, heavy, steps, kept = [], [], [], []
    with rdBase.BlockLogs():
        for row in rows:
            mol = Chem.MolFromSmiles(row["smiles"])
            if mol is None:
                continue
            bits.append(np.asarray(fingerprint_bits_of_mol(mol), dtype=np.int64))
            heavy.append(mol.GetNumHeavyAtoms())
            steps.append(row["steps"])
            kept.append(row)
    return bits, np.asarray(heavy, dtype=np.float64), np.asarray(steps, dtype=np.float64), kept


def design(bits: list[np.ndarray], heavy: np.ndarray) -> np.ndarray:
    """Dense design matrix: fingerprint bits, heavy atoms / ATOM_SCALE, 1 (intercept)."""
    x = np.zeros((len(bits), FP_SIZE + 2), dtype=np.float64)
    for i, b in enumerate(bits):
        x[i, b] = 1.0
    x[:, FP_SIZE] = heavy / ATOM_SCALE
    x[:, FP_SIZE + 1] = 1.0
    return x


def fit_ridge(x: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """Ridge coefficients; the last column (intercept) is not penalised."""
    penalty = np.full(x.shape[1], lam)
    penalty[-1] = 0.0
    return np.linalg.solve(x.T @ x + np.diag(penalty), x.T @ y)


def fit_line(xs: np.ndarray, ys: np.ndarray) -> tuple[float, float]:
    """Least-squares (intercept, slope)."""
    slope, intercept = np.polyfit(xs, ys, 1)
    return float(intercept), float(slope)


def _ranks(v: np.ndarray) -> np.ndarray:
    order = np.argsort(v, kind="stable")
    ranks = np.empty(len(v))
    ranks[order] = np.arange(len(v))
    # ties share their mean rank
    _, inverse, counts = np.unique(v, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    return sums[inverse] / counts[inverse]


def metrics(pred: np.ndarray, y: np.ndarray) -> dict[str, float]:
    """Mean absolute error, Pearson and Spearman correlation (rounded)."""
    pearson = float(np.corrcoef(pred, y)[0, 1]) if np.std(pred) > 0 else 0.0
    spearman = float(np.corrcoef(_ranks(pred), _ranks(y))[0, 1]) if np.std(pred) > 0 else 0.0
    return {"mae": round(float(np.abs(pred - y).mean()), 4), "pearson": round(pearson, 4),
            "spearman": round(spearman, 4)}


def split_by_patent(rows: list[dict[str, Any]], fraction: float, seed: int) -> np.ndarray:
    """Boolean mask of the held-out rows: a ``fraction`` of the patents (seeded), every molecule of them."""
    patents = sorted({row["patent"] for row in rows})
    rng = np.random.default_rng(seed)
    held = {patents[i] for i in rng.choice(len(patents), size=int(round(fraction * len(patents))), replace=False)}
    return np.array([row["patent"] in held for row in rows])


def train(rows: list[dict[str, Any]], *, holdout: float, seed: int, lambdas: tuple[float, ...],
          leaf_cost_base: float, leaf_cost_per_atom: float) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
    """The arrays of the value file and the summary (held-out metrics, chosen penalty, cost map)."""
    bits, heavy, y, kept = featurise(rows)
    if len(y) < 10:
        raise ValueError(f"only {len(y)} usable molecules: too few to train a value model")
    x = design(bits, heavy)
    summary: dict[str, Any] = {"molecules": len(y), "patents": len({r["patent"] for r in kept}),
                               "steps_histogram": {str(k): int(v) for k, v in
                                                   zip(*np.unique(y.astype(int), return_counts=True), strict=True)}}
    lam = lambdas[0]
    if holdout > 0:
        held = split_by_patent(kept, holdout, seed)
        tr = ~held
        if held.sum() < 2 or tr.sum() < 10:
            raise ValueError("the hold-out split leaves too few molecules on one side")
        per_lambda = {}
        for cand in lambdas:
            coef = fit_ridge(x[tr], y[tr], cand)
            per_lambda[str(cand)] = metrics(x[held] @ coef, y[held])
        lam = min(lambdas, key=lambda c: (per_lambda[str(c)]["mae"], c))
        a, b = fit_line(heavy[tr], y[tr])
        summary["holdout"] = {
            "fraction_of_patents": holdout, "seed": seed, "train_molecules": int(tr.sum()),
            "held_out_molecules": int(held.sum()), "ridge_by_lambda": per_lambda, "chosen_lambda": lam,
            "ridge": per_lambda[str(lam)],
            "heavy_atom_line": metrics(a + b * heavy[held], y[held]),
            "training_mean": {"mae": round(float(np.abs(y[tr].mean() - y[held]).mean()), 4)},
        }
    coef = fit_ridge(x, y, lam)
    a, b = fit_line(heavy, y)
    if b <= 0:
        raise ValueError("the reaction count does not grow with heavy atoms in these data: no cost map")
    cost_per_step = leaf_cost_per_atom / b
    cost_base = leaf_cost_base - cost_per_step * a
    summary.update({
        "lambda": lam,
        "steps_line_in_heavy_atoms": {"intercept": round(a, 6), "slope": round(b, 6)},
        "size_line": {"leaf_cost_base": leaf_cost_base, "leaf_cost_per_atom": leaf_cost_per_atom},
        "cost_base": round(cost_base, 6), "cost_per_step": round(cost_per_step, 6),
        "training_fit": metrics(x @ coef, y),
    })
    arrays = {"w": coef[:FP_SIZE].astype(np.float32), "coef": coef[FP_SIZE:].astype(np.float64)}
    return arrays, summary


def main(argv: list[str] | None = None) -> int:
    from molx_agent.retro.search_types import SearchConfig

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--routes", type=Path, nargs="+", default=pr.DEFAULT_ROUTES)
    ap.add_argument("--reported", type=Path, nargs="+", default=pr.DEFAULT_REPORTED)
    ap.add_argument("--uspto-eval", type=Path, nargs="+", default=pr.DEFAULT_USPTO_EVAL)
    ap.add_argument("--out", type=Path, default=DATA_DIR / VALUE_FILE)
    ap.add_argument("--json", type=Path, default=None, help="also write the summary here")
    ap.add_argument("--holdout", type=float, default=0.1, help="fraction of patents held out to choose the penalty")
    ap.add_argument("--lambdas", type=float, nargs="+", default=list(LAMBDAS))
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    for path in [*args.routes, *args.reported, *args.uspto_eval]:
        if not path.is_file():
            sys.stderr.write(f"missing input file: {path}\n")
            return 2
    if not 0 <= args.holdout < 1:
        sys.stderr.write("--holdout must be in [0, 1)\n")
        return 2
    cfg = SearchConfig()
    rows, counts = route_molecules(args.routes, args.reported, args.uspto_eval)
    try:
        arrays, summary = train(rows, holdout=args.holdout, seed=args.seed, lambdas=tuple(args.lambdas),
                                leaf_cost_base=cfg.leaf_cost_base, leaf_cost_per_atom=cfg.leaf_cost_per_atom)
    except ValueError as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    meta = {"fingerprint": FINGERPRINT, "atom_scale": ATOM_SCALE, "label": "reactions of the reference sub-route",
            "sources": [p.name for p in args.routes], "counts": counts, **summary}
    arrays["meta_json"] = np.frombuffer(json.dumps(meta, sort_keys=True).encode(), dtype=np.uint8)
    write_npz_deterministic(args.out, arrays)
    text = json.dumps(meta, indent=1, sort_keys=True)
    if args.json:
        from molx_agent.io_utils import atomic_write_bytes

        atomic_write_bytes(args.json, text.encode())
    sys.stdout.write(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python
"""Train the ranker of the single-step ensemble (neighbours' templates + learned policy + named templates).

The learned policy (``scripts/train_template_policy.py``) was fitted on every USPTO-50K training reaction, so on
training products it is over-confident and leave-one-out training queries (as ``train_single_step_ranker.py``
uses for the model without the policy) would teach the ranker to trust it too much.  This ranker is therefore
fitted on USPTO-50K **validation** products, the split reserved for tuning: a deterministic sample of
``--queries`` validation reactions (seed ``--seed``) is cut into two halves; the first half fits the
conditional logit, the second reports held-out top-k (every query counted, a truth the model does not propose
is a miss), then the shipped ranker is fitted on both halves.  The test split is never read.

    nice -n 19 uv run python scripts/train_policy_ranker.py --queries 2000 --workers 2 --cache /tmp/pr.pkl
"""

from __future__ import annotations

import argparse
import logging
import os
import pickle
import random
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.single_step import SPLITS, load_split  # noqa: E402
from molx_agent.io_utils import atomic_write_json  # noqa: E402
from molx_agent.retro.policy import load_general_policy, load_policy, read_policy  # noqa: E402
from molx_agent.retro.ranker import DATA_DIR, FEATURES, POLICY_RANKER_FILE, LinearRanker  # noqa: E402
from molx_agent.retro.single_step import GENERAL_TEMPLATES, TemplateKNNModel  # noqa: E402
from scripts.train_single_step_ranker import fit_conditional_logit, run_queries  # noqa: E402

log = logging.getLogger("train_policy_ranker")
_MODEL: TemplateKNNModel | None = None
KS = (1, 3, 5, 10, 50)


def _init(n_neighbours: int, policy_templates: int, general_templates: int, policy_path: str | None = None,
          general_policy_path: str | None = None) -> None:
    global _MODEL
    policy = read_policy(policy_path) if policy_path else load_policy()
    if policy is None:
        raise SystemExit("no packaged policy: run scripts/train_template_policy.py first")
    general = None
    if general_templates > 0:
        general = read_policy(general_policy_path) if general_policy_path else load_general_policy()
    if general_templates > 0 and general is None:
        raise SystemExit("no packaged general policy: run scripts/train_template_policy.py --target general first,"
                         " or pass --general-templates 0")
    _MODEL = TemplateKNNModel(n_neighbours=n_neighbours, ranker=LinearRanker.default(), policy=policy,
                              policy_templates=policy_templates, general_policy=general,
                              general_templates=general_templates)


def _collect(query: tuple[str, tuple[str, ...]]) -> tuple[np.ndarray, int] | None:
    product, truth = query
    assert _MODEL is not None
    try:
        _, _, cands, feats = _MODEL.candidates(product)
    except Exception:  # noqa: BLE001 - an unusable product is counted by the caller
        return None
    label = next((i for i, c in enumerate(cands) if c.reactants == truth), -1)
    return feats.astype(np.float32), label


def top_k_all(groups: list[tuple[np.ndarray, int] | None], w: np.ndarray) -> dict[str, float]:
    """Top-k over every query (truth not proposed, or failure: a miss); ties ranked pessimistically."""
    hits = dict.fromkeys(KS, 0)
    for g in groups:
        if g is None or g[1] < 0:
            continue
        s = g[0].astype(np.float64) @ w
        rank = 1 + int(np.sum(s >= s[g[1]])) - 1
        for k in KS:
            hits[k] += rank <= k
    return {f"top{k}": round(100 * hits[k] / max(len(groups), 1), 1) for k in KS}


BINS = (0.0, 1e-3, 1e-2, 0.03, 0.1, 0.3, 0.6, 1.0001)


def calibration(groups: list[tuple[np.ndarray, int] | None], w: np.ndarray, top: int = 50) -> dict:
    """Reliability of the softmax probabilities (the model's scores) on every query's top ``top`` candidates.

    Per score bin: number of predictions, mean score, observed share of the recorded reactants; ECE weighted by
    bin size.  The softmax runs over all of a query's candidates, as ``TemplateKNNModel.predict`` does.
    """
    rows = []
    for g in groups:
        if g is None or len(g[0]) == 0:
            continue
        z = g[0].astype(np.float64) @ w
        p = np.exp(z - z.max())
        p /= p.sum()
        for i in np.argsort(-p, kind="stable")[:top]:
            rows.append((float(p[i]), int(i) == g[1]))
    table, ece = [], 0.0
    for lo, hi in zip(BINS[:-1], BINS[1:], strict=True):
        sel = [(p, y) for p, y in rows if lo <= p < hi]
        if not sel:
            continue
        mean_p = float(np.mean([p for p, _ in sel]))
        obs = float(np.mean([y for _, y in sel]))
        ece += len(sel) / len(rows) * abs(mean_p - obs)
        table.append({"bin": [lo, min(hi, 1.0)], "n": len(sel), "mean_score": round(mean_p, 4),
                      "observed": round(obs, 4)})
    return {"ece": round(ece, 4), "n_predictions": len(rows), "table": table}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--n-neighbours", type=int, default=100)
    ap.add_argument("--policy-templates", type=int, default=50)
    ap.add_argument("--general-templates", type=int, default=GENERAL_TEMPLATES,
                    help="general (radius-0) templates of the general policy applied per product (0: none)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--l2", type=float, default=1e-3)
    ap.add_argument("--cache", type=Path, default=None, help="reuse/store the collected features here")
    ap.add_argument("--out", type=Path, default=DATA_DIR / POLICY_RANKER_FILE)
    ap.add_argument("--policy", type=Path, default=None,
                    help="the template policy to collect features with (default: the packaged one)")
    ap.add_argument("--general-policy", type=Path, default=None,
                    help="the general policy to collect features with (default: the packaged one)")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    t0 = time.time()
    if args.cache and args.cache.is_file():
        groups = pickle.loads(args.cache.read_bytes())
    else:
        rows = load_split(SPLITS["val"])
        picked = random.Random(args.seed).sample(range(len(rows)), args.queries)
        queries = [(rows[i]["product"], rows[i]["truth"]) for i in picked]
        groups = run_queries(queries, _collect, _init,
                             (args.n_neighbours, args.policy_templates, args.general_templates,
                              str(args.policy) if args.policy else None,
                              str(args.general_policy) if args.general_policy else None),
                             workers=args.workers, every=100, chunksize=4)
        if args.cache:
            args.cache.write_bytes(pickle.dumps(groups))
    half = len(groups) // 2
    first, second = groups[:half], groups[half:]

    def usable(gs):
        return [g for g in gs if g is not None and g[1] >= 0 and len(g[0]) > 1]

    n_missing = sum(g is not None and g[1] < 0 for g in groups)
    n_failed = sum(g is None for g in groups)
    w_half, _, _ = fit_conditional_logit(usable(first), l2=args.l2)
    held_out = {"fallback_knn_vote": top_k_all(second, LinearRanker.default().weights),
                "trained_on_first_half": top_k_all(second, w_half)}
    col = FEATURES.index("reaction_score")
    if any(g is not None and len(g[0]) and np.any(g[0][:, col] != 0) for g in groups):
        # the same fit without the reaction scorer's feature: what the scorer adds, on the same held-out products
        def without(gs):
            return [None if g is None else (np.where(np.arange(g[0].shape[1]) == col, 0.0, g[0]), g[1]) for g in gs]

        w_wo, _, _ = fit_conditional_logit(usable(without(first)), l2=args.l2)
        held_out["trained_on_first_half_without_reaction_score"] = top_k_all(without(second), w_wo)
    log.info("truth among candidates: %.1f %% (%d missing, %d failed)",
             100 * (len(groups) - n_missing - n_failed) / len(groups), n_missing, n_failed)
    log.info("held-out second half (every query): %s", held_out)
    calib = calibration(second, w_half)
    log.info("held-out calibration (ranker of the first half, top 50 of each query): %s", calib)
    w, _, _ = fit_conditional_logit(usable(groups), l2=args.l2)
    ranker = LinearRanker(
        w, FEATURES, True,
        meta={
            "source": "conditional logit on USPTO-50K validation products (the tuning split), with the policy",
            "n_queries": len(groups), "n_usable": len(usable(groups)), "n_truth_missing": n_missing,
            "n_failed": n_failed, "seed": args.seed, "n_neighbours": args.n_neighbours,
            "policy_templates": args.policy_templates, "general_templates": args.general_templates,
            "l2": args.l2,
            "held_out_second_half_topk_all_queries": held_out,
            "held_out_second_half_calibration": calib,
        },
    )
    atomic_write_json(args.out, ranker.to_dict())
    os.chmod(args.out, 0o644)
    log.info("wrote %s in %.0f s", args.out, time.time() - t0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

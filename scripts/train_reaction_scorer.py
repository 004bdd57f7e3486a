#!/usr/bin/env python
"""Build the single-step model's reaction scorer (``molx_agent/data/retro_reaction_scorer.npz``), in two steps.

``collect`` (the project environment, RDKit): for a deterministic sample of the template library's USPTO-50K
training reactions (``--query-source paroutes``: of its PaRoutes route reactions, each left out with every library
reaction of the same product or the same patent), the default single-step model (neighbours' templates with the
product's own reactions left out, the learned and general policies' templates, the named templates) proposes its
candidate precursor sets; each candidate is written as its difference fingerprint
(``retro.reaction_scorer.difference_features``) and the recorded reactants mark the right one. Only the training file
and the library's PaRoutes reactions (which exclude every USPTO-50K validation and test product) are read: the
validation split stays the ranker's, the test split is never read.

``fit`` (the throwaway training venv of ``scripts/requirements-train.txt``: torch CPU, numpy; no RDKit): a conditional
logit (softmax over one product's candidates) of the network in ``retro.reaction_scorer``; 5 % of the products held
out (seeded) report candidate top-k while it trains. Deterministic (seeded, one thread, deterministic algorithms):
the same data give a byte-identical file. ``ensemble`` (numpy) averages scorers fitted with different ``--seed`` and one
``--holdout-seed`` into one file of the same format (docs/benchmarks.md: no gain measured, not shipped).

    nice -n 5 uv run python scripts/train_reaction_scorer.py collect --queries 16000 --workers 2 --out DATA.npz
    nice -n 5 uv run python scripts/train_reaction_scorer.py collect --query-source paroutes --queries 17299 --out PR.npz
    nice -n 5 /work/venv-train/bin/python scripts/train_reaction_scorer.py fit --data DATA.npz [PR.npz ...]
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

DEFAULT_OUT = REPO / "molx_agent" / "data" / "retro_reaction_scorer.npz"
log = logging.getLogger("train_reaction_scorer")

# -- collect (project environment) ------------------------------------------------------------------------------
_MODEL: Any = None
_SAME_PRODUCT: dict[str, np.ndarray] = {}
_FP_CACHE: dict[str, Any] = {}


def _init(same_product: dict[str, np.ndarray], n_neighbours: int) -> None:
    global _MODEL, _SAME_PRODUCT
    from molx_agent.retro.ranker import LinearRanker
    from molx_agent.retro.single_step import TemplateKNNModel

    # candidates do not depend on a reaction scorer: collect without one (its scores would be thrown away)
    _MODEL = TemplateKNNModel(n_neighbours=n_neighbours, ranker=LinearRanker.default(), reaction_scorer=None)
    _SAME_PRODUCT = same_product


def _fp(smiles: str) -> Any:
    from rdkit import Chem

    from molx_agent.retro.reaction_scorer import count_fingerprint

    fp = _FP_CACHE.get(smiles)
    if fp is None:
        mol = Chem.MolFromSmiles(smiles)
        fp = count_fingerprint(mol) if mol is not None else None
        if len(_FP_CACHE) > 50_000:
            _FP_CACHE.clear()
        _FP_CACHE[smiles] = fp
    return fp


def _collect(query: tuple[str, tuple[str, ...], str]) -> dict | None:
    """One query's product bits, its candidates' difference features and the truth's row (-1: not proposed)."""
    from molx_agent.retro.reaction_scorer import difference_features

    product, truth, key = query
    try:
        canon, _, cands, _ = _MODEL.candidates(product, exclude=_SAME_PRODUCT[key])
    except Exception:  # noqa: BLE001 - an unusable training product is counted by the caller
        return None
    pfp = _fp(canon)
    if pfp is None:
        return None
    diffs, label = [], -1
    for cand in cands:
        parts = [_fp(s) for s in cand.reactants]
        if any(p is None for p in parts):
            continue
        if cand.reactants == truth:
            label = len(diffs)
        diffs.append(difference_features(pfp, parts))
    return {"product": pfp[0], "diffs": diffs, "label": label}


def collect(args: argparse.Namespace) -> int:
    from molx_agent.retro.reaction_scorer import REACTION_FINGERPRINT
    from molx_agent.retro.templates_db import load_template_library
    from scripts.train_single_step_ranker import DEFAULT_TRAIN, _queries, run_queries
    from scripts.train_template_policy import write_npz_deterministic

    t0 = time.time()
    lib = load_template_library()
    qargs = argparse.Namespace(train=args.train or DEFAULT_TRAIN, query_source=args.query_source, queries=args.queries,
                               seed=args.seed)
    queries, same_product = _queries(lib, qargs)
    if args.skip_sample:  # leave out the products an earlier run (--queries N, the same seed) collected
        earlier, _ = _queries(lib, argparse.Namespace(**{**vars(qargs), "queries": args.skip_sample}))
        done = {(q[0], q[1], q[2]) for q in earlier}
        queries = [q for q in queries if (q[0], q[1], q[2]) not in done]
    log.info("collecting candidates for %d leave-one-out training queries", len(queries))
    results: list[dict | None] = run_queries(queries, _collect, _init, (same_product, args.n_neighbours),
                                             workers=args.workers, every=500)
    kept = [r for r in results if r is not None and r["diffs"]]
    n_failed = len(results) - len(kept)
    n_missing = sum(r["label"] < 0 for r in kept)
    diffs = [d for r in kept for d in r["diffs"]]
    arrays = {
        "product_idx": np.concatenate([r["product"] for r in kept]).astype(np.uint16),
        "product_ptr": np.cumsum([0] + [len(r["product"]) for r in kept]).astype(np.int64),
        "group_ptr": np.cumsum([0] + [len(r["diffs"]) for r in kept]).astype(np.int64),
        "label": np.array([r["label"] for r in kept], dtype=np.int32),
        "diff_idx": np.concatenate([d[0] for d in diffs]).astype(np.uint16),
        "diff_val": np.concatenate([d[1] for d in diffs]).astype(np.int8),
        "diff_ptr": np.cumsum([0] + [len(d[0]) for d in diffs]).astype(np.int64),
        "meta_json": np.frombuffer(json.dumps({
            "fingerprint": REACTION_FINGERPRINT, "queries": len(queries), "seed": args.seed,
            "n_neighbours": args.n_neighbours, "failed": n_failed, "truth_missing": n_missing,
            "query_source": args.query_source,
            "source": {"uspto50k": "USPTO-50K training reactions of the template library, leave-one-out",
                       "paroutes": "PaRoutes route reactions of the template library, leave-one-out by product and "
                                   "patent"}[args.query_source],
        }, sort_keys=True).encode(), dtype=np.uint8),
    }
    write_npz_deterministic(args.out, arrays)
    log.info("%d products (%d failed, %d truth not proposed), %d candidates -> %s in %.0f s", len(kept), n_failed,
             n_missing, len(diffs), args.out, time.time() - t0)
    return 0


# -- fit (training venv: torch) ---------------------------------------------------------------------------------
def _concatenate(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Several collected files as one (pointers shifted); their metadata must agree on the fingerprint."""
    if len(parts) == 1:
        return parts[0]
    metas = [json.loads(p["meta_json"].tobytes().decode()) for p in parts]
    if any(m["fingerprint"] != metas[0]["fingerprint"] for m in metas):
        raise SystemExit("the data files were collected with different fingerprints")
    out: dict[str, np.ndarray] = {}
    for ptr in ("product_ptr", "group_ptr", "diff_ptr"):
        shifted, base = [parts[0][ptr]], int(parts[0][ptr][-1])
        for p in parts[1:]:
            shifted.append(p[ptr][1:] + base)
            base += int(p[ptr][-1])
        out[ptr] = np.concatenate(shifted)
    for key in ("product_idx", "diff_idx", "diff_val", "label"):
        out[key] = np.concatenate([p[key] for p in parts])
    merged = {**metas[0], "parts": metas}
    out["meta_json"] = np.frombuffer(json.dumps(merged, sort_keys=True).encode(), dtype=np.uint8)
    return out


def _split(data: dict[str, np.ndarray], rng: np.random.Generator, holdout: float, holdout_seed: int | None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The usable products (truth proposed, more than one candidate), the held-out ones (sorted) and the training
    ones (shuffled).  The split comes from ``rng`` (the training seed's generator, which then shuffles the epochs)
    unless ``holdout_seed`` names another seed: ensemble members of different seeds share one held-out set."""
    gptr, label = data["group_ptr"], data["label"]
    usable = np.flatnonzero((label >= 0) & (np.diff(gptr) > 1))
    order = rng.permutation(usable)  # drawn in any case: the epochs' shuffles that follow stay those of the seed
    if holdout_seed is not None:
        order = np.random.default_rng(holdout_seed).permutation(usable)
    n_hold = int(round(holdout * len(order)))
    return usable, np.sort(order[:n_hold]), order[n_hold:]


def _topk(ranks: list[int]) -> dict[str, float]:
    """Percent of products whose truth ranks within 1, 3, 5 and 10 among their candidates."""
    ranks_a = np.array(ranks)
    return {f"top{k}": round(100 * float(np.mean(ranks_a <= k)), 1) for k in (1, 3, 5, 10)}


def _held_out_topk(scorer: Any, data: dict[str, np.ndarray], groups: np.ndarray) -> dict[str, float]:
    """Candidate top-k of a numpy ``ReactionScorer`` over the given products of collected data."""
    pptr, pidx, gptr, label = data["product_ptr"], data["product_idx"], data["group_ptr"], data["label"]
    dptr, didx, dval = data["diff_ptr"], data["diff_idx"].astype(np.int64), data["diff_val"].astype(np.float32)
    ranks = []
    for g in groups.tolist():
        p = pidx[pptr[g]:pptr[g + 1]].astype(np.int64)
        lo, hi = int(gptr[g]), int(gptr[g + 1])
        diffs = [(didx[dptr[c]:dptr[c + 1]], dval[dptr[c]:dptr[c + 1]]) for c in range(lo, hi)]
        z = scorer.scores((p, np.ones(len(p), dtype=np.float32)), diffs)
        ranks.append(1 + int(np.sum(z > z[int(label[g])])))
    return _topk(ranks)


def ensemble(args: argparse.Namespace) -> int:
    """Average several fitted scorers: one network whose hidden layer is theirs side by side (second-layer weights
    divided by their number), in the same file format.  ``--data``: also report each member's and the ensemble's
    candidate top-k on the members' shared held-out products."""
    from molx_agent.io_utils import read_npz_with_meta
    from molx_agent.retro.reaction_scorer import ReactionScorer, scorer_check_data
    from scripts.train_template_policy import write_npz_deterministic

    members = [read_npz_with_meta(p) for p in args.members]
    metas = [m for _, m in members]
    for key in ("fingerprint", "holdout", "holdout_seed", "data"):
        if any(m.get(key) != metas[0].get(key) for m in metas):
            raise SystemExit(f"the members differ in {key!r}: not one ensemble")
    if metas[0].get("holdout_seed") is None and len({m["seed"] for m in metas}) > 1:
        raise SystemExit("members of different seeds need one --holdout-seed: their held-out products differ")
    n = len(members)
    # the members' hidden units side by side (float16, as stored); the second layer averages them
    arrays: dict[str, np.ndarray] = {k: np.concatenate([a[k] for a, _ in members], axis=-1)
                                     for k in ("w_prod", "w_diff", "b1")}
    arrays["w2"] = np.concatenate([a["w2"].astype(np.float32) / n for a, _ in members]).astype(np.float16)
    arrays["b2"] = np.float32(np.mean([float(a["b2"]) for a, _ in members]))
    merged = ReactionScorer(**{k: arrays[k].astype(np.float32) for k in ("w_prod", "w_diff", "b1", "w2")},
                            b2=float(arrays["b2"]), meta={})
    # the first member's reference input, scored by the ensemble
    first = members[0][0]
    arrays |= {k: first[k] for k in ("check_product_idx", "check_product_val", "check_diff_idx", "check_diff_val",
                                      "check_diff_offsets")}
    check_product, check_diffs, _ = scorer_check_data(args.members[0])
    arrays["check_scores"] = merged.scores(check_product, check_diffs).astype(np.float32)
    out_meta = {**metas[0], "hidden": int(arrays["b1"].shape[0]), "seed": [m["seed"] for m in metas],
                "ensemble_of": n, "members_held_out_candidate_topk": [m["held_out_candidate_topk"] for m in metas]}
    if args.data:
        data = _concatenate([read_npz_with_meta(p)[0] for p in args.data])
        if json.loads(data["meta_json"].tobytes().decode()) != metas[0]["data"]:
            raise SystemExit("--data is not the data the members were fitted on")
        _, hold, _ = _split(data, np.random.default_rng(metas[0]["seed"]), metas[0]["holdout"],
                            metas[0]["holdout_seed"])
        out_meta["held_out_candidate_topk"] = _held_out_topk(merged, data, hold)
        log.info("members %s; ensemble %s", out_meta["members_held_out_candidate_topk"],
                 out_meta["held_out_candidate_topk"])
    else:
        out_meta.pop("held_out_candidate_topk", None)
    arrays["meta_json"] = np.frombuffer(json.dumps(out_meta, sort_keys=True).encode(), dtype=np.uint8)
    write_npz_deterministic(args.out, arrays)
    log.info("ensemble of %d (hidden %d) -> %s (%d bytes)", n, out_meta["hidden"], args.out, args.out.stat().st_size)
    return 0


def fit(args: argparse.Namespace) -> int:
    import torch

    from molx_agent.io_utils import (
        read_npz_with_meta,  # standard library only: importable in the training venv
    )
    from scripts.train_template_policy import write_npz_deterministic

    torch.manual_seed(args.seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(args.threads)
    t0 = time.time()
    data = _concatenate([read_npz_with_meta(p)[0] for p in args.data])
    meta = json.loads(data["meta_json"].tobytes().decode())
    fp_size = int(meta["fingerprint"]["fp_size"])
    gptr, label = data["group_ptr"], data["label"]
    rng = np.random.default_rng(args.seed)
    usable, hold, train = _split(data, rng, args.holdout, args.holdout_seed)
    if args.max_products:  # a learning curve: fewer training products, the same held-out ones
        train = train[:args.max_products]
    log.info("%d usable products (%d held out), %d candidates in all", len(usable), len(hold), int(gptr[-1]))

    pptr, pidx = data["product_ptr"], data["product_idx"].astype(np.int64)
    dptr, didx, dval = data["diff_ptr"], data["diff_idx"].astype(np.int64), data["diff_val"].astype(np.float32)

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.prod = torch.nn.EmbeddingBag(fp_size, args.hidden, mode="sum")
            self.diff = torch.nn.EmbeddingBag(fp_size, args.hidden, mode="sum")
            self.b1 = torch.nn.Parameter(torch.zeros(args.hidden))
            self.out = torch.nn.Linear(args.hidden, 1)
            self.drop = torch.nn.Dropout(args.dropout)
            for emb in (self.prod, self.diff):
                torch.nn.init.normal_(emb.weight, std=0.02)

        def forward(self, p_idx, p_off, p_of_cand, d_idx, d_off, d_w):
            hp = self.prod(p_idx, p_off)  # (n_products, hidden)
            hd = self.diff(d_idx, d_off, per_sample_weights=d_w)  # (n_cands, hidden)
            h = torch.relu(hp[p_of_cand] + hd + self.b1)
            return self.out(self.drop(h)).squeeze(-1)

    def batch(groups: np.ndarray):
        p_idx, p_off, d_idx, d_off, d_w, p_of, lab_rows = [], [], [], [], [], [], []
        n_p = n_c = n_d = 0
        for k, g in enumerate(groups.tolist()):
            p = pidx[pptr[g]:pptr[g + 1]]
            p_off.append(n_p)
            p_idx.append(p)
            n_p += len(p)
            lo, hi = int(gptr[g]), int(gptr[g + 1])
            for c in range(lo, hi):
                d_off.append(n_d)
                s, e = int(dptr[c]), int(dptr[c + 1])
                d_idx.append(didx[s:e])
                d_w.append(dval[s:e])
                n_d += e - s
            p_of.append(np.full(hi - lo, k))
            lab_rows.append(n_c + int(label[g]))
            n_c += hi - lo
        # p_of: the product (row of this batch) of each candidate, also the candidates' softmax groups
        return (torch.from_numpy(np.concatenate(p_idx)), torch.tensor(p_off), torch.from_numpy(np.concatenate(p_of)),
                torch.from_numpy(np.concatenate(d_idx)), torch.tensor(d_off),
                torch.from_numpy(np.concatenate(d_w))), torch.tensor(lab_rows)

    def group_log_softmax(z, seg, n_groups):
        zmax = torch.full((n_groups,), -1e30).scatter_reduce(0, seg, z, reduce="amax", include_self=True)
        e = torch.exp(z - zmax[seg])
        denom = torch.zeros(n_groups).index_add(0, seg, e)
        return z - zmax[seg] - torch.log(denom[seg])

    net = Net()
    opt = torch.optim.Adam(net.parameters(), lr=args.lr, weight_decay=args.weight_decay)

    def evaluate(groups: np.ndarray) -> dict[str, float]:
        net.eval()
        ranks = []
        with torch.no_grad():
            for s in range(0, len(groups), 512):
                gs = groups[s:s + 512]
                inputs, lab = batch(gs)
                z = net(*inputs).numpy()
                segn = inputs[2].numpy()
                for k in range(len(gs)):
                    zk = z[segn == k]
                    ranks.append(1 + int(np.sum(zk > z[lab[k].item()])))
        net.train()
        return _topk(ranks)

    for epoch in range(1, args.epochs + 1):
        perm = rng.permutation(train)
        total = 0.0
        for s in range(0, len(perm), args.batch):
            gs = perm[s:s + args.batch]
            inputs, lab = batch(gs)
            z = net(*inputs)
            loss = -group_log_softmax(z, inputs[2], len(gs))[lab].mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += float(loss.detach()) * len(gs)
        log.info("epoch %d: train loss %.4f, held-out candidate top-k %s (%.0f s)", epoch, total / len(train),
                 evaluate(hold), time.time() - t0)
    held_out = evaluate(hold)
    net.eval()
    w_prod = net.prod.weight.detach().numpy().astype(np.float16)
    w_diff = net.diff.weight.detach().numpy().astype(np.float16)
    b1 = net.b1.detach().numpy().astype(np.float16)
    w2 = net.out.weight.detach().numpy()[0].astype(np.float16)
    b2 = np.float32(net.out.bias.detach().numpy()[0])
    # reference scores of one held-out product's candidates, computed with the float16-rounded weights
    g = int(hold[0])
    lo, hi = int(gptr[g]), int(gptr[g + 1])
    check_diffs = [(didx[dptr[c]:dptr[c + 1]], dval[dptr[c]:dptr[c + 1]]) for c in range(lo, hi)]
    p = pidx[pptr[g]:pptr[g + 1]]
    hp = w_prod.astype(np.float32)[p].sum(axis=0) + b1.astype(np.float32)
    check_scores = np.array([
        float(np.maximum(hp + (w_diff.astype(np.float32)[i] * v[:, None]).sum(axis=0), 0) @ w2.astype(np.float32)
              + b2) for i, v in check_diffs], dtype=np.float32)
    out_meta = {
        "fingerprint": meta["fingerprint"], "hidden": args.hidden, "epochs": args.epochs, "lr": args.lr,
        "batch": args.batch, "dropout": args.dropout, "weight_decay": args.weight_decay, "seed": args.seed,
        "holdout": args.holdout, "holdout_seed": args.holdout_seed, "n_products": int(len(usable)),
        "n_held_out": int(len(hold)),
        "held_out_candidate_topk": held_out, "data": meta, "torch": torch.__version__,
    }
    arrays = {
        "w_prod": w_prod, "w_diff": w_diff, "b1": b1, "w2": w2, "b2": b2,
        "check_product_idx": p.astype(np.uint16),
        "check_product_val": np.ones(len(p), dtype=np.float32),
        "check_diff_idx": np.concatenate([d[0] for d in check_diffs]).astype(np.uint16),
        "check_diff_val": np.concatenate([d[1] for d in check_diffs]).astype(np.float32),
        "check_diff_offsets": np.cumsum([0] + [len(d[0]) for d in check_diffs]).astype(np.int64),
        "check_scores": check_scores,
        "meta_json": np.frombuffer(json.dumps(out_meta, sort_keys=True).encode(), dtype=np.uint8),
    }
    write_npz_deterministic(args.out, arrays)
    log.info("held-out candidate top-k %s; wrote %s (%d bytes) in %.0f s", held_out, args.out,
             args.out.stat().st_size, time.time() - t0)
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("collect", help="candidates of training products as difference fingerprints")
    c.add_argument("--train", type=Path, default=None, help="the USPTO-50K training file (default: ../shared)")
    c.add_argument("--queries", type=int, default=16000)
    c.add_argument("--query-source", choices=("uspto50k", "paroutes"), default="uspto50k",
                   help="the library's USPTO-50K training reactions, or its PaRoutes route reactions (left out with "
                        "every reaction of the same product or patent)")
    c.add_argument("--seed", type=int, default=0)
    c.add_argument("--n-neighbours", type=int, default=100)
    c.add_argument("--skip-sample", type=int, default=0,
                   help="leave out the queries of an earlier run with --queries N (a second part of the data)")
    c.add_argument("--workers", type=int, default=2)
    c.add_argument("--out", type=Path, required=True)
    f = sub.add_parser("fit", help="train the scorer on collected data (torch)")
    f.add_argument("--data", type=Path, nargs="+", required=True, help="collected data file(s), concatenated")
    f.add_argument("--hidden", type=int, default=256)
    f.add_argument("--epochs", type=int, default=8)
    f.add_argument("--batch", type=int, default=64)
    f.add_argument("--lr", type=float, default=1e-3)
    f.add_argument("--dropout", type=float, default=0.5)
    f.add_argument("--weight-decay", type=float, default=0.0)
    f.add_argument("--holdout", type=float, default=0.05)
    f.add_argument("--seed", type=int, default=0)
    f.add_argument("--holdout-seed", type=int, default=None,
                   help="split the held-out products with this seed instead of --seed (ensemble members share them)")
    f.add_argument("--max-products", type=int, default=0, help="train on at most this many products (0: all)")
    f.add_argument("--threads", type=int, default=1,
                   help="torch threads; 1 (default) gives byte-identical files, 2 did not on an Intel (MKL) CPU")
    f.add_argument("--out", type=Path, default=DEFAULT_OUT)
    e = sub.add_parser("ensemble", help="average fitted scorers into one file (numpy only)")
    e.add_argument("--members", type=Path, nargs="+", required=True, help="scorers fitted on the same data and split")
    e.add_argument("--data", type=Path, nargs="*", default=None,
                   help="their collected data: report held-out candidate top-k of the members and the ensemble")
    e.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    return {"collect": collect, "fit": fit, "ensemble": ensemble}[args.cmd](args)


if __name__ == "__main__":
    raise SystemExit(main())

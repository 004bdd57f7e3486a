#!/usr/bin/env python
"""Train the single-step model's linear ranker on leave-one-out queries from the training reactions.

For a deterministic sample of training reactions kept in the packaged template library, the product is
given to the model with every training reaction of the same product left out of the neighbour search;
the candidate precursor sets and their features (``molx_agent.retro.ranker.FEATURES``) are collected and
the recorded reactants mark the right answer.  A conditional-logit model (softmax over one product's
candidates, L2-regularised) is fitted with full-batch Adam in numpy and written to
``molx_agent/data/retro_ranker.json``.  Only the training file is read (never validation or test).

``--query-source`` picks the queries: ``uspto50k`` (the library's USPTO-50K training reactions, as before),
``paroutes`` (the library's PaRoutes route reactions, ``scripts/paroutes_reactions.py`` library rule: route steps
of patents that contribute nothing to a reported benchmark) or ``both`` (``--queries`` from each).  A PaRoutes query
leaves out every library reaction of its own patent as well as of its product, as a benchmark target's patent is
absent from the library.

    nice -n 10 uv run python scripts/train_single_step_ranker.py [--queries 3000] [--seed 0] [--workers 2]
        [--query-source uspto50k|paroutes|both]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import logging
import multiprocessing as mp
import os
import pickle
import random
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from molx_agent.io_utils import atomic_write_json  # noqa: E402
from molx_agent.retro.ranker import DATA_DIR, FEATURES, RANKER_FILE, LinearRanker, read_ranker  # noqa: E402
from molx_agent.retro.reactant_counts import (  # noqa: E402
    REACTANT_COUNT_FEATURES,
    load_reactant_counts,
    reactant_count_features,
)
from molx_agent.retro.single_step import TemplateKNNModel, canonical_reactant_set  # noqa: E402
from molx_agent.retro.templates_db import load_template_library  # noqa: E402

DEFAULT_TRAIN = REPO.parent / "shared" / "data" / "uspto50k" / "train_mapped.csv.gz"
log = logging.getLogger("train_ranker")

_MODEL: TemplateKNNModel | None = None
_SAME_PRODUCT: dict[str, np.ndarray] = {}


_LEFT_OUT_REACTANTS: dict[str, Counter] = {}
_COUNT_COLS = [FEATURES.index(name) for name in REACTANT_COUNT_FEATURES]


def _init(same_product: dict[str, np.ndarray], n_neighbours: int,
          left_out_reactants: dict[str, Counter] | None = None) -> None:
    """``left_out_reactants``: with it the model reads the packaged reactant counts (``retro.reactant_counts``), minus,
    per exclusion key, the reactants of the reactions that key leaves out (a query's own reaction never counts)."""
    global _MODEL, _SAME_PRODUCT, _LEFT_OUT_REACTANTS
    # the model the ranker serves: kNN + named templates (the search's view), no learned policy
    counts = load_reactant_counts() if left_out_reactants is not None else None
    if left_out_reactants is not None and counts is None:
        raise SystemExit("no packaged reactant counts: run scripts/build_reactant_counts.py first")
    _MODEL = TemplateKNNModel(n_neighbours=n_neighbours, ranker=LinearRanker.default(), policy=None,
                              reactant_counts=counts)
    _SAME_PRODUCT = same_product
    _LEFT_OUT_REACTANTS = left_out_reactants or {}


def _collect(query: tuple[str, tuple[str, ...], str]) -> tuple[np.ndarray, int] | None:
    """Candidate features and the truth's row (-1: not a candidate) of one query (product, truth, exclusion key)."""
    product, truth, key = query
    assert _MODEL is not None
    try:
        _, _, cands, feats = _MODEL.candidates(product, exclude=_SAME_PRODUCT[key])
    except Exception:  # noqa: BLE001 - an unusable training product is skipped (counted by the caller)
        return None
    if _MODEL.reactant_counts is not None:  # the left-out reactions' reactants do not count
        left_out = _LEFT_OUT_REACTANTS.get(key, Counter())
        for row, cand in enumerate(cands):
            counts = tuple(max(n - left_out[s], 0) for s, n in zip(cand.reactants, cand.reactant_counts, strict=True))
            feats[row, _COUNT_COLS] = reactant_count_features(counts)
    label = next((i for i, c in enumerate(cands) if c.reactants == truth), -1)
    return feats.astype(np.float32), label


def run_queries(queries: list, fn: Any, init: Any, initargs: tuple, *, workers: int, every: int = 200,
                chunksize: int = 8) -> list:
    """``fn`` over every query, in order: in a fork pool of ``workers`` (at most 2) processes set up by ``init``, or
    in this process; progress logged every ``every`` queries."""
    t0 = time.time()
    out: list = []
    workers = max(1, min(2, workers))
    if workers > 1:
        ctx = mp.get_context("fork")
        with ctx.Pool(workers, initializer=init, initargs=initargs) as pool:
            for n, res in enumerate(pool.imap(fn, queries, chunksize=chunksize), 1):
                out.append(res)
                if n % every == 0:
                    log.info("%d/%d (%.0f s)", n, len(queries), time.time() - t0)
    else:
        init(*initargs)
        for n, q in enumerate(queries, 1):
            out.append(fn(q))
            if n % every == 0:
                log.info("%d/%d (%.0f s)", n, len(queries), time.time() - t0)
    return out


def fit_conditional_logit(
    groups: list[tuple[np.ndarray, int]], *, l2: float = 1e-3, steps: int = 600, lr: float = 0.05
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weights maximising sum log softmax(F_q w)[y_q]; features standardised internally."""
    feats = np.concatenate([g[0] for g in groups]).astype(np.float64)
    seg = np.concatenate([np.full(len(g[0]), i) for i, g in enumerate(groups)])
    label_rows = np.cumsum([0] + [len(g[0]) for g in groups[:-1]]) + np.array([g[1] for g in groups])
    mu = feats.mean(axis=0)
    sd = feats.std(axis=0)
    sd[sd < 1e-8] = 1.0
    x = (feats - mu) / sd
    n_groups = len(groups)
    w = np.zeros(x.shape[1])
    w[FEATURES.index("log_vote_s4")] = 1.0 * sd[FEATURES.index("log_vote_s4")]
    m = np.zeros_like(w)
    v = np.zeros_like(w)
    for step in range(1, steps + 1):
        z = x @ w
        zmax = np.full(n_groups, -np.inf)
        np.maximum.at(zmax, seg, z)
        e = np.exp(z - zmax[seg])
        denom = np.bincount(seg, weights=e, minlength=n_groups)
        p = e / denom[seg]
        grad = x.T @ p - x[label_rows].sum(axis=0)
        grad = grad / n_groups + l2 * w
        m = 0.9 * m + 0.1 * grad
        v = 0.999 * v + 0.001 * grad**2
        w -= lr * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return w / sd, mu, sd


def top_k_of(groups: list[tuple[np.ndarray, int]], w: np.ndarray, ks=(1, 3, 5, 10, 50)) -> dict[str, float]:
    hits = dict.fromkeys(ks, 0)
    for feats, label in groups:
        s = feats.astype(np.float64) @ w
        rank = 1 + int(np.sum(s > s[label])) if label >= 0 else None
        for k in ks:
            if rank is not None and rank <= k:
                hits[k] += 1
    return {f"top{k}": round(100 * hits[k] / max(len(groups), 1), 1) for k in ks}


def _queries(lib: Any, args: argparse.Namespace, kept: list[Any] | None = None,
             left_out_reactants: dict[str, Counter] | None = None
             ) -> tuple[list[tuple[str, tuple[str, ...], str]], dict]:
    """The leave-one-out queries (product, truth, exclusion key) and the library rows each key leaves out.

    ``left_out_reactants``: filled in, per key, with how many of the left-out reactions have each molecule among
    their reactants (canonical SMILES).

    ``kept``: the PaRoutes reactions the library learned from (``scripts/paroutes_reactions.training_reactions``,
    read from ``../shared`` when not given), indexed by the library's ``train_row`` of its PaRoutes rows."""
    sources = lib.sources
    # canonical product and recorded reactants of every library reaction, by source (0: USPTO-50K training file,
    # 1: kept PaRoutes list); the reactants are canonicalised for the picked queries only
    products: list[str | None] = [None] * len(sources)
    reactants: list[str] = [""] * len(sources)
    patents: list[str | None] = [None] * len(sources)
    with gzip.open(args.train, "rt", newline="") as fh:  # every row's product is needed for the exclusions
        rows = list(csv.DictReader(fh))
    for lib_i in np.flatnonzero(sources == 0).tolist():
        row = rows[int(lib.train_row[lib_i])]
        canon = canonical_reactant_set(row["product"])
        products[lib_i] = ".".join(canon) if canon else row["product"]
        reactants[lib_i] = row["reactants"]
    if (sources == 1).any():
        if kept is None:
            from scripts.paroutes_reactions import library_training_reactions

            kept, _ = library_training_reactions()
        for lib_i in np.flatnonzero(sources == 1).tolist():
            rec = kept[int(lib.train_row[lib_i])]
            canon = canonical_reactant_set(rec.product)
            products[lib_i] = ".".join(canon) if canon else rec.product
            reactants[lib_i] = rec.reactants
            patents[lib_i] = rec.patent
    by_product: dict[str, list[int]] = defaultdict(list)
    by_patent: dict[str, list[int]] = defaultdict(list)
    for lib_i, prod in enumerate(products):
        by_product[prod or ""].append(lib_i)
        if patents[lib_i]:
            by_patent[patents[lib_i]].append(lib_i)
    picked: list[int] = []
    for src, name in ((0, "uspto50k"), (1, "paroutes")):
        if args.query_source not in (name, "both"):
            continue
        pool = np.flatnonzero(sources == src).tolist()
        picked += sorted(random.Random(args.seed).sample(pool, min(args.queries, len(pool))))
    queries: list[tuple[str, tuple[str, ...], str]] = []
    exclude: dict[str, np.ndarray] = {}
    for lib_i in picked:
        prod = products[lib_i] or ""
        key = f"{prod}|{patents[lib_i] or ''}"
        if key not in exclude:
            rows_out = set(by_product[prod]) | set(by_patent.get(patents[lib_i] or "", ()))
            exclude[key] = np.asarray(sorted(rows_out), dtype=np.int64)
            if left_out_reactants is not None:  # each left-out reaction's molecules, once per reaction
                left_out_reactants[key] = Counter(s for row in sorted(rows_out)
                                                  for s in set(canonical_reactant_set(reactants[row]) or ()))
        # an unparsable truth stays a query (no candidate matches it: counted as missing, as before)
        queries.append((prod, canonical_reactant_set(reactants[lib_i]), key))  # type: ignore[arg-type]
    return queries, exclude


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", type=Path, default=DEFAULT_TRAIN)
    ap.add_argument("--queries", type=int, default=3000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-neighbours", type=int, default=300)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--query-source", choices=("uspto50k", "paroutes", "both"), default="uspto50k",
                    help="training queries: USPTO-50K training reactions, PaRoutes route reactions, or both")
    ap.add_argument("--reactant-counts", action="store_true",
                    help="the model reads the packaged reactant counts (retro.reactant_counts), each query's"
                         " left-out reactions subtracted")
    ap.add_argument("--cache", type=Path, default=None, help="reuse/store the collected features here")
    ap.add_argument("--out", type=Path, default=DATA_DIR / RANKER_FILE)
    ap.add_argument("--log", type=Path, default=None)
    args = ap.parse_args(argv)
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if args.log:
        handlers.append(logging.FileHandler(args.log))
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", handlers=handlers)
    try:
        os.nice(10)
    except OSError:
        pass
    t0 = time.time()
    if args.cache and args.cache.is_file():
        groups_all = pickle.loads(args.cache.read_bytes())
    else:
        lib = load_template_library()
        inputs = [args.train]
        if (lib.sources == 1).any():  # the library's PaRoutes rows: their reactions are read to leave them out
            from scripts.paroutes_reactions import LIBRARY_RULE_INPUTS

            inputs += LIBRARY_RULE_INPUTS
        missing = [str(p) for p in inputs if not Path(p).is_file()]
        if missing:
            log.error("missing input file(s): %s", ", ".join(missing))
            return 2
        left_out: dict[str, Counter] | None = {} if args.reactant_counts else None
        queries, same_product = _queries(lib, args, left_out_reactants=left_out)
        log.info("collecting candidates for %d leave-one-out training queries", len(queries))
        groups_all = run_queries(queries, _collect, _init, (same_product, args.n_neighbours, left_out),
                                 workers=args.workers)
        if args.cache:
            args.cache.write_bytes(pickle.dumps(groups_all))
    usable = [g for g in groups_all if g is not None and g[1] >= 0 and len(g[0]) > 1]
    n_failed = sum(g is None for g in groups_all)
    n_missing = sum(g is not None and g[1] < 0 for g in groups_all)
    log.info("queries: %d usable, %d truth not among candidates, %d failed", len(usable), n_missing, n_failed)
    half = len(usable) // 2
    w_half, _, _ = fit_conditional_logit(usable[:half])
    held_out = {"fallback": top_k_of(usable[half:], LinearRanker.default().weights),
                "trained_on_first_half": top_k_of(usable[half:], w_half)}
    shipped = DATA_DIR / RANKER_FILE
    if shipped.is_file():  # the ranker this run would replace, on the same held-out queries
        held_out["shipped"] = top_k_of(usable[half:], read_ranker(shipped).weights)
    log.info("held-out second half (only queries whose truth is a candidate): %s", held_out)
    w, _, _ = fit_conditional_logit(usable)
    ranker = LinearRanker(
        w, FEATURES, True,
        meta={
            "source": f"conditional logit on leave-one-out {args.query_source} training queries",
            "query_source": args.query_source,
            "n_queries": len(groups_all), "n_usable": len(usable), "n_truth_missing": n_missing,
            "n_failed": n_failed, "seed": args.seed, "n_neighbours": args.n_neighbours,
            "reactant_counts": args.reactant_counts,
            "held_out_topk_given_truth_in_candidates": held_out,
        },
    )
    atomic_write_json(args.out, ranker.to_dict())
    os.chmod(args.out, 0o644)
    log.info("wrote %s in %.0f s", args.out, time.time() - t0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

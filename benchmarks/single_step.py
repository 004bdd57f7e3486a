#!/usr/bin/env python
"""Single-step retrosynthesis benchmark on USPTO-50K (top-k exact match of canonical reactant sets).

Product (atom maps removed) in, ranked precursor sets out; a hit at rank k when the canonical set of
predicted reactants equals the canonical set of the recorded reactants (maps removed).  Reports
top-1/3/5/10/50 overall and per reaction class, the time per product (one process, one core) and how
often the rule-based class inference agrees with the labelled class.

    nice -n 10 uv run python benchmarks/single_step.py [--split test|val] [--sample N --seed S] [--json OUT]

``--n-neighbours`` overrides the model's neighbour count; tune on ``--split val``, report on
``--split test``.  ``--workers 2`` runs two processes (each product still timed in one process).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import logging
import multiprocessing as mp
import os
import random
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from molx_agent.io_utils import atomic_write_json  # noqa: E402
from molx_agent.retro.reaction_class import infer_reaction_class  # noqa: E402
from molx_agent.retro.single_step import TemplateKNNModel, canonical_reactant_set  # noqa: E402

DATA = REPO.parent / "shared" / "data" / "uspto50k"
SPLITS = {"test": DATA / "gln_split_test.csv.gz", "val": DATA / "gln_split_val.csv.gz"}
KS = (1, 3, 5, 10, 50)

log = logging.getLogger("single_step_benchmark")


def load_split(path: Path) -> list[dict]:
    with gzip.open(path, "rt", newline="") as fh:
        rows = list(csv.DictReader(fh))
    out = []
    for row in rows:
        rxn = row["reactants>reagents>production"]
        reactants, _, product = rxn.split(">")
        prod = canonical_reactant_set(product)
        truth = canonical_reactant_set(reactants)
        out.append({"id": row["id"], "class": int(row["class"]), "mapped": rxn,
                    "product": ".".join(prod) if prod else product, "truth": truth})
    return out


_MODEL: TemplateKNNModel | None = None


def _init_worker(n_neighbours: int | None, named: bool, policy_templates: int | None = None,
                 general_templates: int | None = None, general_mass: float | None = None,
                 general_screen: int | None = None) -> None:
    global _MODEL
    kwargs: dict = {"n_neighbours": n_neighbours} if n_neighbours else {}
    if policy_templates is not None:
        kwargs["policy_templates"] = policy_templates
    if general_templates is not None:
        kwargs["general_templates"] = general_templates
    if general_mass is not None:
        kwargs["general_mass"] = general_mass
    if general_screen is not None:
        kwargs["general_screen"] = general_screen
    _MODEL = TemplateKNNModel(named_templates=named, **kwargs)


def _evaluate(row: dict) -> dict:
    """Rank of the recorded reactants among the predictions, and the time taken (one process)."""
    assert _MODEL is not None
    start = time.perf_counter()
    cpu_start = time.process_time()
    error = None
    try:
        preds = _MODEL.predict(row["product"], top_k=max(KS))
    except Exception as exc:  # noqa: BLE001 - recorded, never dropped
        preds, error = [], f"{type(exc).__name__}: {exc}"
    ms = (time.perf_counter() - start) * 1000
    cpu_ms = (time.process_time() - cpu_start) * 1000
    rank = next((r for r, p in enumerate(preds, 1) if tuple(p.reactants) == row["truth"]), None)
    top1_class = preds[0].reaction_class if preds else None
    return {"id": row["id"], "class": row["class"], "rank": rank, "ms": ms, "cpu_ms": cpu_ms, "error": error,
            "top1_class": top1_class, "inferred_class": infer_reaction_class(row["mapped"])}


def run(args: argparse.Namespace) -> dict:
    rows = load_split(SPLITS[args.split])
    if args.sample and args.sample < len(rows):
        rows = random.Random(args.seed).sample(rows, args.sample)
    t0 = time.perf_counter()
    _init_worker(args.n_neighbours, not args.no_named, args.policy_templates, args.general_templates,
                 args.general_mass, args.general_screen)
    model = _MODEL
    assert model is not None
    lib = model.library
    load_s = time.perf_counter() - t0
    # warm-up on a few training-like molecules is deliberately not done: compile time is included
    results: list[dict] = []
    if args.workers > 1:
        ctx = mp.get_context("fork")
        with ctx.Pool(args.workers, initializer=_init_worker, initargs=(args.n_neighbours, not args.no_named,
                                                                        args.policy_templates,
                                                                        args.general_templates,
                                                                        args.general_mass,
                                                                        args.general_screen)) as pool:
            for res in pool.imap(_evaluate, rows, chunksize=4):
                results.append(res)
                _progress(results, len(rows))
    else:
        for row in rows:
            results.append(_evaluate(row))
            _progress(results, len(rows))

    hits = {k: 0 for k in KS}
    per_class: dict[int, dict[str, int]] = defaultdict(lambda: {"n": 0, **{f"top{k}": 0 for k in KS}})
    times_ms = [r["ms"] for r in results]
    class_known = sum(r["inferred_class"] is not None for r in results)
    class_agree = sum(r["inferred_class"] == r["class"] for r in results)
    hit1 = [r for r in results if r["rank"] == 1]
    top1_class_agree = sum(r["top1_class"] == r["class"] for r in hit1)
    n_errors = sum(r["error"] is not None for r in results)
    for r in results:
        pc = per_class[r["class"]]
        pc["n"] += 1
        for k in KS:
            if r["rank"] is not None and r["rank"] <= k:
                hits[k] += 1
                pc[f"top{k}"] += 1
    n = len(rows)
    result = {
        "split": args.split,
        "n": n,
        "sample": args.sample,
        "seed": args.seed,
        "model": {"name": model.name, "n_neighbours": model.n_neighbours, "named_templates": model._named is not None,
                  "policy": model.policy is not None, "policy_templates": model.policy_templates,
                  "general_policy": model.general_policy is not None,
                  "general_templates": model.general_templates if model.general_policy is not None else 0,
                  "general_mass": model.general_mass,
                  "general_screen": model.general_screen,
                  "ranker": "trained" if model.ranker.trained else "fallback kNN vote"},
        "workers": args.workers,
        "n_templates": len(lib.templates),
        "n_training_reactions": lib.n_train,
        "model_load_s": round(load_s, 2),
        "topk": {f"top{k}": round(100 * hits[k] / n, 1) for k in KS},
        "hits": {f"top{k}": hits[k] for k in KS},
        "per_class": {
            str(c): {"n": v["n"], **{f"top{k}": round(100 * v[f"top{k}"] / v["n"], 1) for k in KS}}
            for c, v in sorted(per_class.items())
        },
        "ms_per_product": {
            "median": round(statistics.median(times_ms), 1),
            "mean": round(statistics.fmean(times_ms), 1),
            "p90": round(sorted(times_ms)[int(0.9 * (n - 1))], 1),
            "max": round(max(times_ms), 1),
        },
        "cpu_ms_per_product": {
            "median": round(statistics.median(r["cpu_ms"] for r in results), 1),
            "mean": round(statistics.fmean(r["cpu_ms"] for r in results), 1),
        },
        "load_average_at_end": [round(x, 1) for x in os.getloadavg()],
        "prediction_errors": n_errors,
        "class_inference_agreement_on_mapped_test_reactions": round(100 * class_agree / max(class_known, 1), 1),
        "class_of_correct_top1_template_agrees": round(100 * top1_class_agree / max(len(hit1), 1), 1),
    }
    return result


def _progress(results: list[dict], total: int) -> None:
    i = len(results)
    if i % 100 == 0 or i == total:
        top1 = sum(r["rank"] == 1 for r in results) / i
        top10 = sum(r["rank"] is not None and r["rank"] <= 10 for r in results) / i
        log.info("%d/%d top1 %.3f top10 %.3f median %.0f ms", i, total, top1, top10,
                 statistics.median(r["ms"] for r in results))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=sorted(SPLITS), default="test")
    ap.add_argument("--sample", type=int, default=None, help="evaluate a random sample of N reactions")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n-neighbours", type=int, default=None)
    ap.add_argument("--workers", type=int, default=1,
                    help="processes (at most 2); each product is still timed on one core in one process")
    ap.add_argument("--no-named", action="store_true", help="do not annotate with named templates")
    ap.add_argument("--policy-templates", type=int, default=None,
                    help="apply at most this many of the learned policy's templates (default: the model's); "
                         "MOLX_SINGLE_STEP_POLICY=off runs the model without the policy")
    ap.add_argument("--general-templates", type=int, default=None,
                    help="apply at most this many of the general policy's general (radius-0) templates "
                         "(default: the model's; 0: none)")
    ap.add_argument("--general-mass", type=float, default=None,
                    help="stop the general policy's list once it holds this share of the probability "
                         "(default: the model's 0.999; 1: always --general-templates of them)")
    ap.add_argument("--general-screen", type=int, default=None,
                    help="screen this many of the general policy's most probable templates for a match and draw "
                         "its list from the matching ones (default: the model's 0, the raw list)")
    ap.add_argument("--json", type=Path, default=None, help="write the result as JSON here")
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    if not SPLITS[args.split].is_file():
        log.error("missing %s", SPLITS[args.split])
        return 2
    result = run(args)
    text = json.dumps(result, indent=2)
    sys.stdout.write(text + "\n")
    if args.json:
        atomic_write_json(args.json, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

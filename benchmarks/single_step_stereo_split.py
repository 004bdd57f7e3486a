"""Where a single-step prediction's time goes: products with and without stereo, fast path and rdchiral.

Every template application goes through ``retro.fast_rdchiral.run_template``: the stereo-free path when neither the
template nor the product has stereo, the stereo path (rdchiral's stereo handling without its no-op work) otherwise;
rdchiral's own ``rdchiralRun`` is counted too (no caller of the engine should reach it).  This script times
``TemplateKNNModel.predict(top_k=50)`` on a seeded sample of USPTO-50K products with a warm model (templates
compiled by a warm-up pass over other products of the split), counts each kind of application per product, and
reports the medians and means separately for products whose SMILES carries stereo (``@``, ``/``, ``\\``) and those
that do not.  One process, wall time (``time.perf_counter``); run it with nothing else on the machine.

Usage::

    uv run python benchmarks/single_step_stereo_split.py --split test --sample 300 --seed 11 --json /tmp/split.json
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))


def has_stereo(smiles: str) -> bool:
    """Whether a SMILES writes tetrahedral or double-bond stereo."""
    return any(ch in smiles for ch in "@/\\")


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Median/mean wall ms per product and mean applications (and their ms) of each kind: ``rdchiral`` (its own
    ``rdchiralRun``), ``stereo`` (the stereo path), ``fast`` (the stereo-free path)."""
    if not rows:
        return {"n": 0}
    return {
        "n": len(rows),
        "median_ms": round(statistics.median(r["ms"] for r in rows), 1),
        "mean_ms": round(statistics.fmean(r["ms"] for r in rows), 1),
        "rdchiral_calls": round(statistics.fmean(r["slow_calls"] for r in rows), 1),
        "rdchiral_ms": round(statistics.fmean(r["slow_ms"] for r in rows), 1),
        "stereo_calls": round(statistics.fmean(r["stereo_calls"] for r in rows), 1),
        "stereo_ms": round(statistics.fmean(r["stereo_ms"] for r in rows), 1),
        "fast_calls": round(statistics.fmean(r["fast_calls"] for r in rows), 1),
        "fast_ms": round(statistics.fmean(r["fast_ms"] for r in rows), 1),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="test", choices=("val", "test"))
    parser.add_argument("--sample", type=int, default=300, help="products timed (default 300)")
    parser.add_argument("--warmup", type=int, default=50, help="other products predicted first (default 50)")
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--json", type=Path, help="write the summary and per-product records here")
    args = parser.parse_args(argv)
    if args.sample <= 0 or args.warmup < 0:
        parser.error("--sample must be positive and --warmup non-negative")

    from rdchiral import main as rdchiral_main
    from single_step import SPLITS, load_split

    import molx_agent.retro.fast_rdchiral as fast_rdchiral
    from molx_agent.io_utils import atomic_write_json
    from molx_agent.retro.single_step import TemplateKNNModel

    counts = {"slow": [0, 0.0], "stereo": [0, 0.0], "fast": [0, 0.0]}

    def timed(kind: str, func: Any) -> Any:
        def wrapper(*a: Any, **k: Any) -> Any:
            start = time.perf_counter()
            try:
                return func(*a, **k)
            finally:
                counts[kind][0] += 1
                counts[kind][1] += time.perf_counter() - start
        return wrapper

    # run_template looks both up on their modules at call time
    rdchiral_main.rdchiralRun = timed("slow", rdchiral_main.rdchiralRun)
    fast_rdchiral._run_stereo_free = timed("fast", fast_rdchiral._run_stereo_free)
    fast_rdchiral._run_with_stereo = timed("stereo", fast_rdchiral._run_with_stereo)

    rows = load_split(SPLITS[args.split])
    random.Random(args.seed).shuffle(rows)
    warm, timed_rows = rows[args.sample: args.sample + args.warmup], rows[: args.sample]
    model = TemplateKNNModel()
    for row in warm:
        model.predict(row["product"], top_k=50)
    records = []
    for row in timed_rows:
        before = {k: list(v) for k, v in counts.items()}
        start = time.perf_counter()
        model.predict(row["product"], top_k=50)
        ms = (time.perf_counter() - start) * 1000
        records.append({
            "product": row["product"], "stereo": has_stereo(row["product"]), "ms": round(ms, 2),
            "slow_calls": counts["slow"][0] - before["slow"][0],
            "slow_ms": round((counts["slow"][1] - before["slow"][1]) * 1000, 2),
            "stereo_calls": counts["stereo"][0] - before["stereo"][0],
            "stereo_ms": round((counts["stereo"][1] - before["stereo"][1]) * 1000, 2),
            "fast_calls": counts["fast"][0] - before["fast"][0],
            "fast_ms": round((counts["fast"][1] - before["fast"][1]) * 1000, 2),
        })
    summary = {
        "split": args.split, "sample": args.sample, "seed": args.seed, "warmup": args.warmup,
        "all": summarise(records),
        "without_stereo": summarise([r for r in records if not r["stereo"]]),
        "with_stereo": summarise([r for r in records if r["stereo"]]),
    }
    print(json.dumps(summary, indent=2))
    if args.json:
        atomic_write_json(args.json, {"summary": summary, "records": records}, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

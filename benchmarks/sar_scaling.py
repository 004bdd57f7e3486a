"""Whole SAR pipeline time and memory vs set size (clean, series/cores, R-groups, MMPs, cliffs, report).

Runs ``run_sar_pipeline`` on random samples (seed 0) of the largest MoleculeACE file -- 500, 1,000, 2,000
compounds and all of it -- each in a fresh process, and reports wall time, CPU time (process + pool workers),
peak RSS of the main process and of the largest worker, and the per-step wall (CPU) times.

    uv run python benchmarks/sar_scaling.py [--file CSV] [--sizes 500,1000,2000,all] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
DATA = REPO.parent / "shared" / "data" / "sar" / "moleculeace"

STEPS = ("clean", "series", "rgroups", "mmp", "cliffs", "report")

CHILD = r"""
import json, os, resource, sys, time
from molx_agent.sar.pipeline import run_sar_pipeline
t0 = time.perf_counter(); c0 = os.times()
r = run_sar_pipeline(sys.argv[1], output_dir=sys.argv[2])
wall = time.perf_counter() - t0; c1 = os.times()
cpu = sum(getattr(c1, k) - getattr(c0, k) for k in ("user", "system", "children_user", "children_system"))
print(json.dumps({"wall_s": wall, "cpu_s": cpu, "n_clean": r.clean.n_clean, "n_series": len(r.series),
                  "n_cliff_pairs": len(r.cliffs.pairs), "n_mmp_pairs": len(r.mmp.pairs),
                  "rss_main_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "rss_worker_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
                  "report_mb": os.path.getsize(r.report_path) / 1e6, "steps": r.timings}))
"""


def largest_file() -> Path:
    return max(DATA.glob("*.csv"), key=lambda p: sum(1 for _ in p.open()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--file", type=Path, default=None)
    ap.add_argument("--sizes", default="500,1000,2000,all")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    src = args.file or largest_file()
    df = pd.read_csv(src)
    results = []
    print(f"source: {src.name} ({len(df)} compounds)")
    print("| compounds | wall s | CPU s | main RSS MB | worker RSS MB | series | cliff pairs | MMP pairs | report MB | "
          + " | ".join(f"{k} wall (CPU) s" for k in STEPS) + " |")
    print("|" + "---|" * 15)
    with tempfile.TemporaryDirectory() as tmp:
        for size in args.sizes.split(","):
            n = len(df) if size == "all" else min(int(size), len(df))
            sub = df if n == len(df) else df.sample(n=n, random_state=0)
            path = Path(tmp) / f"{src.stem}_{n}.csv"
            sub.to_csv(path, index=False)
            proc = subprocess.run([sys.executable, "-c", CHILD, str(path), str(Path(tmp) / f"out_{n}")],
                                  capture_output=True, text=True, cwd=REPO)
            if proc.returncode != 0:
                print(proc.stderr[-2000:], file=sys.stderr)
                return 1
            rec = json.loads(proc.stdout.strip().splitlines()[-1])
            rec["compounds"] = n
            results.append(rec)
            st = rec["steps"]
            print(f"| {n} | {rec['wall_s']:.1f} | {rec['cpu_s']:.1f} | {rec['rss_main_mb']:.0f} | "
                  f"{rec['rss_worker_mb']:.0f} | {rec['n_series']} | {rec['n_cliff_pairs']} | {rec['n_mmp_pairs']} | "
                  f"{rec['report_mb']:.1f} | " + " | ".join(
                      f"{st[k]:.1f} ({st.get(k + '_cpu', float('nan')):.1f})" for k in STEPS) + " |", flush=True)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

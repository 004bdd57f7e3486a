"""How far the task pipeline's rule defaults get on their own (``molx-agent retro plan --auto``).

For a seeded sample of RetroCast ``ref-lin-600`` targets, each target gets a fresh session and one
route run with ``use_default`` at every decision point (the rules an LLM agent falls back to), using
the default stock (packaged common reagents + ZINC in-stock Bloom filter).  Reported per target and in
aggregate: final route status (completed / failed / limit_reached), steps, tasks and decisions used,
starting materials found in a real stock vs. accepted on the SA estimate, and wall time.  Also the
whole-process latency of one ``molx-agent retro run`` call on a paused route (what an agent pays per
step).  This measures the pipeline's defaults, not route quality; ``benchmarks/multistep.py`` measures
the search engine.

Usage::

    nice -n 10 uv run python benchmarks/pipeline_auto.py --sample 20 --seed 0 --out /tmp/pipeline_auto.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
BENCH = REPO.parent / "shared" / "data" / "multistep" / "benchmarks" / "ref-lin-600.json.gz"


def sample_targets(n: int, seed: int) -> list[tuple[str, str]]:
    with gzip.open(BENCH, "rt", encoding="utf-8") as fh:
        targets = json.load(fh)["targets"]
    ids = sorted(targets)
    random.Random(seed).shuffle(ids)
    return [(i, targets[i]["smiles"]) for i in ids[:n]]


def run_one(target_id: str, smiles: str, workdir: Path) -> dict:
    from molx_agent.interfaces.pipeline.service import plan_session, run_route
    from molx_agent.interfaces.pipeline.session_store import SessionStore
    from molx_agent.retro.route import RetroGraph

    session = workdir / target_id
    start = time.perf_counter()
    try:
        plan_session(smiles, session)
        out = run_route(session, "route_1", auto=True)
    except Exception as exc:  # noqa: BLE001 - recorded per target
        return {
            "id": target_id,
            "smiles": smiles,
            "status": "error",
            "error": f"{type(exc).__name__}: {exc}",
            "time_s": time.perf_counter() - start,
        }
    elapsed = time.perf_counter() - start
    route = SessionStore(session).load_route("route_1")
    graph = RetroGraph.from_dict(route.graph)
    leaves = graph.leaves()
    return {
        "id": target_id,
        "smiles": smiles,
        "status": out["status"],
        "n_steps": graph.n_steps,
        "n_tasks": len(route.tasks),
        "n_decisions": len(route.decision_history),
        "n_leaves": len(leaves),
        "leaves_in_stock": sum(1 for n in leaves if n.availability.get("in_stock")),
        "leaves_sa_estimate": sum(
            1 for n in leaves if n.role == "terminal" and not n.availability.get("in_stock")
        ),
        "leaves_optional": sum(
            1 for n in leaves if (n.decision_context or {}).get("recursion_action") == "mark_optional"
        ),
        "leaves_unsolved": sum(1 for n in leaves if n.role != "terminal"),
        "time_s": round(elapsed, 2),
    }


def cli_latency(workdir: Path, smiles: str, repeats: int) -> list[float]:
    from molx_agent.interfaces.pipeline.service import plan_session, run_route

    session = workdir / "latency"
    plan_session(smiles, session)
    run_route(session, "route_1")  # paused at the first decision
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "molx_agent.cli.main", "retro", "run", "--session-dir", str(session)],
            check=True,
            capture_output=True,
        )
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--latency-repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    targets = sample_targets(args.sample, args.seed)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for i, (tid, smi) in enumerate(targets, 1):
            row = run_one(tid, smi, work)
            rows.append(row)
            print(
                f"[{i}/{len(targets)}] {tid} {row['status']} steps={row.get('n_steps')} {row['time_s']:.1f}s",
                file=sys.stderr,
            )
        latency = cli_latency(work, "CC(=O)Nc1ccc(O)cc1", args.latency_repeats)
    statuses: dict[str, int] = {}
    for r in rows:
        statuses[r["status"]] = statuses.get(r["status"], 0) + 1
    ok = [r for r in rows if "n_leaves" in r]
    n_leaves = sum(r["n_leaves"] for r in ok)
    summary = {
        "n_targets": len(rows),
        "seed": args.seed,
        "statuses": statuses,
        "mean_steps_completed": round(
            statistics.mean([r["n_steps"] for r in ok if r["status"] == "completed"]), 2
        )
        if any(r["status"] == "completed" for r in ok)
        else None,
        "leaves": n_leaves,
        "leaves_in_real_stock": sum(r["leaves_in_stock"] for r in ok),
        "leaves_sa_estimate": sum(r["leaves_sa_estimate"] for r in ok),
        "leaves_optional": sum(r["leaves_optional"] for r in ok),
        "leaves_unsolved": sum(r["leaves_unsolved"] for r in ok),
        "median_time_per_target_s": round(statistics.median(r["time_s"] for r in rows), 2),
        "max_time_per_target_s": round(max(r["time_s"] for r in rows), 2),
        "cli_retro_run_latency_s": {
            "median": round(statistics.median(latency), 2),
            "min": round(min(latency), 2),
        },
    }
    report = {"summary": summary, "targets": rows}
    if args.out:
        args.out.write_text(json.dumps(report, indent=2), encoding="utf-8")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()

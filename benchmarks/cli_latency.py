"""Whole-process wall time of ``molx-agent --help`` and of an offline ``run --query`` molecule question.

Goals (issue 2): ``--help`` <= 0.5 s; offline molecule question <= 4 s.  Each command runs ``--repeats``
times as a fresh process (the console script of the active environment); the median and the range are
printed, and ``--json`` prints them as JSON.

    uv run python benchmarks/cli_latency.py [--repeats 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

GOALS = {"help": 0.5, "run_molecule_query": 4.0}


def _console_script() -> list[str]:
    exe = shutil.which("molx-agent", path=str(Path(sys.executable).parent)) or shutil.which("molx-agent")
    return [exe] if exe else [sys.executable, "-m", "molx_agent.cli.main"]


def time_command(args: list[str], repeats: int, env: dict[str, str]) -> dict[str, float]:
    times, cpu = [], []
    for _ in range(repeats):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run(args, capture_output=True, text=True, env=env)
        times.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(args)} failed ({proc.returncode}): {proc.stderr[-500:]}")
    # cpu_s (user+sys of the process) is what the wall time approaches on an idle machine; on a shared,
    # loaded machine wall time is inflated by waiting for a core.
    return {"median_s": round(statistics.median(times), 3), "min_s": round(min(times), 3),
            "max_s": round(max(times), 3), "median_cpu_s": round(statistics.median(cpu), 3),
            "repeats": repeats}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    cli = _console_script()
    query = [*cli, "run", "--query", "What is the molecular weight and logP of aspirin?"]
    with tempfile.TemporaryDirectory() as tmp:
        base = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        base.update({"MOLX_LLM_PROVIDER": "rules", "MOLX_HOME": tmp, "MOLX_OUTPUT_DIR": tmp, "MCP_ENABLED": "false"})
        # Warm: bytecode cached (what a user sees after the first run); the cache goes to a temp prefix so the
        # environment is not modified.  Cold: no bytecode cache at all (PYTHONDONTWRITEBYTECODE=1, every import
        # compiles), the worst case.
        warm = {**base, "PYTHONPYCACHEPREFIX": str(Path(tmp) / "pycache")}
        subprocess.run(query, capture_output=True, env=warm)  # fills the bytecode cache and the OS file cache
        cold = {**base, "PYTHONDONTWRITEBYTECODE": "1"}
        results = {
            "help": time_command([*cli, "--help"], opts.repeats, warm),
            "run_molecule_query": time_command(query, opts.repeats, warm),
            "help_cold": time_command([*cli, "--help"], max(1, opts.repeats // 2), cold),
            "run_molecule_query_cold": time_command(query, max(1, opts.repeats // 2), cold),
        }
    for name, r in results.items():
        goal = GOALS.get(name.removesuffix("_cold"))
        r["goal_s"] = goal
        r["meets_goal"] = r["median_s"] <= goal
    meta = {"python": platform.python_version(), "machine": platform.machine(), "cpus": os.cpu_count()}
    if opts.json:
        print(json.dumps({"results": results, "meta": meta}, indent=2))
        return
    print(f"machine: {meta}")
    for name, r in results.items():
        print(f"{name:24s} wall median {r['median_s']:.3f} s (min {r['min_s']:.3f}, max {r['max_s']:.3f}), "
              f"cpu median {r['median_cpu_s']:.3f} s, n={r['repeats']}; goal <= {r['goal_s']} s wall: "
              f"{'OK' if r['meets_goal'] else 'MISSED'}")
    print(f"load average at the end: {os.getloadavg()}")


if __name__ == "__main__":
    main()

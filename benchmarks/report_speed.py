"""Time the shared route report on a 5-step route (losartan fixture) and a session export.

    uv run python benchmarks/report_speed.py [--repeat N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from molx_agent.retro.report import render_route_report  # noqa: E402
from tests.retro.report_fixtures import losartan_route  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    graph = losartan_route()
    with tempfile.TemporaryDirectory() as tmp:
        render_route_report(graph, Path(tmp) / "warm")  # imports, fonts
        times = []
        for i in range(args.repeat):
            t = time.perf_counter()
            render_route_report(graph, Path(tmp) / f"r{i}")
            times.append(time.perf_counter() - t)
    print(f"5-step route report (html+md+json+10 images): median {statistics.median(times):.3f} s, "
          f"max {max(times):.3f} s over {args.repeat} runs")


if __name__ == "__main__":
    main()

"""Is the single-step model's score a calibrated probability, for both sources of proposals?

On USPTO-50K validation products (never test: this informs choices), every prediction of the top 50 is a record
(score, source, correct = its precursors are the recorded ones).  Reported per source (``uspto50k_templates``,
``named_template``) and overall: a reliability table over log-spaced score bins (mean score vs observed frequency
of the recorded reaction), the expected calibration error (ECE, weighted by bin size) and the share of recorded
reactions the model scores under the search's plausibility floor (how often the floor would flag a real step).

"Correct" means "the recorded reaction", so observed frequencies are a lower bound on plausibility (another sound
route to the same product counts as wrong); the table is read for the relative scale of the two sources.

    nice uv run python benchmarks/step_calibration.py --sample 500 --seed 1 [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import random
import sys
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benchmarks.single_step import SPLITS, load_split  # noqa: E402
from molx_agent.retro.single_step import canonical_reactant_set  # noqa: E402

BINS = (0.0, 1e-4, 1e-3, 1e-2, 0.03, 0.1, 0.3, 0.6, 1.0001)


def _bin(score: float) -> int:
    for i in range(len(BINS) - 1):
        if BINS[i] <= score < BINS[i + 1]:
            return i
    return len(BINS) - 2


def reliability(records: list[tuple[float, str, bool]]) -> dict[str, object]:
    groups: dict[str, list[tuple[float, bool]]] = defaultdict(list)
    for score, source, ok in records:
        groups[source].append((score, ok))
        groups["all"].append((score, ok))
    out: dict[str, object] = {}
    for name, rows in sorted(groups.items()):
        bins: dict[int, list[tuple[float, bool]]] = defaultdict(list)
        for score, ok in rows:
            bins[_bin(score)].append((score, ok))
        table = []
        ece = 0.0
        for i in sorted(bins):
            members = bins[i]
            mean = sum(s for s, _ in members) / len(members)
            freq = sum(ok for _, ok in members) / len(members)
            ece += len(members) / len(rows) * abs(mean - freq)
            table.append({"bin": f"[{BINS[i]:g}, {min(BINS[i + 1], 1):g})", "n": len(members),
                          "mean_score": round(mean, 5), "observed": round(freq, 5)})
        out[name] = {"n": len(rows), "n_correct": sum(ok for _, ok in rows), "ece": round(ece, 4), "table": table}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sample", type=int, default=500)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--floor", type=float, default=None, help="plausibility floor (default: SearchConfig's)")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    logging.disable(logging.WARNING)
    from molx_agent.retro.search_types import SearchConfig
    from molx_agent.retro.single_step import load_single_step_model

    floor = args.floor if args.floor is not None else SearchConfig().plausibility_floor
    rows = load_split(SPLITS["val"])
    random.Random(args.seed).shuffle(rows)
    rows = rows[: args.sample]
    model = load_single_step_model()
    records: list[tuple[float, str, bool]] = []
    truth_scores: list[float] = []
    missed = 0
    for row in rows:
        preds = model.predict(row["product"], top_k=50)
        hit = None
        for p in preds:
            ok = canonical_reactant_set(".".join(p.reactants)) == row["truth"]
            records.append((float(p.score), str(p.source), ok))
            if ok and hit is None:
                hit = float(p.score)
        if hit is None:
            missed += 1
        else:
            truth_scores.append(hit)
    summary = {
        "n_products": len(rows), "n_predictions": len(records), "recorded_not_in_top50": missed,
        "plausibility_floor": floor,
        "recorded_reactions_under_floor": sum(s < floor for s in truth_scores),
        "recorded_reactions_under_floor_pct": round(100 * sum(s < floor for s in truth_scores) / len(truth_scores), 2)
        if truth_scores else None,
        "median_score_of_recorded": sorted(truth_scores)[len(truth_scores) // 2] if truth_scores else None,
        "reliability": reliability(records),
        "log_loss_of_recorded": round(-sum(math.log(max(s, 1e-9)) for s in truth_scores) / len(truth_scores), 4)
        if truth_scores else None,
    }
    print(json.dumps(summary, indent=1))
    if args.json:
        from molx_agent.io_utils import atomic_write_json

        atomic_write_json(args.json, summary)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

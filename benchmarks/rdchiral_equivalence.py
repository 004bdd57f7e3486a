"""Every template application of the single-step model, checked against rdchiral's own ``rdchiralRun``.

The reference is ``rdchiralRun`` with the sulfinyl copy of ``chem.sulfinyl_stereo`` installed (the one deliberate
difference: rdchiral alone leaves a sulfinyl sulfur's configuration unspecified, ``run_template`` keeps it).

``retro.fast_rdchiral.run_template`` replaces ``rdchiralRun`` on every template application (learned, general and
named templates) and claims the same outcomes and mapped SMILES.  This script runs
``TemplateKNNModel.predict(top_k=50)`` on a seeded sample of USPTO-50K products (optionally only those with
tetrahedral or double-bond stereo), runs ``rdchiralRun`` beside ``run_template`` on each application, and counts the
applications whose outcomes or mapped SMILES differ, and those where only one of the two raises.  Exit code 1 when
any differs.

Usage::

    uv run python benchmarks/rdchiral_equivalence.py --split test --sample 150 --seed 1 --stereo any
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

STEREO = {"any": "@/\\", "tetrahedral": "@", "double": "/\\"}


def wanted(smiles: str, stereo: str) -> bool:
    """Whether a product belongs to the sample: ``all`` takes every product, the others need that stereo."""
    return stereo == "all" or any(ch in smiles for ch in STEREO[stereo])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", default="test", choices=("val", "test"))
    parser.add_argument("--sample", type=int, default=150, help="products predicted (default 150)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stereo", default="any", choices=("any", "tetrahedral", "double", "all"),
                        help="which products: with any stereo (default), with tetrahedral or double-bond stereo, all")
    parser.add_argument("--json", type=Path, help="write the counts and the first differences here")
    args = parser.parse_args(argv)
    if args.sample <= 0:
        parser.error("--sample must be positive")

    import rdchiral.main as rdchiral_main
    from single_step import SPLITS, load_split

    import molx_agent.retro.fast_rdchiral as fast_rdchiral
    import molx_agent.retro.named_templates as named_templates
    import molx_agent.retro.single_step as single_step
    from molx_agent.chem.sulfinyl_stereo import sulfinyl_stereo_in_rdchiral
    from molx_agent.io_utils import atomic_write_json

    run_template = fast_rdchiral.run_template
    counts = {"applications": 0, "stereo_path": 0, "outcomes": 0, "different": 0, "raised_by_one": 0,
              "raised_by_both": 0}
    differences: list[dict[str, Any]] = []

    def both(rxn: Any, target: Any, *, combine_enantiomers: bool = True, return_mapped: bool = False) -> Any:
        counts["applications"] += 1
        counts["stereo_path"] += fast_rdchiral.uses_stereo_path(rxn, target)
        results: list[Any] = []
        for func in (rdchiral_main.rdchiralRun, run_template):
            try:
                with sulfinyl_stereo_in_rdchiral():
                    results.append(func(rxn, target, combine_enantiomers=combine_enantiomers, return_mapped=True))
            except Exception as exc:  # noqa: BLE001 - both must raise, or neither
                results.append(exc)
        expected, got = results
        if isinstance(expected, Exception) or isinstance(got, Exception):
            if isinstance(expected, Exception) and isinstance(got, Exception):
                counts["raised_by_both"] += 1
            else:
                counts["raised_by_one"] += 1
                differences.append({"template": rxn.reaction_smarts, "rdchiral": repr(expected), "ours": repr(got)})
            raise got if isinstance(got, Exception) else expected
        same = (expected == [] and got == []) or (
            expected != [] and got != [] and sorted(expected[0]) == sorted(got[0])
            and {k: v[0] for k, v in expected[1].items()} == {k: v[0] for k, v in got[1].items()})
        counts["outcomes"] += len(expected[0]) if expected else 0
        if not same:
            counts["different"] += 1
            differences.append({"template": rxn.reaction_smarts, "rdchiral": sorted(expected[0]) if expected else [],
                                "ours": sorted(got[0]) if got else []})
        if not got:
            return []
        return got if return_mapped else got[0]

    single_step.run_template = both
    named_templates.run_template = both
    rows = load_split(SPLITS[args.split])
    random.Random(args.seed).shuffle(rows)
    rows = [row for row in rows if wanted(row["product"], args.stereo)][: args.sample]
    model = single_step.TemplateKNNModel()
    start = time.perf_counter()
    for row in rows:
        model.predict(row["product"], top_k=50)
    summary = {"split": args.split, "sample": len(rows), "seed": args.seed, "stereo": args.stereo, **counts,
               "seconds": round(time.perf_counter() - start, 1)}
    print(json.dumps(summary, indent=2))
    if args.json:
        atomic_write_json(args.json, {"summary": summary, "differences": differences[:50]}, indent=1)
    return 1 if counts["different"] or counts["raised_by_one"] else 0


if __name__ == "__main__":
    raise SystemExit(main())

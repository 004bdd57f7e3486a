"""What some named templates cost the single-step model, paired: the default model against one without them.

Both models are built in one process with their named-template matchers built the same way (all templates, or all
but ``--exclude``); each USPTO-50K validation product (a seeded shuffle, ``--n`` of them) is predicted by both, in
alternating order, and the CPU time of each call is summed. ``--exclude`` empty compares two identical models: the
noise floor of the measurement. Prints and writes (``--json``) the medians, means and the ratio of summed times
(with / without), and how many products a left-out template applies to.

Usage::

    nice uv run python benchmarks/named_template_cost.py --exclude G374,G375 --n 400 --seed 12 --json OUT
    nice uv run python benchmarks/named_template_cost.py --exclude '' --n 400 --seed 12
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

VAL = REPO.parent / "shared" / "data" / "uspto50k" / "gln_split_val.csv.gz"


def val_products(n: int, seed: int) -> list[str]:
    from molx_agent.retro.single_step import canonical_reactant_set

    with gzip.open(VAL, "rt", newline="") as fh:
        rows = list(csv.DictReader(fh))
    random.Random(seed).shuffle(rows)
    out = []
    for row in rows[:n]:
        product = row["reactants>reagents>production"].split(">")[2]
        out.append(".".join(canonical_reactant_set(product) or (product,)))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--exclude", default="", help="comma-separated id prefixes of the templates to leave out")
    parser.add_argument("--n", type=int, default=400, help="validation products")
    parser.add_argument("--seed", type=int, default=12, help="seed of the product shuffle")
    parser.add_argument("--json", help="write the figures here")
    args = parser.parse_args()

    from molx_agent.chem.templates import apply_named_template, load_named_templates
    from molx_agent.retro.named_templates import NamedTemplateMatcher, _load_classes
    from molx_agent.retro.single_step import TemplateKNNModel

    prefixes = tuple(p for p in args.exclude.split(",") if p)
    templates = list(load_named_templates())
    left_out = [t.id for t in templates if prefixes and t.id.startswith(prefixes)]
    kept = [t for t in templates if t.id not in left_out]
    products = val_products(args.n, args.seed)
    classes = _load_classes()
    with_all, without = TemplateKNNModel(), TemplateKNNModel()
    with_all._named = NamedTemplateMatcher(templates, classes=classes)
    without._named = NamedTemplateMatcher(kept, classes=classes)
    times: dict[str, list[float]] = {"with": [], "without": []}
    for i, product in enumerate(products):
        order = (("with", with_all), ("without", without)) if i % 2 == 0 else (("without", without), ("with", with_all))
        for key, model in order:
            start = time.process_time()
            model.predict(product, top_k=50)
            times[key].append(time.process_time() - start)
    applies = sum(any(apply_named_template(tid, p) for tid in left_out) for p in products)
    result = {
        "excluded": left_out, "n": len(products), "seed": args.seed,
        "products_a_left_out_template_applies_to": applies,
        "median_ms": {k: round(1000 * statistics.median(v), 1) for k, v in times.items()},
        "mean_ms": {k: round(1000 * statistics.mean(v), 1) for k, v in times.items()},
        "ratio_of_sums": round(sum(times["with"]) / sum(times["without"]), 4),
    }
    text = json.dumps(result, indent=1)
    print(text)
    if args.json:
        tmp = Path(args.json).with_suffix(".tmp")
        tmp.write_text(text + "\n", encoding="utf-8")
        tmp.replace(args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

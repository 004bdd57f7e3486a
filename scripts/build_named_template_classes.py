#!/usr/bin/env python
"""Schneider reaction class of every named expert template, measured on USPTO-50K training products.

The single-step model needs the reaction class of a candidate that only a named template proposes (a
ranker feature).  Inferring it from each candidate's mapped reaction costs about a tenth of a
prediction, and per template the answer hardly varies (the majority class equals the per-candidate
inference for 99.6 % of named-only candidates on 300 validation products), so it is looked up instead.
This script applies the named templates (``molx_agent.chem.templates``) to training products, infers
the class of every outcome with ``molx_agent.retro.reaction_class.infer_reaction_class`` and keeps the
majority class per template (ties: the smaller class number).  Templates never seen keep being inferred
per candidate at run time.

Reads only ``uspto50k/train_mapped.csv.gz`` (its unmapped ``product`` column) and skips products in the
multi-step exclusion list; never the validation or test files.  The output is byte-for-byte reproducible
(first ``--limit`` rows after a seeded shuffle, sorted keys).

Usage:
    nice -n 10 uv run python scripts/build_named_template_classes.py [--limit 4000]   # about 4 minutes
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from rdchiral.initialization import rdchiralReactants  # noqa: E402
from rdkit import Chem, RDLogger  # noqa: E402

from molx_agent.io_utils import atomic_write_text  # noqa: E402
from molx_agent.retro.named_templates import NAMED_CLASSES_FILE, NamedTemplateMatcher  # noqa: E402
from molx_agent.retro.reaction_class import infer_reaction_class  # noqa: E402

SHARED = REPO.parent / "shared" / "data"
DEFAULT_TRAIN = SHARED / "uspto50k" / "train_mapped.csv.gz"
DEFAULT_EXCLUDE = SHARED / "multistep" / "exclude_product_inchikeys.txt.gz"
DEFAULT_OUT = REPO / "molx_agent" / "data" / NAMED_CLASSES_FILE


def _products(train: Path, exclude: Path, limit: int, seed: int) -> list[str]:
    with gzip.open(exclude, "rt") as fh:
        excluded = {line.strip() for line in fh if line.strip()}
    with gzip.open(train, "rt", newline="") as fh:
        rows = list(csv.DictReader(fh))
    random.Random(seed).shuffle(rows)
    out: list[str] = []
    for row in rows:
        mol = Chem.MolFromSmiles(row["product"])
        if mol is None:
            continue
        if Chem.MolToInchiKey(mol) in excluded:
            continue
        out.append(Chem.MolToSmiles(mol))
        if len(out) >= limit:
            break
    return out


def build(train: Path, exclude: Path, out: Path, limit: int, seed: int) -> dict[str, int]:
    RDLogger.DisableLog("rdApp.*")
    matcher = NamedTemplateMatcher.load(classes=False)
    if matcher is None:
        raise SystemExit("named templates unavailable")
    votes: dict[str, Counter[int]] = defaultdict(Counter)
    for product in _products(train, exclude, limit, seed):
        mapped_product = Chem.MolToSmiles(rdchiralReactants(product).reactants)
        for match, mapped in matcher.precursor_table(product).values():
            if mapped:
                cls = infer_reaction_class(f"{mapped}>>{mapped_product}")
                if cls is not None:
                    votes[match.id][cls] += 1
    classes = {tid: min(c for c, n in v.items() if n == max(v.values())) for tid, v in sorted(votes.items())}
    atomic_write_text(out, json.dumps({"source": f"USPTO-50K training products, first {limit} after shuffle seed {seed}",
                                       "classes": classes}, indent=1, sort_keys=True) + "\n")
    return classes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", type=Path, default=DEFAULT_TRAIN)
    ap.add_argument("--exclude", type=Path, default=DEFAULT_EXCLUDE)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    ap.add_argument("--limit", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    for path in (args.train, args.exclude):
        if not path.is_file():
            print(f"error: {path} not found", file=sys.stderr)
            return 2
    classes = build(args.train, args.exclude, args.out, args.limit, args.seed)
    print(f"{len(classes)} named templates classified -> {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

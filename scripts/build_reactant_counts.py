#!/usr/bin/env python
"""Build ``molx_agent/data/retro_reactant_counts.tsv.gz``: how often each molecule is a reactant in the template
library's reactions (issue 28, part 1: evidence for the single-step ranker).

Chemists use a small set of reagents and building blocks again and again (methyl iodide, Boc anhydride, mesyl
chloride, morpholine...). A candidate precursor set whose small partner is one of them is more likely to be the
recorded one than a set whose partner no one has used. The single-step ranker reads these counts
(``retro.reactant_counts``) as features of each candidate.

The reactions counted are exactly those the template library learns from (``scripts/build_templates.py
--paroutes``): the USPTO-50K training reactions whose product is not in the multi-step exclusion list, and the PaRoutes
route reactions kept by ``scripts/paroutes_reactions.py::training_reactions``. No USPTO-50K validation or test
reaction is read. A molecule is counted once per reaction (canonical SMILES as ``retro.single_step
.canonical_reactant_set`` writes them). The file is a gzip TSV ``count<TAB>smiles`` sorted by count then SMILES,
gzip mtime 0: a re-run gives identical bytes.

    nice -n 10 uv run python scripts/build_reactant_counts.py [--out FILE]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import logging
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from molx_agent.io_utils import atomic_write_bytes  # noqa: E402
from molx_agent.retro.reactant_counts import REACTANT_COUNTS_FILE  # noqa: E402
from molx_agent.retro.single_step import canonical_reactant_set  # noqa: E402
from molx_agent.retro.templates_db import DATA_DIR  # noqa: E402
from scripts.build_templates import DEFAULT_EXCLUDE, DEFAULT_TRAIN, library_rows, read_excluded  # noqa: E402

log = logging.getLogger("build_reactant_counts")


def count_reactants(reaction_reactants: list[str]) -> tuple[Counter, int]:
    """Per canonical molecule, the number of reactions (reactant SMILES strings) it is a reactant of; and the
    number of reaction strings that could not be read."""
    counts: Counter = Counter()
    bad = 0
    for reactants in reaction_reactants:
        canon = canonical_reactant_set(reactants)
        if not canon:
            bad += 1
            continue
        counts.update(set(canon))
    return counts, bad


def table_bytes(counts: Counter, meta_line: str) -> bytes:
    """The gzip TSV (a ``#`` metadata line, then ``count<TAB>smiles`` by falling count, then SMILES), mtime 0."""
    lines = [meta_line] + [f"{n}\t{smi}" for smi, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    return gzip.compress(("\n".join(lines) + "\n").encode(), compresslevel=9, mtime=0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--train", type=Path, default=DEFAULT_TRAIN)
    ap.add_argument("--exclude", type=Path, default=DEFAULT_EXCLUDE)
    ap.add_argument("--no-paroutes", action="store_true", help="count the USPTO-50K training reactions only")
    ap.add_argument("--out", type=Path, default=DATA_DIR / REACTANT_COUNTS_FILE)
    args = ap.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    from scripts.paroutes_reactions import LIBRARY_RULE_INPUTS, library_training_reactions

    inputs = [args.train, args.exclude]
    if not args.no_paroutes:
        inputs += LIBRARY_RULE_INPUTS
    missing = [str(p) for p in inputs if not p.is_file()]
    if missing:
        log.error("missing input file(s): %s", ", ".join(missing))
        return 2
    t0 = time.time()
    with gzip.open(args.train, "rt", newline="") as fh:
        rows = list(csv.DictReader(fh))
    kept = [row["reactants"] for row in library_rows(rows, read_excluded(args.exclude))[0].values()]
    log.info("USPTO-50K training reactions: %d read, %d kept (product not excluded)", len(rows), len(kept))
    n_uspto = len(kept)
    if not args.no_paroutes:
        extra, _ = library_training_reactions()
        kept += [rec.reactants for rec in extra]
        log.info("PaRoutes route reactions kept by the library rule: %d", len(extra))
    counts, bad = count_reactants(kept)
    meta = (f"# reactant counts: {len(kept) - bad} reactions ({n_uspto} USPTO-50K training, {len(kept) - n_uspto}"
            f" PaRoutes library-rule), {bad} unreadable, {len(counts)} molecules;"
            " built by scripts/build_reactant_counts.py")
    atomic_write_bytes(args.out, table_bytes(counts, meta))
    log.info("%s", meta[2:])
    log.info("wrote %s in %.0f s", args.out, time.time() - t0)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The single-step model's nearest-neighbour search: packed-row Tanimoto against posting lists.

For ``--n`` USPTO-50K test products (seeded shuffle), times ``templates_db.bulk_tanimoto`` (every packed library
row ANDed with the query) and ``TemplateLibrary.product_index.tanimoto`` (``BitIndex`` posting lists) on each
query in turn in one process (paired: machine load affects both alike), checks that the two similarity arrays are
identical, and reports the index's build time.

Usage::

    uv run python benchmarks/neighbour_search.py [--n 300] [--seed 1] [--json OUT]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import numpy as np  # noqa: E402

from molx_agent.io_utils import atomic_write_json  # noqa: E402
from molx_agent.retro.templates_db import bulk_tanimoto, fingerprint_bits, load_template_library, pack_bits  # noqa: E402

TEST = REPO.parent / "shared" / "data" / "uspto50k" / "gln_split_test.csv.gz"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if not TEST.is_file():
        print(f"USPTO-50K test file not found: {TEST}", file=sys.stderr)
        return 2
    if args.n < 1:
        print("--n must be at least 1", file=sys.stderr)
        return 2
    lib = load_template_library()
    t = time.perf_counter()
    index = lib.product_index
    build_s = time.perf_counter() - t
    with gzip.open(TEST, "rt", newline="") as fh:
        rows = list(csv.DictReader(fh))
    random.Random(args.seed).shuffle(rows)
    queries = [fingerprint_bits(r["reactants>reagents>production"].split(">")[-1]) for r in rows[: args.n]]
    dense_s = index_s = 0.0
    identical = 0
    for bits in queries:
        t = time.perf_counter()
        a = bulk_tanimoto(pack_bits(bits), lib.product_fps, lib.product_counts)
        dense_s += time.perf_counter() - t
        t = time.perf_counter()
        b = index.tanimoto(bits, lib.product_counts)
        index_s += time.perf_counter() - t
        identical += bool(np.array_equal(a, b))
    out = {"n_queries": len(queries), "seed": args.seed, "library_rows": lib.n_train,
           "index_build_s": round(build_s, 3), "complement_bits": int(index.complement.sum()),
           "bulk_tanimoto_ms": round(1000 * dense_s / len(queries), 2),
           "bit_index_ms": round(1000 * index_s / len(queries), 2), "identical": identical}
    print(json.dumps(out, indent=1))
    if args.json:
        atomic_write_json(args.json, out)
    return 0 if identical == len(queries) else 1


if __name__ == "__main__":
    raise SystemExit(main())

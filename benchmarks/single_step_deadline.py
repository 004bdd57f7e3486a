"""The single-step model's ``deadline``: identical predictions without one, bounded time with one.

Three measurements:

1. ``--dump OUT`` writes the predictions (top 50, every field) of ``--n`` USPTO-50K validation products
   (evenly spaced rows, deterministic); ``--compare A B`` says whether two dumps are identical.  Dump before and
   after a change to the model to show that predictions without a deadline are unchanged.
2. ``--deadline-check`` predicts the same products with a deadline far in the future and checks that the
   predictions equal those without one (the deadline code path alone changes nothing).
3. ``--peptides`` times one prediction on growing peptides with ``deadline = now + --budget`` seconds and
   reports how far past the deadline each call returned (with ``MOLX_MAX_RETRO_HEAVY_ATOMS`` raised so the
   size limit does not refuse them first).

Usage::

    nice -n 19 uv run python benchmarks/single_step_deadline.py --dump /tmp/before.json --n 50
    nice -n 19 uv run python benchmarks/single_step_deadline.py --dump /tmp/after.json --n 50
    uv run python benchmarks/single_step_deadline.py --compare /tmp/before.json /tmp/after.json
    nice -n 19 uv run python benchmarks/single_step_deadline.py --deadline-check --n 50
    MOLX_MAX_RETRO_HEAVY_ATOMS=5000 nice -n 19 uv run python benchmarks/single_step_deadline.py --peptides --budget 2
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

VAL = REPO.parent / "shared" / "data" / "uspto50k" / "gln_split_val.csv.gz"
RESIDUES = ("N[C@@H](Cc1ccccc1)C(=O)", "N[C@@H](CO)C(=O)", "N[C@@H](CCCCN)C(=O)", "N[C@@H](CC(=O)O)C(=O)",
            "N[C@@H](C)C(=O)")


def peptide(n: int) -> str:
    """A linear peptide of ``n`` residues (Phe, Ser, Lys, Asp, Ala repeated), free acid."""
    return "".join(RESIDUES[i % len(RESIDUES)] for i in range(n)) + "O"


def val_products(n: int) -> list[str]:
    from molx_agent.retro.single_step import canonical_reactant_set

    with gzip.open(VAL, "rt", newline="") as fh:
        rows = list(csv.DictReader(fh))
    step = max(1, len(rows) // n)
    out = []
    for row in rows[::step][:n]:
        product = row["reactants>reagents>production"].split(">")[2]
        out.append(".".join(canonical_reactant_set(product) or (product,)))
    return out


def dump(path: str, n: int) -> None:
    from molx_agent.retro.single_step import TemplateKNNModel

    model = TemplateKNNModel()
    data = {}
    start = time.perf_counter()
    for smi in val_products(n):
        data[smi] = [p.to_dict() for p in model.predict(smi, top_k=50)]
    Path(path).write_text(json.dumps(data, sort_keys=True, indent=1), encoding="utf-8")
    print(f"{len(data)} products, {sum(map(len, data.values()))} predictions, {time.perf_counter() - start:.1f} s "
          f"-> {path}")


def compare(a: str, b: str) -> int:
    da, db = (json.loads(Path(p).read_text(encoding="utf-8")) for p in (a, b))
    differ = [k for k in da if da[k] != db.get(k)] + [k for k in db if k not in da]
    print(f"{len(da)} vs {len(db)} products; {len(differ)} differ" + (f": {differ[:5]}" if differ else " (identical)"))
    return 1 if differ else 0


def deadline_check(n: int) -> int:
    from molx_agent.retro.single_step import TemplateKNNModel

    model = TemplateKNNModel()
    differ = 0
    for smi in val_products(n):
        plain = [p.to_dict() for p in model.predict(smi, top_k=50)]
        far = model.predict(smi, top_k=50, deadline=time.perf_counter() + 3600)
        differ += plain != [p.to_dict() for p in far] or far.cut_short
    print(f"{n} products: {differ} differ with a far deadline")
    return 1 if differ else 0


def peptides(budget: float, sizes: list[int]) -> None:
    from rdkit import Chem

    from molx_agent.retro.single_step import TemplateKNNModel

    model = TemplateKNNModel()
    model.predict("CC(=O)Nc1ccc(O)cc1")  # warm up (compiled templates)
    print(f"{'residues':>8} {'heavy atoms':>11} {'time (s)':>9} {'past deadline (s)':>17} {'cut short':>9} {'n':>4}")
    for k in sizes:
        smi = peptide(k)
        heavy = Chem.MolFromSmiles(smi).GetNumHeavyAtoms()
        start = time.perf_counter()
        preds = model.predict(smi, top_k=50, deadline=start + budget)
        took = time.perf_counter() - start
        print(f"{k:>8} {heavy:>11} {took:>9.2f} {max(0.0, took - budget):>17.2f} {preds.cut_short!s:>9} {len(preds):>4}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dump", help="write the predictions of --n validation products to this JSON file")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two dumps")
    ap.add_argument("--deadline-check", action="store_true", help="far deadline == no deadline on --n products")
    ap.add_argument("--peptides", action="store_true", help="time peptides with a deadline of --budget s")
    ap.add_argument("--n", type=int, default=50)
    ap.add_argument("--budget", type=float, default=2.0)
    ap.add_argument("--sizes", default="5,10,20,40,80,300", help="peptide lengths (residues)")
    args = ap.parse_args()
    if args.compare:
        return compare(*args.compare)
    if args.dump:
        dump(args.dump, args.n)
    if args.deadline_check:
        return deadline_check(args.n)
    if args.peptides:
        peptides(args.budget, [int(x) for x in args.sizes.split(",")])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""CS-score calibration check (issue 3, part 4; seed 001 "CS Score 分级").

Prints the CS score of the seed's reference molecules and the distribution over 800 random USPTO-50K
test products (seeded sample, atom maps removed): median and the shares of trivial (<= 2.5), moderate
and complex (> 6.0) molecules.  Seed targets: atorvastatin ~ 4.6, cholesterol ~ 6.2, morphine ~ 6.8,
taxol ~ 8.2; median 4.21; 5.0% / 91.6% / 3.4%.

Usage::

    nice -n 10 uv run python benchmarks/cs_score_calibration.py [--n 800] [--seed 0]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import random
import statistics
import sys
from pathlib import Path
from typing import Any

from rdkit import Chem

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data"

REFERENCES = {
    "atorvastatin": ("CC(C)c1c(C(=O)Nc2ccccc2)c(-c2ccccc2)c(-c2ccc(F)cc2)n1CC[C@@H](O)C[C@@H](O)CC(=O)O", 4.6),
    "cholesterol": ("C[C@H](CCCC(C)C)[C@H]1CC[C@@H]2[C@@]1(CC[C@H]3[C@H]2CC=C4[C@@]3(CC[C@@H](C4)O)C)C", 6.2),
    "morphine": ("CN1CC[C@]23[C@@H]4[C@H]1CC5=C2C(=C(C=C5)O)O[C@H]3[C@H](C=C4)O", 6.8),
    "taxol": (
        "CC1=C2[C@@]([C@]([C@H]([C@@H]3[C@]4([C@H](OC4)C[C@@H]([C@]3(C(=O)[C@@H]2OC(=O)C)C)O)OC(=O)C)"
        "OC(=O)c5ccccc5)(C[C@@H]1OC(=O)[C@H](O)[C@@H](NC(=O)c6ccccc6)c7ccccc7)O)(C)C",
        8.2,
    ),
}


def run(data_dir: Path, n: int = 800, seed: int = 0) -> dict[str, Any]:
    from molx_agent.chem import compute_cs_score

    refs = {name: {"cs_score": compute_cs_score(smi)["cs_score"], "seed": target}
            for name, (smi, target) in REFERENCES.items()}
    with gzip.open(data_dir / "uspto50k" / "gln_split_test.csv.gz", "rt") as fh:
        rows = list(csv.reader(fh))[1:]
    sample = random.Random(seed).sample(rows, n)
    scores = []
    for row in sample:
        mol = Chem.MolFromSmiles(row[2].split(">")[-1])
        for atom in mol.GetAtoms():
            atom.SetAtomMapNum(0)
        scores.append(compute_cs_score(Chem.MolFromSmiles(Chem.MolToSmiles(mol)))["cs_score"])
    return {
        "references": refs,
        "n_products": n,
        "median": round(statistics.median(scores), 2),
        "trivial_share": round(sum(s <= 2.5 for s in scores) / n, 4),
        "moderate_share": round(sum(2.5 < s <= 6.0 for s in scores) / n, 4),
        "complex_share": round(sum(s > 6.0 for s in scores) / n, 4),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data-dir", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--n", type=int, default=800)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    res = run(args.data_dir, args.n, args.seed)
    for name, r in res["references"].items():
        sys.stdout.write(f"{name}: {r['cs_score']} (seed {r['seed']})\n")
    sys.stdout.write(
        f"{res['n_products']} USPTO-50K test products: median {res['median']}, trivial {100 * res['trivial_share']:.1f}%, "
        f"moderate {100 * res['moderate_share']:.1f}%, complex {100 * res['complex_share']:.1f}%\n"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

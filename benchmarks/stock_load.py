"""Stock file load benchmark: time and memory to load a one-million-entry stock file.

Builds (once, cached under ``--cache-dir``) two gzipped stock files with ``--n`` distinct entries:
- ``smiles``: RDKit-canonical SMILES of two-component mixtures ``A.B`` of distinct USPTO-50K training
  reactants (real, canonical, drug-like strings of realistic length);
- ``inchikey``: syntactically valid random InChIKeys
  (only the set load is measured, so key validity does not matter).
Each file is then loaded by :class:`molx_agent.retro.stock.FileStock` in a fresh subprocess that reports the
load time, the resident memory before/after loading (VmRSS) and the peak, and the mean time of distinct,
uncached lookups (each query canonicalised by RDKit; for the InChIKey file each query's InChIKey computed).

Usage: ``nice -n 10 uv run python benchmarks/stock_load.py [--n 1000000]``
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import string
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TRAIN = REPO.parent / "shared" / "data" / "uspto50k" / "train_unmapped.csv.gz"


def build_smiles_file(path: Path, n: int, seed: int = 0) -> None:
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    mols: set[str] = set()
    with gzip.open(TRAIN, "rt") as fh:
        for row in csv.DictReader(fh):
            mols.update(row["reactants"].split("."))
    pool = sorted(mols)
    rng = random.Random(seed)
    seen: set[str] = set()
    with gzip.open(path, "wt") as out:
        out.write("smiles\n")
        while len(seen) < n:
            a, b = rng.sample(pool, 2)
            mol = Chem.MolFromSmiles(f"{a}.{b}")
            if mol is None:
                continue
            smi = Chem.MolToSmiles(mol)
            if smi not in seen:
                seen.add(smi)
                out.write(smi + "\n")


def build_inchikey_file(path: Path, n: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    up = string.ascii_uppercase
    seen: set[str] = set()
    with gzip.open(path, "wt") as out:
        while len(seen) < n:
            key = "".join(rng.choices(up, k=14)) + "-" + "".join(rng.choices(up, k=8)) + "SA-N"
            if key not in seen:
                seen.add(key)
                out.write(key + "\n")


CHILD = r"""
import gzip, json, resource, sys, time


def vm_rss_mb():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


from molx_agent.retro.stock import FileStock, canonical_smiles
canonical_smiles("CCO")  # import RDKit before the baseline
path = sys.argv[1]
rss0 = vm_rss_mb()
t0 = time.perf_counter()
st = FileStock(path)
load_s = time.perf_counter() - t0
rss1 = vm_rss_mb()
with gzip.open(sys.argv[2], "rt") as fh:  # real drug-like query molecules: the SMILES stock's first lines
    members = [line.split()[0] for _, line in zip(range(1001), fh)][1:]
queries = members + [q + "C" for q in members]  # members (for the SMILES stock) and non-members, all distinct
t0 = time.perf_counter()
hits = sum(q in st for q in queries)
lookup_us = (time.perf_counter() - t0) / len(queries) * 1e6
print(json.dumps({"file": path, "entries": len(st), "canonicalized": st.canonicalized, "load_s": round(load_s, 2),
                  "rss_before_mb": round(rss0, 1), "rss_after_mb": round(rss1, 1),
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                  "n_queries": len(queries), "hits": hits, "lookup_us": round(lookup_us, 1)}))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1_000_000)
    ap.add_argument("--cache-dir", type=Path, default=Path("/tmp/molx_stock_bench"))
    args = ap.parse_args(argv)
    args.cache_dir.mkdir(parents=True, exist_ok=True)
    files = {"smiles": args.cache_dir / f"smiles_{args.n}.smi.gz", "inchikey": args.cache_dir / f"inchikey_{args.n}.txt.gz"}
    for kind, path in files.items():
        if not path.exists():
            t0 = time.perf_counter()
            tmp = path.with_suffix(".part")
            (build_smiles_file if kind == "smiles" else build_inchikey_file)(tmp, args.n)
            tmp.rename(path)
            print(f"built {path} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    for kind, path in files.items():
        proc = subprocess.run([sys.executable, "-c", CHILD, str(path), str(files["smiles"])],
                              capture_output=True, text=True, check=True)
        print(json.dumps({"kind": kind, **json.loads(proc.stdout)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Speed of build_atom_bond_map on drug-like molecules (MoleculeACE ChEMBL SMILES), one core.

    uv run python benchmarks/atom_bond_map_speed.py [--n 2000]

Reports milliseconds per molecule for the template-site scan alone and for the whole map
(scan + smart-capping rules + labels + scores). Molecules are parsed before timing.
"""

from __future__ import annotations

import argparse
import csv
import statistics
import sys
import time
from pathlib import Path

from rdkit import Chem, rdBase

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from molx_agent.chem.atom_bond_map import build_atom_bond_map  # noqa: E402
from molx_agent.chem.template_scan import bond_template_index  # noqa: E402

DEFAULT_DIR = REPO.parent / "shared" / "data" / "sar" / "moleculeace"


def load_smiles(folder: Path, n: int) -> list[str]:
    out: list[str] = []
    for path in sorted(folder.glob("*.csv")):
        with path.open() as fh:
            for row in csv.DictReader(fh):
                out.append(row["smiles"])
                if len(out) >= n:
                    return out
    return out


def time_per_mol(fn, mols, repeats: int = 3) -> tuple[float, float]:
    """Best-of-``repeats`` (wall ms, CPU ms) per molecule; CPU time is robust on a shared machine."""
    wall, cpu = [], []
    for _ in range(repeats):
        t0, c0 = time.perf_counter(), time.process_time()
        for m in mols:
            fn(m)
        wall.append((time.perf_counter() - t0) / len(mols) * 1000)
        cpu.append((time.process_time() - c0) / len(mols) * 1000)
    return min(wall), min(cpu)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--n", type=int, default=2000)
    args = parser.parse_args(argv)
    rdBase.DisableLog("rdApp.*")
    mols = [m for m in (Chem.MolFromSmiles(s) for s in load_smiles(args.dir, args.n)) if m is not None]
    build_atom_bond_map(mols[0])  # compile templates once
    heavy = statistics.median(m.GetNumHeavyAtoms() for m in mols)
    scan_wall, scan_cpu = time_per_mol(bond_template_index, mols)
    full_wall, full_cpu = time_per_mol(build_atom_bond_map, mols)
    print(f"molecules: {len(mols)} (median {heavy:.0f} heavy atoms); best of 3 runs")
    print(f"template-site scan: {scan_wall:.2f} ms/molecule wall, {scan_cpu:.2f} ms CPU")
    print(f"build_atom_bond_map: {full_wall:.2f} ms/molecule wall, {full_cpu:.2f} ms CPU "
          f"({1000 / full_cpu:.0f} molecules/s of CPU)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

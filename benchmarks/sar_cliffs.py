"""Activity cliffs vs MoleculeACE's ``cliff_mol`` labels on every MoleculeACE file.

For each ``../shared/data/sar/moleculeace/*.csv``: the file goes through the product's own path (read_table ->
clean_table with ChEMBL standardisation, duplicates merged -> find_activity_cliffs on the cleaned compounds,
Levenshtein on the SMILES as given, potencies from ``exp_mean [nM]``); every input row is flagged when its
compound appears in at least one of our cliff pairs, and the flags are compared with ``cliff_mol``.

    uv run python benchmarks/sar_cliffs.py [--data DIR] [--json OUT] [--raw]

``--raw`` skips standardisation (RDKit molecules straight from the SMILES column), as a control.
Prints a Markdown table: rows, our / MoleculeACE cliff molecules, agreement, precision, recall, seconds.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "sar" / "moleculeace"


def flags_product_path(path: Path) -> tuple[np.ndarray, int]:
    from rdkit import Chem

    from molx_agent.sar.clean import clean_table
    from molx_agent.sar.cliffs import find_activity_cliffs
    from molx_agent.sar.io import read_table

    table = read_table(path)
    clean = clean_table(table, smiles_col="smiles", activity_col="exp_mean [nM]", units="nM")
    comp = clean.compounds
    mols = [Chem.MolFromSmiles(s) for s in comp["smiles"]]
    res = find_activity_cliffs(mols, comp["input_smiles"].tolist(), comp["p_activity"].astype(float).to_numpy(),
                               exact=(comp["qualifier"] == "").tolist())
    flags = np.zeros(table.n_rows, dtype=int)
    for k in np.flatnonzero(res.cliff_mol):
        flags[comp["rows"].iloc[k]] = 1
    return flags, clean.n_clean


def flags_raw(path: Path) -> tuple[np.ndarray, int]:
    from rdkit import Chem

    from molx_agent.sar.cliffs import find_activity_cliffs

    df = pd.read_csv(path)
    p = 9 - np.log10(df["exp_mean [nM]"].to_numpy())
    res = find_activity_cliffs([Chem.MolFromSmiles(s) for s in df["smiles"]], list(df["smiles"]), p)
    return res.cliff_mol.astype(int), len(df)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--json", type=Path, default=None)
    ap.add_argument("--raw", action="store_true", help="no standardisation (control)")
    args = ap.parse_args(argv)
    files = sorted(args.data.glob("*.csv"))
    if not files:
        print(f"no MoleculeACE files in {args.data}", file=sys.stderr)
        return 2
    rows = []
    print("| file | rows | compounds | our cliff mols | MoleculeACE cliff mols | agreement | precision | recall | s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for f in files:
        truth = pd.read_csv(f)["cliff_mol"].to_numpy().astype(int)
        t = time.perf_counter()
        ours, n_clean = (flags_raw if args.raw else flags_product_path)(f)
        dt = time.perf_counter() - t
        tp = int(((ours == 1) & (truth == 1)).sum())
        rec = {"file": f.name, "rows": len(truth), "compounds": n_clean, "ours": int(ours.sum()),
               "moleculeace": int(truth.sum()), "agreement": float((ours == truth).mean()),
               "precision": tp / max(int(ours.sum()), 1), "recall": tp / max(int(truth.sum()), 1), "seconds": dt}
        rows.append(rec)
        print(f"| {f.name} | {rec['rows']} | {n_clean} | {rec['ours']} | {rec['moleculeace']} | "
              f"{rec['agreement']:.4f} | {rec['precision']:.3f} | {rec['recall']:.3f} | {dt:.1f} |", flush=True)
    worst = min(r["agreement"] for r in rows)
    total = sum(r["rows"] for r in rows)
    pooled = sum(r["agreement"] * r["rows"] for r in rows) / total
    print(f"\n{len(rows)} files, {total} rows: worst agreement {worst:.4f}, pooled {pooled:.4f}")
    if args.json:
        args.json.write_text(json.dumps({"files": rows, "worst": worst, "pooled": pooled}, indent=2))
    return 0 if worst >= 0.99 else 1


if __name__ == "__main__":
    sys.exit(main())

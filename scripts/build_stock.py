"""Build the packaged common-reagents stock ``molx_agent/data/common_reagents.smi``.

Rule (documented in the file header it writes):
- read the USPTO-50K *training* reactions (``uspto50k/train_unmapped.csv.gz``; never val/test);
- count, per canonical reactant SMILES (RDKit, isomeric), the number of distinct training reactions
  using it as a reactant;
- keep molecules used in at least ``--min-count`` reactions (default 5) that are never the product of a
  training reaction;
- add the reagents of the packaged names table (``molx_agent/data/names.json``, entries whose
  ``category``/``type`` says reagent/solvent/building block) when that table exists.

Output lines: ``<canonical SMILES>\t<count>\t<origin>``; lines starting with ``#`` are comments.
Re-running the script reproduces the same file (sorted by count, then SMILES).

Usage: ``uv run python scripts/build_stock.py [--data ../shared/data] [--min-count 5]``
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import sys
from collections import Counter
from pathlib import Path

from rdkit import Chem, RDLogger

from molx_agent.io_utils import atomic_write_text

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "molx_agent" / "data" / "common_reagents.smi"
NAMES = REPO / "molx_agent" / "data" / "names.json"
REAGENT_WORDS = ("reagent", "solvent", "building", "acid", "base", "catalyst", "ligand", "starting")


def canonical(smiles: str) -> str | None:
    mol = Chem.MolFromSmiles(smiles)
    return Chem.MolToSmiles(mol) if mol is not None else None


def names_reagents() -> list[tuple[str, str]]:
    """(canonical SMILES, name) of reagent-like entries in the packaged names table, if present."""
    if not NAMES.is_file():
        return []
    data = json.loads(NAMES.read_text(encoding="utf-8"))
    entries = data.get("entries", data) if isinstance(data, dict) else data
    out: list[tuple[str, str]] = []
    items = entries.items() if isinstance(entries, dict) else ((e.get("name", ""), e) for e in entries)
    for name, entry in items:
        if isinstance(entry, str):
            continue  # a bare name -> SMILES map carries no category: drugs and reagents are mixed
        kind = " ".join(str(entry.get(k, "")) for k in ("category", "type", "kind", "class")).lower()
        if not any(w in kind for w in REAGENT_WORDS):
            continue
        smi = canonical(entry.get("smiles", ""))
        if smi:
            out.append((smi, str(name)))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--min-count", type=int, default=5)
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    RDLogger.DisableLog("rdApp.*")

    train = args.data / "uspto50k" / "train_unmapped.csv.gz"
    used: Counter[str] = Counter()
    produced: set[str] = set()
    cache: dict[str, str | None] = {}
    n_rows = 0
    with gzip.open(train, "rt", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            n_rows += 1
            prod = cache.setdefault(row["product"], canonical(row["product"]))
            if prod:
                produced.add(prod)
            seen: set[str] = set()
            for frag in row["reactants"].split("."):
                smi = cache[frag] if frag in cache else cache.setdefault(frag, canonical(frag))
                if smi:
                    seen.add(smi)
            used.update(seen)
    kept = sorted(
        ((s, c) for s, c in used.items() if c >= args.min_count and s not in produced),
        key=lambda t: (-t[1], t[0]),
    )
    lines = [
        "# molx-agent common-reagents stock (built by scripts/build_stock.py; do not edit by hand)",
        f"# source: USPTO-50K training reactions ({n_rows} rows); rule: reactant in >= {args.min_count}"
        " reactions and never a product",
        "# columns: canonical_smiles<TAB>n_reactions<TAB>origin",
    ]
    kept_set = {s for s, _ in kept}
    lines += [f"{s}\t{c}\tuspto50k_train" for s, c in kept]
    extra = sorted({(s, n) for s, n in names_reagents() if s not in kept_set and s not in produced})
    seen_extra: set[str] = set()
    for s, n in extra:
        if s in seen_extra:
            continue
        seen_extra.add(s)
        lines.append(f"{s}\t0\tnames:{n}")
    atomic_write_text(args.out, "\n".join(lines) + "\n")
    sys.stderr.write(f"wrote {args.out}: {len(kept)} training reagents + {len(seen_extra)} from names\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Build the packaged stocks ``molx_agent/data/common_reagents.smi`` and ``molx_agent/data/building_blocks.smi.gz``.

Common reagents (rule written in the file header):
- read the USPTO-50K *training* reactions (``uspto50k/train_unmapped.csv.gz``; never val/test);
- count, per canonical reactant SMILES (RDKit, isomeric), the number of distinct training reactions
  using it as a reactant;
- keep molecules used in at least ``--min-count`` reactions (default 5) that are never the product of a
  training reaction;
- add the reagents of the packaged names table (``molx_agent/data/names.json``, entries whose
  ``category``/``type``/``kind`` says reagent/solvent/building block) that are not a training product;
- from both, leave out every molecule whose standard InChIKey is a benchmark target or intermediate
  (``multistep/exclude_product_inchikeys.txt.gz``), as the building blocks do: the default stock never sells a
  molecule a benchmark route has to make.
Output lines: ``<canonical SMILES>\\t<count>\\t<origin>``; lines starting with ``#`` are comments.

Building blocks (the ``verified`` stock; rule written in the file header):
- every reactant of the USPTO-50K *training* reactions (the training file records no separate reagents;
  each ``.``-separated reactant fragment counts, so a salt's ions count separately), with the number of
  distinct training reactions using it;
- minus every molecule that is the product of any USPTO-50K reaction (train, val or test), compared by
  canonical SMILES and by standard InChIKey (a tautomer of a product is a product);
- plus the entries of ``names.json`` whose ``kind`` is ``reagent`` (hand-curated solvents, reagents, commodity
  building blocks such as anisoles, amino acids, glucose), kept even when a USPTO reaction makes them (they are
  commodity chemicals); the ``drug`` entries are never added (a drug is a target, not a building block);
- minus every molecule whose standard InChIKey is in ``multistep/exclude_product_inchikeys.txt.gz`` (benchmark
  targets and intermediates).  Benchmark reference-route leaves and benchmark stocks are never read;
- USPTO entries only when building-block-like: at most 20 heavy atoms, or at most 25 when two or more training
  reactions use them (a large reactant of a single patent reaction is more likely a late intermediate made in-house,
  such as an N-desmethyl drug, than a catalogue compound).
Output: gzipped text, ``<canonical SMILES>\\t<count>`` per line, sorted by SMILES, ``#`` header lines with the
provenance and the counts; entries are exactly :func:`molx_agent.retro.stock.canonical_smiles`, so
``FileStock(path, canonicalize=False)`` loads the file as it is.  Gzip header without name or time (mtime 0):
re-running the script writes the same bytes.

Usage: ``uv run python scripts/build_stock.py [--data ../shared/data] [--min-count 5] [--check]``
(``--check`` rebuilds both files in memory and exits 1 when either differs from the file on disk).
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

from molx_agent.io_utils import atomic_write_bytes
from molx_agent.retro.stock import canonical_smiles, inchikey

REPO = Path(__file__).resolve().parents[1]
OUT = REPO / "molx_agent" / "data" / "common_reagents.smi"
BB_OUT = REPO / "molx_agent" / "data" / "building_blocks.smi.gz"
NAMES = REPO / "molx_agent" / "data" / "names.json"
REAGENT_WORDS = ("reagent", "solvent", "building", "acid", "base", "catalyst", "ligand", "starting")
TRAIN = Path("uspto50k") / "train_unmapped.csv.gz"
HELD_OUT = (Path("uspto50k") / "gln_split_val.csv.gz", Path("uspto50k") / "gln_split_test.csv.gz")
EXCLUDE = Path("multistep") / "exclude_product_inchikeys.txt.gz"


def canonical(smiles: str) -> str | None:
    return canonical_smiles(smiles)


def _name_entries(names: Path) -> list[tuple[str, dict]]:
    if not names.is_file():
        return []
    data = json.loads(names.read_text(encoding="utf-8"))
    entries = data.get("entries", data) if isinstance(data, dict) else data
    items = entries.items() if isinstance(entries, dict) else ((e.get("name", ""), e) for e in entries)
    return [(str(name), entry) for name, entry in items if isinstance(entry, dict)]


def names_reagents(names: Path = NAMES) -> list[tuple[str, str]]:
    """(canonical SMILES, name) of reagent-like entries in the packaged names table, if present."""
    out: list[tuple[str, str]] = []
    for name, entry in _name_entries(names):
        kind = " ".join(str(entry.get(k, "")) for k in ("category", "type", "kind", "class")).lower()
        if not any(w in kind for w in REAGENT_WORDS):
            continue
        smi = canonical(entry.get("smiles", ""))
        if smi:
            out.append((smi, name))
    return out


def names_building_blocks(names: Path = NAMES) -> list[tuple[str, str]]:
    """(canonical SMILES, name) of the names-table entries whose ``kind`` is ``reagent`` (drugs are left out)."""
    out = []
    for name, entry in _name_entries(names):
        if str(entry.get("kind", "")).lower() == "reagent":
            smi = canonical(entry.get("smiles", ""))
            if smi:
                out.append((smi, name))
    return out


# -- reading the reactions --------------------------------------------------------------------------------------
class Training:
    """What the training reactions say: row count, reactant use counts, products (a plain class: the tests load
    this script by path, where dataclasses cannot resolve their annotations)."""

    def __init__(self) -> None:
        self.n_rows = 0
        self.used: Counter[str] = Counter()  # canonical reactant -> distinct training reactions using it
        self.produced: set[str] = set()  # canonical training products


def read_training(train: Path) -> Training:
    out = Training()
    cache: dict[str, str | None] = {}

    def can(smi: str) -> str | None:
        if smi not in cache:
            cache[smi] = canonical(smi)
        return cache[smi]

    with gzip.open(train, "rt", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            out.n_rows += 1
            prod = can(row["product"])
            if prod:
                out.produced.add(prod)
            out.used.update({s for s in map(can, row["reactants"].split(".")) if s})
    return out


def _unmapped(smiles: str) -> str | None:
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return None
    for atom in mol.GetAtoms():
        atom.SetAtomMapNum(0)
    return canonical(Chem.MolToSmiles(mol))


def read_held_out_products(paths: list[Path]) -> tuple[int, set[str]]:
    """(number of reactions, canonical products) of the atom-mapped val/test files (``reactants>reagents>product``)."""
    n, products = 0, set()
    for path in paths:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                n += 1
                for frag in row["reactants>reagents>production"].split(">")[-1].split("."):
                    prod = _unmapped(frag)
                    if prod:
                        products.add(prod)
    return n, products


def read_exclusions(path: Path) -> set[str]:
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        return {line.strip() for line in fh if line.strip() and not line.startswith("#")}


# -- the two stocks ------------------------------------------------------------------------------------------------
def common_reagents_text(training: Training, min_count: int, names: Path = NAMES,
                         excluded_keys: set[str] | frozenset[str] = frozenset()) -> tuple[str, int, int]:
    """(file text, n from training, n from names) of ``common_reagents.smi``.  A molecule whose standard InChIKey is
    in ``excluded_keys`` (a benchmark target or intermediate) is left out, whether the training reactions or the
    names table bring it, as from the building blocks."""
    kept = sorted(
        ((s, c) for s, c in training.used.items()
         if c >= min_count and s not in training.produced and inchikey(s) not in excluded_keys),
        key=lambda t: (-t[1], t[0]),
    )
    lines = [
        "# molx-agent common-reagents stock (built by scripts/build_stock.py; do not edit by hand)",
        f"# source: USPTO-50K training reactions ({training.n_rows} rows); rule: reactant in >= {min_count}"
        " reactions and never a product;"
        " no benchmark target or intermediate (multistep/exclude_product_inchikeys.txt.gz)",
        "# columns: canonical_smiles<TAB>n_reactions<TAB>origin",
    ]
    kept_set = {s for s, _ in kept}
    lines += [f"{s}\t{c}\tuspto50k_train" for s, c in kept]
    extra = sorted({(s, n) for s, n in names_reagents(names) if s not in kept_set and s not in training.produced
                    and inchikey(s) not in excluded_keys})
    seen_extra: set[str] = set()
    for s, n in extra:
        if s in seen_extra:
            continue
        seen_extra.add(s)
        lines.append(f"{s}\t0\tnames:{n}")
    return "\n".join(lines) + "\n", len(kept), len(seen_extra)


#: Rule 3 of the building-block stock (see :func:`building_blocks`).
BB_MAX_ATOMS = 20
BB_MAX_ATOMS_SHARED = 25
BB_MIN_SHARED_COUNT = 2


def heavy_atoms(smiles: str) -> int:
    mol = Chem.MolFromSmiles(smiles)
    return mol.GetNumHeavyAtoms() if mol is not None else 0


def building_blocks(training: Training, held_out_products: set[str], n_held_out: int, excluded_keys: set[str],
                    names: Path = NAMES) -> tuple[bytes, dict[str, int]]:
    """(gzipped file bytes, counts) of ``building_blocks.smi.gz`` (see the module docstring for the rule)."""
    products = training.produced | held_out_products
    product_keys = {k for k in map(inchikey, sorted(products)) if k}
    stats: dict[str, int] = {"uspto_reactants": len(training.used)}
    never_product: dict[str, int] = {}
    by_key = 0
    for smi, count in training.used.items():
        if smi in products:
            continue
        if inchikey(smi) in product_keys:
            by_key += 1
            continue
        never_product[smi] = count
    stats["product_by_smiles"] = sum(1 for s in training.used if s in products)
    stats["product_by_inchikey_only"] = by_key
    stats["never_product"] = len(never_product)
    entries = {s: c for s, c in never_product.items() if inchikey(s) not in excluded_keys}
    stats["excluded_benchmark"] = len(never_product) - len(entries)
    # rule 3: building-block-like: small (<= BB_MAX_ATOMS heavy atoms), or up to BB_MAX_ATOMS_SHARED heavy atoms when
    # at least BB_MIN_SHARED_COUNT training reactions use it; a large reactant of one patent reaction is more likely a
    # late intermediate made in-house (norclozapine) than a catalogue compound
    sized = {s: c for s, c in entries.items()
             if (n := heavy_atoms(s)) <= BB_MAX_ATOMS or (n <= BB_MAX_ATOMS_SHARED and c >= BB_MIN_SHARED_COUNT)}
    stats["not_building_block_like"] = len(entries) - len(sized)
    entries = sized
    stats["uspto_kept"] = len(entries)
    name_smiles = sorted({s for s, _ in names_building_blocks(names)})
    stats["names_reagents"] = len(name_smiles)
    added = already = excluded_names = made = 0
    for smi in name_smiles:
        if smi in entries:
            already += 1
            continue
        if inchikey(smi) in excluded_keys:
            excluded_names += 1
            continue
        if smi in products or inchikey(smi) in product_keys:
            made += 1  # a commodity chemical some patent also makes: kept (see the module docstring)
        entries[smi] = training.used.get(smi, 0)
        added += 1
    stats.update(names_already_in=already, names_added=added, names_excluded_benchmark=excluded_names,
                 names_added_but_uspto_product=made, total=len(entries))
    lines = [
        "# molx-agent building-block stock: exact (verified) entries; built by scripts/build_stock.py, do not edit by hand",
        f"# source 1: reactants of the {training.n_rows} USPTO-50K training reactions (train_unmapped.csv.gz; never"
        " val/test), each '.'-separated fragment; the data record no separate reagents",
        f"# rule 1: never the product of a USPTO-50K reaction (train, val or test: {training.n_rows + n_held_out}"
        " reactions; canonical SMILES or standard InChIKey)",
        "# source 2: names.json entries of kind 'reagent' (drugs are never added), kept even when a reaction makes them",
        "# rule 2: no molecule whose standard InChIKey is in multistep/exclude_product_inchikeys.txt.gz (benchmark"
        " targets and intermediates); no benchmark route leaf or benchmark stock is read",
        f"# rule 3: USPTO entries of at most {BB_MAX_ATOMS} heavy atoms, or at most {BB_MAX_ATOMS_SHARED} when at least"
        f" {BB_MIN_SHARED_COUNT} training reactions use them (larger single-use reactants are likely late intermediates)",
        f"# counts: {stats['uspto_reactants']} USPTO training reactants, {stats['never_product']} never a product,"
        f" {stats['excluded_benchmark']} excluded by benchmark InChIKeys, {stats['not_building_block_like']} not"
        f" building-block-like, {stats['names_added']} added from names.json, {stats['total']} entries",
        "# columns: canonical_smiles<TAB>n_reactions (distinct training reactions using it as a reactant; 0: names only)",
    ]
    lines += [f"{s}\t{entries[s]}" for s in sorted(entries)]
    text = "\n".join(lines) + "\n"
    return gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0), stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    ap.add_argument("--min-count", type=int, default=5)
    ap.add_argument("--out", type=Path, default=OUT, help="common-reagents file")
    ap.add_argument("--bb-out", type=Path, default=BB_OUT, help="building-block file (.smi.gz)")
    ap.add_argument("--names", type=Path, default=NAMES, help="names table (names.json)")
    ap.add_argument("--check", action="store_true",
                    help="rebuild in memory and exit 1 when a file on disk differs (nothing is written)")
    args = ap.parse_args(argv)
    RDLogger.DisableLog("rdApp.*")

    training = read_training(args.data / TRAIN)
    excluded = read_exclusions(args.data / EXCLUDE)
    common_text, n_kept, n_names = common_reagents_text(training, args.min_count, args.names, excluded)
    n_held_out, held_out = read_held_out_products([args.data / p for p in HELD_OUT])
    bb_bytes, stats = building_blocks(training, held_out, n_held_out, excluded, args.names)
    outputs = ((args.out, common_text.encode("utf-8")), (args.bb_out, bb_bytes))
    if args.check:
        stale = [str(path) for path, data in outputs if not path.is_file() or path.read_bytes() != data]
        sys.stderr.write(("differs: " + ", ".join(stale) if stale else "both stock files are up to date") + "\n")
        return 1 if stale else 0
    for path, data in outputs:
        atomic_write_bytes(path, data)
    sys.stderr.write(f"wrote {args.out}: {n_kept} training reagents + {n_names} from names\n")
    sys.stderr.write(f"wrote {args.bb_out} ({len(bb_bytes):,} bytes): {json.dumps(stats)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

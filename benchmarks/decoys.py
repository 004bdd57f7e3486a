"""Decoy benchmark: are invented molecules ever bought?

Invents ``--n`` molecules (default 500) by deterministic random edits of drug-like molecules -- the SMILES of
``sar/moleculeace/*.csv`` (shared data) and the ``drug`` entries of the packaged ``names.json`` -- and asks the
engine about each one as the default search would:

- ``tier``: ``RetroEngine().availability([smi])[0]["tier"]`` (verified / probable / estimated / unavailable);
- ``bloom``: does the ZINC in-stock Bloom filter alone have it (``ZincStock(max_heavy_atoms=None)``, no size cap);
- ``accepted``: ``RetroEngine().judge_leaf(smi)["accept"]`` (the default search configuration's leaf policy);
- ``in_building_blocks``: is it an entry of the packaged ``data/building_blocks.smi.gz`` (exact stock).

Edits (1-3 per decoy, seeded RNG): an aromatic CH becomes N or an aromatic N becomes CH; a methyl, F, Cl, Br, OH or
OMe is added on an atom with a hydrogen; a terminal methyl/halogen/OH/NH2 is removed; a halogen is swapped; an
aliphatic ring CH2 becomes O or NH (or a ring O/NH becomes CH2); a CH2 is inserted into an acyclic single bond.
A decoy is RDKit-sanitised, canonical, unique, never equal to a source molecule (any moleculeace SMILES or any
names.json entry) and has ``--min-atoms``..``--max-atoms`` heavy atoms; its size is drawn uniformly from that range
first and a source of about that size edited, so every size band is populated.

Goals (issue 24): none ``verified``; every Bloom-filter hit ``probable``; at most 2 % accepted as leaves.

Usage::

    nice -n 10 uv run python benchmarks/decoys.py --out /tmp/decoys.json
    nice -n 10 uv run python benchmarks/decoys.py --n 2000 --min-atoms 18 --max-atoms 25 --bloom-only

``--stock SPEC`` asks an engine with that stock (``load_stock`` spec) instead of the default one.  Prints a JSON
summary; ``--out FILE`` writes the summary and the per-decoy records.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from molx_agent.retro.stock import ZINC_MAX_HEAVY_ATOMS  # noqa: E402

DATA = REPO.parent / "shared" / "data"
NAMES = REPO / "molx_agent" / "data" / "names.json"
BANDS = ((15, 18), (19, 22), (23, 26), (27, 30))
HALOGENS = (9, 17, 35)


# -- sources ---------------------------------------------------------------------------------------------------
def load_sources(data: Path = DATA, names: Path = NAMES) -> tuple[list[tuple[str, str]], set[str]]:
    """(drug-like sources as (canonical SMILES, origin), every canonical source molecule to avoid).

    Sources: every moleculeace SMILES and the names-table drugs; the set to avoid also holds the names-table reagents.
    """
    from molx_agent.retro.stock import canonical_smiles

    sources: dict[str, str] = {}
    for path in sorted((data / "sar" / "moleculeace").glob("*.csv")):
        with open(path, encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                can = canonical_smiles(row.get("smiles") or "")
                if can and "." not in can:
                    sources.setdefault(can, path.stem)
    avoid = set(sources)
    if names.is_file():
        for entry in json.loads(names.read_text(encoding="utf-8")).get("entries", []):
            can = canonical_smiles(entry.get("smiles") or "")
            if not can:
                continue
            avoid.add(can)
            if entry.get("kind") == "drug" and "." not in can:
                sources.setdefault(can, "names:" + entry.get("name", ""))
    return sorted(sources.items()), avoid


# -- edits -------------------------------------------------------------------------------------------------------
def _take_h(atom: Any) -> bool:
    """Remove one hydrogen from ``atom`` for a new bond (False when it has none)."""
    if atom.GetTotalNumHs() < 1:
        return False
    if atom.GetNumExplicitHs() > 0:
        atom.SetNumExplicitHs(atom.GetNumExplicitHs() - 1)
    return True


def _with_h(rw: Any, rng: random.Random, pred: Callable[[Any], bool]) -> Any:
    atoms = [a for a in rw.GetAtoms() if pred(a)]
    return rng.choice(atoms) if atoms else None


def edit_aromatic_ch_to_n(rw: Any, rng: random.Random) -> str | None:
    atom = _with_h(rw, rng, lambda a: a.GetIsAromatic() and a.GetAtomicNum() == 6 and a.GetTotalNumHs() == 1
                   and a.GetDegree() == 2 and a.GetFormalCharge() == 0)
    if atom is None:
        return None
    atom.SetAtomicNum(7)
    atom.SetNumExplicitHs(0)
    atom.SetNoImplicit(False)
    return "aromatic CH -> N"


def edit_aromatic_n_to_ch(rw: Any, rng: random.Random) -> str | None:
    atom = _with_h(rw, rng, lambda a: a.GetIsAromatic() and a.GetAtomicNum() == 7 and a.GetTotalNumHs() == 0
                   and a.GetDegree() == 2 and a.GetFormalCharge() == 0)
    if atom is None:
        return None
    atom.SetAtomicNum(6)
    atom.SetNumExplicitHs(1)
    atom.SetNoImplicit(False)
    return "aromatic N -> CH"


_SUBSTITUENTS = (("methyl", (6,)), ("F", (9,)), ("Cl", (17,)), ("Br", (35,)), ("OH", (8,)), ("OMe", (8, 6)))


def edit_add_substituent(rw: Any, rng: random.Random) -> str | None:
    from rdkit import Chem

    label, chain = rng.choice(_SUBSTITUENTS)
    if label == "methyl":
        pred = lambda a: a.GetAtomicNum() in (6, 7) and a.GetTotalNumHs() >= 1 and a.GetFormalCharge() == 0  # noqa: E731
    else:
        pred = lambda a: a.GetIsAromatic() and a.GetAtomicNum() == 6 and a.GetTotalNumHs() >= 1  # noqa: E731
    atom = _with_h(rw, rng, pred)
    if atom is None or not _take_h(atom):
        return None
    prev = atom.GetIdx()
    for z in chain:
        new = rw.AddAtom(Chem.Atom(z))
        rw.AddBond(prev, new, Chem.BondType.SINGLE)
        prev = new
    return f"add {label}"


def edit_remove_terminal(rw: Any, rng: random.Random) -> str | None:
    from rdkit import Chem

    def terminal(a: Any) -> bool:
        if a.GetDegree() != 1 or a.GetFormalCharge() != 0 or a.GetAtomicNum() not in (6, 7, 8, 9, 17, 35, 53):
            return False
        bond = a.GetBonds()[0]
        return bond.GetBondType() == Chem.BondType.SINGLE and a.GetNeighbors()[0].GetFormalCharge() == 0

    atom = _with_h(rw, rng, terminal)
    if atom is None:
        return None
    neighbour = atom.GetNeighbors()[0]
    if neighbour.GetNoImplicit() or neighbour.GetIsAromatic() and neighbour.GetAtomicNum() == 7:
        neighbour.SetNumExplicitHs(neighbour.GetNumExplicitHs() + 1)
    symbol = atom.GetSymbol()
    rw.RemoveAtom(atom.GetIdx())
    return f"remove terminal {symbol}"


def edit_swap_halogen(rw: Any, rng: random.Random) -> str | None:
    atom = _with_h(rw, rng, lambda a: a.GetAtomicNum() in HALOGENS)
    if atom is None:
        return None
    old = atom.GetSymbol()
    atom.SetAtomicNum(rng.choice([z for z in HALOGENS if z != atom.GetAtomicNum()]))
    return f"swap {old} -> {atom.GetSymbol()}"


def edit_ring_atom(rw: Any, rng: random.Random) -> str | None:
    from rdkit import Chem

    def ring_site(a: Any) -> bool:
        return (a.IsInRing() and not a.GetIsAromatic() and a.GetDegree() == 2 and a.GetFormalCharge() == 0
                and all(b.GetBondTypeAsDouble() == 1.0 for b in a.GetBonds())
                and (a.GetAtomicNum() == 6 and a.GetTotalNumHs() == 2 or a.GetAtomicNum() in (7, 8)))

    atom = _with_h(rw, rng, ring_site)
    if atom is None:
        return None
    old = atom.GetSymbol()
    new = rng.choice((7, 8)) if atom.GetAtomicNum() == 6 else 6
    atom.SetAtomicNum(new)
    atom.SetNumExplicitHs(0)
    atom.SetNoImplicit(False)
    atom.SetChiralTag(Chem.ChiralType.CHI_UNSPECIFIED)
    return f"ring {old} -> {atom.GetSymbol()}"


def edit_extend_chain(rw: Any, rng: random.Random) -> str | None:
    from rdkit import Chem

    bonds = [b for b in rw.GetBonds() if not b.IsInRing() and b.GetBondType() == Chem.BondType.SINGLE
             and 6 in (b.GetBeginAtom().GetAtomicNum(), b.GetEndAtom().GetAtomicNum())
             and b.GetBeginAtom().GetAtomicNum() not in HALOGENS and b.GetEndAtom().GetAtomicNum() not in HALOGENS]
    if not bonds:
        return None
    bond = rng.choice(bonds)
    a, b = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
    rw.RemoveBond(a, b)
    new = rw.AddAtom(Chem.Atom(6))
    rw.AddBond(a, new, Chem.BondType.SINGLE)
    rw.AddBond(new, b, Chem.BondType.SINGLE)
    return "insert CH2"


EDITS: tuple[Callable[[Any, random.Random], str | None], ...] = (
    edit_aromatic_ch_to_n, edit_aromatic_n_to_ch, edit_add_substituent, edit_add_substituent, edit_remove_terminal,
    edit_swap_halogen, edit_ring_atom, edit_extend_chain,
)


def mutate(smiles: str, rng: random.Random, n_edits: int) -> tuple[str, list[str]] | None:
    """``smiles`` after ``n_edits`` random edits, as canonical SMILES with the edit names, or ``None``."""
    from rdkit import Chem

    from molx_agent.retro.stock import canonical_smiles

    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return None
    done: list[str] = []
    for _ in range(n_edits):
        rw = Chem.RWMol(mol)
        label = rng.choice(EDITS)(rw, rng)
        if label is None:
            continue
        try:
            Chem.SanitizeMol(rw)
            text = Chem.MolToSmiles(rw)
        except Exception:  # noqa: BLE001 - an edit RDKit cannot sanitise is dropped
            continue
        new = Chem.MolFromSmiles(text)
        if new is None:
            continue
        mol = new
        done.append(label)
    if not done:
        return None
    can = canonical_smiles(Chem.MolToSmiles(mol))
    return (can, done) if can else None


def make_decoys(sources: Iterable[tuple[str, str]], n: int, *, min_atoms: int = 15, max_atoms: int = 30,
                seed: int = 0, avoid: set[str] | None = None, max_tries: int | None = None) -> list[dict[str, Any]]:
    """``n`` decoys ``{smiles, heavy_atoms, source, origin, edits}`` (deterministic for a seed).

    Each decoy: a size drawn uniformly from ``min_atoms..max_atoms``, a source within two heavy atoms of it (any
    source when none is), one to three edits; kept when sanitisable, of ``min_atoms..max_atoms`` heavy atoms, new and
    not in ``avoid`` or the sources.  Raises ``ValueError`` when ``max_tries`` attempts (default 200 x n) give fewer.
    """
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    pool = sorted(set(sources))
    if not pool:
        raise ValueError("no source molecules")
    sizes: dict[str, int] = {}
    for smi, _ in pool:
        mol = Chem.MolFromSmiles(smi)
        sizes[smi] = mol.GetNumHeavyAtoms() if mol is not None else 0
    forbidden = set(avoid or ()) | {s for s, _ in pool}
    by_size: dict[int, list[tuple[str, str]]] = {}
    for item in pool:
        by_size.setdefault(sizes[item[0]], []).append(item)
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    tries = 0
    limit = max_tries if max_tries is not None else 200 * n
    while len(out) < n:
        tries += 1
        if tries > limit:
            raise ValueError(f"only {len(out)} of {n} decoys after {limit} attempts")
        size = rng.randint(min_atoms, max_atoms)
        near = [item for k in range(size - 2, size + 3) for item in by_size.get(k, ())]
        smi, origin = rng.choice(near or pool)
        res = mutate(smi, rng, rng.randint(1, 3))
        if res is None:
            continue
        can, edits = res
        if can in seen or can in forbidden or "." in can:
            continue
        mol = Chem.MolFromSmiles(can)
        heavy = mol.GetNumHeavyAtoms()
        if not min_atoms <= heavy <= max_atoms:
            continue
        seen.add(can)
        out.append({"smiles": can, "heavy_atoms": heavy, "source": smi, "origin": origin, "edits": edits})
    return out


# -- evaluation ----------------------------------------------------------------------------------------------
def band_of(heavy: int) -> str:
    for lo, hi in BANDS:
        if lo <= heavy <= hi:
            return f"{lo}-{hi}"
    return "other"


def evaluate(decoys: list[dict[str, Any]], stock: str | None = None, bloom_only: bool = False) -> list[dict[str, Any]]:
    from molx_agent.retro.engine import RetroEngine
    from molx_agent.retro.judge import complexity
    from molx_agent.retro.stock import DATA_DIR, FileStock, ZincStock

    bloom = ZincStock(max_heavy_atoms=None)
    engine = RetroEngine(stock=stock)
    bb_path = DATA_DIR / "building_blocks.smi.gz"
    bb = FileStock(bb_path, canonicalize=False) if bb_path.is_file() else None
    records = []
    for d in decoys:
        smi = d["smiles"]
        rec = {**d, **complexity(smi), "bloom": smi in bloom}
        if bb is not None:
            rec["in_building_blocks"] = smi in bb
        if not bloom_only:
            avail = engine.availability([smi])[0]
            leaf = engine.judge_leaf(smi)
            rec.update(tier=avail.get("tier"), stock_source=avail.get("source"), accepted=bool(leaf["accept"]),
                       leaf_tier=leaf["tier"], leaf_reason=leaf["reason"],
                       leaf_cost=leaf["cost"] if leaf["accept"] else None)
        records.append(rec)
    return records


def summarise(records: list[dict[str, Any]], bloom_only: bool = False) -> dict[str, Any]:
    n = len(records)
    out: dict[str, Any] = {"n_decoys": n, "n_bloom_hits": sum(r["bloom"] for r in records)}
    if records and "in_building_blocks" in records[0]:
        out["n_in_building_blocks"] = sum(r["in_building_blocks"] for r in records)
    if not bloom_only:
        tiers = {t: sum(r["tier"] == t for r in records) for t in ("verified", "probable", "estimated", "unavailable")}
        hits = [r for r in records if r["bloom"]]
        accepted = [r for r in records if r["accepted"]]
        out.update(
            n_verified=tiers["verified"], n_probable=tiers["probable"], n_estimated=tiers["estimated"],
            n_unavailable=tiers["unavailable"],
            bloom_hits_by_tier={t: sum(r["tier"] == t for r in hits) for t in tiers if any(r["tier"] == t for r in hits)},
            # the default ZINC stock counts hits of at most ZINC_MAX_HEAVY_ATOMS only: a larger hit is not probable
            n_bloom_hits_over_zinc_cap=sum(r["heavy_atoms"] > ZINC_MAX_HEAVY_ATOMS for r in hits),
            n_accepted=len(accepted), pct_accepted=round(100 * len(accepted) / n, 2) if n else 0.0,
            goals={"none_verified": tiers["verified"] == 0,
                   "every_bloom_hit_probable": all(r["tier"] == "probable" for r in hits),
                   "every_bloom_hit_within_zinc_cap_probable": all(r["tier"] == "probable" for r in hits
                                                                    if r["heavy_atoms"] <= ZINC_MAX_HEAVY_ATOMS),
                   "at_most_2pct_accepted": len(accepted) <= 0.02 * n},
        )
    bands: dict[str, Any] = {}
    for lo, hi in BANDS:
        rs = [r for r in records if lo <= r["heavy_atoms"] <= hi]
        if not rs:
            continue
        band: dict[str, Any] = {"n": len(rs), "bloom_hits": sum(r["bloom"] for r in rs)}
        if not bloom_only:
            acc = sum(r["accepted"] for r in rs)
            band.update(probable=sum(r["tier"] == "probable" for r in rs), accepted=acc,
                        pct_accepted=round(100 * acc / len(rs), 2))
        bands[f"{lo}-{hi}"] = band
    out["by_heavy_atoms"] = bands
    if not bloom_only:
        out["accepted"] = [{k: r[k] for k in ("smiles", "heavy_atoms", "rings", "stereocentres", "tier", "leaf_cost")}
                           for r in records if r["accepted"]]
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=500)
    ap.add_argument("--min-atoms", type=int, default=15)
    ap.add_argument("--max-atoms", type=int, default=30)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", type=Path, default=DATA, help="shared data folder (sar/moleculeace/*.csv)")
    ap.add_argument("--stock", default=None, help="stock spec for the engine (default: the default stock)")
    ap.add_argument("--bloom-only", action="store_true", help="only the Bloom-filter question (fast)")
    ap.add_argument("--out", type=Path, help="write the summary and per-decoy records (JSON)")
    args = ap.parse_args(argv)
    if args.n < 1 or args.min_atoms > args.max_atoms:
        ap.error("--n must be positive and --min-atoms <= --max-atoms")
    t0 = time.perf_counter()
    sources, avoid = load_sources(args.data)
    decoys = make_decoys(sources, args.n, min_atoms=args.min_atoms, max_atoms=args.max_atoms, seed=args.seed,
                         avoid=avoid)
    t1 = time.perf_counter()
    records = evaluate(decoys, args.stock, args.bloom_only)
    summary = {"settings": {"n": args.n, "min_atoms": args.min_atoms, "max_atoms": args.max_atoms, "seed": args.seed,
                            "stock": args.stock or "default", "n_sources": len(sources)},
               **summarise(records, args.bloom_only),
               "seconds": {"generate": round(t1 - t0, 1), "evaluate": round(time.perf_counter() - t1, 1)}}
    if args.out:
        from molx_agent.io_utils import atomic_write_json

        atomic_write_json(args.out, {"summary": summary, "decoys": records})
    print(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

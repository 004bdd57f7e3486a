#!/usr/bin/env python
"""The mapped reactions of the PaRoutes reference routes that a template library may learn from (issue 28, part 2).

Reads ``multistep/benchmarks/paroutes-n{1,5}-full-buyables.json.gz`` (every ``synthesis_step.mapped_smiles`` of
every reference route, deduplicated).  Two rules:

* ``kept_reactions`` -- the issue's literal rule: drop every reaction whose product InChIKey is in
  ``multistep/exclude_product_inchikeys.txt.gz``.  Finding (2026-11-25): that list holds the product of every step
  of these very routes, so **no reaction is left** (23,297 unique reactions, 22,999 unique products, all excluded).
* ``training_reactions`` -- the rule the template library uses (decided 2026-11-27, ``docs/benchmarks.md``,
  "PaRoutes reactions in the template library"): the PaRoutes n1/n5 sets are not benchmarks we report, so they may
  teach templates, but nothing may leak into the benchmarks we do report.  A reaction is dropped when

  1. its patent contributes any reaction to a reported multi-step benchmark (``ref-lin-600``, ``random-n5-100``):
     a whole patent out, not only the reference route's own steps;
  2. its product (InChIKey connectivity block, so stereoisomers too) is a target or intermediate of a reported
     multi-step benchmark (those two, and the ``uspto-190`` targets);
  3. its patent holds a USPTO-50K validation or test reaction, or its product (connectivity block) is a USPTO-50K
     validation or test product (the single-step benchmark).

  Kept records carry the mapped reaction, the product and the reactants (the route's child molecules) as SMILES, the
  patent and the product key, sorted by mapped reaction, so a re-run gives the same list.

``--out FILE`` writes the kept reactions of the library rule as a gzip TSV (mtime 0: byte-identical on re-run).

    uv run python scripts/paroutes_reactions.py [--out FILE]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
SHARED = SHARED_DATA / "multistep"
DEFAULT_ROUTES = [SHARED / "benchmarks" / f"paroutes-{n}-full-buyables.json.gz" for n in ("n1", "n5")]
DEFAULT_EXCLUDE = SHARED / "exclude_product_inchikeys.txt.gz"
#: The multi-step benchmarks whose figures we report: their routes' patents and molecules never reach training.
DEFAULT_REPORTED = [SHARED / "benchmarks" / f"{name}.json.gz" for name in ("ref-lin-600", "random-n5-100", "uspto-190")]
#: The single-step benchmark's validation and test splits (USPTO-50K): their patents and products never reach training.
DEFAULT_USPTO_EVAL = [SHARED_DATA / "uspto50k" / f"gln_split_{split}.csv.gz" for split in ("val", "test")]


@dataclass(frozen=True)
class RouteReaction:
    """One mapped reaction of a PaRoutes reference route, ready for template extraction."""

    mapped: str  # reactants>reagents>product with atom maps, as PaRoutes gives it
    product: str  # the route node's SMILES
    reactants: str  # the route node's children, '.'-joined
    patent: str  # normalised patent number (see ``patent_number``)
    product_key: str  # InChIKey connectivity block of the product


def patent_number(reaction_id: str) -> str:
    """``US04870074;;199652`` or ``US07928231B2`` -> ``US04870074`` / ``US07928231``: the patent without kind code."""
    head = (reaction_id or "").split(";")[0].strip()
    match = re.match(r"([A-Z]{2}\d+)", head)
    return match.group(1) if match else head


def _nodes(path: Path) -> Iterator[tuple[dict[str, Any], dict[str, Any] | None]]:
    """(node, its synthesis step or None) of every molecule of every reference route in a RetroCast file."""
    with gzip.open(path, "rb") as fh:
        data = json.loads(fh.read())
    for target in data["targets"].values():
        root = (target.get("ground_truth") or {}).get("target")
        if root is None and target.get("smiles"):
            yield {"smiles": target["smiles"], "inchikey": target.get("inchikey")}, None
        stack = [root]
        while stack:
            node = stack.pop()
            if not node:
                continue
            step = node.get("synthesis_step")
            yield node, step
            if step:
                stack.extend(step.get("reactants") or ())


def route_reactions(path: Path) -> dict[str, str]:
    """``mapped_smiles -> product InChIKey`` of every step of every reference route in a RetroCast file."""
    out: dict[str, str] = {}
    for node, step in _nodes(path):
        if step and step.get("mapped_smiles"):
            out.setdefault(step["mapped_smiles"], node["inchikey"])
    return out


def kept_reactions(routes: list[Path], exclude: Path) -> tuple[dict[str, str], dict[str, int]]:
    """The issue's literal rule: reactions whose product InChIKey is not in the exclusion list."""
    with gzip.open(exclude, "rt") as fh:
        excluded = {line.strip() for line in fh if line.strip()}
    reactions: dict[str, str] = {}
    for path in routes:
        for smi, key in route_reactions(path).items():
            reactions.setdefault(smi, key)
    kept = {smi: key for smi, key in reactions.items() if key not in excluded}
    stats = {"unique_reactions": len(reactions), "unique_products": len(set(reactions.values())),
             "excluded": len(reactions) - len(kept), "kept": len(kept)}
    return kept, stats


def _step_patent(step: dict[str, Any]) -> str:
    """The normalised patent of a route step (its ``metadata.ID``)."""
    return patent_number(str((step.get("metadata") or {}).get("ID") or ""))


def _mol_connectivity(mol: Any) -> str | None:
    """InChIKey connectivity block of an RDKit molecule (atom map numbers do not enter InChI)."""
    from rdkit import Chem

    key = Chem.MolToInchiKey(mol)
    return key.split("-")[0] if key else None


def _connectivity(smiles: str | None, inchikey: str | None = None) -> str | None:
    if inchikey:
        return inchikey.split("-")[0]
    from rdkit import Chem

    mol = Chem.MolFromSmiles(smiles or "")
    return None if mol is None else _mol_connectivity(mol)


def reported_benchmark_guard(paths: list[Path]) -> tuple[set[str], set[str]]:
    """(patents, product connectivity keys) of every step and molecule of the reported multi-step benchmarks."""
    from rdkit import rdBase

    patents: set[str] = set()
    keys: set[str] = set()
    with rdBase.BlockLogs():
        for path in paths:
            for node, step in _nodes(path):
                if step is None and node.get("is_leaf"):
                    continue  # a leaf (a starting material) is not a product to hide
                key = _connectivity(node.get("smiles"), node.get("inchikey"))
                if key:
                    keys.add(key)
                if step:
                    patents.add(_step_patent(step))
    patents.discard("")
    return patents, keys


def uspto_eval_guard(paths: list[Path]) -> tuple[set[str], set[str]]:
    """(patents, product connectivity keys) of the USPTO-50K validation and test reactions."""
    from rdkit import Chem, rdBase

    patents: set[str] = set()
    keys: set[str] = set()
    with rdBase.BlockLogs():
        for path in paths:
            with gzip.open(path, "rt", newline="") as fh:
                for row in csv.DictReader(fh):
                    patents.add(patent_number(row["id"]))
                    product = row["reactants>reagents>production"].split(">")[-1]
                    mol = Chem.MolFromSmiles(product)
                    key = None if mol is None else _mol_connectivity(mol)
                    if key:
                        keys.add(key)
    patents.discard("")
    return patents, keys


@dataclass(frozen=True)
class LeakageGuard:
    """The library rule's sets: patents and product connectivity keys of the reported multi-step benchmarks and of
    the USPTO-50K validation and test splits."""

    bench_patents: set[str]
    bench_keys: set[str]
    eval_patents: set[str]
    eval_keys: set[str]

    @classmethod
    def load(cls, reported: list[Path], uspto_eval: list[Path]) -> LeakageGuard:
        bench_patents, bench_keys = reported_benchmark_guard(reported)
        eval_patents, eval_keys = uspto_eval_guard(uspto_eval)
        return cls(bench_patents, bench_keys, eval_patents, eval_keys)

    def reason(self, patent: str, product_key: str) -> str | None:
        """Why a step (its patent, its product's connectivity key) may not be learned from, or ``None`` (kept)."""
        if patent in self.bench_patents:
            return "benchmark_patent"
        if not product_key or product_key in self.bench_keys:
            return "benchmark_product"
        if patent in self.eval_patents:
            return "uspto50k_eval_patent"
        if product_key in self.eval_keys:
            return "uspto50k_eval_product"
        return None


def training_reactions(
    routes: list[Path], reported: list[Path], uspto_eval: list[Path]
) -> tuple[list[RouteReaction], dict[str, int]]:
    """The PaRoutes reactions the template library learns from, under the library rule (module docstring)."""
    guard = LeakageGuard.load(reported, uspto_eval)
    seen: dict[str, RouteReaction] = {}
    for path in routes:
        for node, step in _nodes(path):
            if not step or not step.get("mapped_smiles") or step["mapped_smiles"] in seen:
                continue
            kids = [kid.get("smiles") or "" for kid in step.get("reactants") or ()]
            seen[step["mapped_smiles"]] = RouteReaction(
                mapped=step["mapped_smiles"],
                product=node.get("smiles") or "",
                reactants=".".join(kids),
                patent=_step_patent(step),
                product_key=_connectivity(node.get("smiles"), node.get("inchikey")) or "",
            )
    stats = {"unique_reactions": len(seen), "benchmark_patent": 0, "benchmark_product": 0,
             "uspto50k_eval_patent": 0, "uspto50k_eval_product": 0, "kept": 0}
    kept: list[RouteReaction] = []
    for mapped in sorted(seen):
        rec = seen[mapped]
        reason = guard.reason(rec.patent, rec.product_key)
        if reason is None:
            kept.append(rec)
        else:
            stats[reason] += 1
    stats["kept"] = len(kept)
    stats["patents_kept"] = len({rec.patent for rec in kept})
    return kept, stats


#: every file :func:`library_training_reactions` reads
LIBRARY_RULE_INPUTS: tuple[Path, ...] = (*DEFAULT_ROUTES, *DEFAULT_REPORTED, *DEFAULT_USPTO_EVAL)


def library_training_reactions() -> tuple[list[RouteReaction], dict[str, int]]:
    """:func:`training_reactions` of the shared data: the PaRoutes reactions the packaged template library learns
    from."""
    return training_reactions(DEFAULT_ROUTES, DEFAULT_REPORTED, DEFAULT_USPTO_EVAL)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--routes", type=Path, nargs="+", default=DEFAULT_ROUTES)
    ap.add_argument("--exclude", type=Path, default=DEFAULT_EXCLUDE)
    ap.add_argument("--reported", type=Path, nargs="+", default=DEFAULT_REPORTED)
    ap.add_argument("--uspto-eval", type=Path, nargs="+", default=DEFAULT_USPTO_EVAL)
    ap.add_argument("--out", type=Path, default=None, help="write the library rule's kept reactions (gzip TSV)")
    args = ap.parse_args(argv)
    for path in [*args.routes, args.exclude, *args.reported, *args.uspto_eval]:
        if not path.is_file():
            sys.stderr.write(f"missing input file: {path}\n")
            return 2
    _, literal = kept_reactions(args.routes, args.exclude)
    kept, stats = training_reactions(args.routes, args.reported, args.uspto_eval)
    sys.stdout.write(json.dumps({"issue_rule": literal, "library_rule": stats}) + "\n")
    if args.out:
        from molx_agent.io_utils import atomic_write_bytes

        text = "".join(f"{r.mapped}\t{r.product}\t{r.reactants}\t{r.patent}\t{r.product_key}\n" for r in kept)
        atomic_write_bytes(args.out, gzip.compress(text.encode(), compresslevel=9, mtime=0))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    raise SystemExit(main())

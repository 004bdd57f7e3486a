#!/usr/bin/env python
"""Reagents the capping rules write that no chemist can make or buy, over every bond of a set of drugs.

For each drug of ``benchmarks/drug_routes.py`` (``--drugs all``: the sixty), every bond is given to
``chem.smart_cap.suggest_capping`` and each proposal's fragments are checked for:

- ``mg_on_carbonyl``: an organomagnesium carbon double-bonded to O, N or S (an "acyl Grignard");
- ``acid_carbon_bromide``: a bromide on the carbon of an acid, ester or amide (``O=C(O)Br``);
- ``bromohydrin``: a bromide on a carbinol carbon (``OC1(Br)CCCCC1``);
- ``self_quenching_grignard``: an organomagnesium fragment that also carries an O-H, N-H or S-H, an aldehyde, a
  ketone, an acid chloride or a nitro group.

    uv run python benchmarks/capping_scan.py [--drugs all] [--json OUT]

Seconds on one core; it prints the counts (and writes them with the first example of each kind to ``--json``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from drug_routes import checked_drug_names  # noqa: E402
from rdkit import Chem, RDLogger  # noqa: E402

from molx_agent.chem.names import resolve_name  # noqa: E402
from molx_agent.chem.smart_cap import suggest_capping  # noqa: E402
from molx_agent.errors import RetroError  # noqa: E402
from molx_agent.io_utils import atomic_write_json  # noqa: E402

CHECKS = {
    "mg_on_carbonyl": "[#6](=[O,N,S])~[Mg]",
    "acid_carbon_bromide": "[CX3](=O)([O,N])Br",
    "bromohydrin": "[CX4]([OX2H1])Br",
}
#: checked on organomagnesium fragments only
QUENCHERS = "[$([OX2H1]),$([#7;H1,H2]),$([SX2H1]),$([CX3H1]=O),$([CX3](=O)([#6])[#6]),$(C(=O)Cl),$([N+](=O)[O-])]"


def scan(names: list[str]) -> dict:
    patterns = {k: Chem.MolFromSmarts(v) for k, v in CHECKS.items()}
    quench = Chem.MolFromSmarts(QUENCHERS)
    counts = {"drugs": len(names), "bonds": 0, "proposals": 0, "grignard_proposals": 0,
              **{k: 0 for k in CHECKS}, "self_quenching_grignard": 0}
    examples: dict[str, list[str]] = {}
    for name in names:
        smiles = resolve_name(name)
        mol = Chem.MolFromSmiles(smiles)
        for bond in mol.GetBonds():
            counts["bonds"] += 1
            try:
                proposals = suggest_capping(smiles, bond.GetIdx())
            except RetroError:
                continue
            for p in proposals:
                counts["proposals"] += 1
                counts["grignard_proposals"] += p["reaction_type"] == "Grignard"
                for frag in p["fragments"]:
                    m = Chem.MolFromSmiles(frag)
                    if m is None:
                        continue
                    found = [k for k, patt in patterns.items() if m.HasSubstructMatch(patt)]
                    if "Mg" in frag and m.HasSubstructMatch(quench):
                        found.append("self_quenching_grignard")
                    for k in found:
                        counts[k] += 1
                        examples.setdefault(k, [name, p["reaction_type"], frag])
    return {"counts": counts, "examples": examples}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--drugs", default="all", help="a set of benchmarks/drug_routes.py (all, more) or names")
    ap.add_argument("--json", type=Path, help="write the counts and examples here")
    args = ap.parse_args(argv)
    RDLogger.DisableLog("rdApp.*")
    result = scan(checked_drug_names(ap, args.drugs))
    print(json.dumps(result["counts"]))  # noqa: T201 - a benchmark script's report
    if args.json:
        atomic_write_json(args.json, result)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

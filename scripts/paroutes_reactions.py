#!/usr/bin/env python
"""The mapped reactions of the PaRoutes reference routes that a template library may learn from (issue 28, part 2).

Reads ``multistep/benchmarks/paroutes-n{1,5}-full-buyables.json.gz`` (every ``synthesis_step.mapped_smiles`` of
every reference route, deduplicated) and drops every reaction whose product InChIKey is in
``multistep/exclude_product_inchikeys.txt.gz`` (the rule the USPTO-50K library follows).  Reports the counts and,
with ``--out``, writes the kept reactions (sorted, one ``mapped_smiles<TAB>product_inchikey`` a line, gzip with
mtime 0, so a re-run gives the same bytes) for ``scripts/build_templates.py``-style extraction.

Finding (2026-11-25): the exclusion list holds the product of every step of these routes, so **no reaction is
left** (23,297 unique reactions, 22,999 unique products, all excluded).  Before any narrower exclusion is used,
USPTO-50K validation/test products must be dropped as well (these routes come from the same patents).

    uv run python scripts/paroutes_reactions.py [--out FILE]
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data" / "multistep"
DEFAULT_ROUTES = [SHARED / "benchmarks" / f"paroutes-{n}-full-buyables.json.gz" for n in ("n1", "n5")]
DEFAULT_EXCLUDE = SHARED / "exclude_product_inchikeys.txt.gz"


def route_reactions(path: Path) -> dict[str, str]:
    """``mapped_smiles -> product InChIKey`` of every step of every reference route in a RetroCast file."""
    with gzip.open(path, "rb") as fh:
        data = json.loads(fh.read())
    out: dict[str, str] = {}
    for target in data["targets"].values():
        stack = [((target.get("ground_truth") or {}).get("target"))]
        while stack:
            node = stack.pop()
            if not node:
                continue
            step = node.get("synthesis_step")
            if not step:
                continue
            if step.get("mapped_smiles"):
                out.setdefault(step["mapped_smiles"], node["inchikey"])
            stack.extend(step.get("reactants") or ())
    return out


def kept_reactions(routes: list[Path], exclude: Path) -> tuple[dict[str, str], dict[str, int]]:
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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--routes", type=Path, nargs="+", default=DEFAULT_ROUTES)
    ap.add_argument("--exclude", type=Path, default=DEFAULT_EXCLUDE)
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args(argv)
    for path in [*args.routes, args.exclude]:
        if not path.is_file():
            sys.stderr.write(f"missing input file: {path}\n")
            return 2
    kept, stats = kept_reactions(args.routes, args.exclude)
    sys.stdout.write(json.dumps(stats) + "\n")
    if args.out:
        from molx_agent.io_utils import atomic_write_bytes

        text = "".join(f"{smi}\t{key}\n" for smi, key in sorted(kept.items()))
        atomic_write_bytes(args.out, gzip.compress(text.encode(), compresslevel=9, mtime=0))
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    raise SystemExit(main())

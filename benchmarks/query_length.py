"""How long a long query takes: entity extraction and the whole offline answer (``MolxAgent.invoke``, rules mode).

Queries of several shapes (prose with drug names, many SMILES, one very long token, names without spaces,
brackets and parentheses) are timed at several lengths; lengths above ``MOLX_MAX_QUERY_CHARS`` (20,000 by
default) must be refused at once (``query_too_long``), shorter ones answered.  Before the fix a 100 KB query took
42 s in ``run`` and 85 s through ``MolxAgent().invoke`` (entity extraction was quadratic).

Usage::

    nice -n 19 uv run python benchmarks/query_length.py                    # extraction + invoke, default sizes
    nice -n 19 uv run python benchmarks/query_length.py --sizes 1000,20000,100000 --no-invoke
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def shapes() -> dict[str, str]:
    """A repeating unit (or a generator) per query shape; each is cut to the wanted length."""
    from molx_agent.chem.names import load_name_table

    names = " ".join(a for e in load_name_table() for a in e.aliases if a.isascii())
    return {
        "prose+names": "What is the molecular weight of aspirin and ibuprofen? ",
        "smiles": "CCO CC(=O)O c1ccccc1 CC(=O)Nc1ccc(O)cc1 ",
        "distinct-smiles": " ".join("C" * (i % 40 + 1) + "O" for i in range(5000)),
        "all-names": names + " ",
        "names-no-spaces": "aspirin,",
        "one-long-token": "C",
        "parentheses": "((((((((((",
        "bracket-atoms": "[Fe][NH4+]",
    }


def make(unit: str, n: int) -> str:
    return (unit * (n // len(unit) + 1))[:n]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="1000,10000,20000,100000")
    ap.add_argument("--no-invoke", action="store_true", help="time entity extraction only")
    args = ap.parse_args()
    os.environ.setdefault("MOLX_LLM_PROVIDER", "rules")
    tmp = tempfile.mkdtemp(prefix="molx_query_bench_")
    os.environ["MOLX_OUTPUT_DIR"] = tmp
    os.environ["MOLX_HOME"] = tmp

    from molx_agent.agents.intent_classifier import classify_by_rules, extract_entities
    from molx_agent.agents.molx import MolxAgent
    from molx_agent.errors import RetroError

    agent = None if args.no_invoke else MolxAgent(llm=None)
    if agent is not None:
        agent.invoke("What is the molecular weight of aspirin?")  # warm up (imports, tables)
    print(f"{'shape':<16} {'chars':>7} {'extract (s)':>11} {'invoke (s)':>10}  outcome")
    worst = 0.0
    for name, unit in shapes().items():
        for n in (int(x) for x in args.sizes.split(",")):
            query = make(unit, n)
            t = time.perf_counter()
            ents = extract_entities(query)
            classify_by_rules(query, ents)
            extract = time.perf_counter() - t
            invoke, outcome = float("nan"), f"{len(ents.smiles)} molecules, {len(ents.names)} names"
            if agent is not None:
                t = time.perf_counter()
                try:
                    state = agent.invoke(query)
                    outcome = f"answered ({state.get('intent')}); " + outcome
                except RetroError as exc:
                    outcome = f"refused ({exc.code})"
                invoke = time.perf_counter() - t
                worst = max(worst, invoke)
            print(f"{name:<16} {n:>7} {extract:>11.2f} {invoke:>10.2f}  {outcome}", flush=True)
    if agent is not None:
        print(f"slowest invoke: {worst:.2f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``benchmarks/route_near_misses.py``: a returned route through exactly the reference's intermediates, another leaf.

Fixture: RetroCast ``ref-lin-600`` target n5-09332 (``data/ref3.json.gz``): 3-tert-butylcyclobutanone from its
2,2-dichloro ketone (dechlorination), made from 3,3-dimethylbut-1-ene and trichloroacetyl chloride.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

DATA = Path(__file__).parent / "data"
TARGET, DICHLORO = "CC(C)(C)C1CC(=O)C1", "CC(C)(C)C1CC(=O)C1(Cl)Cl"


def _tree(steps):
    """An exported reaction tree of a linear route: ``steps`` = [(product, [reactants])], target first."""
    product, reactants = steps[0]
    kids = []
    for smi in reactants:
        sub = [s for s in steps[1:] if s[0] == smi]
        kids.append(_tree(sub + [s for s in steps[1:] if s not in sub]) if sub else
                    {"type": "mol", "smiles": smi, "in_stock": True, "children": []})
    return {"type": "mol", "smiles": product, "in_stock": False,
            "children": [{"type": "reaction", "smiles": f"{product}>>{'.'.join(reactants)}", "children": kids}]}


def _records(tmp_path, routes, **fields):
    rec = {"id": "n5-09332", "route_length": 2, "solved": True, "match_rank": None, "routes": routes, **fields}
    path = tmp_path / "r.jsonl.gz"
    with gzip.open(path, "wt") as fh:
        fh.write(json.dumps({"meta": {}}) + "\n" + json.dumps(rec) + "\n")
    return path


def test_a_route_through_the_reference_intermediates_with_another_leaf_is_a_near_miss(benchmark_script, tmp_path):
    nm = benchmark_script("route_near_misses")
    other_strategy = _tree([(TARGET, ["CC(C)(C)C1CC(O)C1"]), ("CC(C)(C)C1CC(O)C1", ["CC(C)(C)C1CC(=O)C1(Cl)Cl"])])
    # the same two intermediates; dichloroketene from dichloroacetyl chloride instead of trichloroacetyl chloride
    near = _tree([(TARGET, [DICHLORO]), (DICHLORO, ["C=CC(C)(C)C", "O=C(Cl)C(Cl)Cl"])])
    path = _records(tmp_path, [other_strategy, near])
    res = nm.near_misses(nm.read_records(path)[1], nm.load_targets(DATA / "ref3.json.gz"), 10)
    assert res["solved_unmatched"] == 1 and res["same_intermediates"] == 1
    assert res["by_reference_length"] == {2: 1}
    [hit] = res["targets"]
    assert hit["route_rank"] == 2
    assert hit["differing_steps"] == [{"product": DICHLORO, "ours": "C=CC(C)(C)C.O=C(Cl)C(Cl)Cl",
                                       "reference": "C=CC(C)(C)C.O=C(Cl)C(Cl)(Cl)Cl"}]
    # only within the top n: the near miss is the second route
    assert nm.near_misses(nm.read_records(path)[1], nm.load_targets(DATA / "ref3.json.gz"), 1)["same_intermediates"] == 0


def test_matched_and_unsolved_targets_are_not_counted(benchmark_script, tmp_path):
    nm = benchmark_script("route_near_misses")
    near = _tree([(TARGET, [DICHLORO]), (DICHLORO, ["C=CC(C)(C)C", "O=C(Cl)C(Cl)Cl"])])
    targets = nm.load_targets(DATA / "ref3.json.gz")
    matched = nm.read_records(_records(tmp_path, [near], match_rank=3))[1]
    assert nm.near_misses(matched, targets, 10)["solved_unmatched"] == 0
    unsolved = nm.read_records(_records(tmp_path, [], solved=False))[1]
    assert nm.near_misses(unsolved, targets, 10)["solved_unmatched"] == 0


def test_a_missing_records_file_is_a_clear_error(benchmark_script, tmp_path, capsys):
    nm = benchmark_script("route_near_misses")
    assert nm.main(["--records", str(tmp_path / "none.jsonl")]) == 2
    assert "no such file" in capsys.readouterr().err

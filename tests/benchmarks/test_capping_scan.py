"""benchmarks/capping_scan.py: the capping rules write no impossible reagent for three drugs, and bad names exit 2."""

from __future__ import annotations

import json

import pytest


def test_no_impossible_reagent_for_three_drugs(repo_script, tmp_path):
    scan = repo_script("benchmarks/capping_scan.py")
    out = tmp_path / "scan.json"
    assert scan.main(["--drugs", "ibuprofen,mefenamic acid,tramadol", "--json", str(out)]) == 0
    counts = json.loads(out.read_text())["counts"]
    assert counts["drugs"] == 3 and counts["grignard_proposals"] > 0
    assert counts["mg_on_carbonyl"] == counts["acid_carbon_bromide"] == 0
    assert counts["bromohydrin"] == counts["self_quenching_grignard"] == 0


def test_unknown_drug_exits_2(repo_script):
    scan = repo_script("benchmarks/capping_scan.py")
    with pytest.raises(SystemExit) as exc:
        scan.main(["--drugs", "no such drug"])
    assert exc.value.code == 2

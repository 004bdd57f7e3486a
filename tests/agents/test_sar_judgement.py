"""SARAgent's judgement (SARAgentConfig, Rule, add_rule), ranking ties by LLE then LE, the scaffold helpers, and a
re-plan that splits the series differently."""

from __future__ import annotations

import pandas as pd
import pytest

from molx_agent.agents.sar import (
    Rule,
    SARAgent,
    SARAgentConfig,
    find_common_murcko_scaffold,
    find_mcs_scaffold,
    judge_sar,
    rank_compounds,
)
from tests.agents.conftest import SERIES_CSV


@pytest.fixture(scope="module")
def series_result(tmp_path_factory):
    from molx_agent.sar.pipeline import run_sar_pipeline

    return run_sar_pipeline(str(SERIES_CSV), output_dir=str(tmp_path_factory.mktemp("sar")))


def test_the_example_series_is_judged_and_ranked(series_result):
    verdict, issues, findings = judge_sar(series_result)
    assert verdict == "accept" and issues == [] and findings == []
    top = rank_compounds(series_result, 5)
    assert [c["id"] for c in top[:3]] == ["GSK3B-017", "GSK3B-021", "GSK3B-020"]
    assert all(c["p_activity"] == 8.0 for c in top[:5])
    lles = [c["lle"] for c in top[:5]]
    assert lles == sorted(lles, reverse=True)  # equal potency: higher LLE first


def test_ties_in_lle_are_broken_by_le():
    class Fake:
        compounds = pd.DataFrame({"id": ["a", "b", "c"], "smiles": ["C", "CC", "CCC"], "p_activity": [7.0, 7.0, 6.0],
                                  "lle": [4.0, 4.0, 5.0], "le": [0.3, 0.4, 0.9], "exact": [True, True, True]})

    assert [c["id"] for c in rank_compounds(Fake(), 3)] == ["b", "a", "c"]


def test_thresholds_and_custom_rules(series_result):
    strict = SARAgentConfig(min_compounds=100, min_potency_range=5.0)
    verdict, issues, _ = judge_sar(series_result, strict)
    assert verdict == "weak" and {i["code"] for i in issues} == {"too_few_compounds", "no_potency_spread"}

    def fluorine_rule(result, cfg):
        n = int(result.compounds["smiles"].str.contains("F").sum())
        return [{"code": "fluorine_count", "severity": "info", "message": f"{n} compounds carry fluorine"}]

    agent = SARAgent(config=SARAgentConfig())
    agent.add_rule(Rule("fluorine", fluorine_rule, "count fluorinated analogues"))
    verdict, issues, findings = judge_sar(series_result, agent.config)
    assert verdict == "accept" and findings[0]["rule"] == "fluorine" and "fluorine" in findings[0]["message"]

    def broken(result, cfg):
        raise ValueError("bad rule")

    agent.add_rule(Rule("broken", broken))
    _, _, findings = judge_sar(series_result, agent.config)
    assert any(f["code"] == "rule_error" and "bad rule" in f["message"] for f in findings)


def test_scaffold_helpers():
    smiles = ["CC(=O)Nc1ccc(Cl)cc1", "CC(=O)Nc1ccc(Br)cc1", "CC(=O)Nc1ccc(O)cc1", "CC(=O)Nc1ccccc1"]
    murcko = find_common_murcko_scaffold(smiles)
    assert murcko["smiles"] == "c1ccccc1" and murcko["count"] == 4 and murcko["coverage"] == 1.0
    mcs = find_mcs_scaffold(smiles)
    assert mcs["atoms"] >= 9 > murcko["atoms"] and mcs["coverage"] == 1.0 and mcs["trivial_reason"] is None
    assert find_common_murcko_scaffold(["CCO", "CCN"])["smiles"] is None  # acyclic: no scaffold


def test_a_weak_sar_result_is_replanned_with_another_split(tmp_path):
    """Three unrelated chemotypes of three compounds: no series of 5 forms; the re-plan splits into series of 3."""
    from molx_agent.agents.molx import MolxAgent

    rows = ["id,smiles,IC50 (nM)"]
    chemotypes = ["O=C(Nc1ccc({})cc1)c1ccc2[nH]ccc2c1", "Cc1nc2ccccc2n1Cc1ccc({})cc1",
                  "O=S(=O)(c1ccc({})cc1)N1CCOCC1"]
    subs = ["F", "Cl", "Br", "C"]
    for k, core in enumerate(chemotypes):
        for j, sub in enumerate(subs[:3]):
            rows.append(f"c{k}{j},{core.format(sub)},{10 ** (1 + j + k / 3):.1f}")
    path = tmp_path / "mixed.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    state = MolxAgent(llm=None).invoke("Analyse the SAR of this file", files=[str(path)])
    sar = state["tasks"]["t2"]
    first = state["reflections"][0]
    assert {"no_core", "many_unassigned"} <= {i["code"] for i in first["issues"]}
    assert len(sar["attempts"]) == 2 and sar["attempts"][1]["options"]["strategy"] == "smaller_series"
    result = state["results"]["t2"]
    assert result["n_series"] == 3 and result["min_series_size"] == 3  # one series per chemotype
    assert {s["core_smiles"] for s in result["series"]} == {
        "O=C(Nc1ccccc1)c1ccc2[nH]ccc2c1", "c1ccc(Cn2cnc3ccccc32)cc1", "O=S(=O)(c1ccccc1)N1CCOCC1"}
    assert [i["code"] for i in result["issues"]] == ["small_series"]  # inherent to the data: said, not re-planned
    assert "What was tried" in state["final_answer"] and "smaller_series" in state["final_answer"]

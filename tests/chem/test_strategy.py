"""Strategy analyses: scaffold, selectivity, protecting groups, rings, linear/convergent, global context."""

from __future__ import annotations

import pytest

from molx_agent.chem.strategy import (
    CONFLICT_PAIRS,
    DEFAULT_MAX_PG_OPERATIONS,
    DEFAULT_MAX_STEPS,
    analyze_scaffold,
    analyze_selectivity,
    assess_feasibility,
    decide_strategy,
    get_global_strategy,
    plan_ring_strategy,
    recommend_protecting_groups,
)
from molx_agent.errors import ChemistryError, ValidationError

IMATINIB = "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"
AMINO_ACID_ALDEHYDE = "NCCCC(C=O)C(=O)O"


def test_scaffold_of_imatinib():
    res = analyze_scaffold(IMATINIB)
    assert res["n_ring_systems"] == 5
    names = sorted(n for s in res["ring_systems"] for n in s["names"])
    assert names == ["phenyl", "phenyl", "piperazine", "pyridine", "pyrimidine"]
    assert res["linkers"] and res["strategic_disconnections"][0]["chemical_label"] == "amide C(=O)-N"
    assert res["murcko_scaffold"] and res["summary"]


def test_scaffold_flags_fused_and_spiro_systems():
    fused = analyze_scaffold("c1ccc2[nH]ccc2c1")["ring_systems"][0]
    assert fused["fused"] and fused["n_rings"] == 2 and fused["names"] == ["indole"]
    spiro = analyze_scaffold("C1CCC2(CC1)CCNCC2")["ring_systems"][0]
    assert spiro["spiro"] and not spiro["fused"]


def test_conflict_table_has_at_least_twelve_pairs():
    assert len(CONFLICT_PAIRS) >= 12
    assert len({(p.group_a, p.group_b) for p in CONFLICT_PAIRS}) == len(CONFLICT_PAIRS)


def test_selectivity_finds_conflicts_and_protection():
    res = analyze_selectivity(AMINO_ACID_ALDEHYDE)
    pairs = {(c["group_a"], c["group_b"]) for c in res["conflicts"]}
    assert ("amine", "carboxylic_acid") in pairs and ("amine", "aldehyde") in pairs
    assert res["n_conflicts"] == len(res["conflicts"])
    pgs = {r["functional_group"]: r["protecting_group"] for r in res["protection_strategy"]["recommended"]}
    assert pgs.get("amine") == "Boc"
    assert "conflict" in res["summary"]


def test_selectivity_of_a_clean_molecule(aspirin):
    res = analyze_selectivity(aspirin)
    assert res["n_conflicts"] == 0 and res["protection_strategy"]["recommended"] == []


def test_orthogonal_protecting_groups():
    res = recommend_protecting_groups(["hydroxyl", "amine", "carboxylic_acid"])
    removal = [r["removal_class"] for r in res["recommended"]]
    assert len(set(removal)) == 3 and res["orthogonal"]
    # an active Boc uses acid: the amine must get a non-acid-labile group
    res = recommend_protecting_groups(["amine"], active_pgs=["Boc"])
    assert res["recommended"][0]["protecting_group"] == "Cbz"
    res = recommend_protecting_groups("hydroxyl, unobtainium")
    assert res["unrecognized"] == ["unobtainium"] and res["n_recommended"] == 1
    with pytest.raises(ValidationError):
        recommend_protecting_groups([])


def test_ring_strategy_forms_indole_and_buys_benzene():
    res = plan_ring_strategy("Cc1[nH]c2ccccc2c1C")
    indole = res["ring_systems"][0]
    assert indole["decision"] == "form" and "Fischer Indole Synthesis" in indole["formation_methods"]
    assert indole["retro_ring_opening"][0]["precursors"] == ["CCC(C)=O", "NNc1ccccc1"]
    assert res["rings_to_form"] == [0] and res["construction_order"]
    benzene = plan_ring_strategy("Cc1ccccc1")["ring_systems"][0]
    assert benzene["decision"] == "building_block"


def test_ring_strategy_lactam_closure_and_acyclic():
    lactam = plan_ring_strategy("CC1CCC(=O)N1C")["ring_systems"][0]
    assert lactam["decision"] == "form"
    assert any("lactamization" in m for m in lactam["formation_methods"])
    assert plan_ring_strategy("CCCCO")["n_ring_systems"] == 0


def test_decide_strategy_linear_for_aspirin_convergent_for_imatinib(aspirin):
    small = decide_strategy(aspirin)
    assert small["recommended_strategy"] == "linear"
    assert set(small["scores"]) == {"linear", "convergent", "mixed"}
    big = decide_strategy(IMATINIB)
    assert big["recommended_strategy"] == "convergent"
    assert big["convergent_feasibility"]["key_disconnection"]["chemical_label"] == "amide C(=O)-N"
    assert big["rationale"] and big["scaffold_summary"]["n_ring_systems"] == 5
    assert "n_conflicts" in big["selectivity_summary"]


def test_global_strategy_defaults_and_policy():
    res = get_global_strategy(AMINO_ACID_ALDEHYDE)
    assert res["pg_policy"]["max_pg_operations"] == DEFAULT_MAX_PG_OPERATIONS == 2
    assert res["step_budget"]["max_steps"] == DEFAULT_MAX_STEPS == 10
    assert res["pg_policy"]["groups_needing_protection"]
    assert res["method_preferences"]["preferred"]
    assert res["prompt_context"].startswith("Target ")
    res = get_global_strategy(IMATINIB, max_pg_operations=0, max_steps=2,
                              constraints={"avoid_reactions": ["Stille"]})
    assert "Stille (user constraint)" in res["method_preferences"]["avoid"]
    assert res["step_budget"]["within_budget"] is False
    with pytest.raises(ValidationError):
        get_global_strategy(IMATINIB, max_steps=0)
    with pytest.raises(ValidationError):
        get_global_strategy(IMATINIB, constraints=["x"])


def test_feasibility_of_a_precedented_step():
    res = assess_feasibility("CC(=O)Cl.Oc1ccccc1>>CC(=O)Oc1ccccc1")
    assert res["feasibility"] == "high"
    assert res["template_match"]["template_id"] == "G03_ester_acid_chloride_retro"
    assert res["confidence"] <= 0.85


def test_feasibility_flags_incompatible_groups_and_missing_atoms():
    res = assess_feasibility("CC(=O)c1ccc(CCO)cc1.C[Mg]Br>>CC(C)(O)c1ccc(CCO)cc1", reaction_class="Grignard")
    assert "alcohol" in res["incompatible_groups"] and res["protection_needed"]
    assert res["recommended_protection"][0]["protecting_group"] == "TBS"
    bad = assess_feasibility("CCO>>CCCCO")
    assert bad["feasibility"] == "low"
    assert {i["code"] for i in bad["issues"]} >= {"missing_atoms", "no_template_precedent"}
    for r in (res, bad):
        assert 0 < r["confidence"] <= 0.85


def test_feasibility_accepts_maps_and_reagents():
    res = assess_feasibility("[CH3:1][C:2](=[O:3])[OH:4].[NH2:5][c:6]1[cH:7][cH:8][cH:9][cH:10][cH:11]1>CN(C)C=O>"
                             "[CH3:1][C:2](=[O:3])[NH:5][c:6]1[cH:7][cH:8][cH:9][cH:10][cH:11]1")
    assert res["template_match"]["template_id"] == "G02_amide_retro"
    # ring cis/trans read with atom maps is written as the canonical SMILES of the unmapped molecules
    trans = assess_feasibility("[CH3:1][C:2](=[O:3])[Cl:13].[CH3:4][NH:5][C@H:6]1[CH2:7][CH2:8][C@H:9]([OH:10])[CH2:11]"
                               "[CH2:12]1>>[CH3:1][C:2](=[O:3])[N:5]([CH3:4])[C@H:6]1[CH2:7][CH2:8][C@H:9]([OH:10])"
                               "[CH2:11][CH2:12]1")
    assert trans["reaction_smiles"] == "CC(=O)Cl.CN[C@H]1CC[C@H](O)CC1>>CC(=O)N(C)[C@H]1CC[C@H](O)CC1"


@pytest.mark.parametrize("bad", ["CCO", "A>>B", "CCO>>", ">>CCO", "C>C>C>C"])
def test_feasibility_bad_reactions(bad):
    with pytest.raises((ValidationError, ChemistryError)) as exc:
        assess_feasibility(bad)
    assert exc.value.code in ("invalid_reaction", "invalid_smiles")


@pytest.mark.parametrize("fn", [analyze_scaffold, analyze_selectivity, plan_ring_strategy, decide_strategy])
def test_bad_smiles(fn):
    with pytest.raises(ChemistryError) as exc:
        fn("C1CC(")
    assert exc.value.code == "invalid_smiles"

"""The skills backed by the chemistry core, on aspirin and paracetamol."""

from __future__ import annotations

import pytest

from molx_agent.interfaces.skills import run_skill


def test_analyze_molecule_aspirin(aspirin):
    res = run_skill("analyze_molecule", {"smiles": aspirin})
    assert res.success, res.error
    info = res.data["molecule_info"]
    for key in (
        "smiles",
        "canonical_smiles",
        "molecular_weight",
        "sa_score",
        "atom_bond_map",
        "functional_groups",
        "protecting_groups",
    ):
        assert key in info
    assert info["canonical_smiles"] == aspirin
    assert abs(info["molecular_weight"] - 180.16) < 0.05
    top = info["atom_bond_map"]["strategic_bonds"][0]
    assert top["chemical_label"].startswith("ester") and sorted(top["atoms"]) == [1, 3]
    assert {g["name"] for g in info["functional_groups"]} >= {"ester", "carboxylic_acid"}


@pytest.mark.parametrize("bad", ["C1CC", "", "CC(=O)Cl>>CC"])
def test_analyze_molecule_bad_smiles(bad):
    res = run_skill("analyze_molecule", {"smiles": bad})
    assert not res.success and res.error_code == "invalid_smiles"
    assert "Failed to parse SMILES" in res.error  # the seed's documented symptom
    assert res.data["error_details"]["error_type"] == "ChemistryError"


def test_break_bond_paracetamol_amide(paracetamol):
    res = run_skill("break_bond", {"smiles": paracetamol, "atom1_idx": 1, "atom2_idx": 3})
    assert res.success, res.error
    assert "Nc1ccc(O)cc1" in res.data["fragments"]
    assert res.data["reaction_smiles"].endswith(">>" + paracetamol)
    assert res.data["retro_analysis_guide"]


def test_break_bond_bad_indices(paracetamol):
    res = run_skill("break_bond", {"smiles": paracetamol, "atom1_idx": 0, "atom2_idx": 7})
    assert not res.success and res.error_code in ("atoms_not_bonded", "invalid_bond")
    res = run_skill("break_bond", {"smiles": paracetamol, "atom1_idx": 0, "atom2_idx": 99})
    assert not res.success and "99" in res.error


def test_validate_and_repair_reaction(aspirin):
    good = run_skill("validate_reaction", {"reaction_smiles": f"CC(=O)O.O=C(O)c1ccccc1O>>{aspirin}"})
    assert good.success and good.data["is_valid"] is True
    for key in ("verdict", "issues", "byproducts", "atom_balance", "feasibility_assessment"):
        assert key in good.data
    bad = run_skill("validate_reaction", {"reaction_smiles": f"C.O=C(O)c1ccccc1O>>{aspirin}"})
    assert bad.success and bad.data["is_valid"] is False
    assert bad.data["issues"] and all("code" in i and "message" in i for i in bad.data["issues"])
    rep = run_skill(
        "repair_reaction", {"reaction_smiles": f"C.O=C(O)c1ccccc1O>>{aspirin}", "issues": bad.data["issues"]}
    )
    assert rep.success
    for key in ("repaired_smiles", "repair_actions", "changes_made"):
        assert key in rep.data
    rep = run_skill(
        "repair_reaction", {"reaction_smiles": f"C.O=C(O)c1ccccc1O>>{aspirin}", "issues": "atom_balance"}
    )
    assert rep.success


def test_validate_reaction_rejects_non_reactions():
    res = run_skill("validate_reaction", {"reaction_smiles": "CCO"})
    assert not res.success and res.error_code == "invalid_reaction"


@pytest.mark.parametrize(
    "name", ["analyze_scaffold", "analyze_selectivity", "plan_ring_strategy", "decide_strategy"]
)
def test_strategy_skills(name, aspirin):
    res = run_skill(name, {"smiles": aspirin})
    assert res.success, res.error
    assert res.data
    bad = run_skill(name, {"smiles": "C1CC"})
    assert not res.data.get("error") and not bad.success and bad.error_code == "invalid_smiles"


def test_decide_strategy_recommends_a_known_strategy(aspirin):
    res = run_skill("decide_strategy", {"smiles": aspirin})
    assert res.data["recommended_strategy"] in ("linear", "convergent", "mixed")
    assert set(res.data["scores"]) >= {"linear", "convergent"}
    assert res.data["rationale"]


def test_get_global_strategy_defaults_and_constraints(aspirin):
    res = run_skill("get_global_strategy", {"target_smiles": aspirin})
    assert res.success, res.error
    res2 = run_skill(
        "get_global_strategy",
        {"target_smiles": aspirin, "max_pg_operations": 0, "max_steps": 3, "constraints": {"avoid": ["Pd"]}},
    )
    assert res2.success and res2.data != res.data


@pytest.mark.parametrize(
    ("name", "args", "keys"),
    [
        # seed 000, "每个 Skill 的简要接口": the outputs each skill must carry
        ("analyze_scaffold", {"smiles": "O=C1CCc2ccccc2N1"}, ("ring_systems", "strategic_disconnections")),
        (
            "analyze_selectivity",
            {"smiles": "CC(=O)Oc1ccccc1O"},
            ("competing_groups", "conflicts", "protection_strategy"),
        ),
        ("plan_ring_strategy", {"smiles": "O=C1CCc2ccccc2N1"}, ("construction_order", "ring_systems")),
        (
            "decide_strategy",
            {"smiles": "CC(=O)Oc1ccccc1C(=O)O"},
            ("recommended_strategy", "scores", "rationale"),
        ),
        ("get_global_strategy", {"target_smiles": "CCO"}, ("pg_policy", "method_preferences")),
        ("break_bond", {"smiles": "CCO", "atom1_idx": 0, "atom2_idx": 1}, ("fragments", "reaction_smiles")),
        ("check_availability", {"smiles_list": ["CCO", "c1ccccc1"]}, ("precursors",)),
        (
            "validate_reaction",
            {"reaction_smiles": "CCO>>CC=O"},
            ("is_valid", "verdict", "issues", "byproducts"),
        ),
        (
            "repair_reaction",
            {"reaction_smiles": "CCO>>CC(=O)O", "issues": [{"code": "atom_balance", "message": "O missing"}]},
            ("repaired_smiles", "repair_actions"),
        ),
        ("propose_disconnection", {"target_smiles": "CC(=O)Nc1ccc(O)cc1"}, ("proposals",)),
    ],
)
def test_seed_output_fields(name, args, keys):
    res = run_skill(name, args)
    assert res.success, res.error
    assert set(res.to_dict()) == {"success", "data", "error"} and res.error == ""
    missing = [k for k in keys if k not in res.data]
    assert not missing, f"{name} lacks {missing}"


def test_ring_strategy_has_a_retro_ring_opening_plan():
    res = run_skill("plan_ring_strategy", {"smiles": "O=C1CCc2ccccc2N1"})
    systems = res.data["ring_systems"]
    assert systems and all("retro_ring_opening" in s and "ring_closures" in s for s in systems)
    assert systems[0]["ring_closures"][0]["method"] == "ring closure by lactamization"

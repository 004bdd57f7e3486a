"""The 6 exploration tools on the real engine: results, log lines and the errors the seed documents."""

from __future__ import annotations

import pytest

from molx_agent.errors import ChemistryError, RetroError, ValidationError
from molx_agent.interfaces.pipeline.exploration import EXPLORATION_TOOLS, run_tool, summarize
from molx_agent.interfaces.skills import run_skill

ESTER = "CC(=O)Cl.Oc1ccccc1>>CC(=O)Oc1ccccc1"


def test_the_six_tools_and_their_parameters():
    assert {t: (d.required_params, d.optional_params) for t, d in EXPLORATION_TOOLS.items()} == {
        "assess_feasibility": (("reaction_smiles",), ("reaction_class",)),
        "analyze_selectivity": (("smiles",), ()),
        "analyze_molecule": (("smiles",), ()),
        "validate_reaction": (("reaction_smiles",), ("reaction_class",)),
        "check_availability": (("smiles_list",), ()),
        "recommend_protecting_groups": (("functional_groups",), ()),
    }


@pytest.mark.parametrize(
    ("tool", "params", "facts"),
    [
        ("assess_feasibility", {"reaction_smiles": ESTER}, ["feasibility=", "confidence="]),
        ("analyze_selectivity", {"smiles": "CC(=O)Oc1ccccc1C(=O)O"}, ["n_conflicts=", "competing_groups="]),
        ("analyze_molecule", {"smiles": "CCO"}, ["canonical_smiles=CCO", "MW=46.", "sa_score="]),
        ("validate_reaction", {"reaction_smiles": ESTER}, ["is_valid=True", "verdict=valid"]),
        ("check_availability", {"smiles_list": '["CCO", "c1ccccc1"]'}, ["available=2/2"]),
        ("recommend_protecting_groups", {"functional_groups": "hydroxyl, amine"}, ["hydroxyl->", "amine->"]),
    ],
)
def test_each_tool_runs_and_logs_its_key_facts(tool, params, facts):
    result = run_tool(tool, params)
    line = summarize(tool, result)
    assert line.startswith(f"[{tool}] ") and not line.endswith("] ok")
    for fact in facts:
        assert fact in line, line


def test_assess_feasibility_confidence_is_capped():
    assert run_tool("assess_feasibility", {"reaction_smiles": ESTER})["confidence"] <= 0.85


@pytest.mark.parametrize(
    ("tool", "params"),
    [
        ("assess_feasibility", {"reaction_smiles": "A>>B"}),
        ("validate_reaction", {"reaction_smiles": "CC(>>CC"}),
        ("analyze_molecule", {"smiles": "C1CC"}),
        ("analyze_selectivity", {"smiles": "xyz"}),
    ],
)
def test_bad_smiles_is_a_chemistry_error_failed_to_parse(tool, params):
    with pytest.raises(ChemistryError) as err:
        run_tool(tool, params)
    assert err.value.code == "invalid_smiles" and err.value.message.startswith("Failed to parse SMILES")


def test_malformed_functional_group_list_is_a_clear_error():
    with pytest.raises(ValidationError) as err:
        run_tool("recommend_protecting_groups", {"functional_groups": '["hydroxyl"'})
    assert err.value.code == "invalid_exploration_params" and "JSON array" in err.value.message
    with pytest.raises(RetroError):
        run_tool("recommend_protecting_groups", {"functional_groups": 3})


@pytest.mark.parametrize("skill", ["validate_reaction", "repair_reaction"])
def test_reaction_skills_word_a_bad_smiles_as_the_seed_does(skill):
    args = {"reaction_smiles": "A.CCO>>CC=O"}
    if skill == "repair_reaction":
        args["issues"] = ["atom_balance"]
    res = run_skill(skill, args)
    assert not res.success and res.error_code == "invalid_smiles"
    assert res.error.startswith("Failed to parse SMILES: 'A'")
    assert res.data["error_details"]["error_type"] == "ChemistryError"

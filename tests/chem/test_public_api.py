"""The stable public API of molx_agent.chem (issue 3, part 9)."""

from __future__ import annotations

import pytest


def test_public_names_import():
    from molx_agent.chem import (  # noqa: F401
        analyze_molecule,
        break_bond,
        check_atom_balance,
        compute_cs_score,
        suggest_capping,
        validate_forward,
        validate_reaction,
    )

    assert callable(break_bond) and callable(suggest_capping)


def test_unknown_name_raises_attribute_error():
    import molx_agent.chem as chem

    with pytest.raises(AttributeError):
        chem.no_such_function  # noqa: B018
    assert "validate_reaction" in dir(chem)


#: The seed's chemistry functions, module by module (seed 001, section 3: M0-M8).
SEED_FUNCTIONS = {
    "utils": ["parse_mol", "canonical", "validate_smiles", "smarts_match", "tanimoto", "mol_formula_counter",
              "load_template"],
    "mol_info": ["analyze_molecule", "match_known_scaffolds"],
    "fg_detect": ["detect_functional_groups", "detect_reactive_sites", "detect_protecting_groups",
                  "get_fg_reaction_mapping"],
    "template_scan": ["scan_applicable_reactions", "find_disconnectable_bonds"],
    "bond_break": ["execute_disconnection", "execute_fgi", "execute_operations", "preview_disconnections",
                   "try_retro_template", "resolve_template_ids"],
    "forward_validate": ["validate_forward"],
    "atom_balance": ["check_atom_balance"],
    "cs_score": ["compute_cs_score", "classify_complexity", "score_progress", "batch_score_progress"],
    "fg_warnings": ["check_fg_conflicts", "check_reaction_compatibility", "suggest_protection_needs",
                    "check_deprotection_safety"],
    "smart_cap": ["suggest_capping", "custom_cap"],
}


@pytest.mark.parametrize("module", sorted(SEED_FUNCTIONS))
def test_every_seed_function_is_exported_from_its_module_and_the_package(module):
    import importlib

    import molx_agent.chem as chem

    mod = importlib.import_module(f"molx_agent.chem.{module}")
    for name in SEED_FUNCTIONS[module]:
        assert callable(getattr(mod, name)), name
        assert getattr(chem, name) is getattr(mod, name), name
        assert name in chem.__all__


def test_analyze_molecule_and_validate_reaction_return_the_documented_keys(aspirin):
    from molx_agent.chem import analyze_molecule, validate_reaction

    info = analyze_molecule(aspirin)
    assert {"canonical_smiles", "molecular_weight", "sa_score", "cs_score", "classification", "functional_groups",
            "protecting_groups", "atom_bond_map"} <= set(info)
    assert "strategic_bonds" in info["atom_bond_map"]
    res = validate_reaction("[CH3:1][C:2](=[O:3])Cl.[NH2:4]c1ccc(O)cc1>CCN(CC)CC>[CH3:1][C:2](=[O:3])[NH:4]c1ccc(O)cc1")
    assert {"is_valid", "verdict", "issues", "byproducts", "atom_balance", "feasibility_assessment"} <= set(res)
    assert res["is_valid"] and all({"code", "message"} <= set(i) for i in res["issues"])


def test_bad_input_raises_with_code_and_value_and_rdkit_stays_silent(capfd):
    from molx_agent.chem import (
        analyze_molecule,
        break_bond,
        check_atom_balance,
        compute_cs_score,
        suggest_capping,
        validate_forward,
        validate_reaction,
    )
    from molx_agent.errors import ChemistryError, ValidationError

    calls = [
        (analyze_molecule, ("c1cccc1",), "invalid_smiles", "c1cccc1"),
        (analyze_molecule, ("C(C)(C)(C)(C)C",), "invalid_smiles", "C(C)(C)(C)(C)C"),
        (analyze_molecule, ("",), "invalid_smiles", ""),
        (compute_cs_score, ("C1CC",), "invalid_smiles", "C1CC"),
        (validate_reaction, ("CC(=O)Cl.c1cccc1N>>CC(=O)Nc1ccccc1",), "invalid_smiles", "c1cccc1N"),
        (validate_reaction, ("CCO",), "invalid_reaction", "CCO"),
        (validate_reaction, ("",), "empty_input", ""),
        (check_atom_balance, (["CC[N+](C)(C)(C)C"], "CC"), "invalid_smiles", "CC[N+](C)(C)(C)C"),
        (validate_forward, (["CCO"], "c1cccc1"), "invalid_smiles", "c1cccc1"),
        (break_bond, ("CCO", 0, 9), "atom_index_out_of_range", 9),
        (break_bond, ("CCO", 0, 2), "atoms_not_bonded", [0, 2]),
        (suggest_capping, ("CCO", (0, 2)), "atoms_not_bonded", [0, 2]),
        (suggest_capping, ("Cc1cccc1", (0, 1)), "invalid_smiles", "Cc1cccc1"),
    ]
    for fn, args, code, value in calls:
        with pytest.raises((ChemistryError, ValidationError)) as exc:
            fn(*args)
        assert (exc.value.code, exc.value.value) == (code, value), (fn.__name__, args)
    captured = capfd.readouterr()
    assert captured.err == "" and captured.out == ""

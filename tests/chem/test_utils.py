"""M0 helpers: parsing, canonical SMILES, SMARTS, similarity, formulas, quiet RDKit."""

from __future__ import annotations

import pytest
from rdkit import Chem

from molx_agent.chem.utils import (
    canonical,
    formula_string,
    load_template,
    map_free_smiles,
    mol_formula_counter,
    parse_mol,
    quiet_rdkit,
    smarts_match,
    tanimoto,
    validate_smiles,
)
from molx_agent.errors import ChemistryError


def test_parse_mol_returns_molecule(aspirin):
    assert parse_mol(aspirin).GetNumHeavyAtoms() == 13


@pytest.mark.parametrize("bad", ["", "   ", "C1CC", "c1cccc1", "C(C)(C)(C)(C)C", "notasmiles", "CC>>CO"])
def test_parse_mol_bad_input_raises_with_code_and_value(bad):
    with pytest.raises(ChemistryError) as exc:
        parse_mol(bad)
    assert exc.value.code == "invalid_smiles"
    assert exc.value.value == bad


@pytest.mark.parametrize("text", ["CC O", "c1ccccc1 CCN", "CCO\nCCN", "CC\tO", "not a smiles"])
def test_parse_mol_refuses_whitespace_inside_instead_of_truncating(text):
    with pytest.raises(ChemistryError) as exc:
        parse_mol(text)
    assert exc.value.code == "smiles_contains_whitespace"
    assert "whitespace" in exc.value.message


def test_parse_mol_ignores_surrounding_whitespace():
    assert parse_mol("  CCO\n").GetNumAtoms() == 3


def test_parse_mol_size_limits(monkeypatch):
    from molx_agent.config import reset_settings_cache

    monkeypatch.setenv("MOLX_MAX_HEAVY_ATOMS", "50")
    monkeypatch.setenv("MOLX_MAX_SMILES_CHARS", "200")
    reset_settings_cache()
    assert parse_mol("C" * 50).GetNumHeavyAtoms() == 50
    with pytest.raises(ChemistryError) as exc:
        parse_mol("C" * 51)
    assert exc.value.code == "molecule_too_large" and "51 heavy atoms" in exc.value.message
    with pytest.raises(ChemistryError) as exc:
        parse_mol("C" * 201)
    assert exc.value.code == "smiles_too_long"


def test_parse_mol_keeps_rdkit_quiet(capfd):
    with pytest.raises(ChemistryError):
        parse_mol("C1CC(")
    out, err = capfd.readouterr()
    assert "SMILES Parse Error" not in err and "SMILES Parse Error" not in out


def test_quiet_rdkit_silences_direct_rdkit_calls(capfd):
    with quiet_rdkit():
        assert Chem.MolFromSmiles("c1cccc1") is None
    assert "Can't kekulize" not in capfd.readouterr().err


def test_canonical_removes_atom_maps():
    assert canonical("[CH3:1][OH:2]") == "CO"
    assert canonical("OCC") == canonical("CCO") == "CCO"


# a USPTO-50K validation reactant: trans-4-(methylamino)cyclohexanol, atom-mapped as the dataset records it
MAPPED_TRANS = "[CH3:14][NH:15][C@H:16]1[CH2:17][CH2:18][C@H:19]([OH:20])[CH2:21][CH2:22]1"


def test_map_free_smiles_is_the_canonical_smiles_of_the_unmapped_molecule():
    mol = Chem.MolFromSmiles(MAPPED_TRANS)
    naive = Chem.MolToSmiles(Chem.Mol(mol))  # what stripping maps and writing gave
    plain = Chem.MolFromSmiles(MAPPED_TRANS)
    for atom in plain.GetAtoms():
        atom.SetAtomMapNum(0)
    stripped_then_written = Chem.MolToSmiles(plain)
    # RDKit's own behaviour that this guards against: read with maps, written without, the ring cis/trans comes out
    # in a non-canonical form (the same molecule: same InChI)
    assert stripped_then_written == "CN[C@@H]1CC[C@@H](O)CC1" != Chem.MolToSmiles(Chem.MolFromSmiles(stripped_then_written))
    assert ":" in naive
    out = map_free_smiles(mol)
    assert out == "CN[C@H]1CC[C@H](O)CC1" == Chem.MolToSmiles(Chem.MolFromSmiles(out))  # a fixed point
    assert Chem.MolToInchi(Chem.MolFromSmiles(out)) == Chem.MolToInchi(Chem.MolFromSmiles(stripped_then_written))
    assert canonical(MAPPED_TRANS) == canonical("CN[C@@H]1CC[C@@H](O)CC1") == out
    assert map_free_smiles(Chem.MolFromSmiles("OCC")) == "CCO"  # no maps: written as it is


def test_validate_smiles_never_raises():
    assert validate_smiles("CCO") == {"valid": True, "smiles": "CCO", "canonical_smiles": "CCO", "error": None}
    bad = validate_smiles("C1CC")
    assert bad["valid"] is False and bad["error"]


def test_smarts_match_and_bad_smarts(aspirin):
    assert len(smarts_match(aspirin, "[CX3](=O)[OX2H1]")) == 1
    with pytest.raises(ChemistryError) as exc:
        smarts_match(aspirin, "[C")
    assert exc.value.code == "invalid_smarts"


def test_tanimoto_bounds(aspirin, paracetamol):
    assert tanimoto(aspirin, aspirin) == pytest.approx(1.0)
    assert 0.0 < tanimoto(aspirin, paracetamol) < 0.5


def test_formula_counter_counts_implicit_hydrogens(paracetamol):
    counts = mol_formula_counter(paracetamol)
    assert counts == {"C": 8, "H": 9, "N": 1, "O": 2}
    assert formula_string(counts) == "C8H9NO2"
    assert "H" not in mol_formula_counter(paracetamol, include_h=False)


def test_load_template_known_and_unknown():
    tpl = load_template("G02_amide_retro")
    assert tpl["id"] == "G02_amide_retro" and tpl["retro_smarts"]
    with pytest.raises(ChemistryError) as exc:
        load_template("G999_nothing")
    assert exc.value.code == "unknown_template" and exc.value.value == "G999_nothing"

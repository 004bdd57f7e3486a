"""The atom/bond map: every bond described, strategic bonds ranked as a chemist would."""

from __future__ import annotations

import pytest
from rdkit import Chem

from molx_agent.chem.atom_bond_map import build_atom_bond_map, chemical_label
from molx_agent.errors import ChemistryError

BOND_KEYS = {"bond_idx", "atoms", "bond_type", "in_ring", "strategic_priority", "chemical_label", "heuristic_score",
             "n_alternatives", "reaction_types", "smart_capping"}
IMATINIB = "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"


def test_every_bond_is_described(aspirin):
    abm = build_atom_bond_map(aspirin)
    mol = Chem.MolFromSmiles(aspirin)
    assert [b["bond_idx"] for b in abm["bonds"]] == list(range(mol.GetNumBonds()))
    for b in abm["bonds"]:
        assert BOND_KEYS <= set(b)
        bond = mol.GetBondWithIdx(b["bond_idx"])
        assert b["atoms"] == [bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()]
        assert 0.0 <= b["strategic_priority"] <= 1.0 and 0.0 <= b["heuristic_score"] <= 1.0
        assert b["n_alternatives"] == len(b["template_ids"])


def test_aspirin_ester_bond_ranks_first(aspirin):
    top = build_atom_bond_map(aspirin)["strategic_bonds"][0]
    assert sorted(top["atoms"]) == [1, 3]
    assert top["chemical_label"] == "ester C(=O)-O"
    assert "Esterification (Fischer/Steglich)" in top["reaction_types"]
    assert top["smart_capping"][0]["reaction_type"] == "Ester hydrolysis"


def test_paracetamol_amide_bond_ranks_first(paracetamol):
    abm = build_atom_bond_map(paracetamol)
    top = abm["strategic_bonds"][0]
    assert sorted(top["atoms"]) == [1, 3]
    assert top["chemical_label"] == "amide C(=O)-N"
    assert "Amide Bond Formation" in top["reaction_types"]
    assert "amide" in abm["retro_guidance"]


def test_strategic_bonds_sorted_and_exclude_generic_cc():
    abm = build_atom_bond_map(IMATINIB)
    prios = [b["strategic_priority"] for b in abm["strategic_bonds"]]
    assert prios == sorted(prios, reverse=True)
    labels = [b["chemical_label"] for b in abm["strategic_bonds"][:5]]
    assert labels[0] == "amide C(=O)-N"
    assert "biaryl Ar-Ar" in labels and "aryl amine Ar-N" in labels
    for b in abm["strategic_bonds"]:
        assert b["template_ids"] or any(c["reaction_type"] != "Grignard" for c in b["smart_capping"])


def test_seed_paracetamol_bond_has_no_aryl_amide_coupling(paracetamol):
    # the N-aryl bond of an anilide is not a Buchwald/SNAr/Chan-Lam amine bond
    bond = build_atom_bond_map(paracetamol)["bonds"][3]
    assert bond["atoms"] == [3, 4]
    assert bond["reaction_types"] == []


def test_salts_and_single_atoms():
    abm = build_atom_bond_map("CC(=O)O.[Na+]")
    assert len(abm["bonds"]) == 3
    assert all(0 <= b["fragment_balance"] <= 1 for b in abm["bonds"])
    empty = build_atom_bond_map("C")
    assert empty["bonds"] == [] and empty["strategic_bonds"] == []
    assert "starting material" in empty["retro_guidance"]


def test_accepts_a_mol(aspirin):
    assert build_atom_bond_map(Chem.MolFromSmiles(aspirin)) == build_atom_bond_map(aspirin)


def test_bad_smiles_raises():
    with pytest.raises(ChemistryError) as exc:
        build_atom_bond_map("C1CC(")
    assert exc.value.code == "invalid_smiles"


@pytest.mark.parametrize(
    ("smiles", "atoms", "label"),
    [
        ("Cc1ccc(-c2ccccc2)cc1", (4, 5), "biaryl Ar-Ar"),
        ("CS(=O)(=O)NC", (1, 4), "sulfonamide S-N"),
        ("CNC(=O)OC", (1, 2), "urea/carbamate C(=O)-N"),
        ("c1ccccc1OC", (5, 6), "aryl ether Ar-O"),
        ("CN(C)Cc1ccccc1", (1, 3), "amine N-C(sp3)"),
        ("CCO", (1, 2), "alcohol C-OH"),
        ("C=CC", (0, 1), "alkene C=C"),
        ("BrCC", (0, 1), "alkyl halide C-Br"),
    ],
)
def test_chemical_labels(smiles, atoms, label):
    mol = Chem.MolFromSmiles(smiles)
    assert chemical_label(mol.GetBondBetweenAtoms(*atoms)) == label


def test_a_bond_names_the_template_of_higher_priority_first():
    """Mefenamic acid's Ar-N bond to the benzoic acid: the copper amination of the 2-halobenzoic acid (priority 1)
    is named before the broad Buchwald-Hartwig and S_N_Ar templates that also break it."""
    amap = build_atom_bond_map("Cc1cccc(Nc2ccccc2C(=O)O)c1C")
    bond = next(b for b in amap["bonds"] if sorted(b["atoms"]) == [6, 7])
    assert bond["reaction_types"][0].startswith("Ullmann-Goldberg Amination of a 2-Halobenzoic Acid")
    assert "Buchwald-Hartwig Amination" in bond["reaction_types"]
    # the other Ar-N bond (to the dimethylphenyl ring) has no ortho acid: Buchwald-Hartwig first
    other = next(b for b in amap["bonds"] if sorted(b["atoms"]) == [5, 6])
    assert not any(n.startswith("Ullmann-Goldberg") for n in other["reaction_types"])

"""Environment-based atom alignment: pairing, bond changes and topology violations."""

from __future__ import annotations

from rdkit import Chem

from molx_agent.chem.alignment import align_reaction


def _al(prec, prod):
    return align_reaction(Chem.MolFromSmiles(prec), Chem.MolFromSmiles(prod))


def test_amide_coupling_forms_one_bond():
    al = _al("CC(=O)O.Nc1ccc(O)cc1", "CC(=O)Nc1ccc(O)cc1")
    assert al.source == "environment"
    assert len(al.formed_bonds) == 1 and not al.violations
    assert al.contributions == [3, 8] and al.unmapped_product_atoms == []
    assert al.conserved_bond_fraction > 0.9


def test_atom_maps_are_used_when_complete():
    al = _al("[CH3:1][C:2](=[O:3])[OH:4].[NH2:5][CH3:6]", "[CH3:1][C:2](=[O:3])[NH:5][CH3:6]")
    assert al.source == "atom_maps" and al.mapping == {0: 0, 1: 1, 2: 2, 3: 4, 4: 5}


def test_ester_reduction_maps_the_carbinol_to_the_carbonyl():
    al = _al("CCOC(=O)c1ccccc1", "OCc1ccccc1")
    assert not al.violations  # the CH2OH carbon is the former C=O, not the ethyl CH2


def test_methyl_stolen_from_a_boc_group_is_flagged():
    al = _al("CC(C)(C)OC(=O)NCc1ccccc1", "NCc1ccc(C)cc1")
    codes = {v["code"] for v in al.violations}
    assert codes & {"unactivated_cc_cleavage", "intramolecular_migration", "carbon_transplant"}


def test_unmapped_atoms_reported():
    al = _al("c1ccccc1", "Clc1ccccc1")
    assert len(al.unmapped_product_atoms) == 1
    assert al.to_dict()["n_mapped"] == 6

from __future__ import annotations

import threading

from rdkit import Chem

from molx_agent.retro.fast_rdkit import fast_atom_iteration


def _signature(mol):
    return ([(a.GetIdx(), a.GetSymbol()) for a in mol.GetAtoms()],
            [(b.GetBeginAtomIdx(), b.GetEndAtomIdx(), str(b.GetBondType())) for b in mol.GetBonds()])


def test_same_atoms_and_bonds_inside_and_rdkit_restored_after():
    mol = Chem.MolFromSmiles("CC(=O)Nc1ccc(O)cc1")
    original = Chem.Mol.GetAtoms
    before = _signature(mol)
    with fast_atom_iteration():
        assert Chem.Mol.GetAtoms is not original
        assert _signature(mol) == before
        atoms = mol.GetAtoms()
        assert len(atoms) == mol.GetNumAtoms() and atoms[3].GetSymbol() == "N"
        assert next(atoms).GetIdx() == 0 and next(atoms).GetIdx() == 1  # next() works as on RDKit's sequence
        atoms[0].SetAtomMapNum(7)  # the real atom objects, not copies
    assert mol.GetAtomWithIdx(0).GetAtomMapNum() == 7
    assert Chem.Mol.GetAtoms is original
    assert _signature(mol) == before


def test_nested_and_concurrent_blocks_restore_only_when_the_last_ends():
    original = Chem.Mol.GetAtoms
    with fast_atom_iteration():
        with fast_atom_iteration():
            pass
        assert Chem.Mol.GetAtoms is not original  # the outer block is still active
    assert Chem.Mol.GetAtoms is original
    errors: list[BaseException] = []

    def work():
        try:
            for _ in range(50):
                with fast_atom_iteration():
                    assert len(list(Chem.MolFromSmiles("c1ccccc1O").GetAtoms())) == 7
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert Chem.Mol.GetAtoms is original


def test_memoised_outcome_canonicalisation_gives_rdchirals_answers_and_is_scoped():
    import rdchiral.main as rdchiral_main

    from molx_agent.retro.fast_rdkit import memoised_outcome_canonicalisation

    original = rdchiral_main.canonicalize_outcome_smiles
    inputs = ["OC(=O)c1ccccc1.NCC", "CC(=O)Nc1ccc(O)cc1", "C1CC1.[Na+]", "not a smiles"]
    expected = [original(s) for s in inputs]
    with memoised_outcome_canonicalisation():
        patched = rdchiral_main.canonicalize_outcome_smiles
        assert patched is not original
        with memoised_outcome_canonicalisation():  # nested: the same memo
            assert rdchiral_main.canonicalize_outcome_smiles is patched
        assert [patched(s) for s in inputs] == expected
        assert [patched(s) for s in inputs] == expected  # second time from the memo
        assert patched.cache_info().hits == len(inputs)
    assert rdchiral_main.canonicalize_outcome_smiles is original
    assert expected[0] == "CCN.O=C(O)c1ccccc1" and expected[3] is None

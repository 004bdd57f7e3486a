from __future__ import annotations

import threading

import numpy as np
import pytest
from rdkit import Chem
from threadpoolctl import threadpool_info, threadpool_limits

from molx_agent.retro.fast_rdkit import blas_one_thread, fast_atom_iteration
from molx_agent.retro.policy import TemplatePolicy


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


def _blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_blas_one_thread_limits_blas_inside_nested_blocks_and_restores_after():
    if not _blas_threads():
        pytest.skip("numpy loaded no BLAS library threadpoolctl knows")
    with threadpool_limits(limits=2, user_api="blas"):  # two threads whatever the machine has
        assert set(_blas_threads()) == {2}
        with blas_one_thread():
            assert set(_blas_threads()) == {1}
            with blas_one_thread():
                assert set(_blas_threads()) == {1}
            assert set(_blas_threads()) == {1}  # the outer block still holds the limit
        assert set(_blas_threads()) == {2}


def test_policy_matrix_product_runs_with_one_blas_thread():
    if not _blas_threads():
        pytest.skip("numpy loaded no BLAS library threadpoolctl knows")
    seen: list[list[int]] = []

    class Spy(np.ndarray):
        def __rmatmul__(self, other):
            seen.append(_blas_threads())
            return np.asarray(other) @ np.asarray(self)

    rng = np.random.default_rng(0)
    w2 = rng.standard_normal((8, 5)).astype(np.float32)
    policy = TemplatePolicy(w1=rng.standard_normal((16, 8)).astype(np.float32), b1=np.zeros(8, np.float32),
                            w2=w2.view(Spy), b2=np.zeros(5, np.float32))
    with threadpool_limits(limits=2, user_api="blas"):  # two threads whatever the machine has
        logits = np.asarray(policy.logits([1, 3, 5]))
    h = policy.w1[[1, 3, 5]].sum(axis=0)
    h = np.where(h > 0, h, np.expm1(np.minimum(h, 0)))
    assert seen and set(seen[0]) == {1}
    assert np.allclose(logits, h @ w2)

"""Faster ``Mol.GetAtoms()`` / ``Mol.GetBonds()`` while the retrosynthesis engine runs.

RDKit (boost build) replaces ``Mol.GetAtoms`` and ``Mol.GetBonds`` with a pure-Python sequence
(``rdkit.Chem._GetRDKitObjIterator``, see RDKit GitHub issue #6208) whose iteration calls ``len()``
and therefore ``GetNumAtoms()`` once per item.  rdchiral iterates over atoms and bonds many times per
template application, so this wrapper is about a fifth of a single-step prediction's CPU time.

:func:`fast_atom_iteration` installs, for the duration of a ``with`` block, a version that builds the
sequence once (a list of the same atom/bond objects, which also supports ``next()`` like RDKit's
sequence) and restores RDKit's own methods when the last concurrent block ends.  Reading code sees the
same atoms in the same order; only the "size changed during iteration" check of RDKit's wrapper is
absent, which the engine (and rdchiral) never rely on: they do not add or remove atoms while iterating.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any

from rdkit.Chem import rdchem

from molx_agent.chem.utils import ScopedPatch as _ScopedPatch


class _Sequence(list):  # type: ignore[type-arg]
    """A list that can also be advanced with ``next()`` (as RDKit's atom sequence can)."""

    __slots__ = ("_pos",)

    def __next__(self) -> Any:
        pos = getattr(self, "_pos", 0)
        if pos >= len(self):
            raise StopIteration
        self._pos = pos + 1
        return self[pos]


def _atoms(self: rdchem.Mol) -> _Sequence:
    get = self.GetAtomWithIdx
    return _Sequence([get(i) for i in range(self.GetNumAtoms())])


def _bonds(self: rdchem.Mol) -> _Sequence:
    get = self.GetBondWithIdx
    return _Sequence([get(i) for i in range(self.GetNumBonds())])


def _install_fast_iteration() -> tuple[Any, Any]:
    saved = (rdchem.Mol.GetAtoms, rdchem.Mol.GetBonds)
    rdchem.Mol.GetAtoms = _atoms
    rdchem.Mol.GetBonds = _bonds
    return saved


def _restore_iteration(saved: tuple[Any, Any]) -> None:
    rdchem.Mol.GetAtoms, rdchem.Mol.GetBonds = saved


_fast_iteration = _ScopedPatch(_install_fast_iteration, _restore_iteration)


def fast_atom_iteration() -> contextlib.AbstractContextManager[None]:
    """Within the block, ``Mol.GetAtoms()``/``GetBonds()`` return ready-built lists (re-entrant, thread-safe)."""
    return _fast_iteration()


#: Outcomes remembered per outermost :func:`memoised_outcome_canonicalisation` block.
CANONICALISATION_MEMO_SIZE = 4096


def _canonicalisation_memo_of(original: Any) -> Any:
    @functools.lru_cache(maxsize=CANONICALISATION_MEMO_SIZE)
    def memo(smiles: str, ensure: bool = True) -> str | None:
        return original(smiles, ensure)

    return memo


_canonicalisation_memo = _ScopedPatch.attribute("rdchiral.main", "canonicalize_outcome_smiles",
                                                _canonicalisation_memo_of)


def memoised_outcome_canonicalisation() -> contextlib.AbstractContextManager[None]:
    """Within the block, rdchiral's final SMILES -> molecule -> SMILES round trip is memoised.

    ``rdchiral.main.canonicalize_outcome_smiles`` depends on its argument alone, and different templates
    often produce the same outcome for one product (about a quarter of the calls repeat a SMILES), so
    its result is cached (bounded LRU, one cache per outermost block).  Re-entrant and thread-safe;
    rdchiral's own function is restored when the last block ends.
    """
    return _canonicalisation_memo()


def _install_blas_one_thread() -> Any:
    controller = _blas_controller()
    if controller is None:
        return None
    return controller.limit(limits=1, user_api="blas")


def _restore_blas(limiter: Any) -> None:
    if limiter is not None:
        limiter.restore_original_limits()


@functools.lru_cache(maxsize=1)
def _blas_controller() -> Any:
    """threadpoolctl's view of the BLAS libraries loaded in this process (found once); ``None`` without it."""
    try:
        from threadpoolctl import ThreadpoolController
    except ImportError:  # pragma: no cover - a declared dependency; without it BLAS keeps its own threads
        return None
    return ThreadpoolController()


_blas_one_thread = _ScopedPatch(_install_blas_one_thread, _restore_blas)


def blas_one_thread() -> contextlib.AbstractContextManager[None]:
    """Within the block, BLAS (numpy's OpenBLAS) runs its matrix products on the calling thread only.

    The policy's matrix-vector products take well under a millisecond on one thread, but a threaded OpenBLAS
    then leaves its worker threads spinning for a long while after every call: measured on 100 USPTO-50K
    validation products, a prediction cost 196 ms of process CPU with two BLAS threads and 115 ms with one, for
    the same 112 ms of wall time -- CPU the spinning thread takes from a second search or benchmark worker.
    Re-entrant and thread-safe (:class:`_ScopedPatch`); BLAS's own limit is restored when the last block ends.
    """
    return _blas_one_thread()


__all__ = ["blas_one_thread", "fast_atom_iteration", "memoised_outcome_canonicalisation"]

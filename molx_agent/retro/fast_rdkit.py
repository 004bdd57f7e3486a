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
import threading
from collections.abc import Iterator
from typing import Any

from rdkit.Chem import rdchem


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


_lock = threading.Lock()
_depth = 0
_saved: tuple[Any, Any] | None = None


@contextlib.contextmanager
def fast_atom_iteration() -> Iterator[None]:
    """Within the block, ``Mol.GetAtoms()``/``GetBonds()`` return ready-built lists (re-entrant, thread-safe)."""
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = (rdchem.Mol.GetAtoms, rdchem.Mol.GetBonds)
            rdchem.Mol.GetAtoms = _atoms
            rdchem.Mol.GetBonds = _bonds
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _saved is not None:
                rdchem.Mol.GetAtoms, rdchem.Mol.GetBonds = _saved
                _saved = None


_canon_lock = threading.Lock()
_canon_depth = 0
_canon_saved: Any = None


@contextlib.contextmanager
def memoised_outcome_canonicalisation(maxsize: int = 4096) -> Iterator[None]:
    """Within the block, rdchiral's final SMILES -> molecule -> SMILES round trip is memoised.

    ``rdchiral.main.canonicalize_outcome_smiles`` depends on its argument alone, and different templates
    often produce the same outcome for one product (about a quarter of the calls repeat a SMILES), so
    its result is cached (bounded LRU, one cache per outermost block).  Re-entrant and thread-safe;
    rdchiral's own function is restored when the last block ends.
    """
    global _canon_depth, _canon_saved
    import rdchiral.main as rdchiral_main

    with _canon_lock:
        if _canon_depth == 0:
            _canon_saved = rdchiral_main.canonicalize_outcome_smiles
            original = _canon_saved

            @functools.lru_cache(maxsize=maxsize)
            def _memo(smiles: str, ensure: bool = True) -> str | None:
                return original(smiles, ensure)

            rdchiral_main.canonicalize_outcome_smiles = _memo
        _canon_depth += 1
    try:
        yield
    finally:
        with _canon_lock:
            _canon_depth -= 1
            if _canon_depth == 0 and _canon_saved is not None:
                rdchiral_main.canonicalize_outcome_smiles = _canon_saved
                _canon_saved = None


__all__ = ["fast_atom_iteration", "memoised_outcome_canonicalisation"]

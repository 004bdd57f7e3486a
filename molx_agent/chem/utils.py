"""M0: RDKit helpers shared by every chemistry module (seed 001, ``_rdkit_utils``).

Plain verb_noun functions over SMILES strings or RDKit ``Mol`` objects:

- :func:`parse_mol` turns a SMILES into a ``Mol`` or raises
  :class:`~molx_agent.errors.ChemistryError` (``code="invalid_smiles"``, ``value=smiles``);
- :func:`canonical`, :func:`validate_smiles`, :func:`smarts_match`, :func:`tanimoto`,
  :func:`mol_formula_counter`, :func:`load_template`, :func:`load_data`;
- :func:`quiet_rdkit`, a context manager that keeps RDKit's C++ log off the user's terminal.

Compiled SMARTS patterns and parsed packaged data are cached; parsed molecules handed out by
:func:`cached_mol` are shared and must be treated as read-only.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import lru_cache
from importlib import resources
from typing import Any

from rdkit import Chem, DataStructs, rdBase
from rdkit.Chem import rdFingerprintGenerator

from molx_agent.errors import ChemistryError
from molx_agent.limits import check_heavy_atoms, check_smiles_text

MolLike = str | Chem.Mol


@contextmanager
def quiet_rdkit() -> Iterator[None]:
    """Silence RDKit's log (parse warnings, sanitisation errors) inside the block."""
    block = rdBase.BlockLogs()
    try:
        yield
    finally:
        del block


def parse_mol(smiles: str, *, sanitize: bool = True) -> Chem.Mol:
    """Parse ``smiles`` into a new RDKit ``Mol``.

    Raises ``ChemistryError(code="invalid_smiles", value=smiles)`` on empty or unparsable input;
    RDKit's own messages never reach the terminal.  The input rules of :mod:`molx_agent.limits` apply:
    whitespace inside the SMILES (``smiles_contains_whitespace``), too long a string (``smiles_too_long``),
    too many heavy atoms (``molecule_too_large``, checked before anything else touches the molecule).
    """
    if isinstance(smiles, Chem.Mol):
        return Chem.Mol(smiles)
    text = check_smiles_text(smiles)
    if ">" in text:
        raise ChemistryError(
            "invalid_smiles",
            f"{text!r} is a reaction SMILES, not a molecule",
            value=smiles,
            hint="pass one molecule, or use validate_reaction for reactions",
        )
    with quiet_rdkit():
        mol = Chem.MolFromSmiles(text, sanitize=sanitize)
    if mol is None or (mol.GetNumAtoms() == 0 and text not in ("[H][H]",)):
        raise ChemistryError(
            "invalid_smiles",
            f"cannot parse SMILES {text!r}",
            value=smiles,
            hint="check valences, aromaticity, brackets and ring-closure digits",
        )
    check_heavy_atoms(mol, value=text)
    return mol


@lru_cache(maxsize=8192)
def cached_mol(smiles: str) -> Chem.Mol:
    """Parsed molecule shared through a cache: read-only, never modify it."""
    return parse_mol(smiles)


def as_mol(mol_or_smiles: MolLike) -> Chem.Mol:
    """A ``Mol`` for a SMILES (cached, read-only) or the ``Mol`` itself."""
    if isinstance(mol_or_smiles, Chem.Mol):
        return mol_or_smiles
    if isinstance(mol_or_smiles, str):
        return cached_mol(mol_or_smiles.strip())
    raise ChemistryError(
        "invalid_smiles", f"expected a SMILES string, got {type(mol_or_smiles).__name__}", value=mol_or_smiles
    )


def strip_atom_maps(mol: Chem.Mol) -> Chem.Mol:
    """A copy of ``mol`` without atom-map numbers."""
    out = Chem.Mol(mol)
    for atom in out.GetAtoms():
        if atom.GetAtomMapNum():
            atom.SetAtomMapNum(0)
    return out


def map_free_mol(mol: Chem.Mol) -> Chem.Mol:
    """``mol`` without atom maps, as RDKit reads the same molecule from map-free SMILES (``mol`` itself when it
    carries no maps).

    RDKit's stereo perception, run when a SMILES is read, tells atoms apart by their map numbers.  A molecule read
    with maps and written without them can therefore keep a non-canonical form of ring cis/trans stereo: a
    trans-1,4-disubstituted cyclohexane may come out as ``[C@@H]...[C@@H]`` where its canonical SMILES reads
    ``[C@H]...[C@H]`` (the same molecule, the same InChI).  So a molecule with maps is written without them and read
    once more; should RDKit not read back what it wrote, the molecule itself without its maps is given.
    """
    if not any(atom.GetAtomMapNum() for atom in mol.GetAtoms()):
        return mol
    stripped = strip_atom_maps(mol)
    with rdBase.BlockLogs():
        again = Chem.MolFromSmiles(Chem.MolToSmiles(stripped))
    return again if again is not None else stripped


def map_free_smiles(mol: Chem.Mol, *, isomeric: bool = True) -> str:
    """Canonical SMILES of ``mol`` without atom maps: that of :func:`map_free_mol`, the same string whether ``mol``
    was read with atom maps or without."""
    return Chem.MolToSmiles(map_free_mol(mol), isomericSmiles=isomeric)


def combine_mols(mols: list[Chem.Mol] | tuple[Chem.Mol, ...]) -> Chem.Mol:
    """One molecule holding every molecule of ``mols`` (ring information re-perceived)."""
    out = mols[0]
    if len(mols) == 1:
        return out
    for m in mols[1:]:
        out = Chem.CombineMols(out, m)
    Chem.GetSymmSSSR(out)  # CombineMols leaves ring information uninitialised
    return out


def canonical(smiles: MolLike, *, remove_maps: bool = True, isomeric: bool = True) -> str:
    """Canonical SMILES of a molecule (atom maps removed unless ``remove_maps=False``)."""
    mol = as_mol(smiles)
    if remove_maps:
        return map_free_smiles(mol, isomeric=isomeric)
    return Chem.MolToSmiles(mol, isomericSmiles=isomeric)


def validate_smiles(smiles: str) -> dict[str, Any]:
    """Check a SMILES without raising: ``{valid, smiles, canonical_smiles, error}``."""
    try:
        mol = parse_mol(smiles)
    except ChemistryError as exc:
        return {"valid": False, "smiles": smiles, "canonical_smiles": None, "error": exc.message}
    return {"valid": True, "smiles": smiles, "canonical_smiles": canonical(mol), "error": None}


@lru_cache(maxsize=4096)
def compile_smarts(smarts: str) -> Chem.Mol:
    """Compiled SMARTS pattern (cached); ``ChemistryError(code="invalid_smarts")`` when bad."""
    with quiet_rdkit():
        patt = Chem.MolFromSmarts(smarts) if isinstance(smarts, str) and smarts.strip() else None
    if patt is None:
        raise ChemistryError("invalid_smarts", f"cannot parse SMARTS {smarts!r}", value=smarts)
    return patt


def smarts_match(mol_or_smiles: MolLike, smarts: str, *, unique: bool = True) -> list[tuple[int, ...]]:
    """Atom-index tuples where ``smarts`` matches the molecule (empty list when none)."""
    mol = as_mol(mol_or_smiles)
    return [tuple(m) for m in mol.GetSubstructMatches(compile_smarts(smarts), uniquify=unique, maxMatches=1000)]


_MORGAN = rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)


def tanimoto(a: MolLike, b: MolLike) -> float:
    """Tanimoto similarity of Morgan radius-2 (ECFP4-like, 2048 bits) fingerprints."""
    fa = _MORGAN.GetFingerprint(as_mol(a))
    fb = _MORGAN.GetFingerprint(as_mol(b))
    return float(DataStructs.TanimotoSimilarity(fa, fb))


def mol_formula_counter(mol_or_smiles: MolLike, *, include_h: bool = True) -> Counter[str]:
    """Element counts of a molecule (or of a dot-separated set), implicit hydrogens included."""
    mol = as_mol(mol_or_smiles)
    counts: Counter[str] = Counter()
    h = 0
    for i in range(mol.GetNumAtoms()):
        atom = mol.GetAtomWithIdx(i)
        sym = atom.GetSymbol()
        if sym == "H":
            h += 1
        else:
            counts[sym] += 1
        h += atom.GetTotalNumHs()
    if include_h and h:
        counts["H"] += h
    return counts


def heavy_count(counts: Counter[str] | dict[str, int]) -> int:
    """Number of non-hydrogen atoms in an element counter."""
    return sum(v for k, v in counts.items() if k != "H" and v > 0)


def formula_string(counts: Counter[str] | dict[str, int]) -> str:
    """Hill-order formula text (C, H, then alphabetical) of an element counter."""
    keys = [k for k in counts if counts[k] > 0]
    order = (["C", "H"] if "C" in keys else []) + sorted(k for k in keys if not ("C" in keys and k in ("C", "H")))
    return "".join(f"{k}{counts[k] if counts[k] != 1 else ''}" for k in order)


@lru_cache(maxsize=32)
def load_data(name: str) -> Any:
    """Parsed packaged JSON data file ``molx_agent/data/<name>.json`` (cached)."""
    filename = name if name.endswith(".json") else f"{name}.json"
    try:
        text = resources.files("molx_agent.data").joinpath(filename).read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise ChemistryError("missing_data", f"packaged data file {filename} not found", value=name) from exc
    return json.loads(text)


def load_template(template_id: str) -> dict[str, Any]:
    """A named retro template as a dict (``id``, ``name``, ``category``, ``retro_smarts``, ...).

    Raises ``ChemistryError(code="unknown_template", value=template_id)`` for an unknown id.
    """
    from molx_agent.chem import templates  # the named template library (lazy: optional module)

    for tpl in templates.load_named_templates():
        if tpl.id == template_id:
            return tpl.to_dict() if hasattr(tpl, "to_dict") else dict(vars(tpl))
    raise ChemistryError(
        "unknown_template", f"no named template {template_id!r}", value=template_id,
        hint="ids look like 'G02_amide_retro'",
    )


class ScopedPatch:
    """Installs a patch while at least one ``with`` block is open (re-entrant, thread-safe).

    ``install()`` runs when the first concurrent block opens and returns what ``restore(saved)`` needs when the
    last one closes; nested and concurrent blocks share the one installed patch.
    """

    def __init__(self, install: Callable[[], Any], restore: Callable[[Any], None]) -> None:
        self._install, self._restore = install, restore
        self._lock = threading.Lock()
        self._depth = 0
        self._saved: Any = None

    @classmethod
    def attribute(cls, module: str, name: str, replacement: Callable[[Any], Any]) -> ScopedPatch:
        """A patch of ``module.name`` (the module imported when the patch is installed): ``replacement(original)``
        while a block is open, the original again when the last one closes."""

        def install() -> Any:
            mod = importlib.import_module(module)
            original = getattr(mod, name)
            setattr(mod, name, replacement(original))
            return original

        def restore(original: Any) -> None:
            setattr(importlib.import_module(module), name, original)

        return cls(install, restore)

    @contextlib.contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._depth == 0:
                self._saved = self._install()
            self._depth += 1
        try:
            yield
        finally:
            with self._lock:
                self._depth -= 1
                if self._depth == 0:
                    self._restore(self._saved)
                    self._saved = None


__all__ = [
    "ScopedPatch",
    "as_mol",
    "cached_mol",
    "canonical",
    "compile_smarts",
    "formula_string",
    "heavy_count",
    "load_data",
    "load_template",
    "mol_formula_counter",
    "parse_mol",
    "quiet_rdkit",
    "smarts_match",
    "strip_atom_maps",
    "tanimoto",
    "validate_smiles",
]

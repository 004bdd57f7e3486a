"""M2: functional groups, protecting groups, reactive sites and FG -> reaction mapping.

The SMARTS libraries are packaged data (``data/functional_groups.json``, ``data/protecting_groups.json``);
patterns are compiled once and screened by the elements they need, so detection over the whole
library costs a few hundred microseconds per drug-like molecule.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from rdkit import Chem

from molx_agent.chem.utils import MolLike, as_mol, compile_smarts, load_data
from molx_agent.errors import ChemistryError
from molx_agent.limits import MAX_GROUP_MATCHES

_ELEMENT = re.compile(r"^\[?(#\d+|Cl|Br|Si|Sn|Zn|Mg|Li|Se|[BCNOSPFIcnosp])")


@dataclass(frozen=True)
class GroupPattern:
    """One compiled library entry."""

    name: str
    smarts: str
    pattern: Chem.Mol
    required: frozenset[tuple[int, bool | None]]
    info: dict[str, Any]


def _top_level_or(atom_smarts: str) -> bool:
    depth = 0
    for ch in atom_smarts:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "," and depth == 0:
            return True
    return False


def _required_elements(pattern: Chem.Mol) -> frozenset[tuple[int, bool | None]]:
    """``(atomic number, aromatic?)`` keys a molecule must contain for ``pattern`` to match (conservative).

    ``c``/``n`` require an aromatic atom, ``C``/``N`` an aliphatic one, ``#6`` either (``None``).
    """
    table = Chem.GetPeriodicTable()
    req: set[tuple[int, bool | None]] = set()
    for atom in pattern.GetAtoms():
        text = atom.GetSmarts()
        if _top_level_or(text) or text.startswith("[!") or text.startswith("[$"):
            continue
        m = _ELEMENT.match(text)
        if not m:
            continue
        token = m.group(1)
        if token.startswith("#"):
            req.add((int(token[1:]), None))
        elif token.islower():  # c, n, o, s, p: aromatic atom
            req.add((table.GetAtomicNumber(token.upper()), True))
        else:  # C, N, Cl, [CX3], ...: aliphatic atom (halogens and metals are never aromatic)
            req.add((table.GetAtomicNumber(token), False))
    return frozenset(req)


def compile_library(entries: list[dict[str, Any]]) -> tuple[GroupPattern, ...]:
    out = []
    for e in entries:
        patt = compile_smarts(e["smarts"])
        info = {k: v for k, v in e.items() if k not in ("smarts",)}
        out.append(GroupPattern(e["name"], e["smarts"], patt, _required_elements(patt), info))
    return tuple(out)


@lru_cache(maxsize=1)
def functional_group_library() -> tuple[GroupPattern, ...]:
    """Compiled functional-group library (``data/functional_groups.json``)."""
    return compile_library(load_data("functional_groups")["groups"])


@lru_cache(maxsize=1)
def protecting_group_library() -> tuple[GroupPattern, ...]:
    """Compiled protecting-group library (``data/protecting_groups.json``)."""
    return compile_library(load_data("protecting_groups")["groups"])


def element_keys(mol: Chem.Mol) -> set[tuple[int, bool | None]]:
    """The ``(atomic number, aromatic)`` and ``(atomic number, None)`` keys present in ``mol``."""
    keys: set[tuple[int, bool | None]] = set()
    for i in range(mol.GetNumAtoms()):
        a = mol.GetAtomWithIdx(i)
        z = a.GetAtomicNum()
        keys.add((z, a.GetIsAromatic()))
        keys.add((z, None))
    return keys



def _scan(mol: Chem.Mol, library: tuple[GroupPattern, ...], fields: tuple[str, ...]) -> list[dict[str, Any]]:
    return scan_library(mol, library, fields, element_keys(mol))


def scan_library(
    mol: Chem.Mol,
    library: tuple[GroupPattern, ...],
    fields: tuple[str, ...] = (),
    present: set[tuple[int, bool | None]] | None = None,
    known_groups: set[str] | None = None,
) -> list[dict[str, Any]]:
    """Matches of a compiled library: ``[{name, count, atoms, <fields>}]``.

    At most :data:`~molx_agent.limits.MAX_GROUP_MATCHES` matches are kept per group; a group that reaches
    it also has ``count_capped: True`` (its ``count`` is then a lower bound).

    ``present`` (:func:`element_keys`) screens entries by the atoms they need.  Entries with
    ``requires_any_fg`` are searched only when one of those groups was found earlier in this scan or is in
    ``known_groups``; with ``known_groups=None`` that screen only uses this scan's own earlier hits (a
    library whose prerequisites live elsewhere must be given them, or entries are skipped).
    """
    if present is None:
        present = element_keys(mol)
    have = set(known_groups or ())
    found = []
    for g in library:
        if not g.required <= present:
            continue
        needs = g.info.get("requires_any_fg")
        if needs and have.isdisjoint(needs):
            continue
        matches = mol.GetSubstructMatches(g.pattern, uniquify=True, maxMatches=MAX_GROUP_MATCHES)
        if matches:
            have.add(g.name)
            row = {"name": g.name, "count": len(matches), "atoms": [list(m) for m in matches]}
            if len(matches) >= MAX_GROUP_MATCHES:  # matching stopped there: the count is a lower bound
                row["count_capped"] = True
            for f in fields:
                if f in g.info:
                    row[f] = g.info[f]
            found.append(row)
    return found


def detect_functional_groups(mol_or_smiles: MolLike) -> list[dict[str, Any]]:
    """Functional groups present: ``[{name, count, atoms, label, category, reactivity, complexity}]``."""
    mol = as_mol(mol_or_smiles)
    return scan_library(mol, functional_group_library(), ("label", "category", "reactivity", "complexity"),
                        element_keys(mol))


def detect_protecting_groups(
    mol_or_smiles: MolLike, functional_groups: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Protecting groups present: ``[{name, count, atoms, full_name, protects, removal, ...}]``.

    ``ambiguous=True`` marks groups that are often part of a final target (acetamide, methyl ester).
    ``functional_groups`` (the molecule's :func:`detect_functional_groups` result) may be passed when
    already computed; it feeds the ``requires_any_fg`` screen (same result, faster).
    """
    mol = as_mol(mol_or_smiles)
    if functional_groups is None:
        functional_groups = detect_functional_groups(mol)
    return scan_library(
        mol,
        protecting_group_library(),
        ("full_name", "protects", "removal", "stable_to", "labile_to", "ambiguous"),
        element_keys(mol),
        {g["name"] for g in functional_groups},
    )


def get_fg_reaction_mapping(groups: str | list[str] | None = None) -> dict[str, list[str]]:
    """Reaction types that use or make each functional group.

    ``groups`` is a group name, a list of names, or ``None`` for the whole library. Unknown names raise
    ``ChemistryError(code="unknown_functional_group")``.
    """
    table = {g.name: list(g.info.get("reactions", [])) for g in functional_group_library()}
    if groups is None:
        return table
    names = [groups] if isinstance(groups, str) else list(groups)
    unknown = [n for n in names if n not in table]
    if unknown:
        raise ChemistryError(
            "unknown_functional_group", f"unknown functional group(s): {', '.join(unknown)}", value=unknown,
            hint="names come from data/functional_groups.json, e.g. 'carboxylic_acid', 'aryl_bromide'",
        )
    return {n: table[n] for n in names}


#: Which groups make a site nucleophilic / electrophilic / acidic, and the atom in the match that reacts.
_SITE_RULES: tuple[tuple[str, str, int], ...] = (
    ("primary_amine", "nucleophile", 0),
    ("secondary_amine", "nucleophile", 0),
    ("aniline", "nucleophile", 0),
    ("secondary_aryl_amine", "nucleophile", 0),
    ("hydrazine", "nucleophile", 0),
    ("primary_alcohol", "nucleophile", 0),
    ("secondary_alcohol", "nucleophile", 0),
    ("tertiary_alcohol", "nucleophile", 0),
    ("phenol", "nucleophile", 0),
    ("thiol", "nucleophile", 0),
    ("terminal_alkyne", "nucleophile", 0),
    ("boronic_acid", "nucleophile", 0),
    ("boronic_ester", "nucleophile", 0),
    ("organostannane", "nucleophile", 0),
    ("organozinc", "nucleophile", 0),
    ("grignard", "nucleophile", 0),
    ("aldehyde", "electrophile", 0),
    ("ketone", "electrophile", 1),
    ("acid_chloride", "electrophile", 0),
    ("anhydride", "electrophile", 0),
    ("ester", "electrophile", 1),
    ("carboxylic_acid", "electrophile", 0),
    ("isocyanate", "electrophile", 1),
    ("sulfonyl_chloride", "electrophile", 0),
    ("epoxide", "electrophile", 0),
    ("enone", "electrophile", 0),
    ("nitrile", "electrophile", 0),
    ("alkyl_chloride", "electrophile", 1),
    ("alkyl_bromide", "electrophile", 1),
    ("alkyl_iodide", "electrophile", 1),
    ("aryl_chloride", "electrophile", 1),
    ("aryl_bromide", "electrophile", 1),
    ("aryl_iodide", "electrophile", 1),
    ("aryl_triflate", "electrophile", 0),
    ("heteroaryl_halide", "electrophile", 1),
    ("carboxylic_acid", "acidic", 2),
    ("phenol", "acidic", 0),
    ("sulfonamide", "acidic", 3),
    ("tetrazole", "acidic", 4),
)


def detect_reactive_sites(
    mol_or_smiles: MolLike, functional_groups: list[dict[str, Any]] | None = None
) -> list[dict[str, Any]]:
    """Reactive atoms: ``[{atom_idx, element, site_type, group, label}]`` sorted by atom index.

    ``site_type`` is ``nucleophile``, ``electrophile`` or ``acidic``; one atom may carry several roles.
    ``functional_groups`` may be passed when already detected.
    """
    mol = as_mol(mol_or_smiles)
    detected = functional_groups if functional_groups is not None else detect_functional_groups(mol)
    fgs = {g["name"]: g for g in detected}
    sites: dict[tuple[int, str], dict[str, Any]] = {}
    for name, site_type, pos in _SITE_RULES:
        g = fgs.get(name)
        if not g:
            continue
        for match in g["atoms"]:
            if pos >= len(match):
                continue
            idx = match[pos]
            key = (idx, site_type)
            if key in sites:
                continue
            sites[key] = {
                "atom_idx": idx,
                "element": mol.GetAtomWithIdx(idx).GetSymbol(),
                "site_type": site_type,
                "group": name,
                "label": g.get("label", name),
            }
    return sorted(sites.values(), key=lambda s: (s["atom_idx"], s["site_type"]))


__all__ = [
    "GroupPattern",
    "compile_library",
    "element_keys",
    "scan_library",
    "detect_functional_groups",
    "detect_protecting_groups",
    "detect_reactive_sites",
    "functional_group_library",
    "get_fg_reaction_mapping",
    "protecting_group_library",
]

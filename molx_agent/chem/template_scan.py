"""M3: which named templates apply to a molecule, and which bonds they can disconnect.

Scanning never runs a reaction: each template's product-side pattern is matched once per molecule
(patterns are precompiled and screened by the elements they need), and the bonds a template breaks
are read off the match. Running the templates (rdchiral) happens only in ``bond_break``.
"""

from __future__ import annotations

from typing import Any

from rdkit import Chem

from molx_agent.chem.templates import TemplateSite, template_sites
from molx_agent.chem.utils import MolLike, as_mol

_MAX_MATCHES = 200


def matching_sites(
    mol_or_smiles: MolLike, kinds: frozenset[str] | set[str] | None = None
) -> list[tuple[TemplateSite, list[tuple[int, ...]]]]:
    """Templates (optionally only some kinds) whose product pattern matches, with their atom matches."""
    mol = as_mol(mol_or_smiles)
    present = {a.GetAtomicNum() for a in mol.GetAtoms()}
    out = []
    seen: dict[str, list[tuple[int, ...]]] = {}  # templates with the same product pattern match once
    for site in template_sites():
        if kinds is not None and site.template.kind not in kinds:
            continue
        if not site.required <= present:
            continue
        matches = seen.get(site.pattern_key)
        if matches is None:
            found = mol.GetSubstructMatches(site.pattern, uniquify=False, maxMatches=_MAX_MATCHES)
            matches = seen[site.pattern_key] = [tuple(m) for m in found]
        if matches:
            out.append((site, matches))
    return out


#: template kinds that create a bond (FGI / deprotection templates change groups, not the skeleton)
BOND_FORMING_KINDS = frozenset({"disconnection", "protection", "ring_formation"})


def bond_template_index(
    mol: Chem.Mol, kinds: frozenset[str] | set[str] | None = BOND_FORMING_KINDS
) -> dict[int, list[tuple[TemplateSite, tuple[int, ...]]]]:
    """bond index -> [(template site, matched atoms)] for every template (of ``kinds``) that breaks that bond.

    One entry per (bond, template): the first match found that breaks the bond. By default only
    bond-forming kinds (:data:`BOND_FORMING_KINDS`); ``kinds=None`` includes FGI templates too.
    """
    index: dict[int, list[tuple[TemplateSite, tuple[int, ...]]]] = {}
    for site, matches in matching_sites(mol, kinds):
        if not site.broken_pairs:
            continue
        seen: set[int] = set()
        for match in matches:
            for qi, qj in site.broken_pairs:
                bond = mol.GetBondBetweenAtoms(match[qi], match[qj])
                if bond is None:
                    continue
                bidx = bond.GetIdx()
                if bidx in seen:
                    continue
                seen.add(bidx)
                index.setdefault(bidx, []).append((site, match))
    for entries in index.values():
        # a template of higher priority (the more specific name of a reaction a broad template also writes, such
        # as the Ullmann-Goldberg amination of a 2-halobenzoic acid) first, then by confidence
        entries.sort(key=lambda e: (-e[0].template.priority, -e[0].template.confidence))
    return index


def scan_applicable_reactions(smiles: MolLike, *, kinds: list[str] | None = None) -> list[dict[str, Any]]:
    """Named templates applicable to a molecule.

    Each entry: ``template_id``, ``template`` (display name), ``name``, ``category``, ``kind``,
    ``confidence``, ``n_sites``, ``sites`` (matched atom tuples, unique), ``bonds`` (bonds broken:
    ``[{bond_idx, atoms}]``; empty for a pure functional-group interconversion). Sorted by confidence.
    """
    mol = as_mol(smiles)
    wanted = set(kinds) if kinds else None
    out: list[dict[str, Any]] = []
    for site, matches in matching_sites(mol):
        tpl = site.template
        if wanted and tpl.kind not in wanted:
            continue
        unique_sites = sorted({tuple(sorted(m)) for m in matches})
        bonds: dict[int, list[int]] = {}
        for match in matches:
            for qi, qj in site.broken_pairs:
                b = mol.GetBondBetweenAtoms(match[qi], match[qj])
                if b is not None:
                    bonds[b.GetIdx()] = sorted((b.GetBeginAtomIdx(), b.GetEndAtomIdx()))
        out.append(
            {
                "template_id": tpl.id,
                "template": tpl.display_name,
                "name": tpl.name,
                "category": tpl.category,
                "kind": tpl.kind,
                "confidence": tpl.confidence,
                "n_sites": len(unique_sites),
                "sites": [list(s) for s in unique_sites],
                "bonds": [{"bond_idx": k, "atoms": v} for k, v in sorted(bonds.items())],
            }
        )
    out.sort(key=lambda e: (-e["confidence"], e["template_id"]))
    return out


def find_disconnectable_bonds(smiles: MolLike) -> list[dict[str, Any]]:
    """Bonds at least one named template can break.

    Each entry: ``bond_idx``, ``atoms``, ``bond_type``, ``in_ring``, ``templates``
    (``[{template_id, template, confidence}]``, best first: a template of higher ``priority``, then by
    confidence). Sorted by best template confidence.
    """
    mol = as_mol(smiles)
    out: list[dict[str, Any]] = []
    for bidx, entries in bond_template_index(mol).items():
        bond = mol.GetBondWithIdx(bidx)
        out.append(
            {
                "bond_idx": bidx,
                "atoms": [bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()],
                "bond_type": str(bond.GetBondType()),
                "in_ring": bond.IsInRing(),
                "templates": [
                    {"template_id": s.template.id, "template": s.template.display_name,
                     "confidence": s.template.confidence}
                    for s, _ in entries
                ],
            }
        )
    out.sort(key=lambda e: (-e["templates"][0]["confidence"], e["bond_idx"]))
    return out


def list_fgi_options(smiles: MolLike) -> list[dict[str, Any]]:
    """Functional-group interconversions (and deprotection retro steps) applicable to a molecule.

    Templates that change a group without splitting the molecule into fragments: kinds ``fgi`` and
    ``deprotection``. Each entry: ``fgi_idx``, ``template``, ``template_id``, ``kind``, ``confidence``.
    """
    rows = scan_applicable_reactions(smiles, kinds=["fgi", "deprotection"])
    return [
        {"fgi_idx": i, "template": r["template"], "template_id": r["template_id"], "kind": r["kind"],
         "confidence": r["confidence"], "n_sites": r["n_sites"]}
        for i, r in enumerate(rows)
    ]


def templates_regenerating(product: str, reactants: list[str] | tuple[str, ...]) -> list[str]:
    """Ids of the named templates that turn ``product`` back into exactly ``reactants`` (canonical sets)."""
    from molx_agent.chem.templates import run_named_template
    from molx_agent.chem.utils import canonical

    target = tuple(sorted(canonical(s) for s in reactants))
    prod = canonical(product)
    hits = []
    for site, _matches in matching_sites(prod):
        if any(o.precursors == target for o in run_named_template(site.template.id, prod)):
            hits.append(site.template.id)
    return hits


__all__ = [
    "BOND_FORMING_KINDS",
    "bond_template_index",
    "find_disconnectable_bonds",
    "list_fgi_options",
    "matching_sites",
    "scan_applicable_reactions",
    "templates_regenerating",
]

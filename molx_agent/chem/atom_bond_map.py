"""The atom/bond map: every bond of a molecule with its disconnection options and strategic priority.

``build_atom_bond_map(mol)`` returns ``{bonds, strategic_bonds, retro_guidance}``. Each bond has
``bond_idx``, ``atoms``, ``bond_type``, ``in_ring``, ``chemical_label``, ``reaction_types`` (named
templates that make this bond, from ``data/named_templates.json``), ``template_ids``, ``n_alternatives``,
``smart_capping`` (the seed's capping rules that fit: reaction type, confidence, description, caps;
fragments come from ``suggest_capping``), ``heuristic_score`` and ``strategic_priority`` (both 0-1).

Scores:
- ``heuristic_score`` = 0.7 x best reaction confidence (named template prior or capping-rule
  confidence) + 0.3 x min(1, n_alternatives / 4): how well-precedented the bond-forming reaction is.
- ``strategic_priority`` = heuristic x (0.6 + 0.4 x balance) + 0.1 for a C-heteroatom bond, where balance
  = 2 x (heavy atoms of the smaller fragment) / (heavy atoms), halved for a ring bond no ring-forming
  template explains and scaled by 0.6 when it only trims off one heavy atom. Bonds no reaction explains
  get 0.1 x balance. ``strategic_bonds`` lists bonds with a named template or a specific capping rule
  (anything but the generic Grignard C-C fallback), highest priority first.

The map is built without running reactions: template product patterns are matched once per molecule
(``template_scan.bond_template_index``), so it costs about a millisecond for a drug-sized molecule.
"""

from __future__ import annotations

from typing import Any

from rdkit import Chem

from molx_agent.chem.smart_cap import AtomFeatures, capping_summary
from molx_agent.chem.template_scan import BOND_FORMING_KINDS, bond_template_index
from molx_agent.chem.utils import MolLike, as_mol

_GENERIC_RULES = frozenset({"Grignard"})
_HETERO = frozenset({7, 8, 16})


_SYMBOL = {1: "H", 5: "B", 6: "C", 7: "N", 8: "O", 9: "F", 14: "Si", 15: "P", 16: "S", 17: "Cl", 35: "Br", 53: "I"}


def _sym(z: int) -> str:
    return _SYMBOL.get(z) or Chem.GetPeriodicTable().GetElementSymbol(z)


def amidine_nitrogens(atom: Chem.Atom) -> int:
    """The number of nitrogens on ``atom`` when it is a non-aromatic carbon double-bonded to a nitrogen (an amidine's
    carbon: 2, a guanidine's: 3); 0 otherwise."""
    if atom.GetAtomicNum() != 6 or atom.GetIsAromatic() or not any(
            b.GetBondType() == Chem.BondType.DOUBLE and b.GetOtherAtom(atom).GetAtomicNum() == 7 for b in atom.GetBonds()):
        return 0
    return sum(n.GetAtomicNum() == 7 for n in atom.GetNeighbors())


def chemical_label(bond: Chem.Bond, features: AtomFeatures | None = None) -> str:
    """A short chemist's label for a bond (``ester C(=O)-O``, ``biaryl Ar-Ar``, ...).

    Pass ``features`` (``AtomFeatures(mol)``) when labelling many bonds of one molecule.
    """
    if bond.GetIsAromatic():
        return "aromatic ring bond"
    f = features if features is not None else AtomFeatures(bond.GetOwningMol())
    a, b = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
    za, zb = f.z[a], f.z[b]
    bt = bond.GetBondType()
    prefix = "ring " if bond.IsInRing() else ""
    if bt == Chem.BondType.DOUBLE:
        if za == 6 and zb == 6:
            return prefix + "alkene C=C"
        return prefix + "double bond " + _sym(za) + "=" + _sym(zb)
    if bt == Chem.BondType.TRIPLE:
        return "alkyne C#C" if za == zb == 6 else "triple bond " + _sym(za) + "#" + _sym(zb)
    if zb == 6 and za != 6:
        a, b, za, zb = b, a, zb, za
    # now a is carbon when there is one
    if za == 6 and f.carbonyl[a] and zb in (7, 8, 16):
        hetero_partner = sum(1 for k in f.nbrs[a] if k != b and f.z[k] in (7, 8)) > 1
        if zb == 7:
            return prefix + ("urea/carbamate C(=O)-N" if hetero_partner else "amide C(=O)-N")
        if zb == 8:
            if f.hs[b] > 0:
                return "carboxylic acid C-OH"
            return prefix + ("carbonate/carbamate C(=O)-O" if hetero_partner else "ester C(=O)-O")
        return prefix + "thioester C(=O)-S"
    if f.sulfonyl[a] >= 2 or f.sulfonyl[b] >= 2:
        x = b if f.sulfonyl[a] >= 2 else a
        if f.z[x] == 7:
            return prefix + "sulfonamide S-N"
        if f.z[x] == 8:
            return prefix + "sulfonate S-O"
        return prefix + "sulfonyl S-C"
    if za == 6 and zb == 6:
        if f.arom[a] and f.arom[b]:
            return prefix + "biaryl Ar-Ar"
        if f.arom[a] or f.arom[b]:
            other = b if f.arom[a] else a
            if f.carbonyl[other]:
                return prefix + "aryl ketone/acid Ar-C(=O)"
            return prefix + ("aryl-vinyl Ar-C(sp2)" if f.sp2[other] else "benzylic Ar-C(sp3)")
        if f.carbonyl[a] or f.carbonyl[b]:
            return prefix + "alpha-carbonyl C-C(=O)"
        return prefix + "C-C"
    if za == 6:
        if zb in (9, 17, 35, 53):
            return ("aryl" if f.arom[a] else "alkyl") + " halide C-" + _sym(zb)
        kind = {7: "N", 8: "O", 16: "S"}.get(zb, _sym(zb))
        if f.arom[a]:
            name = "N-aryl azole" if f.arom[b] else {7: "aryl amine", 8: "aryl ether", 16: "aryl thioether"}.get(zb, "aryl")
            return prefix + f"{name} Ar-{kind}"
        if zb == 8 and f.hs[b] > 0:
            return "alcohol C-OH"
        if zb == 7 and f.arom[b]:
            return prefix + "N-alkyl azole N-C(sp3)"
        if zb == 7 and (n_nitrogens := amidine_nitrogens(bond.GetOwningMol().GetAtomWithIdx(a))):
            return prefix + ("guanidine" if n_nitrogens >= 3 else "amidine") + " N-C(=N)"
        name = {7: "amine", 8: "ether", 16: "thioether"}.get(zb, "C-" + _sym(zb))
        return prefix + f"{name} {kind}-C(sp3)"
    return prefix + f"{_sym(za)}-{_sym(zb)}"


def _side_sizes(mol: Chem.Mol) -> tuple[dict[int, int], list[int]]:
    """(bond index -> heavy atoms on the begin-atom side for acyclic bonds, heavy atoms per atom's fragment).

    Ring systems are contracted to one node; acyclic bonds then form a forest, and one depth-first
    pass gives every subtree size (linear in the molecule size).
    """
    n = mol.GetNumAtoms()
    parent = list(range(n))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    acyclic = []
    for b in mol.GetBonds():
        i, j = b.GetBeginAtomIdx(), b.GetEndAtomIdx()
        if b.IsInRing():
            ri, rj = find(i), find(j)
            if ri != rj:
                parent[ri] = rj
        else:
            acyclic.append((b.GetIdx(), i, j))
    comp = [find(x) for x in range(n)]
    weight: dict[int, int] = {}
    for x, a in enumerate(mol.GetAtoms()):
        if a.GetAtomicNum() > 1:
            weight[comp[x]] = weight.get(comp[x], 0) + 1
        else:
            weight.setdefault(comp[x], 0)
    adj: dict[int, list[tuple[int, int]]] = {c: [] for c in weight}
    for bidx, i, j in acyclic:
        adj[comp[i]].append((comp[j], bidx))
        adj[comp[j]].append((comp[i], bidx))
    subtree: dict[int, int] = {}
    child_of_bond: dict[int, int] = {}
    total_of: dict[int, int] = {}
    for root in weight:
        if root in subtree:
            continue
        order = []
        stack = [(root, -1)]
        subtree[root] = 0
        while stack:
            node, via = stack.pop()
            order.append(node)
            for nxt, bidx in adj[node]:
                if bidx == via or nxt in subtree:
                    continue
                subtree[nxt] = 0
                child_of_bond[bidx] = nxt
                stack.append((nxt, bidx))
        for node in reversed(order):
            subtree[node] += weight[node]
            for nxt, bidx in adj[node]:
                if child_of_bond.get(bidx) == nxt and nxt != node:
                    subtree[node] += subtree[nxt]
        for node in order:
            total_of[node] = subtree[root]
    sides = {}
    for bidx, i, _j in acyclic:
        child = child_of_bond[bidx]
        sub = subtree[child]
        sides[bidx] = sub if comp[i] == child else total_of[child] - sub
    frag_total = [total_of[comp[x]] for x in range(n)]
    return sides, frag_total


def build_atom_bond_map(mol_or_smiles: MolLike) -> dict[str, Any]:
    """Every bond with its disconnection options and scores, plus ``strategic_bonds`` (best first)."""
    mol = as_mol(mol_or_smiles)
    index = bond_template_index(mol)
    sides, frag_total = _side_sizes(mol)
    features = AtomFeatures(mol)
    bonds: list[dict[str, Any]] = []
    for bond in mol.GetBonds():
        bidx = bond.GetIdx()
        entries = [(s, m) for s, m in index.get(bidx, ()) if s.template.kind in BOND_FORMING_KINDS]
        names: list[str] = []
        ids: list[str] = []
        for site, _ in entries:
            ids.append(site.template.id)
            if site.template.name not in names:
                names.append(site.template.name)
        caps = capping_summary(mol, bond, features)
        tpl_best = max((s.template.confidence for s, _ in entries), default=0.0)
        cap_best = max((c["confidence"] for c in caps), default=0.0)
        conf = max(tpl_best, cap_best)
        n_alt = len(ids)
        heuristic = 0.7 * conf + 0.3 * min(1.0, n_alt / 4.0) if conf > 0 else 0.0
        in_ring = bond.IsInRing()
        n_heavy = max(1, frag_total[bond.GetBeginAtomIdx()])
        ring_template = any(s.template.kind == "ring_formation" for s, _ in entries)
        if in_ring:
            balance = 0.5 if ring_template else 0.0
            small = min(sides.get(bidx, n_heavy), n_heavy)
        else:
            left = sides[bidx]
            small = min(left, n_heavy - left)
            balance = 2.0 * small / n_heavy
        hetero = bond.GetBeginAtom().GetAtomicNum() in _HETERO or bond.GetEndAtom().GetAtomicNum() in _HETERO
        if conf > 0:
            priority = heuristic * (0.6 + 0.4 * balance) + (0.1 if hetero and not bond.GetIsAromatic() else 0.0)
            if in_ring and not ring_template:
                priority *= 0.5
            if not in_ring and small <= 1:
                priority *= 0.6
        else:
            priority = 0.1 * balance
        bonds.append(
            {
                "bond_idx": bidx,
                "atoms": [bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()],
                "bond_type": str(bond.GetBondType()),
                "in_ring": in_ring,
                "chemical_label": chemical_label(bond, features),
                "strategic_priority": round(min(1.0, priority), 3),
                "heuristic_score": round(heuristic, 3),
                "n_alternatives": n_alt,
                "reaction_types": names,
                "template_ids": ids,
                "smart_capping": caps,
                "fragment_balance": round(balance, 3),
            }
        )
    strategic = [
        b for b in bonds
        if b["template_ids"] or any(c["reaction_type"] not in _GENERIC_RULES for c in b["smart_capping"])
    ]
    strategic.sort(key=lambda b: (-b["strategic_priority"], -b["heuristic_score"], b["bond_idx"]))
    return {"bonds": bonds, "strategic_bonds": strategic, "retro_guidance": _guidance(strategic)}


def _guidance(strategic: list[dict[str, Any]]) -> str:
    if not strategic:
        return ("No named reaction or capping rule fits any bond: consider functional-group interconversion, "
                "a ring-forming strategy, or treat the molecule as a starting material.")
    top = strategic[0]
    reaction = (top["reaction_types"][0] if top["reaction_types"]
                else top["smart_capping"][0]["reaction_type"] if top["smart_capping"] else "a known reaction")
    text = (f"Disconnect the {top['chemical_label']} bond first (atoms {top['atoms'][0]}-{top['atoms'][1]}, "
            f"priority {top['strategic_priority']}), e.g. by {reaction}.")
    if len(strategic) > 1:
        nxt = strategic[1]
        text += f" Next best: {nxt['chemical_label']} (atoms {nxt['atoms'][0]}-{nxt['atoms'][1]})."
    return text


__all__ = ["BOND_FORMING_KINDS", "amidine_nitrogens", "build_atom_bond_map", "chemical_label"]

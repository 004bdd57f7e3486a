"""Rule-based reaction class of an atom-mapped reaction (the 10 Schneider/USPTO-50K classes).

The USPTO-50K training file used to build the template library has no class column, so the class of a
learned template is inferred from its mapped training reactions with simple rules on the reaction
centre: which bonds between mapped atoms are formed, broken or change order, which atoms leave, and
whether a protecting group is put on or taken off.  The rules are a heuristic, not a trained
classifier; ``benchmarks/single_step.py`` reports how often they agree with the labelled test set.  (Rule 2's
silyl, O-acyl and aliphatic O-methyl groups and rule 2a were added on 2026-12-01: before, a silyl ether's SMARTS
read Si-C-O, so silyl and acetate removals fell through to "reductions" and peroxide oxidations to "acylation";
agreement on the 5,001 validation reactions rose from 91.4 to 92.5 %.)

Rules, first match wins:

1. a protecting group is attached through a formed bond               -> 5 protections
2. only bonds to leaving atoms break and the leaving part is a
   protecting group (silyl on O, N or an alkyne, an O-acetyl,
   -pivaloyl or -benzoyl, an O-methyl, ...) or an ester alkyl
   (incl. ester -> acid)                                                -> 6 deprotections
2a. a formed bond takes an oxygen from a peroxide (H2O2, a peracid,
   oxone): a sulfoxide, N-oxide or epoxide                             -> 8 oxidations
3. a formed bond closes a ring that contains a heteroatom              -> 4 heterocycle formation
4. no bond formed between two reactants and the changed atoms gain
   hydrogens / lose bonds to oxygen                                    -> 7 reductions
   ... or lose hydrogens / gain bonds to oxygen                        -> 8 oxidations
5. a formed bond joins N/O/S to a carbonyl, sulfonyl or phosphoryl    -> 2 acylation and related processes
6. a formed C-C bond                                                   -> 3 C-C bond formation
7. a formed bond joins N/O/S to carbon                                 -> 1 heteroatom alkylation and arylation
8. a formed bond to a halogen or a nitro/azide nitrogen at an atom
   that lost no other heavy-atom bond                                  -> 10 functional group addition
9. anything else                                                       -> 9 functional group interconversion
"""

from __future__ import annotations

from dataclasses import dataclass

from rdkit import Chem

REACTION_CLASSES: dict[int, str] = {
    1: "Heteroatom alkylation and arylation",
    2: "Acylation and related processes",
    3: "C-C bond formation",
    4: "Heterocycle formation",
    5: "Protections",
    6: "Deprotections",
    7: "Reductions",
    8: "Oxidations",
    9: "Functional group interconversion (FGI)",
    10: "Functional group addition (FGA)",
}

#: The Chinese name of each Schneider class, for answers written in Chinese (named reactions keep their usual names).
REACTION_CLASSES_ZH: dict[int, str] = {
    1: "杂原子烷基化与芳基化",
    2: "酰化及相关反应",
    3: "C-C 键形成",
    4: "杂环形成",
    5: "保护",
    6: "脱保护",
    7: "还原",
    8: "氧化",
    9: "官能团转换（FGI）",
    10: "官能团引入（FGA）",
}

# Short machine-friendly category per class (used as ``Prediction.category``).
REACTION_CATEGORIES: dict[int, str] = {
    1: "heteroatom_alkylation_arylation",
    2: "acylation",
    3: "c_c_bond_formation",
    4: "heterocycle_formation",
    5: "protection",
    6: "deprotection",
    7: "reduction",
    8: "oxidation",
    9: "functional_group_interconversion",
    10: "functional_group_addition",
}

# Protecting groups, written as the group plus the atom it is attached to ([*] = attachment point).
_PG_SMARTS = {
    "Boc": "[CH3]C([CH3])([CH3])OC(=O)[#7,#8]",
    "Cbz": "c1ccccc1[CH2]OC(=O)[#7]",
    "Fmoc": "O=C(O[CH2][CH]1c2ccccc2-c2ccccc21)[#7]",
    "Alloc": "[CH2]=[CH][CH2]OC(=O)[#7]",
    "Troc": "ClC(Cl)(Cl)[CH2]OC(=O)[#7]",
    "silyl": "[Si;X4]([#6])([#6])([#6])[#8,#7,$([#6]#[#6])]",
    "THP": "[CH2]1[CH2][CH2][CH2]O[CH]1[#8,#7]",
    "MOM": "[CH3]O[CH2][#8,#7]",
    "SEM": "C[Si](C)(C)[CH2][CH2]O[CH2][#8,#7]",
    "trityl": "c1ccccc1C(c1ccccc1)(c1ccccc1)[#7,#8,#16]",
    "PMB": "[CH3]Oc1ccc([CH2][#7,#8])cc1",
    "benzyl": "c1ccccc1[CH2][#7,#8]",
    "acetal": "[#6][OX2][CX4;!$(C=*)]([#6,#1])[OX2][#6]",
    "phthalimide": "O=C1c2ccccc2C(=O)N1",
    "tosyl_N": "Cc1ccc(S(=O)(=O)[#7])cc1",
    "trifluoroacetyl_N": "FC(F)(F)C(=O)[#7]",
    "acetyl_N": "[CH3]C(=O)[#7X3]",
    "methyl_ether": "[CH3][OX2][c,CX4]",
    # O-acyl groups taken off an alcohol or phenol (class 6 in USPTO-50K); never counted as a protection
    "acetyl_O": "[CH3]C(=O)[OX2][c,CX4]",
    "pivaloyl_O": "[CH3]C([CH3])([CH3])C(=O)[OX2][c,CX4]",
    "benzoyl_O": "c1ccccc1C(=O)[OX2][c,CX4]",
}
_PG_PATTERNS = {name: Chem.MolFromSmarts(s) for name, s in _PG_SMARTS.items()}
# Groups whose introduction counts as a protection; benzylation, acetylation, tosylation and
# methylation are far more often ordinary alkylations/acylations in USPTO-50K.
_PROTECTION_NAMES = ("Boc", "Cbz", "Fmoc", "Alloc", "Troc", "silyl", "THP", "SEM", "trityl", "phthalimide")
# Ester alkyl groups removed by hydrolysis / hydrogenolysis (class 6 in USPTO-50K).
_ESTER = Chem.MolFromSmarts("[CX3](=O)[OX2][CX4,c]")
_CARBONYL_LIKE = Chem.MolFromSmarts("[$([CX3]=[O,S,N]),$([SX4](=O)=O),$([PX4]=O),$([SX3]=O)]")
_NITRO_AZIDE_N = Chem.MolFromSmarts("[$([NX3+](=O)[O-]),$([NX3](=O)=O),$(N=[N+]=[N-]),$([N-][N+]#N)]")
#: An oxidant's oxygen: one end of an O-O bond (hydrogen peroxide, a peracid, oxone, a hydroperoxide).
_PEROXIDE_O = Chem.MolFromSmarts("[OX2,OX1-;$(O[OX2,OX1-])]")
_HALOGENS = {9, 17, 35, 53}
_HETERO = {7, 8, 16}


@dataclass(frozen=True)
class ReactionCentre:
    """Bond changes between mapped atoms of a forward reaction."""

    formed: frozenset[tuple[int, int]]
    broken: frozenset[tuple[int, int]]
    order_changed: frozenset[tuple[int, int]]
    h_change: int  # sum over changed mapped atoms of (H in product - H in reactants)
    o_change: int  # change in bonds to oxygen at changed mapped atoms (product - reactants)
    inter_reactant: bool  # a formed bond joins atoms that came from two different reactant molecules


def _mapped_atoms(mol: Chem.Mol) -> dict[int, Chem.Atom]:
    return {a.GetAtomMapNum(): a for a in mol.GetAtoms() if a.GetAtomMapNum()}


def _bond_dict(mol: Chem.Mol) -> dict[tuple[int, int], float]:
    out: dict[tuple[int, int], float] = {}
    for b in mol.GetBonds():
        m1, m2 = b.GetBeginAtom().GetAtomMapNum(), b.GetEndAtom().GetAtomMapNum()
        if m1 and m2:
            out[(min(m1, m2), max(m1, m2))] = b.GetBondTypeAsDouble()
    return out


def _o_bonds(atom: Chem.Atom) -> float:
    return sum(b.GetBondTypeAsDouble() for b in atom.GetBonds() if b.GetOtherAtom(atom).GetAtomicNum() == 8)


def _pg_on_formed_bond(mol: Chem.Mol, formed: frozenset[tuple[int, int]], map_to_idx: dict[int, int]) -> bool:
    formed_idx = {frozenset((map_to_idx[a], map_to_idx[b])) for a, b in formed if a in map_to_idx and b in map_to_idx}
    for name in _PROTECTION_NAMES:
        for match in mol.GetSubstructMatches(_PG_PATTERNS[name]):
            ids = set(match)
            for pair in formed_idx:
                if pair <= ids:
                    return True
    return False


def _lost_atoms(reactants: Chem.Mol, product_maps: set[int]) -> set[int]:
    """Indices of reactant atoms that do not end up in the product."""
    return {a.GetIdx() for a in reactants.GetAtoms() if a.GetAtomMapNum() not in product_maps}


def _is_deprotection(reactants: Chem.Mol, product: Chem.Mol, centre: ReactionCentre) -> bool:
    if centre.formed and centre.inter_reactant:
        return False
    product_maps = set(_mapped_atoms(product))
    lost = _lost_atoms(reactants, product_maps)
    if not lost:
        return False
    for patt in _PG_PATTERNS.values():
        for match in reactants.GetSubstructMatches(patt):
            ids = set(match)
            kept = ids - lost
            # the group leaves and only the atom it protected (and maybe its carbonyl) stays behind
            if ids & lost and len(kept) <= 3 and any(reactants.GetAtomWithIdx(i).GetAtomMapNum() in product_maps for i in kept):
                return True
    p_idx = {a.GetAtomMapNum(): a.GetIdx() for a in product.GetAtoms() if a.GetAtomMapNum()}
    for c, _o, o2, alkyl in reactants.GetSubstructMatches(_ESTER):
        if alkyl not in lost or c in lost:
            continue
        # ester -> acid: the carbonyl survives (an ester reduced to an alcohol is not a deprotection)
        pc = product.GetAtomWithIdx(p_idx[reactants.GetAtomWithIdx(c).GetAtomMapNum()])
        if not any(b.GetBondTypeAsDouble() == 2 and b.GetOtherAtom(pc).GetAtomicNum() == 8 for b in pc.GetBonds()):
            continue
        if o2 not in lost or not centre.formed:  # O kept, or replaced by water's O
            return True
    return False


def _oxygen_from_peroxide(reactants: Chem.Mol, centre: ReactionCentre) -> bool:
    """A formed bond takes an oxygen from a peroxide (an O-O bond): an oxidation by H2O2, a peracid or oxone (a
    sulfoxide, an N-oxide, an epoxide), whatever other rule the new bond would meet."""
    if not centre.formed:
        return False
    peroxide_maps = {reactants.GetAtomWithIdx(m[0]).GetAtomMapNum() for m in reactants.GetSubstructMatches(_PEROXIDE_O)}
    peroxide_maps.discard(0)
    return any(a in peroxide_maps or b in peroxide_maps for a, b in centre.formed)


def reaction_centre(reactants: Chem.Mol, product: Chem.Mol) -> ReactionCentre:
    """The bond changes between mapped atoms of ``reactants >> product`` (both atom-mapped)."""
    r_atoms = _mapped_atoms(reactants)
    p_atoms = _mapped_atoms(product)
    r_bonds = _bond_dict(reactants)
    p_bonds = _bond_dict(product)
    frags = Chem.GetMolFrags(reactants, asMols=False, sanitizeFrags=False)
    frag_of = {}
    for i, frag in enumerate(frags):
        for idx in frag:
            frag_of[reactants.GetAtomWithIdx(idx).GetAtomMapNum()] = i
    formed = frozenset(k for k in p_bonds if k not in r_bonds and k[0] in r_atoms and k[1] in r_atoms)
    broken = frozenset(k for k in r_bonds if k not in p_bonds and k[0] in p_atoms and k[1] in p_atoms)
    order_changed = frozenset(k for k in p_bonds if k in r_bonds and p_bonds[k] != r_bonds[k])
    changed: set[int] = set()
    for a, b in formed | broken | order_changed:
        changed.update((a, b))
    # atoms that lost a neighbour which leaves the reaction are changed too
    for m, atom in p_atoms.items():
        ra = r_atoms.get(m)
        if ra is None:
            continue
        if ra.GetDegree() != atom.GetDegree() or ra.GetTotalNumHs() != atom.GetTotalNumHs():
            changed.add(m)
    h_change = 0
    o_change = 0
    for m in changed:
        if m in r_atoms and m in p_atoms:
            h_change += p_atoms[m].GetTotalNumHs() - r_atoms[m].GetTotalNumHs()
            o_change += int(round(_o_bonds(p_atoms[m]) - _o_bonds(r_atoms[m])))
    inter = any(frag_of.get(a) != frag_of.get(b) for a, b in formed)
    return ReactionCentre(formed, broken, order_changed, h_change, o_change, inter)


def _split_mapped(mapped_reaction: str) -> tuple[Chem.Mol, Chem.Mol] | None:
    parts = mapped_reaction.split(">")
    if len(parts) != 3:
        return None
    reactants = Chem.MolFromSmiles(parts[0])
    product = Chem.MolFromSmiles(parts[2])
    if reactants is None or product is None:
        return None
    return reactants, product


def infer_reaction_class(mapped_reaction: str) -> int | None:
    """The Schneider class (1-10) of an atom-mapped forward reaction ``reactants>reagents>product``.

    Returns ``None`` when the reaction cannot be parsed or shows no change between mapped atoms.
    """
    parsed = _split_mapped(mapped_reaction)
    if parsed is None:
        return None
    reactants, product = parsed
    centre = reaction_centre(reactants, product)
    p_idx = {a.GetAtomMapNum(): a.GetIdx() for a in product.GetAtoms() if a.GetAtomMapNum()}
    p_atoms = {m: product.GetAtomWithIdx(i) for m, i in p_idx.items()}

    if centre.formed and _pg_on_formed_bond(product, centre.formed, p_idx):
        return 5
    if _is_deprotection(reactants, product, centre):
        return 6
    if _oxygen_from_peroxide(reactants, centre):
        return 8
    ring_info = product.GetRingInfo()
    for a, b in centre.formed:
        bond = product.GetBondBetweenAtoms(p_idx[a], p_idx[b])
        if bond is not None and bond.IsInRing():
            for ring in ring_info.BondRings():
                if bond.GetIdx() in ring:
                    atoms = {product.GetBondWithIdx(x).GetBeginAtom().GetAtomicNum() for x in ring}
                    atoms |= {product.GetBondWithIdx(x).GetEndAtom().GetAtomicNum() for x in ring}
                    if atoms & _HETERO:
                        return 4
    if not centre.inter_reactant:
        if centre.h_change > 0 or centre.o_change < 0:
            return 7
        if centre.h_change < 0 and centre.o_change > 0:
            return 8
    carbonyl_idx = {m[0] for m in product.GetSubstructMatches(_CARBONYL_LIKE)}
    nums = {m: atom.GetAtomicNum() for m, atom in p_atoms.items()}
    for a, b in centre.formed:
        za, zb = nums[a], nums[b]
        if (za in _HETERO and p_idx[b] in carbonyl_idx) or (zb in _HETERO and p_idx[a] in carbonyl_idx):
            return 2
    for a, b in centre.formed:
        if nums[a] == 6 and nums[b] == 6:
            return 3
    for a, b in centre.formed:
        if (nums[a] in _HETERO and nums[b] == 6) or (nums[b] in _HETERO and nums[a] == 6):
            return 1
    nitro_n = {m[0] for m in product.GetSubstructMatches(_NITRO_AZIDE_N)}
    broken_atoms = {x for pair in centre.broken for x in pair}
    for a, b in centre.formed:
        for x, y in ((a, b), (b, a)):
            if (nums[y] in _HETERO | _HALOGENS) and (nums[y] in _HALOGENS or p_idx[y] in nitro_n):
                if x not in broken_atoms:
                    return 10
    if not centre.formed and not centre.broken and not centre.order_changed and centre.h_change == 0:
        # only leaving atoms changed: e.g. halide or hydroxyl replaced by nothing mapped
        if not _lost_atoms(reactants, set(p_idx)):
            return None
    if centre.inter_reactant:
        for a, b in centre.formed:
            if nums[a] in _HALOGENS or nums[b] in _HALOGENS:
                return 10
    if centre.h_change < 0 and centre.o_change > 0:
        return 8
    return 9


def reaction_class_name(reaction_class: int | None) -> str:
    """Human name of a Schneider class, or ``""`` when unknown."""
    return REACTION_CLASSES.get(reaction_class or 0, "")


def reaction_class_category(reaction_class: int | None) -> str:
    """Machine category of a Schneider class, or ``""`` when unknown."""
    return REACTION_CATEGORIES.get(reaction_class or 0, "")


__all__ = [
    "REACTION_CLASSES",
    "REACTION_CLASSES_ZH",
    "REACTION_CATEGORIES",
    "ReactionCentre",
    "reaction_centre",
    "infer_reaction_class",
    "reaction_class_name",
    "reaction_class_category",
]

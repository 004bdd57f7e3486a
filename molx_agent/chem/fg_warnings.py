"""M7: functional-group conflicts, reaction compatibility, protection needs, deprotection safety."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from rdkit import Chem

from molx_agent.chem.fg_detect import (
    detect_functional_groups,
    detect_protecting_groups,
    protecting_group_library,
)
from molx_agent.chem.utils import MolLike, as_mol
from molx_agent.errors import ChemistryError

_AMINES = ("primary_amine", "secondary_amine", "aniline", "secondary_aryl_amine")
_ALCOHOLS = ("primary_alcohol", "secondary_alcohol", "tertiary_alcohol", "phenol")
_PROTIC = (*_AMINES, *_ALCOHOLS, "carboxylic_acid", "thiol", "primary_amide", "sulfonamide", "terminal_alkyne")
#: The groups whose proton a Grignard or organolithium reagent takes (amines, alcohols, phenols, acids, thiols, primary
#: amides, sulfonamides, terminal alkynes).
PROTIC_GROUPS: frozenset[str] = frozenset(_PROTIC)

#: Pairs of groups that react with each other when present together (same molecule or same pot).
CONFLICT_PAIRS: tuple[tuple[str, str, str, str], ...] = (
    ("primary_amine", "acid_chloride", "high", "amines are acylated by acid chlorides"),
    ("secondary_amine", "acid_chloride", "high", "amines are acylated by acid chlorides"),
    ("primary_amine", "anhydride", "high", "amines are acylated by anhydrides"),
    ("primary_amine", "aldehyde", "medium", "primary amines condense with aldehydes to imines"),
    ("primary_amine", "ketone", "low", "primary amines can condense with ketones"),
    ("primary_amine", "isocyanate", "high", "amines add to isocyanates (ureas)"),
    ("primary_amine", "sulfonyl_chloride", "high", "amines are sulfonylated"),
    ("secondary_amine", "sulfonyl_chloride", "high", "amines are sulfonylated"),
    ("aniline", "acid_chloride", "high", "anilines are acylated by acid chlorides"),
    ("aniline", "sulfonyl_chloride", "high", "anilines are sulfonylated"),
    ("primary_amine", "epoxide", "medium", "amines open epoxides"),
    ("primary_amine", "alkyl_bromide", "medium", "amines are alkylated by alkyl halides"),
    ("secondary_amine", "alkyl_iodide", "medium", "amines are alkylated by alkyl halides"),
    ("primary_amine", "enone", "medium", "amines undergo aza-Michael addition"),
    ("primary_alcohol", "acid_chloride", "medium", "alcohols are acylated by acid chlorides"),
    ("primary_alcohol", "isocyanate", "medium", "alcohols add to isocyanates (carbamates)"),
    ("thiol", "alkyl_bromide", "high", "thiols are alkylated by alkyl halides"),
    ("thiol", "enone", "high", "thiols undergo thia-Michael addition"),
    ("thiol", "epoxide", "medium", "thiols open epoxides"),
    ("carboxylic_acid", "grignard", "high", "Grignard reagents are quenched by acids"),
    ("primary_alcohol", "grignard", "high", "Grignard reagents are quenched by alcohols"),
    ("aldehyde", "grignard", "high", "Grignard reagents add to aldehydes"),
    ("azide", "phosphine", "high", "phosphines reduce azides (Staudinger)"),
    ("azide", "terminal_alkyne", "low", "azides and alkynes can cyclise (click), especially with Cu"),
    ("hydrazine", "aldehyde", "high", "hydrazines condense with aldehydes"),
    ("hydrazine", "ketone", "medium", "hydrazines condense with ketones"),
    ("boronic_acid", "aryl_bromide", "low", "self-coupling under Pd catalysis"),
    ("phosphonium_ylide", "aldehyde", "high", "ylides olefinate aldehydes (Wittig)"),
)

#: Groups that do not survive (or interfere with) each reaction type.
REACTION_INCOMPATIBILITIES: dict[str, tuple[str, ...]] = {
    "grignard": (*_PROTIC, "aldehyde", "ketone", "ester", "nitrile", "nitro", "acid_chloride", "epoxide"),
    "organolithium": (*_PROTIC, "aldehyde", "ketone", "ester", "nitrile", "nitro", "acid_chloride", "alkyl_bromide"),
    "lialh4_reduction": ("ester", "carboxylic_acid", "amide_generic", "nitrile", "ketone", "aldehyde", "epoxide", "nitro", "alkyl_bromide", "alkyl_iodide", "azide"),
    "nabh4_reduction": ("aldehyde", "ketone", "acid_chloride", "imine"),
    "hydrogenation": ("alkene", "alkyne", "nitro", "azide", "aryl_bromide", "aryl_iodide", "imine", "nitrile", "disulfide"),
    # a nitro group is reduced by H2 over Pd, but as often by a dissolving metal or tin(II) chloride (Fe/NH4Cl,
    # Fe/AcOH, Zn, SnCl2), which leave aryl halides, alkenes, alkynes and nitriles and reduce an azide alone: the
    # groups only hydrogenation touches are a choice of conditions (step_selectivity's ``reagent_choice``)
    "nitro_reduction": ("azide",),
    "suzuki": ("thiol", "azide", "aryl_iodide", "organostannane"),
    "buchwald_hartwig": ("thiol", "carboxylic_acid", "azide"),
    "amide_coupling": ("primary_amine", "secondary_amine", "primary_alcohol", "thiol", "carboxylic_acid"),
    "wittig": ("aldehyde", "carboxylic_acid", "acid_chloride"),
    "oxidation": ("thiol", "thioether", "aldehyde", "primary_amine", "secondary_amine", "hydrazine", "phosphine"),
    "acid_deprotection": ("acetal", "tertiary_alcohol", "epoxide"),
    "ester_hydrolysis": ("ester", "lactone", "acid_chloride", "anhydride", "epoxide"),
    "alkylation": ("primary_amine", "secondary_amine", "thiol", "phenol", "carboxylic_acid"),
    "mitsunobu": ("carboxylic_acid", "phenol", "primary_alcohol", "secondary_alcohol", "azide", "primary_amine",
                  "secondary_amine"),
    "reductive_amination": ("aldehyde", "ketone", "primary_amine"),
    "friedel_crafts": ("primary_amine", "secondary_amine", "aniline", "primary_alcohol", "secondary_alcohol", "acetal"),
    "snar": ("primary_amine", "secondary_amine", "thiol", "phenol"),
    "sonogashira": ("terminal_alkyne", "azide"),
    "heck": ("alkene", "terminal_alkene"),
    "click": ("terminal_alkyne", "azide"),
    "ether_cleavage": (),  # the alkyl ethers the product keeps: see step_selectivity
    # the acyl azide's isocyanate adds a free amine of its own molecule (a cyclic or oligomeric urea) before the
    # alcohol that is to trap it: praziquantel's beta-amino acid "rearranged" with its ring NH free
    "curtius": ("primary_amine", "secondary_amine", "aniline", "secondary_aryl_amine", "thiol"),
}

#: Groups whose presence is a hard stop for a reaction type (they destroy the reagent).
FORBIDDEN_GROUPS: dict[str, tuple[str, ...]] = {
    "grignard": ("carboxylic_acid", "primary_alcohol", "secondary_alcohol", "tertiary_alcohol", "phenol", "primary_amine", "thiol"),
    "organolithium": ("carboxylic_acid", "primary_alcohol", "secondary_alcohol", "tertiary_alcohol", "phenol", "primary_amine", "thiol"),
    "lialh4_reduction": ("carboxylic_acid",),
    "wittig": ("carboxylic_acid",),
}

#: First match wins, so the specific names come first: a Friedel-Crafts acylation is not an amide coupling, and a
#: name that merely contains "amide" (a nitrile hydrated to an amide, an amide dehydrated, a sulfonamide N-alkylated
#: by Mitsunobu, an amide N-alkylated) is not one either: only an amide or sulfonamide formed from an amine is.
_REACTION_KEYWORDS: tuple[tuple[str, str | None], ...] = (
    ("friedel", "friedel_crafts"), ("mitsunobu", "mitsunobu"), ("thioamide", None), ("curtius", "curtius"),
    ("grignard", "grignard"), ("organolithium", "organolithium"), ("lithi", "organolithium"),
    ("lialh4", "lialh4_reduction"), ("lah", "lialh4_reduction"), ("nabh4", "nabh4_reduction"),
    ("nitro_reduction", "nitro_reduction"), ("hydrogenation", "hydrogenation"), ("hydrogenolysis", "hydrogenation"),
    ("suzuki", "suzuki"), ("buchwald", "buchwald_hartwig"), ("amide_bond", "amide_coupling"),
    ("amide_from", "amide_coupling"), ("aminolysis", "amide_coupling"), ("sulfonamide_formation", "amide_coupling"),
    ("acylation", "amide_coupling"),
    ("hwe", "wittig"), ("wittig", "wittig"), ("swern", "oxidation"), ("dmp", "oxidation"), ("jones", "oxidation"),
    ("oxidation", "oxidation"), ("boc_deprotection", "acid_deprotection"), ("tfa", "acid_deprotection"),
    ("ester_hydrolysis", "ester_hydrolysis"), ("saponification", "ester_hydrolysis"),
    ("reductive_amination", "reductive_amination"), ("snar", "snar"),
    ("sonogashira", "sonogashira"), ("heck", "heck"), ("click", "click"), ("cuaac", "click"),
    ("alkylation", "alkylation"), ("williamson", "alkylation"), ("sn2", "alkylation"),
    ("bbr3", "ether_cleavage"), ("ether_cleavage", "ether_cleavage"),
)

#: Groups that hydrogen over palladium reduces or cleaves besides a nitro group (the ``hydrogenation`` entry of
#: :data:`REACTION_INCOMPATIBILITIES`): a nitro reduction that keeps one is run with Fe/NH4Cl, Fe/AcOH or SnCl2 instead.
_HYDROGENATION_ONLY = ("alkene", "alkyne", "aryl_bromide", "aryl_iodide", "imine", "nitrile", "disulfide")
#: Groups LiAlH4 reduces besides an ester and LiBH4 (or NaBH4 with CaCl2 or LiCl) leaves: an ester reduced beside
#: one is a choice of reagent (``reagent_choice``), not a conflict.
_ESTER_REDUCTION_SPARED = ("amide_generic", "nitrile", "nitro")
#: The N-H nucleophiles an acylation (amide, sulfonamide, carbamate or urea formation) consumes.
_ACYLATED_AMINES = ("primary_amine", "secondary_amine", "aniline", "secondary_aryl_amine")


def conditions_spare(key: str, group: str, consumed: set[str], precursor_counts: dict[str, int]) -> str | None:
    """Why a group the product keeps, listed against reaction type ``key`` in :data:`REACTION_INCOMPATIBILITIES`, is
    not at risk in this step (``None``: it is).  Each case is a recorded USPTO-50K reaction the table flagged:

    - an amide or sulfonamide formation that acylates an amine keeps a primary alcohol: N-acylation outruns
      O-acylation with a coupling reagent, or with one equivalent of an acid chloride and a base (an amino alcohol's
      amide without protection is routine);
    - an acylation keeps a carboxylic acid although the step consumes none: the acyl donor is an acid chloride,
      anhydride or ester, so no coupling reagent activates the kept acid (Schotten-Baumann acylation of an amino
      acid); when the step couples an acid, the kept acid would be activated too (then it is consumed as well, and
      counted as such);
    - a reductive amination of an aldehyde keeps a ketone: NaBH(OAc)3 (or NaBH3CN near pH 5) reduces the aldehyde's
      iminium ion and leaves the ketone;
    - an alkylation of an amine or thiol keeps a carboxylic acid: the amine or thiolate outruns the carboxylate for
      the alkyl halide (an aniline N-alkylated by bromoacetic acid, a thiosalicylic acid S-arylated); when the
      step alkylates an alcohol or phenol under base, the carboxylate competes (an ester), and the warning stands;
    - an alkylation of an alkyl amine keeps a phenol: the amine outruns the neutral phenol for the alkyl halide (40
      recorded USPTO-50K training reactions alkylate a primary or secondary alkyl amine beside a free phenol, among
      them epinephrine's classic step, methylamine on 2-chloro-3',4'-dihydroxyacetophenone; 9 go the other way, a
      phenoxide made with a carbonate or hydride alkylated beside a kept amine, which stays warned); an aryl amine,
      slower, still competes with the phenol and stays warned;
    - a Heck reaction keeps "an alkene" when the precursors hold only one: the kept alkene is the one that reacted.

    An ester reduced beside a kept amide, nitrile or nitro group is not spared (LiAlH4 reduces them too), but it is a
    choice of reagent rather than a protection: :func:`spared_by_reagent` and :func:`reagent_choice`.
    """
    if key == "amide_coupling" and group == "primary_alcohol" and consumed & set(_ACYLATED_AMINES):
        return "amines are acylated well before primary alcohols"
    if key == "amide_coupling" and group == "carboxylic_acid" and "carboxylic_acid" not in consumed:
        return "the acyl donor is not the acid, so no coupling reagent activates the kept acid"
    if key == "reductive_amination" and group == "ketone" and "aldehyde" in consumed and "ketone" not in consumed:
        return "NaBH(OAc)3 reduces the aldehyde's iminium ion and leaves the ketone"
    if key == "alkylation" and group == "carboxylic_acid" and consumed & {*_ACYLATED_AMINES, "thiol"}:
        return "the amine or thiol outruns the carboxylate for the electrophile"
    if key == "alkylation" and group == "phenol" and consumed & {"primary_amine", "secondary_amine"} \
            and "phenol" not in consumed:
        return "the alkyl amine outruns the neutral phenol for the electrophile"
    if key == "heck" and group in ("alkene", "terminal_alkene") and precursor_counts.get("alkene", 0) <= 1:
        return "the alkene the product keeps is the one that reacted"
    return None


#: A carbon bonded to an electropositive metal: an organolithium, Grignard, organozinc, cuprate or organosodium/
#: potassium reagent (a strong base as well as the nucleophile); not a metal cyanide (CuCN, Zn(CN)2), no base.
_ORGANOMETALLIC_PATTERN = Chem.MolFromSmarts("[#6;!$([#6]#[#7])]~[Li,Mg,Zn,Cu,Na,K,Cs]")
#: Groups whose proton such a reagent takes before it reacts at carbon.
_ORGANOMETALLIC_QUENCHERS = FORBIDDEN_GROUPS["grignard"]

#: The deoxyhalogenating reagents a route writes as precursors (canonical SMILES -> name): POCl3 and POBr3 (a lactam's
#: or hydroxy-azine's chloride or bromide), PCl5, PCl3, PBr3, SOCl2, SOBr2 and oxalyl chloride (an alcohol's or an
#: acid's halide).
_HALOGENATING_REAGENTS: dict[str, str] = {
    Chem.MolToSmiles(Chem.MolFromSmiles(smiles)): name for smiles, name in (
        ("O=P(Cl)(Cl)Cl", "POCl3"), ("O=P(Br)(Br)Br", "POBr3"), ("ClP(Cl)(Cl)(Cl)Cl", "PCl5"), ("ClP(Cl)Cl", "PCl3"),
        ("BrP(Br)Br", "PBr3"), ("O=S(Cl)Cl", "SOCl2"), ("O=S(Br)Br", "SOBr2"), ("O=C(Cl)C(=O)Cl", "oxalyl chloride"),
    )
}
#: The groups such a reagent halogenates, phosphorylates or sulfinylates as well, by the kind they belong to: a free
#: aliphatic alcohol or a thiol.  Not a phenol or an aniline (the reference routes keep them beside POCl3 and SOCl2:
#: a 2-aminopyrimidinone chlorinated), not a carboxylic acid (its acid chloride is hydrolysed back on work-up), not
#: an alkyl amine (it stands as its hydrochloride: ethanolamine's 2-chloroethylamine).
_HALOGENATED_GROUPS: dict[str, str] = {"primary_alcohol": "alcohol", "secondary_alcohol": "alcohol",
                                       "tertiary_alcohol": "alcohol", "thiol": "thiol"}

#: An acyclic ether with at least one sp3 carbon (methyl, methoxyethyl, MOM, benzyl ethers; not a diaryl ether).
_ALKYL_ETHER_PATTERN = Chem.MolFromSmarts("[OX2;!R]([CX4])[#6;!$([#6]=[O,S,N])]")

#: Protecting groups a chemist would reach for, by what needs protecting.
_PG_FOR: dict[str, tuple[str, ...]] = {
    "primary_amine": ("Boc", "Cbz", "Fmoc"),
    "secondary_amine": ("Boc", "Cbz", "Fmoc"),
    "aniline": ("Boc", "Ac"),
    "secondary_aryl_amine": ("Boc",),
    "primary_alcohol": ("TBS", "THP", "Bn", "MOM"),
    "secondary_alcohol": ("TBS", "Bn", "MOM"),
    "tertiary_alcohol": ("TMS", "MOM"),
    "phenol": ("Bn", "TBS", "MOM"),
    "carboxylic_acid": ("tBu_ester", "Me_ester", "Bn_ester"),
    "aldehyde": ("acetal_ketal", "dimethyl_acetal"),
    "ketone": ("acetal_ketal",),
    "thiol": ("Tr",),
    "terminal_alkyne": ("TMS_alkyne",),
}


def normalize_reaction_type(reaction_type: str | None) -> str | None:
    """The compatibility-table key for a reaction name, category or template id (None if unknown)."""
    if not reaction_type:
        return None
    key = str(reaction_type).strip().lower().replace(" ", "_").replace("-", "_")
    if key in REACTION_INCOMPATIBILITIES:
        return key
    for word, target in _REACTION_KEYWORDS:
        if word in key:
            return target
    return None


def _group_names(mol_or_smiles: MolLike) -> dict[str, dict[str, Any]]:
    return {g["name"]: g for g in detect_functional_groups(as_mol(mol_or_smiles))}


def check_fg_conflicts(mol_or_smiles: MolLike) -> list[dict[str, Any]]:
    """Pairs of mutually reactive groups present together: ``[{group_a, group_b, severity, reason}]``."""
    names = _group_names(mol_or_smiles)
    return [
        {"group_a": a, "group_b": b, "severity": sev, "reason": why}
        for a, b, sev, why in CONFLICT_PAIRS
        if a in names and b in names
    ]


def _group_counts(smiles: list[str] | str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for smi in [smiles] if isinstance(smiles, str) else smiles:
        for g in detect_functional_groups(as_mol(smi)):
            counts[g["name"]] = counts.get(g["name"], 0) + int(g.get("count") or 1)
    return counts


def _consumed_and_spectators(precursors: list[str], product: str) -> tuple[set[str], set[str]]:
    """The functional groups a step consumes (fewer in the product than in the precursors) and those it keeps."""
    consumed, spectators, _ = _step_groups(precursors, product)
    return consumed, spectators


def _step_groups(precursors: list[str], product: str) -> tuple[set[str], set[str], dict[str, int]]:
    """:func:`_consumed_and_spectators` and the precursors' group counts."""
    prec = _group_counts(list(precursors))
    prod = _group_counts(product)
    consumed = {n for n, c in prec.items() if c > prod.get(n, 0)}
    spectators = {n for n, c in prec.items() if c >= 1 and prod.get(n, 0) >= 1}
    return consumed, spectators, prec


def step_selectivity(precursors: list[str], product: str, reaction_type: str | None = None) -> list[dict[str, Any]]:
    """Selectivity conflicts of one step ``precursors >> product`` (a chemist's glance, not a proof):

    - ``competing_reaction``: a group the step consumes (fewer in the product than in the precursors) and a group of
      a high-severity :data:`CONFLICT_PAIRS` pair that the product keeps (a spectator): under the step's conditions
      the consumed group would attack the spectator too, e.g. a piperazine N-alkylated beside an acid chloride, or
      an amino-pyrazole condensed beside a sulfonyl chloride;
    - ``incompatible_group``: a spectator the reaction type attacks (:data:`REACTION_INCOMPATIBILITIES`), e.g. a
      free amine through a Mitsunobu reaction; for an ether cleavage by BBr3, an acyclic alkyl ether the product
      keeps (BBr3 cleaves methyl, methoxyethyl, MOM and benzyl ethers alike: erlotinib's 6-OMe "removed" beside
      two methoxyethyl ethers). A medium-confidence warning, not a verdict: 48 of the 420 recorded aryl
      O-demethylations of USPTO-50K (train and validation, any reagent) keep such an ether, through an
      ortho-carbonyl's chelation or one equivalent at low temperature. Whatever the reaction type's name, an
      organometallic precursor (RLi, RMgX, RZnX, a cuprate) beside a carboxylic acid, alcohol, phenol, primary amine
      or thiol the product keeps: the reagent is protonated first (ibuprofen's isobutylzinc coupled to a bromoaryl
      propionic acid); excess reagent or a protection step the route does not show. Likewise a deoxyhalogenating
      reagent (POCl3, POBr3, PCl5, PCl3, PBr3, SOCl2, SOBr2, oxalyl chloride) beside a free aliphatic alcohol or
      thiol the product keeps, when the step consumes none of that kind (capecitabine's uracil chlorinated by POCl3
      beside the sugar's free diol; the published syntheses acetylate it first).

    Nor is an aryl amine kept while the step acylates or sulfonylates an alkyl amine: the alkyl amine reacts orders
    of magnitude faster (recorded USPTO-50K steps do it without protection, beside 4-aminoquinolines and anilines
    alike); an aryl amine acylated beside another is still a ``competing_reaction``.

    A kept group that the step's own partners or the usual reagent spare is no conflict (:func:`conditions_spare`:
    an amino alcohol N-acylated, an acid kept beside an acid chloride's acylation, a ketone kept through an
    aldehyde's reductive amination, the alkene a Heck reaction made).

    - ``reagent_choice`` (information, no cost and no confidence cap): the step is sound with the usual reagent, and
      the groups the product keeps decide which one: a nitro reduction beside an aryl bromide or iodide, alkene,
      alkyne, nitrile, imine or disulfide is run with Fe/NH4Cl, Fe/AcOH or SnCl2 (H2 over Pd would reduce or cleave
      them too); an aldehyde's reductive amination beside a ketone with NaBH(OAc)3; an ester reduced to the alcohol
      beside an amide, nitrile or nitro group with LiBH4 (or NaBH4 with CaCl2 or LiCl), not LiAlH4.

    Returns ``[{code, groups, reason}]``; empty when nothing conflicts or a SMILES does not parse.
    """
    try:
        consumed, spectators, prec_counts = _step_groups(precursors, product)
    except Exception:  # noqa: BLE001 - an unparsable step has no selectivity verdict here (validation rejects it)
        return []
    out: list[dict[str, Any]] = []
    for a, b, sev, why in CONFLICT_PAIRS:
        if sev != "high":
            continue
        for nuc, other in ((a, b), (b, a)):
            if nuc in consumed and other in spectators:
                if other == "aniline" and "aniline" not in consumed and consumed & {"primary_amine", "secondary_amine"}:
                    continue  # an alkyl amine acylated or sulfonylated beside a kept aryl amine: it reacts far faster
                out.append({"code": "competing_reaction", "groups": [nuc, other],
                            "reason": f"the {nuc.replace('_', ' ')} this step consumes would also react with the "
                                      f"{other.replace('_', ' ')} the product keeps ({why})"})
    key = normalize_reaction_type(reaction_type)
    if key is not None:
        for n in _kept(REACTION_INCOMPATIBILITIES.get(key, ()), consumed, spectators):
            # a spectator the conditions attack; the groups the step itself transforms are its point, not a conflict
            if kept_group_spared(key, n, consumed, prec_counts):
                continue
            out.append({"code": "incompatible_group", "groups": [n],
                        "reason": f"the {n.replace('_', ' ')} the product keeps may not survive "
                                  f"{key.replace('_', ' ')} conditions (protect it, or change the order)"})
        note = reagent_choice(key, consumed, spectators, prec_counts)
        if note is not None:
            out.append(note)
        if key == "ether_cleavage" and _keeps_alkyl_ether(product):
            out.append({"code": "incompatible_group", "groups": ["ether"],
                        "reason": "the alkyl ether the product keeps would be cleaved by BBr3 as well (one methyl "
                                  "ether is selectively cleaved only beside an ortho carbonyl or with one equivalent "
                                  "in the cold; install that ether after the cleavage, or protect the phenol "
                                  "differently)"})
    reagent = halogenating_reagent(precursors)
    if reagent is not None:
        _add_kept_groups(out, _halogenated(consumed, spectators),
                         f"would be halogenated, phosphorylated or sulfinylated by {reagent} as well (protect it, "
                         "e.g. as an acetate or silyl ether, or change the order)")
    if has_organometallic(precursors):
        _add_kept_groups(out, _kept(_ORGANOMETALLIC_QUENCHERS, consumed, spectators),
                         "would protonate the organometallic reagent before it reacts at carbon (protect it, use "
                         "excess reagent, or change the order)")
        if has_grignard_or_organolithium(precursors):  # one kind of organometallic
            _add_kept_groups(out, _kept(_CARBONYL_ELECTROPHILES, consumed, spectators),
                             "would be attacked by the Grignard or organolithium reagent as well (protect it, use an "
                             "organozinc or a functionalised Grignard at low temperature, or change the order)")
    return out


def spared_by_reagent(key: str, group: str, consumed: set[str]) -> bool:
    """Whether a kept ``group`` listed against reaction type ``key`` is spared by the choice of reagent rather than
    at risk: an ester reduced to the alcohol beside an amide, nitrile or nitro group (LiBH4, not LiAlH4).  Such a
    step is sound; :func:`reagent_choice` says which reagent it needs."""
    return key == "lialh4_reduction" and "ester" in consumed and group in _ESTER_REDUCTION_SPARED


def kept_group_spared(key: str, group: str, consumed: set[str], precursor_counts: dict[str, int]) -> bool:
    """Whether a kept ``group`` listed against reaction type ``key`` in :data:`REACTION_INCOMPATIBILITIES` is no
    conflict: the step's partners or the usual reagent spare it (:func:`conditions_spare`), or the choice of reagent
    does (:func:`spared_by_reagent`)."""
    return conditions_spare(key, group, consumed, precursor_counts) is not None or spared_by_reagent(key, group, consumed)


def reagent_choice(key: str, consumed: set[str], spectators: set[str],
                   precursor_counts: dict[str, int]) -> dict[str, Any] | None:
    """The ``reagent_choice`` entry (``{code, groups, reason}``) of a step of reaction type ``key`` whose kept groups
    pick its reagent, or ``None``.  ``consumed`` / ``spectators``: the groups the step uses up and the groups the
    product keeps; ``precursor_counts``: the precursors' group counts (as :func:`conditions_spare` reads them)."""
    listed = _kept(REACTION_INCOMPATIBILITIES.get(key, ()), consumed, spectators)
    if key == "nitro_reduction":
        kept = _kept(_HYDROGENATION_ONLY, consumed, spectators)
        reason = ("reduce the nitro group with Fe/NH4Cl, Fe/AcOH or SnCl2, which leave the {names} the product keeps "
                  "(H2 over Pd would reduce or cleave it as well)")
    elif key == "lialh4_reduction":
        kept = [n for n in listed if spared_by_reagent(key, n, consumed)]
        reason = ("reduce the ester with LiBH4 (or NaBH4 with CaCl2 or LiCl), which leaves the {names} the product "
                  "keeps (LiAlH4 would reduce it as well)")
    elif key == "reductive_amination":
        kept = [n for n in listed if conditions_spare(key, n, consumed, precursor_counts) is not None]  # the ketone
        reason = ("run the reductive amination with NaBH(OAc)3, which reduces the aldehyde's iminium ion and leaves "
                  "the {names} the product keeps (not NaBH4 or H2)")
    else:
        return None
    if not kept:
        return None
    names = ", ".join(n.replace("_generic", "").replace("_", " ") for n in kept)
    return {"code": "reagent_choice", "groups": kept, "reason": reason.format(names=names)}


#: A Grignard or organolithium reagent: a carbon bonded to Mg or Li (not a cyanide's).
_GRIGNARD_PATTERN = Chem.MolFromSmarts("[#6;!$([#6]#[#7])]~[Li,Mg]")
#: Carbonyl groups a Grignard or organolithium reagent adds to (an organozinc, the Negishi reagent, tolerates them).
#: Not esters: 19 of the 385 recorded USPTO-50K organometallic steps keep one (an aldehyde or halide reacting first at
#: low temperature), none keeps an aldehyde or ketone (benchmarks/mechanism_flags.py organometallic).
_CARBONYL_ELECTROPHILES = ("aldehyde", "ketone")


def has_grignard_or_organolithium(precursors: list[str]) -> bool:
    """Whether a precursor is a Grignard or organolithium reagent (a carbon bonded to Mg or Li)."""
    return _any_matches(precursors, _GRIGNARD_PATTERN)


def _kept(names: Iterable[str], consumed: set[str], spectators: set[str]) -> list[str]:
    """Those of ``names`` the product keeps (spectators) and the step consumes none of, in ``names``' order."""
    return [n for n in names if n in spectators and n not in consumed]


def _any_matches(precursors: list[str], pattern: Chem.Mol) -> bool:
    return any(as_mol(smi).HasSubstructMatch(pattern) for smi in precursors)


def grignard_electrophiles(precursors: list[str], product: str) -> list[str]:
    """The aldehyde or ketone groups the product keeps beside a Grignard or organolithium precursor, which
    that reagent would attack as well (empty when no precursor is one; a step that consumes a group of the same
    kind, a Grignard addition to one of two ketones, is left alone): the rule ``step_selectivity`` applies."""
    if not has_grignard_or_organolithium(precursors):
        return []
    return _kept(_CARBONYL_ELECTROPHILES, *_consumed_and_spectators(precursors, product))


def _add_kept_groups(out: list[dict[str, Any]], groups: list[str], what: str) -> None:
    """An ``incompatible_group`` entry in ``out`` for each of ``groups`` (groups the product keeps) that no entry
    names yet: "the <group> the product keeps <what>"."""
    flagged = {g for c in out if c["code"] == "incompatible_group" for g in c["groups"]}
    for n in groups:
        if n not in flagged:
            out.append({"code": "incompatible_group", "groups": [n],
                        "reason": f"the {n.replace('_', ' ')} the product keeps {what}"})


def has_organometallic(precursors: list[str]) -> bool:
    """Whether a precursor is an organometallic reagent: a carbon bonded to Li, Mg, Zn, Cu, Na, K or Cs, other than a
    cyanide's (CuCN and Zn(CN)2 are no base); an alkoxide or an amide base (O-Na, N-Li) is not one."""
    return _any_matches(precursors, _ORGANOMETALLIC_PATTERN)


def halogenating_reagent(precursors: list[str]) -> str | None:
    """The name of the deoxyhalogenating reagent among ``precursors`` (POCl3, POBr3, PCl5, PCl3, PBr3, SOCl2, SOBr2,
    oxalyl chloride), or ``None``."""
    for smi in precursors:
        if "Cl" not in smi and "Br" not in smi:
            continue
        try:
            name = _HALOGENATING_REAGENTS.get(Chem.MolToSmiles(as_mol(smi)))
        except Exception:  # noqa: BLE001 - an unparsable precursor is no reagent here (validation rejects it)
            continue
        if name is not None:
            return name
    return None


def _halogenated(consumed: set[str], spectators: set[str]) -> list[str]:
    """The kept groups a deoxyhalogenating reagent attacks; none of a kind the step itself consumes (an alcohol
    chlorinated or phosphorylated beside another: one of two like groups, ``competing_site``)."""
    kinds = {_HALOGENATED_GROUPS[n] for n in consumed if n in _HALOGENATED_GROUPS}
    return [n for n, kind in _HALOGENATED_GROUPS.items() if n in spectators and n not in consumed and kind not in kinds]


def halogenating_reagent_conflicts(precursors: list[str], product: str) -> list[str]:
    """The groups of ``precursors`` that the product keeps and that the step's deoxyhalogenating reagent would attack
    as well (empty when no precursor is one): the rule ``step_selectivity`` applies to such a step."""
    if halogenating_reagent(precursors) is None:
        return []
    return _halogenated(*_consumed_and_spectators(precursors, product))


def organometallic_quenchers(precursors: list[str], product: str) -> list[str]:
    """The groups of ``precursors`` that the product keeps and that would protonate an organometallic precursor
    (empty when no precursor is one): the rule ``step_selectivity`` applies to such a step."""
    if not has_organometallic(precursors):
        return []
    return _kept(_ORGANOMETALLIC_QUENCHERS, *_consumed_and_spectators(precursors, product))


def _keeps_alkyl_ether(smiles: str) -> bool:
    return as_mol(smiles).HasSubstructMatch(_ALKYL_ETHER_PATTERN)


def check_reaction_compatibility(mol_or_smiles: MolLike, reaction_type: str) -> dict[str, Any]:
    """Groups of a molecule that a reaction type would attack: ``{compatible, reaction_type, incompatible_groups,
    forbidden_groups, warnings}``.  An unknown reaction type gives ``compatible=True`` and ``known=False``."""
    key = normalize_reaction_type(reaction_type)
    if key is None:
        return {"compatible": True, "known": False, "reaction_type": reaction_type, "incompatible_groups": [],
                "forbidden_groups": [], "warnings": []}
    names = _group_names(mol_or_smiles)
    bad = [n for n in REACTION_INCOMPATIBILITIES[key] if n in names]
    forbidden = [n for n in FORBIDDEN_GROUPS.get(key, ()) if n in names]
    warnings = [f"{names[n].get('label', n)} may not survive {key.replace('_', ' ')}" for n in bad]
    return {"compatible": not bad, "known": True, "reaction_type": key, "incompatible_groups": bad,
            "forbidden_groups": forbidden, "warnings": warnings}


def suggest_protection_needs(mol_or_smiles: MolLike, reaction_type: str) -> list[dict[str, Any]]:
    """Groups to protect before ``reaction_type``: ``[{group, atoms, suggested_pg, reason}]``."""
    comp = check_reaction_compatibility(mol_or_smiles, reaction_type)
    names = _group_names(mol_or_smiles)
    out = []
    for n in comp["incompatible_groups"]:
        if n in _PG_FOR:
            out.append({
                "group": n,
                "atoms": names[n]["atoms"],
                "suggested_pg": list(_PG_FOR[n]),
                "reason": f"{names[n].get('label', n)} would react under {comp['reaction_type'].replace('_', ' ')}",
            })
    return out


def check_deprotection_safety(mol_or_smiles: MolLike, pg_name: str) -> dict[str, Any]:
    """Can ``pg_name`` be removed without touching the molecule's other protecting groups?

    Returns ``{safe, pg, removal, condition, endangered: [{name, reason}], present}``.  Unknown PG names raise
    ``ChemistryError(code="unknown_protecting_group")``.
    """
    lib = {g.name.lower(): g for g in protecting_group_library()}
    entry = lib.get(pg_name.strip().lower())
    if entry is None:
        raise ChemistryError(
            "unknown_protecting_group", f"unknown protecting group {pg_name!r}", value=pg_name,
            hint="known: " + ", ".join(sorted(g.name for g in protecting_group_library())),
        )
    condition = (entry.info.get("labile_to") or ["unknown"])[0]
    present = detect_protecting_groups(mol_or_smiles)
    endangered = []
    for g in present:
        if g["name"] == entry.name:
            continue
        if condition in g.get("labile_to", []):
            endangered.append({"name": g["name"], "reason": f"{g['name']} is also cleaved by {condition}"})
    names = _group_names(mol_or_smiles)
    if condition == "acid" and "acetal" in names and entry.name not in ("acetal_ketal", "dimethyl_acetal"):
        endangered.append({"name": "acetal", "reason": "acetals hydrolyse under acid"})
    if condition == "hydrogenation":
        for n in ("alkene", "alkyne", "nitro", "azide", "aryl_bromide", "aryl_iodide"):
            if n in names:
                endangered.append({"name": n, "reason": f"{names[n].get('label', n)} is reduced or cleaved by H2/Pd"})
    return {
        "safe": not endangered,
        "pg": entry.name,
        "removal": entry.info.get("removal"),
        "condition": condition,
        "present": any(g["name"] == entry.name for g in present),
        "endangered": endangered,
    }


__all__ = [
    "CONFLICT_PAIRS",
    "FORBIDDEN_GROUPS",
    "PROTIC_GROUPS",
    "REACTION_INCOMPATIBILITIES",
    "check_deprotection_safety",
    "check_fg_conflicts",
    "conditions_spare",
    "check_reaction_compatibility",
    "grignard_electrophiles",
    "halogenating_reagent",
    "has_grignard_or_organolithium",
    "halogenating_reagent_conflicts",
    "kept_group_spared",
    "normalize_reaction_type",
    "reagent_choice",
    "spared_by_reagent",
    "step_selectivity",
    "suggest_protection_needs",
]

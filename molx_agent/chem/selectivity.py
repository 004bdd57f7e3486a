"""Chemoselectivity, protecting-group recommendations and reaction feasibility (issue 3, part 8).

- :func:`analyze_selectivity` (skill ``analyze_selectivity``): competing functional groups, the
  reactivity conflicts among them (:data:`CONFLICT_PAIRS`, 18 pairs), and a protection strategy;
- :func:`recommend_protecting_groups` (exploration tool): orthogonal protecting groups for a list of
  functional groups, avoiding removal conditions already used by active protecting groups;
- :func:`assess_feasibility` (exploration tool): rule-based forward feasibility of one step -- named
  template precedent, functional-group compatibility, intramolecular side reactions, protection needs.
  Static rules, not a mechanism simulation: ``confidence`` never exceeds :data:`MAX_CONFIDENCE` (0.85).

Functional groups come from ``fg_detect`` (packaged SMARTS library).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rdkit import Chem

from molx_agent.chem.fg_detect import detect_functional_groups, detect_protecting_groups
from molx_agent.chem.utils import as_mol, map_free_smiles, parse_mol, quiet_rdkit
from molx_agent.errors import ChemistryError, ValidationError

MAX_CONFIDENCE = 0.85

#: coarse classes over the fg_detect library names
GROUP_CLASSES: dict[str, frozenset[str]] = {
    "amine": frozenset({"primary_amine", "secondary_amine"}),
    "aniline": frozenset({"aniline", "secondary_aryl_amine"}),
    "alcohol": frozenset({"primary_alcohol", "secondary_alcohol"}),
    "tertiary_alcohol": frozenset({"tertiary_alcohol"}),
    "phenol": frozenset({"phenol"}),
    "carboxylic_acid": frozenset({"carboxylic_acid"}),
    "aldehyde": frozenset({"aldehyde"}),
    "ketone": frozenset({"ketone"}),
    "ester": frozenset({"ester", "lactone"}),
    "acyl_halide": frozenset({"acid_chloride", "acid_halide", "anhydride"}),
    "isocyanate": frozenset({"isocyanate", "isothiocyanate"}),
    "alkyl_halide": frozenset({"alkyl_chloride", "alkyl_bromide", "alkyl_iodide"}),
    "aryl_halide": frozenset({"aryl_bromide", "aryl_iodide", "aryl_triflate", "heteroaryl_halide", "aryl_chloride"}),
    "boron": frozenset({"boronic_acid", "boronic_ester", "trifluoroborate"}),
    "epoxide": frozenset({"epoxide"}),
    "michael_acceptor": frozenset({"enone"}),
    "thiol": frozenset({"thiol"}),
    "alkene": frozenset({"alkene", "terminal_alkene", "diene"}),
    "alkyne": frozenset({"terminal_alkyne"}),
    "nitro": frozenset({"nitro", "aromatic_nitro"}),
    "azide": frozenset({"azide"}),
    "nitrile": frozenset({"nitrile"}),
}


@dataclass(frozen=True)
class ConflictPair:
    """Two group classes that interfere when both are present, and what to do about it."""

    group_a: str
    group_b: str
    conflict: str
    severity: str  # low / medium / high
    advice: str


#: Reactivity conflicts a chemist checks before choosing conditions (18 pairs; the seed asks for >= 12).
CONFLICT_PAIRS: tuple[ConflictPair, ...] = (
    ConflictPair("amine", "carboxylic_acid", "amide formation / zwitterion during activation", "high",
                 "protect the amine (Boc/Cbz) or the acid (tBu/Me ester) before coupling"),
    ConflictPair("amine", "aldehyde", "imine formation; self-condensation", "high",
                 "protect the amine (Boc) or mask the aldehyde as an acetal"),
    ConflictPair("amine", "ketone", "imine/enamine formation, competing reductive amination", "medium",
                 "protect the amine or the ketone (1,3-dioxolane)"),
    ConflictPair("amine", "ester", "aminolysis / lactamization", "medium",
                 "keep the amine protected until the ester has reacted"),
    ConflictPair("amine", "alkyl_halide", "intra/intermolecular N-alkylation (oligomers, quaternization)", "high",
                 "protect the amine (Boc/Cbz) or introduce the halide late"),
    ConflictPair("amine", "epoxide", "epoxide ring opening by the amine", "high",
                 "protect the amine or form the epoxide after the amine is capped"),
    ConflictPair("amine", "michael_acceptor", "aza-Michael addition", "medium",
                 "protect the amine or install the enone late"),
    ConflictPair("amine", "acyl_halide", "acylation of the amine", "high",
                 "never both free: protect the amine or generate the acyl halide in situ"),
    ConflictPair("alcohol", "carboxylic_acid", "esterification / lactonization under activation", "medium",
                 "protect the alcohol (TBS) before activating the acid"),
    ConflictPair("alcohol", "acyl_halide", "O-acylation", "high", "protect the alcohol (TBS/Bn)"),
    ConflictPair("alcohol", "isocyanate", "carbamate formation", "high", "protect the alcohol"),
    ConflictPair("phenol", "alkyl_halide", "O-alkylation of the phenol (competes with N/C-alkylation)", "medium",
                 "protect the phenol (Bn/TBS/Me) or use selective base"),
    ConflictPair("thiol", "michael_acceptor", "thia-Michael addition", "high", "protect the thiol (Trt/Acm)"),
    ConflictPair("thiol", "amine", "two soft/hard nucleophiles compete for electrophiles", "medium",
                 "protect one nucleophile; thiols also poison Pd catalysts"),
    ConflictPair("aniline", "amine", "two N-nucleophiles: acylation/alkylation selectivity", "medium",
                 "aliphatic amine reacts first; protect it (Boc) to functionalise the aniline"),
    ConflictPair("aldehyde", "ketone", "nucleophiles and hydrides attack both carbonyls (aldehyde faster)", "medium",
                 "exploit the rate difference at low temperature or protect one carbonyl"),
    ConflictPair("ketone", "ester", "Grignard/hydride reagents attack both carbonyls", "medium",
                 "use chemoselective reagents (NaBH4 for ketone) or protect the ketone"),
    ConflictPair("boron", "aryl_halide", "Suzuki self-coupling / oligomerisation under Pd", "high",
                 "couple one partner first or mask boron as MIDA boronate"),
    ConflictPair("nitro", "aryl_halide", "hydrodehalogenation during nitro reduction (H2, Pd/C)", "medium",
                 "reduce the nitro group with Fe/NH4Cl or SnCl2 instead of H2/Pd"),
    ConflictPair("azide", "alkyne", "CuAAC / thermal cycloaddition between the two", "medium",
                 "keep copper away until the click step is intended"),
)


#: protecting groups per protectable class: (name, install, removal class, removal conditions)
PG_OPTIONS: dict[str, tuple[tuple[str, str, str, str], ...]] = {
    "amine": (("Boc", "Boc2O, Et3N", "acid", "TFA/DCM or HCl/dioxane"),
              ("Cbz", "CbzCl, NaHCO3", "hydrogenolysis", "H2, Pd/C"),
              ("Fmoc", "Fmoc-OSu, NaHCO3", "base", "20% piperidine/DMF")),
    "aniline": (("Boc", "Boc2O, DMAP", "acid", "TFA/DCM"),
                ("Ac", "Ac2O, pyridine", "strong_base_or_acid", "NaOH or HCl, heat")),
    "alcohol": (("TBS", "TBSCl, imidazole", "fluoride", "TBAF/THF"),
                ("Bn", "BnBr, NaH", "hydrogenolysis", "H2, Pd/C"),
                ("PMB", "PMBCl, NaH", "oxidative", "DDQ, DCM/H2O"),
                ("THP", "DHP, PPTS", "acid", "PPTS/EtOH or aq. HCl")),
    "phenol": (("Bn", "BnBr, K2CO3", "hydrogenolysis", "H2, Pd/C"),
               ("TBS", "TBSCl, imidazole", "fluoride", "TBAF"),
               ("Me", "MeI, K2CO3", "lewis_acid", "BBr3, DCM")),
    "carboxylic_acid": (("tBu ester", "Boc2O/DMAP or isobutylene/H+", "acid", "TFA/DCM"),
                        ("Me ester", "MeOH/H2SO4 or TMSCHN2", "base", "LiOH, THF/H2O"),
                        ("Bn ester", "BnBr, Cs2CO3", "hydrogenolysis", "H2, Pd/C")),
    "aldehyde": (("1,3-dioxolane", "ethylene glycol, p-TsOH", "acid", "aq. HCl/acetone"),
                 ("dimethyl acetal", "MeOH, HC(OMe)3, H+", "acid", "aq. acid")),
    "ketone": (("1,3-dioxolane", "ethylene glycol, p-TsOH", "acid", "aq. HCl/acetone"),),
    "thiol": (("Trt", "TrtCl, base", "acid", "TFA/Et3SiH"),
              ("Acm", "AcmNHCH2OH, TFA", "oxidative", "I2 or Hg(II)")),
    "alkyne": (("TMS", "n-BuLi, TMSCl", "fluoride", "K2CO3/MeOH or TBAF"),),
    "azole_nh": (("Boc", "Boc2O, DMAP", "acid", "TFA"),
                 ("SEM", "SEMCl, NaH", "fluoride", "TBAF or TFA"),
                 ("Ts", "TsCl, NaH", "base", "NaOH/MeOH or Mg/MeOH")),
}

#: user words -> protectable class
_ALIASES = {
    "hydroxyl": "alcohol", "hydroxy": "alcohol", "oh": "alcohol", "alcohol": "alcohol",
    "primary_alcohol": "alcohol", "secondary_alcohol": "alcohol", "tertiary_alcohol": "alcohol", "diol": "alcohol",
    "amine": "amine", "amino": "amine", "nh2": "amine", "primary_amine": "amine", "secondary_amine": "amine",
    "aniline": "aniline", "secondary_aryl_amine": "aniline", "aryl_amine": "aniline",
    "phenol": "phenol", "carboxylic_acid": "carboxylic_acid", "acid": "carboxylic_acid", "cooh": "carboxylic_acid",
    "carboxyl": "carboxylic_acid", "aldehyde": "aldehyde", "cho": "aldehyde", "ketone": "ketone",
    "carbonyl": "ketone", "thiol": "thiol", "sh": "thiol", "alkyne": "alkyne", "terminal_alkyne": "alkyne",
    "indole": "azole_nh", "azole_nh": "azole_nh", "pyrrole": "azole_nh", "imidazole": "azole_nh",
    "indole_nh": "azole_nh", "nh": "azole_nh",
}

#: which removal classes each protecting group on the molecule already "uses" (labile_to of fg_detect PGs)
_LABILE_TO_CLASS = {"acid": "acid", "base": "base", "hydrogenation": "hydrogenolysis", "fluoride": "fluoride",
                    "oxidation": "oxidative", "hydrogenolysis": "hydrogenolysis"}


def _group_classes(fgs: list[dict[str, Any]]) -> dict[str, list[list[int]]]:
    """class name -> list of atom tuples (matches) present."""
    out: dict[str, list[list[int]]] = {}
    for g in fgs:
        for cls, names in GROUP_CLASSES.items():
            if g["name"] in names:
                out.setdefault(cls, []).extend(g["atoms"])
    # an amide/ester O or N is not a free nucleophile: fg_detect already separates those classes
    return out


def _protectable_class(name: str) -> str | None:
    key = name.strip().lower().replace(" ", "_").replace("-", "_")
    return _ALIASES.get(key)


def recommend_protecting_groups(
    functional_groups: list[str] | str, *, active_pgs: list[str] | None = None
) -> dict[str, Any]:
    """Orthogonal protecting groups for ``functional_groups`` (e.g. ``["hydroxyl", "amine"]``).

    Each group gets the first option whose removal conditions are not already used by another chosen
    or active protecting group (``active_pgs``, e.g. ``["Boc"]``), so every group can be removed on its
    own. Returns ``{recommended: [{functional_group, protecting_group, install, removal, removal_class,
    alternatives}], orthogonal, unrecognized, notes}``. Advisory only: nothing is inserted in a route.
    """
    if isinstance(functional_groups, str):
        functional_groups = [g.strip() for g in functional_groups.replace(";", ",").split(",") if g.strip()]
    if not isinstance(functional_groups, list) or not functional_groups:
        raise ValidationError("invalid_functional_groups", "give a non-empty list of functional groups",
                              value=functional_groups, hint='e.g. ["hydroxyl", "amine"]')
    used: set[str] = set()
    active = [p for p in (active_pgs or []) if isinstance(p, str)]
    for pg in active:
        for options in PG_OPTIONS.values():
            for name, _inst, removal_class, _rem in options:
                if name.lower() == pg.lower():
                    used.add(removal_class)
    recommended = []
    unrecognized = []
    orthogonal = True
    for fg in functional_groups:
        if not isinstance(fg, str):
            unrecognized.append(str(fg))
            continue
        cls = _protectable_class(fg)
        if cls is None:
            unrecognized.append(fg)
            continue
        options = PG_OPTIONS[cls]
        free = [o for o in options if o[2] not in used]
        clash = not free
        pick = free[0] if free else options[0]
        if clash:
            orthogonal = False
        used.add(pick[2])
        recommended.append(
            {
                "functional_group": fg,
                "group_class": cls,
                "protecting_group": pick[0],
                "install": pick[1],
                "removal": pick[3],
                "removal_class": pick[2],
                "orthogonal": not clash,
                "alternatives": [o[0] for o in options if o[0] != pick[0]],
            }
        )
    notes = ["Recommendations are advisory: check each protecting group against every later step "
             "and decide when it comes off."]
    if not orthogonal:
        notes.append("Not every group could get a protecting group with distinct removal conditions.")
    if unrecognized:
        notes.append("Unrecognized groups (no protecting-group rule): " + ", ".join(unrecognized))
    return {
        "recommended": recommended,
        "n_recommended": len(recommended),
        "orthogonal": orthogonal,
        "active_pgs": active,
        "unrecognized": unrecognized,
        "notes": notes,
    }


def analyze_selectivity(smiles: str) -> dict[str, Any]:
    """Competing functional groups, reactivity conflicts and a protection strategy for one molecule.

    Returns ``smiles``, ``functional_groups`` (names), ``competing_groups`` (classes present more than
    once or in a conflict), ``conflicts`` (``[{group_a, group_b, conflict, severity, advice, atoms_a,
    atoms_b}]``), ``n_conflicts``, ``protecting_groups_present``, ``protection_strategy``
    (:func:`recommend_protecting_groups` for the groups involved in high/medium conflicts),
    ``reactive_sites`` (nucleophile/electrophile counts) and ``summary``.
    """
    mol = parse_mol(smiles)
    fgs = detect_functional_groups(mol)
    pgs = detect_protecting_groups(mol)
    classes = _group_classes(fgs)
    conflicts: list[dict[str, Any]] = []
    for pair in CONFLICT_PAIRS:
        a, b = classes.get(pair.group_a), classes.get(pair.group_b)
        if a and b:
            conflicts.append(
                {
                    "group_a": pair.group_a, "group_b": pair.group_b, "conflict": pair.conflict,
                    "severity": pair.severity, "advice": pair.advice,
                    "atoms_a": [list(m) for m in a], "atoms_b": [list(m) for m in b],
                }
            )
    repeated = [
        {"group": cls, "count": len(matches),
         "issue": "several equivalent sites: reactions on this group need differentiation"}
        for cls, matches in classes.items()
        if len(matches) > 1 and cls in ("amine", "alcohol", "phenol", "carboxylic_acid", "aldehyde", "ketone",
                                        "aryl_halide", "thiol", "aniline")
    ]
    to_protect: list[str] = []
    for c in conflicts:
        if c["severity"] in ("high", "medium"):
            for g in (c["group_a"], c["group_b"]):
                if _protectable_class(g) and g not in to_protect:
                    to_protect.append(g)
    # protect the nucleophile of each conflict first (amines/alcohols/thiols), not both partners
    nucleophiles = [g for g in to_protect if g in ("amine", "aniline", "alcohol", "phenol", "thiol")]
    targets = nucleophiles or to_protect
    active = [p["name"] for p in pgs]
    strategy: dict[str, Any] = recommend_protecting_groups(targets, active_pgs=active) if targets else {
        "recommended": [], "n_recommended": 0, "orthogonal": True, "active_pgs": active, "unrecognized": [],
        "notes": ["No conflicting groups: no protection needed."]}
    nuc = sum(len(classes.get(c, [])) for c in ("amine", "aniline", "alcohol", "phenol", "thiol"))
    elec = sum(len(classes.get(c, [])) for c in ("aldehyde", "ketone", "ester", "acyl_halide", "alkyl_halide",
                                                    "epoxide", "michael_acceptor", "isocyanate"))
    high = sum(1 for c in conflicts if c["severity"] == "high")
    if conflicts:
        summary = (f"{len(conflicts)} reactivity conflict(s) ({high} high): "
                   + "; ".join(f"{c['group_a']} vs {c['group_b']}" for c in conflicts[:4])
                   + ". Protect: " + (", ".join(f"{r['functional_group']} as {r['protecting_group']}"
                                                for r in strategy["recommended"]) or "none") + ".")
    else:
        summary = "No reactivity conflicts between the functional groups present."
    return {
        "smiles": Chem.MolToSmiles(mol),
        "functional_groups": [g["name"] for g in fgs],
        "group_classes": {k: len(v) for k, v in classes.items()},
        "competing_groups": repeated,
        "conflicts": conflicts,
        "n_conflicts": len(conflicts),
        "protecting_groups_present": [{"name": p["name"], "count": p["count"],
                                       **({"count_capped": True} if p.get("count_capped") else {})} for p in pgs],
        "protection_strategy": strategy,
        "reactive_sites": {"nucleophiles": nuc, "electrophiles": elec},
        "summary": summary,
    }


# --------------------------------------------------------------------------------------- feasibility
def _split_reaction(reaction_smiles: str) -> tuple[list[str], list[str], list[str]]:
    if not isinstance(reaction_smiles, str) or ">" not in reaction_smiles:
        raise ValidationError("invalid_reaction", "a reaction SMILES looks like 'A.B>>P' or 'A.B>reagents>P'",
                              value=reaction_smiles)
    parts = reaction_smiles.strip().split(">")
    if len(parts) != 3:
        raise ValidationError("invalid_reaction", "a reaction SMILES has exactly two '>' separators",
                              value=reaction_smiles)
    react, reag, prod = ([s for s in p.split(".") if s.strip()] for p in parts)
    if not react or not prod:
        raise ValidationError("invalid_reaction", "reaction needs reactants and a product", value=reaction_smiles)
    return react, reag, prod


def _canon_no_maps(smiles: str, reaction_smiles: str) -> str:
    with quiet_rdkit():
        m = Chem.MolFromSmiles(smiles)
    if m is None:
        raise ChemistryError("invalid_smiles", f"cannot parse {smiles!r} in the reaction", value=smiles,
                             hint=f"reaction: {reaction_smiles}")
    return map_free_smiles(m)


def assess_feasibility(reaction_smiles: str, reaction_class: str | None = None) -> dict[str, Any]:
    """Rule-based forward feasibility of one step (``A.B>>P``, maps and reagents allowed).

    Checks: (1) a named template that regenerates these reactants from the product (mechanistic
    precedent), (2) functional groups elsewhere in the product that the reaction does not tolerate,
    (3) intramolecular conflicts within each reactant (side reactions), (4) protection needs, (5) heavy
    atoms of the product all available from the reactants. Returns ``feasibility`` (high/medium/low),
    ``score`` (0-1), ``confidence`` (<= 0.85), ``template_match``, ``checks``, ``issues``,
    ``protection_needed``, ``recommended_protection`` and ``limitations``.
    """
    from molx_agent.chem.template_scan import matching_sites
    from molx_agent.chem.templates import (
        incompatible_groups_present,
        resolve_template_ids,
        run_named_template,
    )

    react, reag, prod = _split_reaction(reaction_smiles)
    reactants = [_canon_no_maps(s, reaction_smiles) for s in react]
    reagents = [_canon_no_maps(s, reaction_smiles) for s in reag]
    products = [_canon_no_maps(s, reaction_smiles) for s in prod]
    product = max(products, key=lambda s: as_mol(s).GetNumHeavyAtoms())
    pmol = as_mol(product)
    available = set(reactants) | set(reagents)
    issues: list[dict[str, str]] = []

    # (1) template precedent
    match = None
    match_atoms: tuple[int, ...] = ()
    hinted = set(resolve_template_ids(reaction_class, strict=False)) if reaction_class else set()
    sites = matching_sites(pmol)
    sites.sort(key=lambda sm: (sm[0].template.id not in hinted, -sm[0].template.confidence))
    for site, matches in sites:
        for outcome in run_named_template(site.template.id, product):
            if set(outcome.precursors) <= available:
                match, match_atoms = site.template, matches[0]
                break
        if match:
            break
    # (2) incompatible groups outside the reaction site
    checked = [match] if match else []
    if not match and hinted:
        from molx_agent.chem.templates import get_template

        checked = [get_template(t) for t in sorted(hinted)][:3]
    incompatible: list[str] = []
    for tpl in checked:
        for g in incompatible_groups_present(pmol, tpl, match_atoms if tpl is match else ()):
            if g not in incompatible:
                incompatible.append(g)
    # (3) intramolecular conflicts in each reactant
    side = []
    for r in reactants:
        if as_mol(r).GetNumHeavyAtoms() < 3:
            continue
        sel = analyze_selectivity(r)
        for c in sel["conflicts"]:
            side.append({"reactant": r, "groups": [c["group_a"], c["group_b"]], "conflict": c["conflict"],
                         "severity": c["severity"]})
    # (5) atom availability (heavy atoms)
    def heavy(smiles_list: list[str]) -> dict[int, int]:
        counts: dict[int, int] = {}
        for s in smiles_list:
            for a in as_mol(s).GetAtoms():
                counts[a.GetAtomicNum()] = counts.get(a.GetAtomicNum(), 0) + 1
        return counts

    have, need = heavy(reactants + reagents), heavy([product])
    missing = {Chem.GetPeriodicTable().GetElementSymbol(z): n - have.get(z, 0)
               for z, n in need.items() if n > have.get(z, 0)}

    score = 0.5
    if match:
        score += 0.25
    else:
        issues.append({"code": "no_template_precedent",
                       "message": "no named template regenerates these reactants from the product"})
    if incompatible:
        score -= min(0.3, 0.1 * len(incompatible))
        issues.append({"code": "incompatible_groups",
                       "message": "groups that may not survive the conditions: " + ", ".join(incompatible)})
    high_side = [s for s in side if s["severity"] == "high"]
    if side:
        score -= min(0.2, 0.1 * len(high_side) + 0.03 * (len(side) - len(high_side)))
        issues.append({"code": "side_reactions",
                       "message": f"{len(side)} intramolecular conflict(s) in the reactants"})
    if missing:
        score -= 0.3
        issues.append({"code": "missing_atoms",
                       "message": "product atoms not present in reactants: "
                       + ", ".join(f"{k}x{v}" for k, v in missing.items())})
    score = max(0.0, min(1.0, score))
    feasibility = "high" if score >= 0.7 else "medium" if score >= 0.5 else "low"
    confidence = min(MAX_CONFIDENCE, 0.55 + (0.25 if match else 0.0) + (0.05 if not missing else 0.0))
    needs = [g for g in incompatible if _protectable_class(g)]
    for s in high_side:
        needs.extend(g for g in s["groups"] if _protectable_class(g) and g not in needs)
    protection = recommend_protecting_groups(needs) if needs else None
    return {
        "reaction_smiles": ".".join(reactants) + ">" + ".".join(reagents) + ">" + ".".join(products),
        "feasibility": feasibility,
        "score": round(score, 3),
        "confidence": round(confidence, 3),
        "template_match": ({"template_id": match.id, "template": match.display_name, "reagents": match.reagents}
                           if match else None),
        "checks": {
            "template_precedent": bool(match),
            "fg_compatibility": not incompatible,
            "side_reaction_risk": "high" if high_side else "medium" if side else "low",
            "atoms_available": not missing,
        },
        "incompatible_groups": incompatible,
        "side_reactions": side,
        "issues": issues,
        "protection_needed": bool(needs),
        "recommended_protection": protection["recommended"] if protection else [],
        "limitations": ("Static rules (functional-group matrix and SMARTS patterns), not a simulation of the "
                        "mechanism; confidence is capped at 0.85. Verify key decisions independently."),
    }


__all__ = [
    "CONFLICT_PAIRS",
    "ConflictPair",
    "GROUP_CLASSES",
    "MAX_CONFIDENCE",
    "PG_OPTIONS",
    "analyze_selectivity",
    "assess_feasibility",
    "recommend_protecting_groups",
]

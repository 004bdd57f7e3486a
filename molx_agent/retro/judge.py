"""The engine's judgements: may a molecule end a route, is a step plausible, how far can a route be trusted.

One implementation each, used by the search, the agent's validation worker, the skills, the pipeline and the
session (through :class:`molx_agent.retro.engine.RetroEngine`):

- :func:`judge_leaf` -- purchasability tier (``verified`` exact stock entry, ``probable`` Bloom-filter hit,
  ``estimated`` SA fallback, ``unavailable``) and the leaf policy: a ``verified`` molecule ends a route; a
  ``probable`` one only when it is building-block-like (small and simple), at a cost that grows with its size; a
  reactive intermediate (functionalised organolithium, Grignard, organozinc/-copper reagent, diazonium salt, acyl
  azide, free carbanion) only when an exact stock lists it.
- :func:`is_analog_shortcut` -- a bought molecule that is a near analog of the target (the same Murcko scaffold once
  a ring or linker carbonyl's oxygen is set aside, Tanimoto >= 0.5 on Morgan radius-2 fingerprints, and at most 2
  of the target's heavy atoms missing) turned into the target by one step: "buy the answer and touch it once"
  (naproxen by hydrodebromination of bromo-naproxen).
- :func:`judge_step` -- forward validation (the chemistry core's hard gates, with the proposing template's atom map
  and named template) plus plausibility (the model's probability against ``SearchConfig.plausibility_floor``).
- :func:`judge_route` -- a route's ``confidence`` (high / medium / low), ``issues`` (``{code, message}``) and a
  ``verdict`` (accept / weak / reject) for the agent; steps are also read for selectivity
  (:func:`molx_agent.chem.fg_warnings.step_selectivity`) and, through their atom map, for mechanism
  (:func:`molx_agent.chem.mechanism.step_mechanism`).
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import Any

from molx_agent.retro.search_types import SearchConfig

logger = logging.getLogger(__name__)

TIERS = ("verified", "probable", "estimated", "unavailable")

#: A free alkyl amine (primary or secondary; not an amide, aniline or N-heteroatom amine), as in
#: ``chem.mechanism.SELF_REACTIVE_NUCLEOPHILES``.
_ALKYL_AMINE = "[NX3;H2,H1;+0;!$(N~[!#6;!#1]);!$(N[#6]=,#,:[*])]"
#: A free alkyl amine and an aldehyde in one molecule (a primary amine with any aldehyde, a secondary amine with an
#: enolisable one): as the free base it condenses with itself (imines, enamines, alpha-amino aldehydes to
#: dihydropyrazines), so it is sold and stored as its acetal (aminoacetaldehyde dimethyl acetal) or a salt and freed
#: in situ.  Five molecules of the building-block stock are drawn so (USPTO-50K records of N-methyl- and
#: N-ethylaminoacetaldehyde and the like), and no leaf of the ref-lin-600 and PaRoutes reference routes is one.
#: Epinephrine's route of 2026-12-06 bought ``CNCC=O`` as if it were a bottle on the shelf.
AMINO_ALDEHYDE = ("free amino aldehyde: it condenses with itself as the free base, so it is sold as its acetal or a "
                  "salt and freed in situ")

#: Reactive intermediates: made and used in situ, never bought unless an exact stock lists them (n-BuLi, PhMgBr).
#: (name, SMARTS); the carbanion pattern covers organometallics written with the metal stripped (``[c-]``).
#: A metal cyanide (CuCN, Zn(CN)2, NaCN, KCN written with a C-metal bond) is a stable salt sold as a reagent, not an
#: organometallic: its carbon, triple-bonded to nitrogen, is left out.
REACTIVE_PATTERNS: tuple[tuple[str, str], ...] = (
    ("organolithium", "[#6;!$([#6]#[#7])]~[Li]"),
    ("organomagnesium (Grignard)", "[#6;!$([#6]#[#7])]~[Mg]"),
    ("organozinc", "[#6;!$([#6]#[#7])]~[Zn]"),
    ("organocopper", "[#6;!$([#6]#[#7])]~[Cu]"),
    ("organosodium/potassium", "[#6;!$([#6]#[#7])]~[Na,K,Cs]"),
    ("diazonium salt", "[#6][N+]#N"),
    ("acyl azide", "[CX3](=O)N=[N+]=[N-]"),
    ("carbanion (metal stripped)", "[#6-;!$([C-]#[N,O]);!$([C-]#[N+,O+]);!$([#6-][#7+,#15+,#16+])]"),
    (AMINO_ALDEHYDE, f"[NX3;H2;+0;$({_ALKYL_AMINE})].[CX3H1](=O)[#6]"),
    (AMINO_ALDEHYDE, f"[NX3;H1;+0;$({_ALKYL_AMINE})].[CX3H1](=O)[CX4;!H0]"),
)

ISSUE_TEXT = {
    "probable_leaf": "starting material found only in the ZINC Bloom filter (about {fpr:.0%} false positives): "
                     "confirm with a supplier",
    "estimated_leaf": "starting material judged only by its SA score, not found in any stock",
    "unresolved_leaf": "starting material not resolved (not in stock, not made)",
    "reactive_leaf": "reactive intermediate ({kind}) bought from an exact stock entry",
    "analog_shortcut": "bought a near analog of the target (Tanimoto {sim:.2f}, same scaffold) and only changed its "
                       "functional groups: check that the analog is really sold, or prefer a route with a real "
                       "disconnection",
    "implausible_step": "the single-step model rates this step at {score:.1e}, under the plausibility floor "
                        "{floor:.0e}: used only because nothing better solved this molecule",
    "low_score_step": "the single-step model rates this step low ({score:.3f})",
    "failed_validation": "a step fails the forward-validation hard gates: {reasons}",
    "unvalidated_step": "a step was not forward-validated before the time limit",
    "low_feasibility_step": "forward validation rates a step's feasibility low ({score:.2f})",
    "not_solved": "the route does not reach purchasable starting materials",
    "competing_reaction": "selectivity: {reason}",
    "incompatible_group": "selectivity: {reason}",
    # information, not a fault: the step is sound with the usual reagent, and the groups it keeps pick which one
    "reagent_choice": "conditions: {reason}",
    "unactivated_carbanion": "mechanism: {reason}",
    "aniline_c_alkylation": "mechanism: {reason}",
    "electrophile_coupling": "mechanism: {reason}",
    "unactivated_snar": "mechanism: {reason}",
    "alcohol_c_acylation": "mechanism: {reason}",
    "stripped_amine": "mechanism: {reason}",
    "halide_selectivity": "selectivity: {reason}",
    "electrophile_selectivity": "selectivity: {reason}",
    "aromatic_regiochemistry": "regiochemistry: {reason}",
    "deactivated_arene": "mechanism: {reason}",
    "destabilised_carbocation": "mechanism: {reason}",
    "carbocation_rearrangement": "mechanism: {reason}",
    "benzylic_halogenation": "selectivity: {reason}",
    "ipso_substitution": "mechanism: {reason}",
    "arene_hydroxylation": "mechanism: {reason}",
    "unprotected_c_acylation": "mechanism: {reason}",
    "mustard_nucleophile": "mechanism: {reason}",
    "organometallic_carried": "mechanism: {reason}",
    "diaryl_ketone_condensation": "mechanism: {reason}",
    "unprotected_amino_acid": "selectivity: {reason}",
    "oxidation_without_oxidant": "mechanism: {reason}",
    "halogen_from_solvent": "mechanism: {reason}",
    "amide_condensation": "mechanism: {reason}",
    "amide_reductive_amination": "mechanism: {reason}",
    "unsourced_stereocentre": "stereochemistry: {reason}",
    "unsourced_alkene_geometry": "stereochemistry: {reason}",
    "competing_site": "selectivity: {reason}",
    "carried_group": "the route carries the {group} of its starting material {leaf} through {n} step(s) only to "
                     "remove it: no step uses it, so starting from the compound without it saves the steps (when that "
                     "compound is sold)",
    "amine_round_trip": "the route takes the nitrogen off a benzene-ring carbon ({step_off}) and later bonds a nitrogen "
                        "to the same carbon again ({step_on}): building the new nitrogen group on the aniline itself "
                        "(through its isothiocyanate, thiourea or hydrazine, or an N-alkylation) usually saves the "
                        "detour",
    "self_reactive_molecule": "the route makes a molecule that reacts with itself as drawn ({what}): it is handled "
                              "only as a salt or with the amine, alcohol or thiol protected until the electrophile "
                              "has reacted, a step the route does not show",
    "strained_molecule": "the route needs a molecule that cannot be isolated as drawn ({what}): a transient "
                         "species, not a starting material or intermediate",
}

#: Mechanism flags naming a step a chemist would not run as written (chem.mechanism; on the 50,085 recorded USPTO-50K
#: reactions they fire 141 times (140 in train), each example read a mapping error of the record (a solvent's,
#: base's or work-up's atoms mapped into the product) or a metal partner or oxidant it omits; ``alcohol_c_acylation``
#: and ``halide_selectivity`` on none (the latter on none of 31,125 published ref-lin-600 and PaRoutes steps either);
#: the former on 3 of 15,461 published PaRoutes steps, each a record writing a sulfonate ester as a sulfone;
#: ``electrophile_selectivity`` on none of the 50,085 nor of the 31,125 published steps; ``aromatic_regiochemistry``
#: on none of the 50,085 and on 1 of the 1,538 published aromatic substitutions it looks at, a record compressing
#: two steps; ``deactivated_arene`` on none of the 80 recorded and 222 published Friedel-Crafts substitutions of a
#: benzene ring, nor of the 55 and 110 of other rings (with the diazine rule of 2026-12-04 too);
#: ``ipso_substitution`` on none of the 50,085 nor of the 31,125 published steps (the 4 published substitutions
#: beside a kept aryl boron or silicon group are on rings without a donor); ``amide_condensation`` on 13 of the 50,085 (8 amidine, guanidine or formamidine formations whose
#: record omits the activator, 5 oximes or amidoximes mapped to the wrong carbon) and on 2 of the 31,125 published
#: steps (one PaRoutes record in both sets, compressing a quinazolinone synthesis, its chlorination and the
#: substitution by an aniline), its carbon-nucleophile case (an enolate added to an N-H lactam) on none of either;
#: the Bredt case of ``unactivated_carbanion`` (a bridgehead enolate) changes no count; ``amide_reductive_amination``
#: (an amide, carbamate, urea or sulfonamide N-H alkylated by a ketone) and the reduction case of
#: ``halide_selectivity`` (an aryl chloride reduced beside a bromide) and its position case (an N, O or S nucleophile at
#: the unactivated carbon of a polyhalo azine or arene, the same halogen kept at an activated one) on none of either;
#: ``arene_hydroxylation`` (an aromatic C-H given a peroxide's oxygen) and the acceptor case of
#: ``electrophile_coupling`` (an acrylate's beta-carbon acylated by an acid chloride) on none of the 50,085, the first
#: on 3 of the published PaRoutes n1 steps, each a one-pot metalation or borylation whose record keeps only the peroxide; ``unprotected_amino_acid`` (a free
#: acid coupled while its molecule keeps a free primary alkyl amine) on 4 of the 50,085, records that omit the
#: protecting group, and on none of the published steps; ``destabilised_carbocation`` (an arene alkylated by a
#: carbon that loses its halide next to a carbonyl, nitrile, sulfonyl or nitro group) on none of the 50,085 nor of
#: the 31,125 published steps; ``carbocation_rearrangement`` (an arene alkylated by a primary carbon whose cation
#: shifts a hydride or alkyl group first) on 1 of the 50,085 and on none of the published steps;
#: ``benzylic_halogenation`` (a benzylic C-H halogenated beside a free aryl or alkyl amine) on none of the 50,085 nor
#: of the 31,125 published steps; ``unprotected_c_acylation`` (an arene C-acylated beside a free alkyl amine or
#: alcohol of its own molecule) on none of either; ``mustard_nucleophile`` (a free secondary 2-haloethylamine's
#: nitrogen arylated or alkylated with its 2-haloethyl group kept, or a primary one's in a slow arylation: a
#: metal-catalysed coupling, or an S_N_Ar that one carbonyl or nitrile activates) on none of either; ``organometallic_carried`` (an organolithium, -sodium, -potassium, Grignard,
#: organozinc, cuprate or organoaluminium carbon-metal bond carried through another reaction) and
#: ``diaryl_ketone_condensation`` (a diaryl ketone condensed with a singly activated C-H) on none of either:
#: docs/benchmarks.md):
#: among the routes a search returns, a route with one ranks after every route without
#: (``search_routes.build_routes``).  ``unsourced_stereocentre`` is not one: a racemate or a resolution is a real step;
#: nor is ``unsourced_alkene_geometry`` (a tetrasubstituted C=C formed with its E/Z geometry drawn): the separation is;
#: nor is ``competing_site`` (one of two like groups reacting): an excess or a hindrance often decides it; nor is
#: ``halogen_from_solvent`` (a chloride "from" dichloromethane): 55 published PaRoutes route steps are written so, the
#: thionyl chloride left out of the record, so the step is sound chemistry with its reagent unnamed (medium only).
IMPLAUSIBLE_MECHANISM_ISSUES = frozenset({"unactivated_carbanion", "aniline_c_alkylation", "electrophile_coupling",
                                          "unactivated_snar", "alcohol_c_acylation", "stripped_amine",
                                          "halide_selectivity", "oxidation_without_oxidant",
                                          "electrophile_selectivity", "aromatic_regiochemistry",
                                          "deactivated_arene", "ipso_substitution", "amide_condensation",
                                          "amide_reductive_amination", "arene_hydroxylation",
                                          "unprotected_amino_acid", "destabilised_carbocation",
                                          "carbocation_rearrangement", "benzylic_halogenation",
                                          "unprotected_c_acylation", "mustard_nucleophile",
                                          "organometallic_carried", "diaryl_ketone_condensation"})
#: A route that makes a molecule holding a free amine beside an acyl halide, sulfonyl chloride, anhydride or
#: heterocumulene, a free primary or secondary alcohol or a thiol beside an acyl halide, a free alkyl amine beside a
#: beta-keto carbonyl, or a 2-haloethylamine
#: (``chem.mechanism.self_reactive``), skips a protection or salt step: it ranks with the mechanism-flagged routes
#: (tier 1 of :func:`route_rank_tier`).
SELF_REACTIVE_ISSUES = frozenset({"self_reactive_molecule"})
#: Issues that cap a route's confidence at medium (weak, not rejected): Bloom-filter leaves, weak steps, and the
#: selectivity and mechanism flags of a chemist's glance.
MEDIUM_ISSUES = frozenset({"probable_leaf", "low_score_step", "low_feasibility_step", "reactive_leaf",
                           "competing_reaction", "incompatible_group", "unsourced_stereocentre",
                           "unsourced_alkene_geometry", "competing_site",
                           "halogen_from_solvent", "carried_group", "amine_round_trip",
                           *IMPLAUSIBLE_MECHANISM_ISSUES, *SELF_REACTIVE_ISSUES})
#: Issues that put a route behind every other route returned (an analog bought one or more interconversions from
#: the target, a step below the plausibility floor, a molecule no one can isolate); each also makes it low.
DEMOTING_ISSUES = frozenset({"analog_shortcut", "implausible_step", "strained_molecule"})
#: Selectivity warnings (``chem.fg_warnings.step_selectivity``) that cost a route ``SearchConfig.selectivity_penalty``
#: per step when the search re-ranks its finished routes (:func:`selectivity_warned`): a protection or another
#: order the route does not show.  Published routes carry them less often than the routes a search finds (on the
#: all-600 run of c341134, ``incompatible_group`` is on 16 of the 183 routes matching a reference route and on 1,139
#: of the 5,664 routes kept; with ``fg_warnings.conditions_spare``, either warning is on 4 of those 183 and on 231 of
#: the same targets' 1,647 other routes, against 17 and 348 before: ``benchmarks/mechanism_flags.py selectivity``),
#: but they are warnings, not verdicts: a cost, not a tier.  ``reagent_choice`` (a nitro reduction beside an aryl
#: bromide: Fe or SnCl2, not H2) is a note, neither a cost nor a cap.
PENALISED_SELECTIVITY_ISSUES = frozenset({"incompatible_group", "competing_reaction"})


def route_rank_tier(issue_codes: Any) -> int:
    """The tier a route's issues put it in when a search's routes are ordered: 0 none of the demoting kinds,
    1 a step whose mechanism a chemist would not run (:data:`IMPLAUSIBLE_MECHANISM_ISSUES`) or an intermediate that
    reacts with itself (:data:`SELF_REACTIVE_ISSUES`), 2 an analog shortcut, an implausible step or an unisolable
    molecule (:data:`DEMOTING_ISSUES`).  Routes sort by tier, then by score."""
    codes = set(issue_codes)
    if codes & DEMOTING_ISSUES:
        return 2
    return int(bool(codes & (IMPLAUSIBLE_MECHANISM_ISSUES | SELF_REACTIVE_ISSUES)))


def _step_selectivity(precursors: list[str], product: str, reaction_type: str | None) -> list[dict[str, Any]]:
    from molx_agent.chem.fg_warnings import step_selectivity

    return step_selectivity(precursors, product, reaction_type or None)


def selectivity_warned(precursors: list[str], product: str, reaction_type: str | None) -> bool:
    """Whether the route judgement warns about this step's selectivity (:data:`PENALISED_SELECTIVITY_ISSUES`)."""
    return any(c["code"] in PENALISED_SELECTIVITY_ISSUES for c in _step_selectivity(precursors, product, reaction_type))


def amine_round_trip_count(reactions: list[Any]) -> int:
    """How many aryl nitrogens a search route (its reaction edges: ``parent``, ``children``, ``prediction``) takes off
    and later puts back on the same carbon (the route judgement's ``amine_round_trip``); 0 for a one-step route."""
    if len(reactions) < 2:
        return 0
    steps = [(rxn.parent.smiles, [c.smiles for c in rxn.children],
              getattr(rxn.prediction, "mapped_reaction", "") or "") for rxn in reactions]
    return len(_amine_round_trips(steps))


def _step_mechanism(mapped_reaction: str | None) -> list[dict[str, Any]]:
    from molx_agent.chem.mechanism import step_mechanism

    return step_mechanism(mapped_reaction or "")


def _step_template_keys(rxn: Any) -> set[str]:
    """The ids and names a route step's template goes by (its evidence's id and name, the step's reaction type)."""
    evidence = getattr(rxn, "template_evidence", None)
    return {getattr(evidence, "template_id", ""), getattr(evidence, "template_name", ""),
            getattr(rxn, "reaction_type", "")} - {""}


def _stereo_setting_step(rxn: Any) -> bool:
    """Whether a route step's template (its id or name) is a named template that sets its stereocentre with an
    asymmetric catalyst (``chem.templates.stereo_setting_templates``: Ru-BINAP, Rh-DIPAMP, CBS)."""
    from molx_agent.chem.templates import stereo_setting_templates

    return not _step_template_keys(rxn).isdisjoint(stereo_setting_templates())


def _activated_step(rxn: Any) -> bool:
    """Whether a route step's template is a named template whose conditions activate the amide-type carbonyl an
    amine condenses onto (``chem.templates.activating_templates``: POCl3 for 1-acetylimidazolidin-2-one)."""
    from molx_agent.chem.templates import activating_templates

    return not _step_template_keys(rxn).isdisjoint(activating_templates())


def _unisolable(smiles: str) -> str | None:
    """A strained ring (cyclopentyne, an anti-Bredt alkene) or a group that falls apart as drawn (a carbamic acid)."""
    from molx_agent.chem.mechanism import unisolable

    return unisolable(smiles)


def _amine_round_trips(steps: list[tuple[str, list[str], str]]) -> list[dict[str, Any]]:
    from molx_agent.chem.mechanism import amine_round_trips

    return amine_round_trips(steps)


def _carried_groups(steps: list[tuple[str, list[str], str]]) -> list[dict[str, Any]]:
    from molx_agent.chem.mechanism import carried_groups

    return carried_groups(steps)


def _self_reactive(smiles: str) -> str | None:
    from molx_agent.chem.mechanism import self_reactive

    return self_reactive(smiles)


def issue(code: str, message: str, **extra: Any) -> dict[str, Any]:
    return {"code": code, "message": message, **extra}


# -- molecules ------------------------------------------------------------------------------------------------
@lru_cache(maxsize=50_000)
def _mol(smiles: str) -> Any:
    from molx_agent.retro.stock import _quiet_mol

    return _quiet_mol(smiles)


@lru_cache(maxsize=1)
def _reactive_queries() -> tuple[tuple[str, Any], ...]:
    from rdkit import Chem

    return tuple((name, Chem.MolFromSmarts(sma)) for name, sma in REACTIVE_PATTERNS)


@lru_cache(maxsize=50_000)
def reactive_kind(smiles: str) -> str | None:
    """The kind of reactive intermediate ``smiles`` is (``"organolithium"``, ...), or ``None``."""
    mol = _mol(smiles)
    if mol is None:
        return None
    for name, query in _reactive_queries():
        if mol.HasSubstructMatch(query):
            return name
    return None


@lru_cache(maxsize=50_000)
def complexity(smiles: str) -> dict[str, Any]:
    """Size and simplicity facts used by the leaf policy: heavy atoms, rings, stereocentres."""
    from rdkit import Chem

    mol = _mol(smiles)
    if mol is None:
        return {"heavy_atoms": 0, "rings": 0, "stereocentres": 0}
    centres = Chem.FindMolChiralCenters(mol, includeUnassigned=True, useLegacyImplementation=False)
    return {"heavy_atoms": mol.GetNumHeavyAtoms(), "rings": mol.GetRingInfo().NumRings(),
            "stereocentres": len(centres)}


def building_block_like(smiles: str, config: SearchConfig) -> tuple[bool, str]:
    """``(ok, why not)``: small and simple enough that a Bloom-filter hit may be trusted as a building block."""
    facts = complexity(smiles)
    if facts["heavy_atoms"] > config.probable_leaf_max_atoms:
        return False, f"{facts['heavy_atoms']} heavy atoms (> {config.probable_leaf_max_atoms} for a Bloom-filter-only leaf)"
    if facts["rings"] > config.probable_leaf_max_rings:
        return False, f"{facts['rings']} rings (> {config.probable_leaf_max_rings} for a Bloom-filter-only leaf)"
    if facts["stereocentres"] > config.probable_leaf_max_stereocentres:
        return False, f"{facts['stereocentres']} stereocentres (> {config.probable_leaf_max_stereocentres} for a Bloom-filter-only leaf)"
    return True, ""


def probable_leaf_cost(smiles: str, config: SearchConfig) -> float:
    """Search cost of buying a Bloom-filter-only molecule: grows with its size (a larger hit is less likely real)."""
    n = complexity(smiles)["heavy_atoms"]
    return config.probable_leaf_cost_base + config.probable_leaf_cost_per_atom * max(0, n - 6)


# -- tiers -------------------------------------------------------------------------------------------------------
def judge_leaf(smiles: str, stock: Any, config: SearchConfig | None = None, *, target: str | None = None,
               tier: str | None = None, source: str | None = None) -> dict[str, Any]:
    """May ``smiles`` end a route?

    Returns ``smiles``, ``tier`` (verified / probable / unavailable; the SA estimate is never a search leaf),
    ``source`` (the stock that has it), ``accept`` (bool), ``cost`` (search cost of buying it: 0 for verified,
    :func:`probable_leaf_cost` for probable, ``inf`` when not accepted), ``reason`` (why not), ``issues``
    (``{code, message}``), ``reactive`` (the kind of reactive intermediate, or ``None``) and, for probable leaves,
    ``false_positive_rate``.  With ``target``, a near analog of the target is reported (``analog_of_target``).
    ``tier``/``source`` may be passed when the caller already asked the stock.
    """
    import math

    from molx_agent.retro.stock import ZINC_FALSE_POSITIVE_RATE, canonical_smiles, stock_tier

    cfg = config or SearchConfig()
    can = canonical_smiles(smiles) if isinstance(smiles, str) else None
    out: dict[str, Any] = {"smiles": smiles, "canonical_smiles": can, "tier": "unavailable", "source": None,
                           "accept": False, "cost": math.inf, "reason": "", "issues": [], "reactive": None}
    if can is None:
        out["reason"] = "not a valid SMILES"
        return out
    if tier is None:
        source, tier = stock_tier(stock, can)
    out.update(tier=tier, source=source)
    kind = reactive_kind(can)
    out["reactive"] = kind
    if tier == "verified":
        out.update(accept=True, cost=0.0)
        if kind:
            out["issues"].append(issue("reactive_leaf", ISSUE_TEXT["reactive_leaf"].format(kind=kind), smiles=can))
    elif tier == "probable":
        out["false_positive_rate"] = ZINC_FALSE_POSITIVE_RATE
        ok, why = building_block_like(can, cfg)
        if kind:
            out["reason"] = f"reactive intermediate ({kind}): a leaf only where an exact stock lists it"
        elif not ok:
            out["reason"] = f"Bloom-filter hit only, and not building-block-like: {why}"
        else:
            out.update(accept=True, cost=probable_leaf_cost(can, cfg))
            out["issues"].append(issue("probable_leaf", ISSUE_TEXT["probable_leaf"].format(fpr=ZINC_FALSE_POSITIVE_RATE),
                                       smiles=can))
    else:
        out["reason"] = "not in any stock"
        if kind:
            out["reason"] = f"reactive intermediate ({kind}), not in any stock"
    if target and out["accept"]:
        sim = analog_similarity(can, target, cfg)
        if sim is not None:
            out["analog_of_target"] = round(sim, 3)
    return out


# -- analog shortcuts ------------------------------------------------------------------------------------------
@lru_cache(maxsize=50_000)
def _fp(smiles: str) -> Any:

    mol = _mol(smiles)
    if mol is None:
        return None
    return _generator().GetFingerprint(mol)


@lru_cache(maxsize=1)
def _generator() -> Any:
    from rdkit.Chem import rdFingerprintGenerator

    return rdFingerprintGenerator.GetMorganGenerator(radius=2, fpSize=2048)


@lru_cache(maxsize=50_000)
def murcko(smiles: str) -> str:
    """Murcko scaffold SMILES ('' for acyclic molecules)."""
    from rdkit import Chem
    from rdkit.Chem.Scaffolds import MurckoScaffold

    mol = _mol(smiles)
    if mol is None:
        return ""
    try:
        return Chem.MolToSmiles(MurckoScaffold.GetScaffoldForMol(mol))
    except Exception:  # noqa: BLE001 - an odd molecule has no scaffold, not an error
        return ""


@lru_cache(maxsize=50_000)
def ring_skeleton(smiles: str) -> str:
    """The Murcko scaffold (:func:`murcko`) without its doubly bonded end atoms (a ring or linker carbonyl's or
    sulfoxide's oxygen, an exocyclic =N or =S), as SMILES ('' for acyclic molecules): pomalidomide and lenalidomide,
    an isoindoline-1,3-dione and an isoindolin-1-one, share it, as a ketone and the alcohol or methylene it becomes
    do; rings and linkers stay."""
    from rdkit import Chem, rdBase

    scaffold = _mol(murcko(smiles))
    if scaffold is None or not scaffold.GetNumAtoms():
        return ""
    try:
        with rdBase.BlockLogs():
            core = Chem.RWMol(scaffold)
            ends = [a.GetIdx() for a in core.GetAtoms() if a.GetDegree() == 1 and not a.IsInRing()
                    and a.GetBonds()[0].GetBondType() == Chem.BondType.DOUBLE]
            for idx in sorted(ends, reverse=True):
                core.RemoveAtom(idx)
            out = core.GetMol()
            # not sanitised: a pyridone's ring without its oxygen has no Kekule form, and none is needed here
            out.UpdatePropertyCache(strict=False)
            Chem.FastFindRings(out)
            return Chem.MolToSmiles(out)
    except Exception:  # noqa: BLE001 - an odd molecule has no skeleton, not an error
        return ""


def analog_similarity(leaf: str, target: str, config: SearchConfig | None = None) -> float | None:
    """Tanimoto similarity of ``leaf`` to ``target`` when ``leaf`` is a near analog that carries the target's skeleton:
    the same non-empty ring skeleton (:func:`ring_skeleton`: the Murcko scaffold, a carbonyl's oxygen aside, so a
    ring C=O reduced to CH2 keeps it), Tanimoto (Morgan radius 2) >= ``config.analog_similarity`` (and >=
    ``config.analog_similarity_single_ring`` when that skeleton is a single ring, which every building block with the
    ring shares, and ``leaf`` does not hold the whole target: methyl pyrazinoate is pyrazinamide's starting material,
    not a bought analog, while chloro-ibuprofen and ibuprofen's ester are), and at most
    ``config.analog_max_added_atoms`` of the target's heavy atoms missing from it (so the step that makes the target
    from it is a functional-group interconversion, not a disconnection); else ``None``."""
    from rdkit import DataStructs

    cfg = config or SearchConfig()
    if leaf == target:
        return None
    skeleton = ring_skeleton(target)
    if not skeleton or ring_skeleton(leaf) != skeleton:
        return None
    facts = complexity(target)
    if facts["heavy_atoms"] - complexity(leaf)["heavy_atoms"] > cfg.analog_max_added_atoms:
        return None
    a, b = _fp(leaf), _fp(target)
    if a is None or b is None:
        return None
    sim = DataStructs.TanimotoSimilarity(a, b)
    floor = cfg.analog_similarity
    # the skeleton keeps every ring of the target, so the target's ring count is the skeleton's
    if sim < cfg.analog_similarity_single_ring and facts["rings"] == 1 and not _holds(leaf, target):
        floor = max(floor, cfg.analog_similarity_single_ring)
    return sim if sim >= floor else None


def _holds(leaf: str, target: str) -> bool:
    """Whether ``leaf`` holds the whole of ``target`` (a substructure match of the target's graph: an ester, ether,
    halogenated or otherwise grown analog)."""
    a, b = _mol(leaf), _mol(target)
    return a is not None and b is not None and a.HasSubstructMatch(b)


def is_analog_shortcut(leaf: str, target: str, config: SearchConfig | None = None) -> float | None:
    """Similarity when buying ``leaf`` and making ``target`` from it in one step is an analog shortcut, else ``None``."""
    return analog_similarity(leaf, target, config)


# -- steps ---------------------------------------------------------------------------------------------------------
def plausibility(score: Any, config: SearchConfig | None = None) -> dict[str, Any]:
    """``{score, plausible, floor}``: is the model's probability for a step above the plausibility floor?"""
    cfg = config or SearchConfig()
    try:
        p = float(score)
    except (TypeError, ValueError):
        return {"score": None, "plausible": None, "floor": cfg.plausibility_floor}
    return {"score": p, "plausible": p >= cfg.plausibility_floor, "floor": cfg.plausibility_floor}


def forward_validation(precursors: list[str], product: str, *, reaction_type: str | None = None,
                       template_id: str | None = None, mapped_reaction: str | None = None,
                       validator: Any = None) -> dict[str, Any]:
    """The chemistry core's forward validation with one call shape (a crash rejects the step, recorded).

    ``validator``: a replacement for :func:`molx_agent.chem.forward_validate.validate_forward` (same signature)."""
    if validator is None:
        from molx_agent.chem.forward_validate import validate_forward as validator

    try:
        return validator(list(precursors), product, reaction_type=reaction_type or None,
                         template_id=template_id or None, mapped_reaction=mapped_reaction or None)
    except Exception as exc:  # noqa: BLE001 - a validator crash rejects the step (conservative), recorded
        logger.debug("forward validation crashed on %s>>%s: %s", ".".join(precursors), product, exc)
        return {"ok": False, "pass": False, "validator_error": f"{type(exc).__name__}: {exc}",
                "hard_fail_reasons": [f"validator error: {type(exc).__name__}"]}


def judge_step(precursors: list[str], product: str, *, reaction_type: str | None = None,
               template_id: str | None = None, mapped_reaction: str | None = None, score: Any = None,
               config: SearchConfig | None = None, validation: dict[str, Any] | None = None,
               validator: Any = None) -> dict[str, Any]:
    """One step's verdict: the forward-validation result (every field of ``validate_forward``) plus ``plausibility``
    (``{score, plausible, floor}``), ``verdict`` (``plausible`` / ``implausible`` / ``invalid``) and ``issues``.

    ``template_id``: a named (expert) template id only; ``mapped_reaction``: the proposing template's atom map.
    ``validation``: an already computed forward validation of the same step (the search's cache).
    """
    cfg = config or SearchConfig()
    res = dict(validation) if validation is not None else forward_validation(
        precursors, product, reaction_type=reaction_type, template_id=template_id, mapped_reaction=mapped_reaction,
        validator=validator)
    plaus = plausibility(score, cfg)
    issues: list[dict[str, Any]] = []
    if res.get("hard_fail_reasons"):
        verdict = "invalid"
        issues.append(issue("failed_validation", ISSUE_TEXT["failed_validation"].format(
            reasons="; ".join(map(str, res["hard_fail_reasons"])))))
    elif plaus["plausible"] is False:
        verdict = "implausible"
        issues.append(issue("implausible_step", ISSUE_TEXT["implausible_step"].format(
            score=plaus["score"], floor=cfg.plausibility_floor)))
    else:
        verdict = "plausible"
    for smiles in precursors:
        what = _unisolable(smiles)
        if what:  # a transient species (cyclopentyne) proposed as a precursor: named, whatever the verdict
            issues.append(issue("strained_molecule", ISSUE_TEXT["strained_molecule"].format(what=what),
                                smiles=smiles))
    res.update(plausibility=plaus, verdict=verdict, issues=issues)
    return res


# -- routes --------------------------------------------------------------------------------------------------------
def leaf_tier(avail: dict[str, Any] | None) -> str:
    """A leaf's purchasability tier (``verified`` / ``probable`` / ``estimated`` / ``unavailable``) from its
    availability record: the recorded ``tier`` when there is one, else derived from ``available`` and
    ``source`` (an SA-score estimate that did not pass is ``unavailable``, not ``estimated``)."""
    avail = avail or {}
    tier = avail.get("tier")
    if tier in ("verified", "probable", "estimated", "unavailable"):
        return str(tier)
    source = str(avail.get("source") or "")
    if avail.get("available") and source and source != "sa_estimate":
        return "verified"
    return "estimated" if source == "sa_estimate" and avail.get("available") else "unavailable"


def judge_route(graph: Any, stock: Any = None, config: SearchConfig | None = None) -> dict[str, Any]:
    """``{confidence, verdict, issues, score, n_steps}`` of a :class:`~molx_agent.retro.route.RetroGraph`.

    Issues come from the leaves (tiers, reactive intermediates, analog shortcuts) and the steps (plausibility floor,
    forward validation, selectivity, mechanism).  ``confidence``: ``high`` when every leaf is verified and every step
    is plausible, validated and unflagged; ``low`` with an analog shortcut, an implausible or failing step, an
    unresolved/estimated leaf, or a molecule no one can isolate (``strained_molecule``: cyclopentyne); ``medium``
    otherwise (:data:`MEDIUM_ISSUES`: Bloom-filter-only leaves, weak steps, selectivity, mechanism and
    stereochemistry flags).  ``verdict``: accept (high), weak (medium, or low without a hard problem),
    reject (unresolved leaves, failing steps).  Issues already recorded on the route
    (``metadata.route.issues``, e.g. by the search) are kept.
    """
    from molx_agent.retro.stock import ZINC_FALSE_POSITIVE_RATE

    cfg = config or SearchConfig()
    issues: list[dict[str, Any]] = []
    seen: set[tuple[str, str]] = set()

    def add(item: dict[str, Any]) -> None:
        key = (item["code"], str(item.get("smiles") or item.get("step") or item["message"]))
        if key not in seen:
            seen.add(key)
            issues.append(item)

    target = graph.molecule_nodes[graph.target_id].smiles
    made = {r.product_node for r in graph.reaction_nodes}
    for node in graph.molecule_nodes.values():
        # an intermediate or a leaf no one can isolate (cyclopentyne, 1,2-cyclohexadiene): the target is the user's
        what = _unisolable(node.smiles) if node.node_id != graph.target_id else None
        if what:
            add(issue("strained_molecule", ISSUE_TEXT["strained_molecule"].format(what=what), smiles=node.smiles))
    for node in graph.molecule_nodes.values():
        if node.node_id in made or node.node_id == graph.target_id and not graph.reaction_nodes:
            continue
        if node.node_id == graph.target_id:
            continue
        avail = node.availability or {}
        tier = leaf_tier(avail)
        if tier == "probable":
            add(issue("probable_leaf", ISSUE_TEXT["probable_leaf"].format(fpr=ZINC_FALSE_POSITIVE_RATE),
                      smiles=node.smiles))
        elif tier == "estimated":
            add(issue("estimated_leaf", ISSUE_TEXT["estimated_leaf"], smiles=node.smiles))
        elif tier == "unavailable" or node.role == "pending":
            add(issue("unresolved_leaf", ISSUE_TEXT["unresolved_leaf"], smiles=node.smiles))
        kind = reactive_kind(node.smiles)
        if kind and tier == "verified":
            add(issue("reactive_leaf", ISSUE_TEXT["reactive_leaf"].format(kind=kind), smiles=node.smiles))
    route_steps: list[tuple[str, list[str], str]] = []  # (product, reactants, mapped reaction) per step
    for rxn in graph.reaction_nodes:
        product = graph.molecule_nodes[rxn.product_node].smiles
        reactants = [graph.molecule_nodes[r].smiles for r in rxn.reactant_nodes]
        route_steps.append((product, reactants, rxn.mapped_reaction))
        step = f"{'.'.join(reactants)}>>{product}"
        # an intermediate with a free amine beside an acyl halide, heterocumulene or beta-keto carbonyl: it couples
        # with itself as soon as it is made (the target is the user's; a bought leaf exists, as a salt if need be)
        what = _self_reactive(product) if rxn.product_node != graph.target_id else None
        if what:
            add(issue("self_reactive_molecule", ISSUE_TEXT["self_reactive_molecule"].format(what=what),
                      smiles=product, step=step))
        for rid in rxn.reactant_nodes:
            # a bought near analog carrying the target's skeleton, turned into the target by one step or by a
            # chain of functional-group interconversions (esterify, dehalogenate, hydrolyse): an analog shortcut
            leaf = graph.molecule_nodes[rid]
            if rid in made or not (leaf.availability or {}).get("available"):
                continue
            sim = is_analog_shortcut(leaf.smiles, target, cfg)
            if sim is not None:
                add(issue("analog_shortcut", ISSUE_TEXT["analog_shortcut"].format(sim=sim), smiles=leaf.smiles,
                          step=step))
        # the model's probability; a step without one (a chemist's own step, a capping) is "unknown", not implausible
        score = rxn.score if rxn.score is not None else (rxn.template_evidence.confidence or None)
        plaus = plausibility(score, cfg) if score is not None else {"plausible": None}
        if plaus["plausible"] is False:
            add(issue("implausible_step", ISSUE_TEXT["implausible_step"].format(score=float(score),
                                                                                 floor=cfg.plausibility_floor), step=step))
        elif score is not None and float(score) < cfg.low_score_step:
            add(issue("low_score_step", ISSUE_TEXT["low_score_step"].format(score=float(score)), step=step))
        # selectivity at a chemist's glance: a consumed group that would also attack a group the product keeps, or
        # a kept group the reaction type attacks (medium; the final re-ranking costs it: SearchConfig.selectivity_penalty)
        for conflict in _step_selectivity(reactants, product, rxn.reaction_type):
            add(issue(conflict["code"], ISSUE_TEXT[conflict["code"]].format(reason=conflict["reason"]), step=step,
                      groups=conflict["groups"]))
        # mechanism at a chemist's glance, read from the proposing template's atom map (chem.mechanism): a C-H
        # with nothing to make it acidic used as a carbanion, a free aniline C-alkylated, two electrophiles joined,
        # a fluoride or ether displaced from an unactivated ring, an alcohol's carbon acylated or sulfonylated, an
        # amine's alkyls stripped, the slower of two halides reacting, an oxidation by water or hydroxide, a
        # nucleophile reacting beside a stronger electrophile the product keeps, an aromatic ring substituted where
        # no electrophile goes, a deactivated ring given a Friedel-Crafts reaction, one of two like amines or alcohols
        # reacting, a single enantiomer from achiral precursors (medium confidence, not a cost; all but the last two
        # order the route after clean ones: route_rank_tier)
        catalysed, activated = _stereo_setting_step(rxn), _activated_step(rxn)
        for flag in _step_mechanism(rxn.mapped_reaction):
            if flag["code"] == "unsourced_stereocentre" and catalysed:
                continue  # the step's named template sets the centre with the asymmetric catalyst its reagents name
            if flag["code"] == "amide_condensation" and activated:
                continue  # the step's named template activates the carbonyl with the reagent its conditions name
            add(issue(flag["code"], ISSUE_TEXT[flag["code"]].format(reason=flag["reason"]), step=step,
                      atoms=flag["atoms"]))
        fv = rxn.forward_validation or {}
        if fv.get("hard_fail_reasons"):
            add(issue("failed_validation", ISSUE_TEXT["failed_validation"].format(
                reasons="; ".join(map(str, fv["hard_fail_reasons"]))), step=step))
        elif not fv and graph.metadata.get("source") == "retro_star_search":
            add(issue("unvalidated_step", ISSUE_TEXT["unvalidated_step"], step=step))
        elif fv.get("feasibility_score") is not None and float(fv["feasibility_score"]) < 0.5:
            add(issue("low_feasibility_step", ISSUE_TEXT["low_feasibility_step"].format(
                score=float(fv["feasibility_score"])), step=step))
    # a halogen (or OH, NH2) bought, carried through steps that never use it and then removed: a detour
    if len(route_steps) > 1:
        for hit in _carried_groups(route_steps):
            product, reactants, _mapped = route_steps[hit["step"]]
            add(issue("carried_group", ISSUE_TEXT["carried_group"].format(group=hit["group"], leaf=hit["leaf"],
                                                                          n=hit["carried"]),
                      smiles=hit["leaf"], step=f"{'.'.join(reactants)}>>{product}"))
        # an aniline's nitrogen replaced (Sandmeyer) and a nitrogen bonded to the same carbon later: a detour
        for hit in _amine_round_trips(route_steps):
            product, reactants, _mapped = route_steps[hit["step"]]
            off_product, off_reactants, _ = route_steps[hit["made"]]
            add(issue("amine_round_trip", ISSUE_TEXT["amine_round_trip"].format(
                step_off=f"{'.'.join(off_reactants)}>>{off_product}", step_on=f"{'.'.join(reactants)}>>{product}"),
                step=f"{'.'.join(reactants)}>>{product}"))
    for item in (graph.metadata.get("route") or {}).get("issues") or []:
        if isinstance(item, dict) and item.get("code"):
            add(dict(item))
    if not graph.reaction_nodes:
        add(issue("not_solved", ISSUE_TEXT["not_solved"]))
    codes = {i["code"] for i in issues}
    hard = {"unresolved_leaf", "failed_validation", "not_solved"}
    low = DEMOTING_ISSUES | {"estimated_leaf", "unvalidated_step"} | hard
    if codes & low:
        confidence = "low"
    elif codes & MEDIUM_ISSUES:
        confidence = "medium"
    else:
        confidence = "high"
    verdict = "reject" if codes & hard else "accept" if confidence == "high" else "weak"
    return {"confidence": confidence, "verdict": verdict, "issues": issues, "n_steps": len(graph.reaction_nodes),
            "score": graph.metadata.get("route_score")}


__all__ = [
    "TIERS",
    "REACTIVE_PATTERNS",
    "judge_leaf",
    "leaf_tier",
    "judge_step",
    "judge_route",
    "reactive_kind",
    "building_block_like",
    "probable_leaf_cost",
    "analog_similarity",
    "is_analog_shortcut",
    "ring_skeleton",
    "plausibility",
    "forward_validation",
    "complexity",
    "murcko",
    "selectivity_warned",
    "PENALISED_SELECTIVITY_ISSUES",
    "route_rank_tier",
]

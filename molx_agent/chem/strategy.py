"""Strategy analyses behind the skills (seed 000): scaffold, rings, linear/convergent, global context.

- :func:`analyze_scaffold` -- Murcko scaffold, ring systems (fused/spiro/bridged, aromatic, hetero,
  named), linkers and the strategic disconnections from the atom/bond map;
- :func:`plan_ring_strategy` -- for each ring system: buy it as a building block or form it (named
  ring-forming templates with their retro ring-opening precursors), and a construction order;
- :func:`decide_strategy` -- linear / convergent / mixed with scores, rationale and feasibilities;
- :func:`get_global_strategy` -- protecting-group policy, method preferences and step budget
  (defaults ``max_pg_operations=2``, ``max_steps=10``) for an LLM prompt;
- re-exported from :mod:`molx_agent.chem.selectivity`: :func:`analyze_selectivity`,
  :func:`recommend_protecting_groups`, :func:`assess_feasibility`.

Scores are transparent heuristics (formulas in each docstring), not learned models.
"""

from __future__ import annotations

from typing import Any

from rdkit import Chem
from rdkit.Chem import rdMolDescriptors
from rdkit.Chem.Scaffolds import MurckoScaffold

from molx_agent.chem.atom_bond_map import build_atom_bond_map
from molx_agent.chem.fg_detect import detect_functional_groups
from molx_agent.chem.selectivity import (
    CONFLICT_PAIRS,
    analyze_selectivity,
    assess_feasibility,
    recommend_protecting_groups,
)
from molx_agent.chem.templates import run_named_template, template_sites
from molx_agent.chem.utils import parse_mol
from molx_agent.errors import ValidationError

DEFAULT_MAX_PG_OPERATIONS = 2
DEFAULT_MAX_STEPS = 10
#: ring systems a chemist normally buys (as substituted building blocks) rather than builds
BUILDING_BLOCK_RINGS = frozenset({
    "phenyl", "pyridine", "pyrimidine", "pyrazine", "pyridazine", "thiophene", "furan", "pyrrole", "imidazole",
    "indole", "quinoline", "isoquinoline", "piperidine", "piperazine", "morpholine", "pyrrolidine", "triazine",
    "benzimidazole", "benzothiazole", "benzoxazole", "purine", "quinazoline",
})
_RING_GROUP_CATEGORIES = ("aromatic", "heteroaromatic", "heterocycle")


# ------------------------------------------------------------------------------------------- scaffold
def _ring_systems(mol: Chem.Mol) -> list[dict[str, Any]]:
    ri = mol.GetRingInfo()
    rings = [set(r) for r in ri.AtomRings()]
    systems: list[dict[str, Any]] = []
    for ring in rings:
        merged = [s for s in systems if s["_atoms"] & ring]
        new = {"_atoms": set(ring), "_rings": [ring]}
        for s in merged:
            new["_atoms"] |= s["_atoms"]
            new["_rings"] += s["_rings"]
            systems.remove(s)
        systems.append(new)
    out = []
    for s in sorted(systems, key=lambda x: min(x["_atoms"])):
        atoms = sorted(s["_atoms"])
        ring_list = s["_rings"]
        shared = [len(a & b) for k, a in enumerate(ring_list) for b in ring_list[k + 1:]]
        aromatic = all(mol.GetAtomWithIdx(i).GetIsAromatic() for i in atoms)
        hetero = sorted({mol.GetAtomWithIdx(i).GetSymbol() for i in atoms if mol.GetAtomWithIdx(i).GetAtomicNum() != 6})
        out.append(
            {
                "atoms": atoms,
                "n_rings": len(ring_list),
                "ring_sizes": sorted(len(r) for r in ring_list),
                "aromatic": aromatic,
                "partially_aromatic": not aromatic and any(mol.GetAtomWithIdx(i).GetIsAromatic() for i in atoms),
                "heteroatoms": hetero,
                "fused": any(n == 2 for n in shared),
                "spiro": any(n == 1 for n in shared),
                "bridged": any(n > 2 for n in shared),
                "stereocenters": sum(
                    1 for i in atoms if mol.GetAtomWithIdx(i).GetChiralTag() != Chem.ChiralType.CHI_UNSPECIFIED
                ),
            }
        )
    return out


def _name_ring_systems(mol: Chem.Mol, systems: list[dict[str, Any]]) -> None:
    fgs = [g for g in detect_functional_groups(mol) if g.get("category") in _RING_GROUP_CATEGORIES]
    for s in systems:
        atoms = set(s["atoms"])
        names = []
        for g in fgs:
            if any(set(m) <= atoms for m in g["atoms"]):
                names.append(g["name"])
        # prefer the most specific (largest) names: drop 'phenyl'/'pyrrole' when a fused name covers them
        fused_names = {"indole", "benzimidazole", "benzoxazole", "benzothiazole", "quinoline", "isoquinoline",
                       "quinazoline", "purine"}
        if any(n in fused_names for n in names):
            names = [n for n in names if n not in ("phenyl", "pyrrole", "pyridine", "imidazole", "pyrimidine")]
        s["names"] = names
        s["label"] = "/".join(names) if names else (
            f"{'aromatic' if s['aromatic'] else 'aliphatic'} {'+'.join(map(str, s['ring_sizes']))}-ring system")


def analyze_scaffold(smiles: str) -> dict[str, Any]:
    """Scaffold, ring systems and strategic disconnection points of a molecule.

    Returns ``smiles``, ``murcko_scaffold``, ``generic_scaffold``, ``n_rings``, ``n_aromatic_rings``,
    ``ring_systems`` (``atoms``, ``n_rings``, ``ring_sizes``, ``aromatic``, ``heteroatoms``, ``fused``,
    ``spiro``, ``bridged``, ``stereocenters``, ``names``, ``label``), ``n_ring_systems``, ``linkers``
    (acyclic bonds between ring systems), ``strategic_disconnections`` (top bonds of the atom/bond map),
    ``n_stereocenters``, ``fraction_csp3`` and ``summary``.
    """
    mol = parse_mol(smiles)
    systems = _ring_systems(mol)
    _name_ring_systems(mol, systems)
    owner = {a: k for k, s in enumerate(systems) for a in s["atoms"]}
    abm = build_atom_bond_map(mol)
    linkers = []
    for b in abm["bonds"]:
        if b["in_ring"]:
            continue
        i, j = b["atoms"]
        # a linker bond lies on the path between two ring systems: both sides contain ring atoms
        if _both_sides_have_rings(mol, b["bond_idx"], owner):
            linkers.append({"bond_idx": b["bond_idx"], "atoms": [i, j], "chemical_label": b["chemical_label"],
                            "strategic_priority": b["strategic_priority"]})
    strategic = [
        {k: b[k] for k in ("bond_idx", "atoms", "chemical_label", "strategic_priority", "reaction_types",
                           "fragment_balance")}
        for b in abm["strategic_bonds"][:8]
    ]
    try:
        core = MurckoScaffold.GetScaffoldForMol(mol)
        murcko = Chem.MolToSmiles(core) if core.GetNumAtoms() else ""
        generic = Chem.MolToSmiles(MurckoScaffold.MakeScaffoldGeneric(core)) if core.GetNumAtoms() else ""
    except Exception:  # noqa: BLE001 - odd valences in generic scaffolds; scaffold is optional information
        murcko, generic = "", ""
    n_stereo = len(Chem.FindMolChiralCenters(mol, includeUnassigned=True, useLegacyImplementation=False))
    n_arom = rdMolDescriptors.CalcNumAromaticRings(mol)
    labels = ", ".join(s["label"] for s in systems) or "no rings"
    summary = (f"{len(systems)} ring system(s) ({labels}); {len(linkers)} linker bond(s); "
               + (f"best disconnection: {strategic[0]['chemical_label']} (atoms {strategic[0]['atoms']})."
                  if strategic else "no strategic disconnection found."))
    return {
        "smiles": Chem.MolToSmiles(mol),
        "murcko_scaffold": murcko,
        "generic_scaffold": generic,
        "n_rings": mol.GetRingInfo().NumRings(),
        "n_aromatic_rings": n_arom,
        "ring_systems": systems,
        "n_ring_systems": len(systems),
        "linkers": linkers,
        "strategic_disconnections": strategic,
        "n_stereocenters": n_stereo,
        "fraction_csp3": round(rdMolDescriptors.CalcFractionCSP3(mol), 3),
        "heavy_atoms": mol.GetNumHeavyAtoms(),
        "summary": summary,
    }


def _both_sides_have_rings(mol: Chem.Mol, bond_idx: int, owner: dict[int, int]) -> bool:
    b = mol.GetBondWithIdx(bond_idx)
    i, j = b.GetBeginAtomIdx(), b.GetEndAtomIdx()
    seen = {i, j}
    stack = [i]
    left_ring = i in owner
    while stack and not left_ring:
        x = stack.pop()
        for n in mol.GetAtomWithIdx(x).GetNeighbors():
            y = n.GetIdx()
            if y not in seen:
                seen.add(y)
                if y in owner:
                    left_ring = True
                    break
                stack.append(y)
    if not left_ring:
        return False
    seen = {i, j}
    stack = [j]
    if j in owner:
        return True
    while stack:
        x = stack.pop()
        for n in mol.GetAtomWithIdx(x).GetNeighbors():
            y = n.GetIdx()
            if y not in seen:
                seen.add(y)
                if y in owner:
                    return True
                stack.append(y)
    return False


# ----------------------------------------------------------------------------------------------- rings
def plan_ring_strategy(smiles: str) -> dict[str, Any]:
    """Ring-formation plan: per ring system, buy or form it, how, and in which order.

    A ring system is ``form`` when a named ring-forming template (Fischer indole, Hantzsch thiazole,
    Knorr pyrazole, benzimidazole, CuAAC, 1,2,4-oxadiazole, Paal-Knorr, tetrazole, Diels-Alder) or a
    lactam/lactone closure breaks one of its bonds; ``building_block`` when it is a common
    commercially available ring (benzene, pyridine, piperazine, ...); otherwise ``building_block_or_custom``.
    Each system lists ``retro_ring_opening`` (template, precursors). ``construction_order``: rings to
    form first (on simple precursors), then couple ring systems through the linker bonds.
    """
    mol = parse_mol(smiles)
    systems = _ring_systems(mol)
    _name_ring_systems(mol, systems)
    product = Chem.MolToSmiles(mol)
    ring_templates = [s.template for s in template_sites() if s.template.kind == "ring_formation"]
    outcomes: list[tuple[Any, Any]] = []
    present = {a.GetAtomicNum() for a in mol.GetAtoms()}
    for site in template_sites():
        if site.template.kind != "ring_formation" or not site.required <= present:
            continue
        if not mol.HasSubstructMatch(site.pattern):
            continue
        for o in run_named_template(site.template.id, smiles):
            outcomes.append((site.template, o))
    abm = build_atom_bond_map(mol)
    plans: list[dict[str, Any]] = []
    for k, s in enumerate(systems):
        atoms = set(s["atoms"])
        openings: list[dict[str, Any]] = []
        for tpl, o in outcomes:
            if o.broken_bonds and all(i in atoms and j in atoms for i, j in o.broken_bonds):
                openings.append({"template_id": tpl.id, "template": tpl.display_name, "method": tpl.name,
                                 "precursors": list(o.precursors),
                                 "reaction_smiles": ".".join(o.precursors) + ">>" + product,
                                 "confidence": tpl.confidence})
        closures: list[dict[str, Any]] = []
        for b in abm["bonds"]:
            i, j = b["atoms"]
            if b["in_ring"] and i in atoms and j in atoms and not s["aromatic"]:
                for cap in b["smart_capping"]:
                    if cap["reaction_type"] in ("Amide bond formation", "Ester hydrolysis", "N-alkylation (SN2)",
                                                "Williamson ether", "Reductive amination"):
                        closures.append({"bond_atoms": [i, j], "method": "ring closure by "
                                         + ("lactamization" if cap["reaction_type"].startswith("Amide")
                                            else "lactonization" if cap["reaction_type"] == "Ester hydrolysis"
                                            else cap["reaction_type"]),
                                         "confidence": cap["confidence"]})
        openings.sort(key=lambda o: -o["confidence"])
        names = set(s.get("names", []))
        common = bool(names) and names <= BUILDING_BLOCK_RINGS
        if openings or (closures and not common):
            decision = "form"
        elif common:
            decision = "building_block"
        else:
            decision = "building_block_or_custom"
        methods = sorted({o["method"] for o in openings} | {c["method"] for c in closures})
        plans.append({**s, "index": k, "decision": decision, "formation_methods": methods,
                      "retro_ring_opening": openings[:6], "ring_closures": closures[:6]})
    to_form = [p for p in plans if p["decision"] == "form"]
    order = []
    for p in sorted(to_form, key=lambda p: (p["bridged"], p["n_rings"])):
        order.append(f"Form ring system {p['index']} ({p['label']}) by "
                     f"{p['formation_methods'][0] if p['formation_methods'] else 'ring closure'} early, "
                     "on simple precursors")
    bb = [p for p in plans if p["decision"] != "form"]
    if bb:
        order.append("Use ring systems " + ", ".join(f"{p['index']} ({p['label']})" for p in bb)
                     + " as purchased building blocks")
    if len(plans) > 1:
        order.append("Join the ring systems through their linker bonds late (amide, C-N or C-C couplings)")
    return {
        "smiles": product,
        "n_ring_systems": len(plans),
        "ring_systems": plans,
        "rings_to_form": [p["index"] for p in to_form],
        "construction_order": order,
        "available_ring_templates": [t.display_name for t in ring_templates],
        "summary": (f"{len(to_form)} of {len(plans)} ring system(s) to form; "
                    + ("; ".join(order) if order else "acyclic molecule: no ring strategy needed") + "."),
    }


# ----------------------------------------------------------------------------------------- strategies
def _strategy_features(mol: Chem.Mol) -> dict[str, Any]:
    abm = build_atom_bond_map(mol)
    good = [b for b in abm["strategic_bonds"] if b["heuristic_score"] >= 0.6 and not b["in_ring"]]
    best_conv = max(good, key=lambda b: (b["fragment_balance"], b["strategic_priority"]), default=None)
    systems = _ring_systems(mol)
    return {
        "abm": abm,
        "heavy_atoms": mol.GetNumHeavyAtoms(),
        "n_ring_systems": len(systems),
        "good_bonds": good,
        "best_convergent_bond": best_conv,
        "best_balance": best_conv["fragment_balance"] if best_conv else 0.0,
        "n_good_links": sum(1 for b in good if b["fragment_balance"] >= 0.4),
    }


def decide_strategy(smiles: str) -> dict[str, Any]:
    """Linear, convergent or mixed synthesis strategy with scores and rationale.

    With n heavy atoms, r ring systems, B the best fragment balance among well-precedented acyclic
    disconnections (heuristic >= 0.6; balance = 2 x smaller fragment / n) and L the number of such bonds
    with balance >= 0.4:

    - convergent = 0.45 B + 0.2 min(1, (r-1)/2) + 0.2 min(1, (n-15)+/20) + 0.15 min(1, L/3)
    - linear     = 0.4 (1-B) + 0.3 (1 - min(1, (n-12)+/25)) + 0.3 (1 if r <= 1 else 0.3)
    - mixed      = 0.5 convergent + 0.3 min(1, L/4) + 0.2 min(1, (n-30)+/20)

    The highest score wins (ties -> linear, the seed's default). Returns ``recommended_strategy``,
    ``scores``, ``rationale``, ``convergent_feasibility``, ``linear_feasibility``, ``scaffold_summary``,
    ``selectivity_summary`` and ``complexity``.
    """
    mol = parse_mol(smiles)
    f = _strategy_features(mol)
    n, r, bal, links = f["heavy_atoms"], f["n_ring_systems"], f["best_balance"], f["n_good_links"]
    conv = 0.45 * bal + 0.2 * min(1.0, max(0, r - 1) / 2) + 0.2 * min(1.0, max(0, n - 15) / 20) \
        + 0.15 * min(1.0, links / 3)
    lin = 0.4 * (1 - bal) + 0.3 * (1 - min(1.0, max(0, n - 12) / 25)) + 0.3 * (1.0 if r <= 1 else 0.3)
    mixed = 0.5 * conv + 0.3 * min(1.0, links / 4) + 0.2 * min(1.0, max(0, n - 30) / 20)
    scores = {"linear": round(lin, 3), "convergent": round(conv, 3), "mixed": round(mixed, 3)}
    recommended = max(("linear", "convergent", "mixed"), key=lambda k: (scores[k], k == "linear"))
    best = f["best_convergent_bond"]
    rationale = [f"{n} heavy atoms, {r} ring system(s), {len(f['good_bonds'])} well-precedented acyclic "
                 f"disconnection(s)."]
    if best:
        rationale.append(f"Most balanced disconnection: {best['chemical_label']} (atoms {best['atoms']}) "
                         f"splits the molecule with balance {best['fragment_balance']:.2f} "
                         f"({', '.join(best['reaction_types'][:2]) or 'capping rule'}).")
    else:
        rationale.append("No well-precedented acyclic disconnection: build the molecule step by step.")
    if recommended == "convergent":
        rationale.append("Two comparable fragments can be made in parallel and joined late, shortening the "
                         "longest linear sequence.")
    elif recommended == "mixed":
        rationale.append("Several coupling points: make the main fragments convergently and finish the "
                         "smaller ones linearly.")
    else:
        rationale.append("The molecule is small or has one dominant core: functionalise it linearly.")
    scaffold = analyze_scaffold(smiles)
    selectivity = analyze_selectivity(smiles)
    return {
        "smiles": Chem.MolToSmiles(mol),
        "recommended_strategy": recommended,
        "scores": scores,
        "rationale": rationale,
        "convergent_feasibility": {
            "score": scores["convergent"],
            "key_disconnection": ({k: best[k] for k in ("bond_idx", "atoms", "chemical_label", "fragment_balance",
                                                        "reaction_types")} if best else None),
            "n_coupling_points": links,
        },
        "linear_feasibility": {"score": scores["linear"], "n_disconnections": len(f["good_bonds"])},
        "scaffold_summary": {k: scaffold[k] for k in ("murcko_scaffold", "n_ring_systems", "n_rings",
                                                      "n_stereocenters", "summary")},
        "selectivity_summary": {"n_conflicts": selectivity["n_conflicts"], "summary": selectivity["summary"]},
        "complexity": {"heavy_atoms": n, "n_ring_systems": r, "n_stereocenters": scaffold["n_stereocenters"]},
    }


def _estimate_steps(mol: Chem.Mol, abm: dict[str, Any], max_fragment: int = 14) -> tuple[int, list[dict[str, Any]]]:
    """Greedy count of disconnections until every fragment has <= ``max_fragment`` heavy atoms."""
    chosen: list[dict[str, Any]] = []
    candidates = [b for b in abm["strategic_bonds"] if not b["in_ring"] and b["heuristic_score"] >= 0.5]

    def fragments(bonds: list[int]) -> list[int]:
        if not bonds:
            return [mol.GetNumHeavyAtoms()]
        frag = Chem.FragmentOnBonds(mol, bonds, addDummies=False)
        heavy = [a.GetAtomicNum() > 1 for a in frag.GetAtoms()]
        return [sum(heavy[i] for i in ix) for ix in Chem.GetMolFrags(frag, asMols=False)]

    sizes = fragments([])
    for b in candidates:
        if max(sizes) <= max_fragment:
            break
        trial = fragments([c["bond_idx"] for c in chosen] + [b["bond_idx"]])
        if max(trial) < max(sizes) or len(trial) > len(sizes):
            chosen.append(b)
            sizes = trial
    return max(1, len(chosen)), chosen


_AVOID_RULES: tuple[tuple[set[str], str], ...] = (
    ({"primary_alcohol", "secondary_alcohol", "phenol", "carboxylic_acid", "primary_amine", "secondary_amine"},
     "Grignard/organolithium additions (acidic O-H/N-H present) unless protected"),
    ({"ester", "lactone", "ketone", "aldehyde", "nitrile"},
     "LiAlH4 and other unselective hydride reductions (reducible carbonyls present)"),
    ({"aryl_iodide", "aryl_bromide", "alkene", "alkyne", "nitro", "aromatic_nitro", "azide"},
     "catalytic hydrogenation (H2, Pd/C) late in the route (reducible groups present)"),
    ({"thiol", "thioether"}, "Pd-catalysed couplings without excess catalyst (sulfur poisons Pd)"),
    ({"aldehyde"}, "strongly basic conditions (aldehyde enolisation/Cannizzaro)"),
    ({"epoxide"}, "strong nucleophiles/acids before the epoxide is used"),
)


def get_global_strategy(
    target_smiles: str,
    max_pg_operations: int = DEFAULT_MAX_PG_OPERATIONS,
    max_steps: int = DEFAULT_MAX_STEPS,
    constraints: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Global strategy context for LLM prompts: protecting-group policy and method preferences.

    Returns ``target_smiles``, ``strategy`` (``recommended_strategy`` and ``scores``), ``pg_policy``
    (``max_pg_operations``, ``groups_needing_protection``, ``recommended_pgs``,
    ``estimated_pg_operations``, ``within_limit``, ``policy``), ``method_preferences`` (``preferred``,
    ``avoid``), ``step_budget`` (``max_steps``, ``estimated_steps``, ``within_budget``), ``constraints``
    and ``prompt_context`` (one paragraph summarising all of it).
    """
    for name, value, low in (("max_pg_operations", max_pg_operations, 0), ("max_steps", max_steps, 1)):
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ValidationError("invalid_argument", f"{name} must be an integer >= {low}", value=value)
    if constraints is not None and not isinstance(constraints, dict):
        raise ValidationError("invalid_argument", "constraints must be an object", value=constraints)
    constraints = dict(constraints or {})
    mol = parse_mol(target_smiles)
    decision = decide_strategy(target_smiles)
    selectivity = analyze_selectivity(target_smiles)
    abm = build_atom_bond_map(mol)
    fg_names = set(selectivity["functional_groups"])
    recommended_pgs = selectivity["protection_strategy"]["recommended"]
    pg_ops = 2 * len(recommended_pgs)  # install + remove
    within = pg_ops <= max_pg_operations
    if not recommended_pgs:
        policy = "No protecting groups needed: keep the route protecting-group free."
    elif within:
        policy = (f"Protect only what the conflicts require ({', '.join(r['protecting_group'] for r in recommended_pgs)}); "
                  f"{pg_ops} PG operation(s) within the limit of {max_pg_operations}.")
    else:
        keep = max_pg_operations // 2
        policy = (f"The conflicts would need {pg_ops} PG operations, above the limit of {max_pg_operations}: "
                  f"protect at most {keep} group(s) and prefer chemoselective conditions or a different "
                  "bond order for the rest.")
    preferred: list[dict[str, Any]] = []
    seen: set[str] = set()
    for b in abm["strategic_bonds"]:
        for name in b["reaction_types"][:1] or [c["reaction_type"] for c in b["smart_capping"][:1]]:
            if name not in seen:
                seen.add(name)
                preferred.append({"method": name, "bond": b["chemical_label"], "atoms": b["atoms"],
                                  "priority": b["strategic_priority"]})
        if len(preferred) >= 5:
            break
    avoid = [text for groups, text in _AVOID_RULES if groups & fg_names]
    for item in constraints.get("avoid_reactions", []) or []:
        avoid.append(f"{item} (user constraint)")
    for item in constraints.get("preferred_reactions", []) or []:
        preferred.insert(0, {"method": str(item), "bond": None, "atoms": None, "priority": None,
                             "source": "user constraint"})
    est_steps, _chosen = _estimate_steps(mol, abm)
    est_total = est_steps + (pg_ops if within else max_pg_operations)
    budget = {"max_steps": max_steps, "estimated_steps": est_total, "within_budget": est_total <= max_steps}
    prompt = (f"Target {Chem.MolToSmiles(mol)}: {decision['recommended_strategy']} strategy "
              f"(scores {decision['scores']}). {policy} Prefer: "
              + ", ".join(p["method"] for p in preferred[:4])
              + (". Avoid: " + "; ".join(avoid) if avoid else ". No method restrictions")
              + f". Step budget {max_steps} (estimated {est_total}).")
    return {
        "target_smiles": Chem.MolToSmiles(mol),
        "strategy": {"recommended_strategy": decision["recommended_strategy"], "scores": decision["scores"]},
        "pg_policy": {
            "max_pg_operations": max_pg_operations,
            "groups_needing_protection": [r["functional_group"] for r in recommended_pgs],
            "recommended_pgs": recommended_pgs,
            "estimated_pg_operations": pg_ops,
            "within_limit": within,
            "protecting_groups_present": selectivity["protecting_groups_present"],
            "policy": policy,
        },
        "method_preferences": {"preferred": preferred, "avoid": avoid},
        "step_budget": budget,
        "constraints": constraints,
        "prompt_context": prompt,
    }


__all__ = [
    "BUILDING_BLOCK_RINGS",
    "CONFLICT_PAIRS",
    "DEFAULT_MAX_PG_OPERATIONS",
    "DEFAULT_MAX_STEPS",
    "analyze_scaffold",
    "analyze_selectivity",
    "assess_feasibility",
    "decide_strategy",
    "get_global_strategy",
    "plan_ring_strategy",
    "recommend_protecting_groups",
]

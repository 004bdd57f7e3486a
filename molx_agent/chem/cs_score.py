"""M6: CS (complexity) score, complexity classes, terminal test and progress scores (seed 001).

``cs_score = 3.5 * sum(weight_d * dimension_d)`` over six dimensions, each normalised to 0-1, with the
seed's weights (size 0.55, ring 0.65, stereo 0.55, hetero 0.40, symmetry -0.20, fg_density 0.35); the
theoretical maximum is 3.5 * 2.5 = 8.75.  Classes: trivial <= 2.5 < moderate <= 6.0 < complex.

The normalisation constants were fitted (random search, ``benchmarks`` notes in ``docs/benchmarks.md``)
so that atorvastatin ~ 4.6, cholesterol ~ 6.2, morphine ~ 6.8 and taxol ~ 8.2, and so that 800 random
USPTO-50K test products have a median near 4.2 with about 5% trivial and 3% complex molecules.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from rdkit import Chem
from rdkit.Chem import rdMolDescriptors

from molx_agent.chem.fg_detect import detect_functional_groups, detect_protecting_groups
from molx_agent.chem.utils import MolLike, as_mol, canonical
from molx_agent.errors import RetroError

WEIGHTS: dict[str, float] = {
    "size": 0.55,
    "ring": 0.65,
    "stereo": 0.55,
    "hetero": 0.40,
    "symmetry": -0.20,
    "fg_density": 0.35,
}
SCALE = 3.5
TRIVIAL_MAX = 2.5
MODERATE_MAX = 6.0
#: Molecules with at most this many heavy atoms are always terminal (seed 001, section 5).
TERMINAL_HEAVY_ATOMS = 6

# Fitted normalisation constants (see module docstring).
_SIZE_SATURATION = 28.0  # heavy atoms
_RING_SATURATION = 10.3
_RING_NONAROMATIC = 1.6
_RING_AROMATIC = 0.75
_RING_BRIDGEHEAD = 1.96
_RING_SPIRO = 1.14
_RING_FUSED_BOND = 0.75
_STEREO_SATURATION = 6.3  # stereocentres + stereo double bonds
_HETERO_SATURATION = 0.20  # heteroatom fraction
_FG_SATURATION = 9.9  # complexity groups + protecting groups


def classify_complexity(cs_score: float) -> str:
    """``trivial`` (<= 2.5), ``moderate`` (<= 6.0) or ``complex``."""
    if cs_score <= TRIVIAL_MAX:
        return "trivial"
    if cs_score <= MODERATE_MAX:
        return "moderate"
    return "complex"


def _features(mol: Chem.Mol, n_stereocenters: int | None = None) -> dict[str, float]:
    ri = mol.GetRingInfo()
    n_heavy = mol.GetNumHeavyAtoms()
    n_rings = ri.NumRings()
    n_arom = rdMolDescriptors.CalcNumAromaticRings(mol)
    if n_stereocenters is None:
        n_stereocenters = len(Chem.FindMolChiralCenters(mol, includeUnassigned=True, useLegacyImplementation=False))
    stereo = n_stereocenters
    double = Chem.BondType.DOUBLE
    for i in range(mol.GetNumBonds()):
        b = mol.GetBondWithIdx(i)
        if b.GetBondType() == double and b.GetStereo() > Chem.BondStereo.STEREOANY:
            stereo += 1
    ring_bond_use = Counter(idx for ring in ri.BondRings() for idx in ring)
    ranks = Chem.CanonicalRankAtoms(mol, breakTies=False)
    return {
        "heavy_atoms": n_heavy,
        "rings": n_rings,
        "aromatic_rings": n_arom,
        "bridgehead_atoms": rdMolDescriptors.CalcNumBridgeheadAtoms(mol),
        "spiro_atoms": rdMolDescriptors.CalcNumSpiroAtoms(mol),
        "fused_bonds": sum(1 for n in ring_bond_use.values() if n > 1),
        "stereo_elements": stereo,
        "heteroatoms": rdMolDescriptors.CalcNumHeteroatoms(mol),
        "symmetry_fraction": 1.0 - len(set(ranks)) / n_heavy if n_heavy else 0.0,
    }


def compute_cs_score(
    mol_or_smiles: MolLike,
    *,
    terminal_threshold: float = TRIVIAL_MAX,
    functional_groups: list[dict[str, Any]] | None = None,
    protecting_groups: list[dict[str, Any]] | None = None,
    n_stereocenters: int | None = None,
) -> dict[str, Any]:
    """CS score of one molecule.

    Returns ``cs_score`` (0-8.75, 2 decimals), ``classification``, ``is_terminal`` (heavy atoms <= 6 or
    score <= ``terminal_threshold``), ``terminal_reason``, ``dimensions`` (each 0-1), ``weights`` and
    ``features`` (the raw counts).  ``functional_groups``/``protecting_groups`` may be passed when the
    caller already detected them.
    """
    mol = as_mol(mol_or_smiles)
    f = _features(mol, n_stereocenters)
    fgs = functional_groups if functional_groups is not None else detect_functional_groups(mol)
    pgs = protecting_groups if protecting_groups is not None else detect_protecting_groups(mol, fgs)
    n_fg = sum(g["count"] for g in fgs if g.get("complexity")) + sum(g["count"] for g in pgs)
    f["complexity_groups"] = n_fg
    n = max(f["heavy_atoms"], 1)
    ring_raw = (
        _RING_NONAROMATIC * (f["rings"] - f["aromatic_rings"])
        + _RING_AROMATIC * f["aromatic_rings"]
        + _RING_BRIDGEHEAD * f["bridgehead_atoms"]
        + _RING_SPIRO * f["spiro_atoms"]
        + _RING_FUSED_BOND * f["fused_bonds"]
    )
    dims = {
        "size": min(1.0, f["heavy_atoms"] / _SIZE_SATURATION),
        "ring": min(1.0, ring_raw / _RING_SATURATION),
        "stereo": min(1.0, f["stereo_elements"] / _STEREO_SATURATION),
        "hetero": min(1.0, (f["heteroatoms"] / n) / _HETERO_SATURATION),
        "symmetry": f["symmetry_fraction"],
        "fg_density": min(1.0, n_fg / _FG_SATURATION),
    }
    score = max(0.0, SCALE * sum(WEIGHTS[k] * v for k, v in dims.items()))
    score = round(score, 2)
    if f["heavy_atoms"] <= TERMINAL_HEAVY_ATOMS:
        terminal, reason = True, f"{f['heavy_atoms']} heavy atoms (<= {TERMINAL_HEAVY_ATOMS})"
    elif score <= terminal_threshold:
        terminal, reason = True, f"CS score {score} <= {terminal_threshold}"
    else:
        terminal, reason = False, None
    return {
        "cs_score": score,
        "classification": classify_complexity(score),
        "is_terminal": terminal,
        "terminal_reason": reason,
        "dimensions": {k: round(v, 4) for k, v in dims.items()},
        "weights": dict(WEIGHTS),
        "features": f,
    }


def check_terminal(
    mol_or_smiles: MolLike, terminal_threshold: float = TRIVIAL_MAX, *, is_target: bool = False
) -> dict[str, Any]:
    """Seed 001 section 5: three-tier terminal test.

    A molecule is terminal when (1) it has at most 6 heavy atoms, (2) its CS score is at most
    ``terminal_threshold``, or (3) no named template can break any of its bonds and no FGI applies.  The
    target itself (``is_target=True``) is never terminal automatically: it goes through the standard flow.
    Returns ``{is_terminal, tier (1-3 or None), reason, cs_score, classification}``.
    """
    cs = compute_cs_score(mol_or_smiles, terminal_threshold=terminal_threshold)
    out = {"cs_score": cs["cs_score"], "classification": cs["classification"]}
    if is_target:
        return {**out, "is_terminal": False, "tier": None, "reason": "the target is never terminal automatically"}
    if cs["features"]["heavy_atoms"] <= TERMINAL_HEAVY_ATOMS:
        return {**out, "is_terminal": True, "tier": 1, "reason": cs["terminal_reason"]}
    if cs["cs_score"] <= terminal_threshold:
        return {**out, "is_terminal": True, "tier": 2, "reason": cs["terminal_reason"]}
    from molx_agent.chem.template_scan import find_disconnectable_bonds, list_fgi_options

    if not find_disconnectable_bonds(mol_or_smiles) and not list_fgi_options(mol_or_smiles):
        return {**out, "is_terminal": True, "tier": 3,
                "reason": "no named template breaks a bond and no functional-group interconversion applies"}
    return {**out, "is_terminal": False, "tier": None, "reason": None}


def score_progress(precursors: list[str] | str, product: str) -> dict[str, Any]:
    """How much a step simplifies: ``{product_cs, precursor_cs, max_precursor_cs, delta, progress, simplifies}``.

    ``delta = product_cs - max(precursor_cs)``; ``progress = delta / product_cs`` (0 when the product
    scores 0); ``simplifies`` is ``delta > 0``.
    """
    items = [p for p in precursors.split(".")] if isinstance(precursors, str) else list(precursors)
    if not items:
        from molx_agent.errors import ValidationError

        raise ValidationError("empty_input", "no precursors given", value=precursors)
    prod = compute_cs_score(product)["cs_score"]
    prec = [compute_cs_score(p)["cs_score"] for p in items]
    worst = max(prec)
    delta = round(prod - worst, 2)
    return {
        "product": canonical(product),
        "product_cs": prod,
        "precursor_cs": dict(zip((canonical(p) for p in items), prec, strict=False)),
        "max_precursor_cs": worst,
        "delta": delta,
        "progress": round(delta / prod, 4) if prod else 0.0,
        "simplifies": delta > 0,
    }


def batch_score_progress(steps: Iterable[tuple[list[str] | str, str] | dict[str, Any]]) -> list[dict[str, Any]]:
    """:func:`score_progress` for many steps; a bad step becomes ``{index, error}``, never dropped.

    Each step is ``(precursors, product)`` or ``{"precursors": [...], "product": "..."}``.
    """
    out: list[dict[str, Any]] = []
    for i, step in enumerate(steps):
        try:
            if isinstance(step, dict):
                res = score_progress(step.get("precursors") or [], step.get("product") or "")
            else:
                res = score_progress(step[0], step[1])
            out.append({"index": i, **res})
        except RetroError as exc:
            out.append({"index": i, "error": exc.to_dict()})
    return out


__all__ = [
    "MODERATE_MAX",
    "TERMINAL_HEAVY_ATOMS",
    "TRIVIAL_MAX",
    "WEIGHTS",
    "batch_score_progress",
    "check_terminal",
    "classify_complexity",
    "compute_cs_score",
    "score_progress",
]

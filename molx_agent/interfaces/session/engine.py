"""The session's one door to the chemistry core (``molx_agent.chem``) and the retro engine.

Pure chemistry (parsing, analysis, CS score, atom balance, capping, named templates) is a module function here;
everything that needs the single-step model, a stock or the step judgement goes through :class:`SessionEngine`,
which wraps the :class:`~molx_agent.retro.engine.RetroEngine` the session was given (``RetroCmd(file, engine=)``)
and binds the session's stock to it.  The session commands stay small and the engine evolves behind this adapter.
Nothing here re-implements chemistry: it calls the engine and reshapes its answers for the session.  A step is
judged by ``RetroEngine.judge_step`` exactly as the route search judges it (category, named template, atom map,
model score).

Single-step predictions are attributed to bonds of the molecule from their atom-mapped reaction: a
product bond whose two mapped atoms are not bonded among the precursors is a bond the step forms
(so retrosynthetically breaks).  Predictions that break no bond are functional-group interconversions.
"""

from __future__ import annotations

import logging
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from molx_agent.errors import RetroError

if TYPE_CHECKING:
    from molx_agent.retro.engine import RetroEngine

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# molecules
# ---------------------------------------------------------------------------
def canonical_or_none(smiles: Any) -> str | None:
    """Canonical SMILES, or None when ``smiles`` is not a parsable SMILES string."""
    if not isinstance(smiles, str) or not smiles.strip():
        return None
    from molx_agent.chem.utils import canonical

    try:
        return canonical(smiles.strip())
    except RetroError:
        return None


def parse(smiles: str):  # noqa: ANN201 - RDKit Mol
    from molx_agent.chem.utils import parse_mol

    return parse_mol(smiles)


def heavy_atoms(smiles: str) -> int:
    return parse(smiles).GetNumHeavyAtoms()


def analyze(smiles: str) -> dict[str, Any]:
    from molx_agent.chem import analyze_molecule

    return analyze_molecule(smiles)


@lru_cache(maxsize=4096)
def _cs(smiles: str) -> tuple[float | None, str | None]:
    from molx_agent.chem import compute_cs_score

    out = compute_cs_score(smiles)
    return out.get("cs_score"), out.get("classification")


def cs_score(smiles: str, threshold: float) -> dict[str, Any]:
    """``{cs_score, classification, is_terminal}`` with ``is_terminal`` from the session's threshold."""
    score, cls = _cs(smiles)
    return {"cs_score": score, "classification": cls,
            "is_terminal": bool(score is not None and score <= threshold)}


# ---------------------------------------------------------------------------
# validation
# ---------------------------------------------------------------------------
def atom_balance(precursors: list[str], product: str, category: str | None) -> dict[str, Any]:
    from molx_agent.chem import check_atom_balance

    return check_atom_balance(precursors, product, reaction_category=category or None)


# ---------------------------------------------------------------------------
# capping
# ---------------------------------------------------------------------------
def smart_capping(smiles: str, bond: tuple[int, int], max_proposals: int | None = None) -> list[dict[str, Any]]:
    from molx_agent.chem import suggest_capping

    return list(suggest_capping(smiles, bond, max_proposals=max_proposals))


def custom_capping(smiles: str, bond: tuple[int, int], cap_i: str, cap_j: str) -> dict[str, Any]:
    from molx_agent.chem.smart_cap import custom_cap

    return custom_cap(smiles, bond, cap_i, cap_j)


# ---------------------------------------------------------------------------
# single-step model -> per-bond alternatives and FGIs
# ---------------------------------------------------------------------------
def broken_bonds(smiles: str, mapped_reaction: str) -> list[tuple[int, int]] | None:
    """Atom pairs (indices in ``smiles``) bonded in the product but not among the precursors.

    ``None`` when the mapped reaction cannot be read or aligned with ``smiles``.
    """
    from rdkit import Chem

    from molx_agent.chem.utils import quiet_rdkit

    if not mapped_reaction or ">>" not in mapped_reaction:
        return None
    left, _, right = mapped_reaction.partition(">>")
    with quiet_rdkit():
        prod = Chem.MolFromSmiles(right)
        reac = Chem.MolFromSmiles(left)
        ours = Chem.MolFromSmiles(smiles)
    if prod is None or reac is None or ours is None:
        return None
    plain = Chem.Mol(prod)
    for a in plain.GetAtoms():
        a.SetAtomMapNum(0)
    match = ours.GetSubstructMatch(plain)
    if len(match) != prod.GetNumAtoms():
        return None
    ours_of_map = {a.GetAtomMapNum(): match[a.GetIdx()] for a in prod.GetAtoms() if a.GetAtomMapNum()}
    reac_idx = {a.GetAtomMapNum(): a.GetIdx() for a in reac.GetAtoms() if a.GetAtomMapNum()}
    out: list[tuple[int, int]] = []
    for bond in prod.GetBonds():
        m1, m2 = bond.GetBeginAtom().GetAtomMapNum(), bond.GetEndAtom().GetAtomMapNum()
        if not m1 or not m2 or m1 not in ours_of_map or m2 not in ours_of_map:
            continue
        r1, r2 = reac_idx.get(m1), reac_idx.get(m2)
        if r1 is None or r2 is None or reac.GetBondBetweenAtoms(r1, r2) is None:
            out.append(tuple(sorted((ours_of_map[m1], ours_of_map[m2]))))
    return out


def _prediction_alt(pred: Any, rank: int) -> dict[str, Any]:
    name = pred.reaction_name or pred.template_id
    named = getattr(pred, "named_template_id", "") or ""
    return {
        "template": name,
        "template_id": named or pred.template_id,
        "model_template_id": pred.template_id,
        "category": pred.category,
        "precursors": list(pred.reactants),
        "score": round(float(pred.score), 4),
        "model_rank": rank,
        "model_score": float(pred.score),
        "mapped_reaction": getattr(pred, "mapped_reaction", "") or "",
        "source": "template" if named else "single_step_model",
        "incompatible_with": [],
    }


def template_alternatives(smiles: str) -> tuple[dict[int, list[dict[str, Any]]], list[dict[str, Any]]]:
    """Named-template proposals of the chemistry core: ``(by_bond, fgi)``.

    Every matching named template is run (rdchiral); an outcome that breaks bonds of the molecule is
    listed under each bond it breaks, an outcome that breaks none (FGI, retro-deprotection) is an FGI.
    """
    from molx_agent.chem.templates import apply_all_named_templates, get_template, incompatible_groups_present

    mol = parse(smiles)
    by_bond: dict[int, list[dict[str, Any]]] = {}
    fgi: list[dict[str, Any]] = []
    for outcome in apply_all_named_templates(smiles):
        tpl = get_template(outcome.template_id)
        site_atoms = {i for pair in outcome.broken_bonds for i in pair}
        alt = {
            "template": tpl.display_name,
            "template_id": tpl.id,
            "category": tpl.category,
            "kind": tpl.kind,
            "precursors": list(outcome.precursors),
            "score": tpl.confidence,
            "source": "template",
            "incompatible_with": incompatible_groups_present(mol, tpl, exclude_atoms=site_atoms),
        }
        idxs = sorted({b.GetIdx() for i, j in outcome.broken_bonds
                       if (b := mol.GetBondBetweenAtoms(int(i), int(j))) is not None})
        if not idxs:
            fgi.append({**alt, "source": "fgi"})
            continue
        alt["bonds_broken"] = idxs
        for idx in idxs:
            by_bond.setdefault(idx, []).append(alt)
    return by_bond, fgi


# ---------------------------------------------------------------------------
# the retro engine: model, stock, step judgement
# ---------------------------------------------------------------------------
class SessionEngine:
    """The session's door to a :class:`RetroEngine` (the injected one, else the process-wide default).

    ``stock_spec`` arguments are the session's ``config["stock"]``: ``"default"`` is the engine's own stock, any other
    spec (a file, ``zinc``, ...) is bound to the same engine (same model and configuration) once per spec.
    """

    def __init__(self, engine: RetroEngine | None = None) -> None:
        self._base = engine
        self._by_stock: dict[str, RetroEngine] = {}

    @property
    def retro(self) -> RetroEngine:
        """The RetroEngine (the injected one, else the process-wide default)."""
        if self._base is None:
            from molx_agent.interfaces._engine import engine_or_default

            self._base = engine_or_default(None)
        return self._base

    def engine_for(self, stock_spec: str | None) -> RetroEngine:
        """The engine on the session's stock (a bad spec or an unreadable file raises ``DataError`` here)."""
        from molx_agent.interfaces._engine import engine_with_stock

        key = str(stock_spec or "default")
        if key not in self._by_stock:
            self._by_stock[key] = engine_with_stock(self.retro, None if key in ("", "default") else key)
        return self._by_stock[key]

    def availability(self, smiles: str, stock_spec: str | None) -> dict[str, Any]:
        """Real-stock lookup only (no SA estimate): ``{available, source, stock, tier, sa_score}``."""
        engine = self.engine_for(stock_spec)
        rec = engine.availability([smiles], fallback=False)[0]
        return {"available": bool(rec.get("available")), "source": rec.get("source"),
                "stock": getattr(engine.stock, "name", str(stock_spec)), "tier": rec.get("tier"),
                "sa_score": rec.get("sa_score")}

    def judge_step(self, precursors: list[str], product: str, *, category: str | None = None,
                   reaction_type: str | None = None, template_id: str | None = None,
                   mapped_reaction: str | None = None, score: float | None = None) -> dict[str, Any]:
        """The engine's step judgement (forward validation + plausibility + verdict), as the search calls it."""
        from molx_agent.interfaces._engine import judge_step

        return judge_step(self.retro, precursors, product, category=category, reaction_type=reaction_type,
                          template_id=template_id, mapped_reaction=mapped_reaction, score=score)

    def predictions(self, smiles: str, top_k: int) -> tuple[list[Any], str | None]:
        """``(predictions, problem)``: the model's top-k, or an empty list and why it is unavailable."""
        try:
            return self.retro.predict(smiles, top_k=top_k), None
        except RetroError as exc:
            return [], f"{exc.code}: {exc.message}"
        except (ImportError, FileNotFoundError, OSError) as exc:
            logger.warning("single-step model unavailable: %s", exc)
            return [], f"single-step model unavailable: {exc}"

    def model_alternatives(self, smiles: str, top_k: int) -> dict[str, Any]:
        """Model predictions grouped by the bond they break; the rest as FGIs.

        Returns ``{"by_bond": {bond_idx: [alt, ...]}, "fgi": [alt, ...], "model_problem": str | None,
        "n_predictions": int}``.
        """
        preds, problem = self.predictions(smiles, top_k)
        mol = parse(smiles)
        by_bond: dict[int, list[dict[str, Any]]] = {}
        fgi: list[dict[str, Any]] = []
        for rank, pred in enumerate(preds):
            alt = _prediction_alt(pred, rank)
            pairs = broken_bonds(smiles, pred.mapped_reaction)
            if pairs is None:
                logger.debug("prediction %s could not be aligned with %s", pred.template_id, smiles)
                alt["note"] = "bond not identified (no usable atom map)"
                fgi.append(alt)
                continue
            if not pairs:
                fgi.append(alt)
                continue
            idxs = []
            for i, j in pairs:
                b = mol.GetBondBetweenAtoms(i, j)
                if b is not None:
                    idxs.append(b.GetIdx())
            alt["bonds_broken"] = sorted(idxs)
            for idx in idxs:
                by_bond.setdefault(idx, []).append(alt)
        return {"by_bond": by_bond, "fgi": fgi, "model_problem": problem, "n_predictions": len(preds)}


__all__ = [
    "canonical_or_none",
    "parse",
    "heavy_atoms",
    "analyze",
    "cs_score",
    "atom_balance",
    "smart_capping",
    "custom_capping",
    "broken_bonds",
    "template_alternatives",
    "SessionEngine",
]

"""A small table-driven single-step model: a test fake and an example of the ``SingleStepModel`` protocol.

``DictSingleStepModel({"CC(=O)Nc1ccc(O)cc1": [(["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], 0.8, "N-acylation")]})``
answers ``predict(product, top_k)`` from the table (keys compared as RDKit canonical SMILES), best
score first.  It counts its calls (``n_calls``) so tests can check caching.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from molx_agent.retro.stock import canonical_smiles


@dataclass(frozen=True)
class ToyPrediction:
    """Same fields as the single-step model's ``Prediction``."""

    reactants: list[str]
    score: float
    template_id: str = ""
    reaction_name: str = ""
    category: str = ""
    mapped_reaction: str = ""


@dataclass
class DictSingleStepModel:
    """``product -> [(reactants, score, reaction_name[, category[, mapped_reaction]]), ...]``."""

    table: Mapping[str, Iterable[tuple]]
    n_calls: int = 0
    _rows: dict[str, list[ToyPrediction]] = field(default_factory=dict, init=False, repr=False)

    def __post_init__(self) -> None:
        for product, rows in self.table.items():
            key = canonical_smiles(product) or product
            preds = []
            for i, row in enumerate(rows):
                reactants, score, name, *rest = row
                preds.append(ToyPrediction(
                    reactants=list(reactants), score=float(score), template_id=f"toy_{len(self._rows)}_{i}",
                    reaction_name=name, category=rest[0] if rest else "",
                    mapped_reaction=rest[1] if len(rest) > 1 else "",
                ))
            self._rows[key] = sorted(preds, key=lambda p: -p.score)

    def predict(self, product_smiles: str, top_k: int = 50, *, deadline: float | None = None) -> list[ToyPrediction]:
        """The table's rows for ``product_smiles`` (``deadline`` is accepted and ignored: a lookup is instant)."""
        self.n_calls += 1
        key = canonical_smiles(product_smiles) or product_smiles
        return list(self._rows.get(key, []))[:top_k]


__all__ = ["ToyPrediction", "DictSingleStepModel"]

"""``check_availability``: are the precursors purchasable?  Real stock first, SA estimate as fallback.

Asks the engine (``RetroEngine.availability``): its stock, or the ``stock`` argument's stock bound to the same
engine.  Every answer says which source decided it (a stock name such as ``zinc-instock-mini`` or a
user stock file, or ``sa_estimate`` when no stock knows the molecule; see
:func:`molx_agent.retro.stock.check_availability`) and its ``tier``.  An unparsable SMILES becomes an error
record in the list; no item is dropped.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from molx_agent.interfaces._engine import engine_with_stock
from molx_agent.interfaces.skills._common import coerce_smiles_list
from molx_agent.interfaces.skills.base import BaseSkill, SkillArgs


class CheckAvailabilityArgs(SkillArgs):
    smiles_list: list[str] | str = Field(
        ..., description="SMILES list (a JSON array, a JSON array string, or a comma-separated string)"
    )
    stock: str | None = Field(
        None, description="stock spec: 'zinc', a stock file path, or a comma-separated list (default stock)"
    )

    @field_validator("smiles_list", mode="before")
    @classmethod
    def _coerce(cls, value: Any) -> list[str]:
        return coerce_smiles_list(value)


class CheckAvailabilitySkill(BaseSkill):
    name = "check_availability"
    description = (
        "Check precursor availability: real stock (ZINC in-stock Bloom filter, common reagents, user "
        "stock files) first, SA-score estimate as a labelled fallback; each answer names its source."
    )
    Args = CheckAvailabilityArgs

    def _execute(self, args: CheckAvailabilityArgs) -> dict[str, Any]:
        engine = engine_with_stock(self.engine, args.stock)
        precursors = [dict(r) for r in engine.availability(list(args.smiles_list))]
        return {
            "precursors": precursors,
            "n_total": len(precursors),
            "n_available": sum(1 for r in precursors if r.get("available")),
            "n_in_stock": sum(1 for r in precursors if r.get("in_stock")),
            "n_errors": sum(1 for r in precursors if "error" in r),
            "all_available": all(r.get("available") for r in precursors),
        }

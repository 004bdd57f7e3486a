"""Small helpers shared by the skill modules (argument coercion, reaction parsing)."""

from __future__ import annotations

import json
from typing import Any

from molx_agent.errors import ChemistryError, ValidationError


def coerce_smiles_list(value: Any) -> list[str]:
    """Accept a list of SMILES, a JSON array string, or a comma-separated string (seed 000)."""
    if isinstance(value, str):
        text = value.strip()
        if text.startswith("["):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"not a valid JSON array: {exc.msg}") from exc
        else:
            value = [part.strip() for part in text.split(",") if part.strip()]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError("expected a list of SMILES strings, a JSON array string or a comma-separated string")
    if not value:
        raise ValueError("the list is empty")
    return value


def split_reaction(reaction_smiles: str) -> tuple[list[str], list[str], list[str]]:
    """Split ``reactants>reagents>products`` into SMILES lists (atom maps kept).

    Raises ``ValidationError("invalid_reaction")`` when the text is not a reaction SMILES.
    """
    text = (reaction_smiles or "").strip()
    parts = text.split(">")
    if len(parts) != 3 or not parts[0].strip() or not parts[2].strip():
        raise ValidationError(
            "invalid_reaction",
            f"not a reaction SMILES (expected 'reactants>>product'): {reaction_smiles!r}",
            value=reaction_smiles,
            hint="write precursors and product as 'A.B>>C'",
        )
    return (
        [s for s in parts[0].split(".") if s],
        [s for s in parts[1].split(".") if s],
        [s for s in parts[2].split(".") if s],
    )


def seed_smiles_error(exc: ChemistryError) -> ChemistryError:
    """The engine's ``invalid_smiles`` error, worded as the seed documents it ("Failed to parse SMILES")."""
    if exc.code != "invalid_smiles" or exc.message.startswith("Failed to parse SMILES"):
        return exc
    return ChemistryError(
        "invalid_smiles",
        f"Failed to parse SMILES: {exc.value!r} ({exc.message})",
        exc.severity,
        value=exc.value,
        hint=exc.hint,
    )

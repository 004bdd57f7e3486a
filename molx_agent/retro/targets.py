"""One target resolver for every surface: a known name (English, synonym or Chinese) or a SMILES.

Precedence: an exact entry of the packaged name table first (``paracetamol``, ``对乙酰氨基酚``), then a SMILES RDKit
can parse.  Anything else is ``ChemistryError("unknown_target")`` with a hint.
"""

from __future__ import annotations

from molx_agent.errors import ChemistryError


def resolve_target(target: str) -> tuple[str, str]:
    """``(smiles, name)`` for a name from the packaged table or a SMILES (``name`` empty); unknown -> ChemistryError."""
    from molx_agent.retro.stock import canonical_smiles

    text = (target or "").strip() if isinstance(target, str) else ""
    if not text:
        raise ChemistryError("invalid_smiles", "empty target", value=target, hint="give a SMILES or a known name")
    try:
        from molx_agent.chem.names import lookup_name
    except ImportError:  # pragma: no cover - the names table ships with the package
        lookup_name = None  # type: ignore[assignment]
    entry = lookup_name(text) if lookup_name else None
    if entry is not None:
        return entry.smiles, entry.name
    if canonical_smiles(text) is None:
        raise ChemistryError(
            "unknown_target",
            f"{text!r} is neither a known compound name nor a valid SMILES",
            value=text,
            hint="give the target as a SMILES, e.g. molx-agent route \"CC(=O)Nc1ccc(O)cc1\"",
        )
    return text, ""


__all__ = ["resolve_target"]

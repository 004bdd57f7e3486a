"""One target resolver for every surface: a known name (English, synonym or Chinese) or a SMILES.

Precedence: an exact entry of the packaged name table first (``paracetamol``, ``对乙酰氨基酚``), then a SMILES RDKit
can parse (the SMILES rule and size limits of :mod:`molx_agent.limits` apply).  Anything else is
``ChemistryError("unknown_target")`` with a hint.
"""

from __future__ import annotations

from molx_agent.errors import ChemistryError


def resolve_target(target: str) -> tuple[str, str]:
    """``(smiles, name)`` for a name from the packaged table or a SMILES (``name`` empty); unknown -> ChemistryError.

    A SMILES follows :mod:`molx_agent.limits`: whitespace inside is ``smiles_contains_whitespace`` (never cut at the
    space), too long is ``smiles_too_long``, more heavy atoms than retrosynthesis accepts is ``molecule_too_large``.
    """
    from rdkit import Chem, rdBase

    from molx_agent.limits import check_heavy_atoms, check_smiles_text
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
    try:  # the SMILES rule: whitespace inside is an error (RDKit would silently read up to the space), length
        check_smiles_text(text, what="target SMILES")
    except ChemistryError as exc:
        if exc.code == "smiles_contains_whitespace":
            pos = next(i for i, ch in enumerate(text) if ch.isspace())
            message = (f"{_preview(text)!r} is not a known compound name, and as a SMILES it contains whitespace at "
                       f"position {pos} (a SMILES ends at the first space: the rest would be silently ignored)")
        else:
            message = f"{_preview(text)!r} is not a known compound name; as a SMILES: {exc.message}"
        raise ChemistryError(exc.code, message, value=exc.value, hint=exc.hint) from None
    with rdBase.BlockLogs():
        mol = Chem.MolFromSmiles(text)
    if mol is None or mol.GetNumAtoms() == 0:
        raise ChemistryError(
            "unknown_target",
            f"{text!r} is neither a known compound name nor a valid SMILES",
            value=text,
            hint="give the target as a SMILES, e.g. molx-agent route \"CC(=O)Nc1ccc(O)cc1\"",
        )
    check_heavy_atoms(mol, retro=True, what="target", value=text)  # before anything canonicalises it
    if canonical_smiles(text) is None:  # pragma: no cover - parsed above
        raise ChemistryError("unknown_target", f"{text!r} is not a valid SMILES", value=text)
    return text, ""


def _preview(text: str, n: int = 60) -> str:
    return text if len(text) <= n else text[:n] + "..."


__all__ = ["resolve_target"]

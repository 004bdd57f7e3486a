"""Chemistry core: pure RDKit functions and value types (no LangChain, no I/O beyond packaged data).

Stable public API (issue 3, part 9)::

    from molx_agent.chem import (analyze_molecule, validate_reaction, check_atom_balance,
                                 validate_forward, compute_cs_score, break_bond, suggest_capping)

Names are resolved lazily (module ``__getattr__``), so ``import molx_agent.chem`` is cheap and each
submodule is imported on first use.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS: dict[str, str] = {
    "analyze_molecule": "molx_agent.chem.mol_info",
    "match_known_scaffolds": "molx_agent.chem.mol_info",
    "validate_reaction": "molx_agent.chem.reaction_validation",
    "repair_reaction": "molx_agent.chem.reaction_validation",
    "check_atom_balance": "molx_agent.chem.atom_balance",
    "validate_forward": "molx_agent.chem.forward_validate",
    "compute_cs_score": "molx_agent.chem.cs_score",
    "classify_complexity": "molx_agent.chem.cs_score",
    "score_progress": "molx_agent.chem.cs_score",
    "batch_score_progress": "molx_agent.chem.cs_score",
    "check_terminal": "molx_agent.chem.cs_score",
    "detect_functional_groups": "molx_agent.chem.fg_detect",
    "detect_protecting_groups": "molx_agent.chem.fg_detect",
    "detect_reactive_sites": "molx_agent.chem.fg_detect",
    "get_fg_reaction_mapping": "molx_agent.chem.fg_detect",
    "check_fg_conflicts": "molx_agent.chem.fg_warnings",
    "check_reaction_compatibility": "molx_agent.chem.fg_warnings",
    "suggest_protection_needs": "molx_agent.chem.fg_warnings",
    "check_deprotection_safety": "molx_agent.chem.fg_warnings",
    "parse_mol": "molx_agent.chem.utils",
    "canonical": "molx_agent.chem.utils",
    "validate_smiles": "molx_agent.chem.utils",
    "smarts_match": "molx_agent.chem.utils",
    "tanimoto": "molx_agent.chem.utils",
    "mol_formula_counter": "molx_agent.chem.utils",
    "load_template": "molx_agent.chem.utils",
    "quiet_rdkit": "molx_agent.chem.utils",
    # M3 template scan, M4 bond break, M8 smart capping.
    "scan_applicable_reactions": "molx_agent.chem.template_scan",
    "find_disconnectable_bonds": "molx_agent.chem.template_scan",
    "execute_disconnection": "molx_agent.chem.bond_break",
    "execute_fgi": "molx_agent.chem.bond_break",
    "execute_operations": "molx_agent.chem.bond_break",
    "preview_disconnections": "molx_agent.chem.bond_break",
    "try_retro_template": "molx_agent.chem.bond_break",
    "resolve_template_ids": "molx_agent.chem.bond_break",
    "break_bond": "molx_agent.chem.bond_break",
    "suggest_capping": "molx_agent.chem.smart_cap",
    "custom_cap": "molx_agent.chem.smart_cap",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'molx_agent.chem' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later look-ups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))

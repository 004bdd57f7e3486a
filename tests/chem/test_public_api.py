"""The stable public API of molx_agent.chem (issue 3, part 9)."""

from __future__ import annotations

import pytest


def test_public_names_import():
    from molx_agent.chem import (  # noqa: F401
        analyze_molecule,
        break_bond,
        check_atom_balance,
        compute_cs_score,
        suggest_capping,
        validate_forward,
        validate_reaction,
    )

    assert callable(break_bond) and callable(suggest_capping)


def test_unknown_name_raises_attribute_error():
    import molx_agent.chem as chem

    with pytest.raises(AttributeError):
        chem.no_such_function  # noqa: B018
    assert "validate_reaction" in dir(chem)

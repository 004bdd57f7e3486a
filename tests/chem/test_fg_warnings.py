"""M7: FG conflicts, reaction compatibility, protection needs, deprotection safety."""

from __future__ import annotations

import pytest

from molx_agent.chem.fg_warnings import (
    CONFLICT_PAIRS,
    check_deprotection_safety,
    check_fg_conflicts,
    check_reaction_compatibility,
    suggest_protection_needs,
)
from molx_agent.errors import ChemistryError


def test_at_least_twelve_conflict_pairs():
    assert len(CONFLICT_PAIRS) >= 12


def test_amine_and_aldehyde_conflict():
    conflicts = check_fg_conflicts("NCCCc1ccc(C=O)cc1")
    assert any({c["group_a"], c["group_b"]} == {"primary_amine", "aldehyde"} for c in conflicts)
    assert check_fg_conflicts("c1ccccc1") == []


def test_grignard_compatibility_and_unknown_reaction():
    res = check_reaction_compatibility("OCCc1ccc(Br)cc1", "Grignard addition")
    assert not res["compatible"] and "primary_alcohol" in res["forbidden_groups"]
    unknown = check_reaction_compatibility("CCO", "telekinesis")
    assert unknown["compatible"] and unknown["known"] is False


def test_protection_needs_suggest_boc_for_amine():
    needs = suggest_protection_needs("NCCc1ccc(C(=O)O)cc1", "amide coupling")
    amine = next(n for n in needs if n["group"] == "primary_amine")
    assert "Boc" in amine["suggested_pg"]


def test_deprotection_safety():
    risky = check_deprotection_safety("CC(C)(C)OC(=O)NCCC(=O)OC(C)(C)C", "Boc")
    assert not risky["safe"] and risky["condition"] == "acid"
    assert any(e["name"] == "tBu_ester" for e in risky["endangered"])
    safe = check_deprotection_safety("CC(C)(C)OC(=O)NCCC(=O)OCc1ccccc1", "boc")
    assert safe["safe"] and safe["present"]
    with pytest.raises(ChemistryError) as exc:
        check_deprotection_safety("CCO", "XYZ")
    assert exc.value.code == "unknown_protecting_group"

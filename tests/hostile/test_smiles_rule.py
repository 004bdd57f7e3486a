"""One SMILES rule at every door of the Python API: whitespace inside is an error, never a silent cut.

RDKit reads a SMILES up to the first space, so ``"CC O"`` used to become ethane and ``"c1ccccc1 CCN"`` benzene.
Every door (``chem.parse_mol``, properties, reaction parsing, the skills, the one target resolver, the single-step
model, the session and the pipeline) must refuse such input with ``smiles_contains_whitespace``, and on any text at
all either answer or raise a ``RetroError`` -- nothing else.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from molx_agent.chem import analyze_molecule
from molx_agent.chem.properties import compute_properties
from molx_agent.chem.reaction_validation import parse_reaction
from molx_agent.chem.utils import parse_mol
from molx_agent.errors import RetroError
from molx_agent.interfaces.pipeline.service import plan_session
from molx_agent.interfaces.session import RetroCmd
from molx_agent.interfaces.skills import run_skill
from molx_agent.interfaces.skills.base import canonical_or_raise
from molx_agent.limits import check_smiles_text
from molx_agent.retro.single_step import parse_product
from molx_agent.retro.targets import resolve_target
from tests.hostile.conftest import FEW, HOSTILE, smiles_like, smiles_with_space

DOORS = {
    "parse_mol": parse_mol,
    "compute_properties": compute_properties,
    "canonical_or_raise (skills)": canonical_or_raise,
    "resolve_target (route, pipeline, session, MCP)": resolve_target,
    "parse_product (single-step model)": parse_product,
    "parse_reaction": lambda s: parse_reaction(f"{s}>>CCO"),
}


def _inner_whitespace(text: str) -> bool:
    return any(ch.isspace() for ch in text.strip())


@pytest.mark.parametrize("door", sorted(DOORS))
@HOSTILE
@given(text=smiles_like)
def test_every_door_answers_or_raises_a_retro_error(door, text):
    try:
        DOORS[door](text)
    except RetroError as exc:
        if _inner_whitespace(text) and door != "parse_reaction":
            assert exc.code in ("smiles_contains_whitespace", "invalid_smiles"), (text, exc.code)
        return
    assert not _inner_whitespace(text), f"{door} accepted {text!r}: whitespace inside must be refused"


@pytest.mark.parametrize("door", sorted(DOORS))
@HOSTILE
@given(text=smiles_with_space)
def test_two_molecules_joined_by_whitespace_are_refused_not_cut(door, text):
    with pytest.raises(RetroError) as exc:
        DOORS[door](text)
    assert exc.value.code == "smiles_contains_whitespace", (text, exc.value)


@FEW
@given(text=smiles_with_space)
def test_skills_session_and_pipeline_refuse_whitespace(tmp_path_factory, text):
    result = run_skill("analyze_molecule", {"smiles": text})
    assert not result.success and result.error_code == "smiles_contains_whitespace"
    result = run_skill("validate_reaction", {"reaction_smiles": f"{text}>>CCO"})
    assert not result.success and result.error_code == "smiles_contains_whitespace"
    result = run_skill("check_availability", {"smiles_list": ["CCO", text]})
    assert not result.success and "whitespace" in result.error
    work = tmp_path_factory.mktemp("doors")
    with pytest.raises(RetroError) as exc:
        RetroCmd(work / "s.json").execute("init", {"target": text})
    assert exc.value.code == "smiles_contains_whitespace" and not (work / "s.json").exists()
    with pytest.raises(RetroError) as exc:
        plan_session(text, work / "pipeline")
    assert exc.value.code == "smiles_contains_whitespace"


def test_analysis_of_the_issue_examples_is_refused():
    for text in ("CC O", "c1ccccc1 CCN", "CCO\nCCN"):
        with pytest.raises(RetroError) as exc:
            analyze_molecule(text)
        assert exc.value.code == "smiles_contains_whitespace"


def test_surrounding_whitespace_is_harmless():
    assert check_smiles_text("  CCO\n") == "CCO"
    assert parse_mol("\tc1ccccc1 ").GetNumAtoms() == 6
    assert resolve_target(" CCO ")[0].strip() == "CCO"


@given(n=st.integers(min_value=151, max_value=400))
@FEW
def test_retrosynthesis_refuses_molecules_over_the_heavy_atom_limit(tmp_path_factory, n):
    chain = "C" * n
    for door in (parse_product, resolve_target):
        with pytest.raises(RetroError) as exc:
            door(chain)
        assert exc.value.code == "molecule_too_large" and f"{n:,} heavy atoms" in exc.value.message
    assert parse_mol(chain).GetNumHeavyAtoms() == n  # analysis accepts it (its limit is higher)
    with pytest.raises(RetroError) as exc:
        RetroCmd(tmp_path_factory.mktemp("big") / "s.json").execute("init", {"target": chain})
    assert exc.value.code == "molecule_too_large"
    result = run_skill("propose_disconnection", {"target_smiles": chain})
    assert not result.success and result.error_code == "molecule_too_large"


def test_huge_inputs_are_refused_before_rdkit_works_on_them():
    # a 20,000-atom chain crashes RDKit's canonicalisation (stack overflow): it must never reach it
    for text, code in (("C" * 9_000, "molecule_too_large"), ("C" * 20_001, "smiles_too_long"),
                       ("C" * 2_000_000, "smiles_too_long")):
        for door in (parse_mol, compute_properties, canonical_or_raise, resolve_target):
            with pytest.raises(RetroError) as exc:
                door(text)
            assert exc.value.code == code, (door, exc.value.code)
            assert len(str(exc.value)) < 400  # the message quotes a preview, not the whole input


def test_capped_functional_group_counts_say_so(monkeypatch):
    import molx_agent.chem.fg_detect as fg

    monkeypatch.setattr(fg, "MAX_GROUP_MATCHES", 5)
    groups = {g["name"]: g for g in fg.detect_functional_groups("CC(=O)N" * 8 + "C")}
    capped = [g for g in groups.values() if g.get("count_capped")]
    assert capped and all(g["count"] == 5 for g in capped)
    assert not any(g.get("count_capped") for g in fg.detect_functional_groups("CC(=O)NC"))

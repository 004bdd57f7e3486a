"""The Python API on hostile input: every skill, the agent, the interactive session and the MCP tools answer or
raise a clear ``RetroError`` -- never another exception, never a crash record, never a silent cut.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from molx_agent.errors import RetroError
from molx_agent.interfaces.session import COMMANDS, RetroCmd
from molx_agent.interfaces.skills import SKILL_REGISTRY, run_skill
from tests.hostile.child_writer import toy_engine
from tests.hostile.conftest import (
    FEW,
    HOSTILE,
    PARACETAMOL,
    VALID_SMILES,
    json_values,
    smiles_like,
    smiles_with_space,
)

#: values for any argument of any skill: hostile SMILES, JSON values, numbers out of range
any_argument = (st.sampled_from(VALID_SMILES) | smiles_like | smiles_with_space | json_values
                | st.integers(-10**9, 10**9) | st.lists(st.sampled_from(VALID_SMILES) | smiles_like, max_size=3))


def skill_arguments(name: str) -> st.SearchStrategy[dict]:
    """The skill's required arguments (usually), some optional ones and now and then an unexpected one."""
    fields = SKILL_REGISTRY[name].Args.model_fields
    required = sorted(k for k, f in fields.items() if f.is_required())
    optional = sorted(k for k, f in fields.items() if not f.is_required())
    return st.fixed_dictionaries({k: any_argument for k in required},
                                 optional={**{k: any_argument for k in optional}, "unexpected": any_argument})


@pytest.mark.parametrize("name", sorted(set(SKILL_REGISTRY) - {"render_report", "map_atoms"}))
@FEW
@given(data=st.data())
def test_every_skill_on_hostile_arguments(name, data, tmp_path_factory, monkeypatch):
    monkeypatch.chdir(tmp_path_factory.mktemp("skill"))
    args = data.draw(skill_arguments(name))
    result = run_skill(name, args)
    assert result.success or result.error, result
    assert result.error_code != "skill_crashed", result.error  # a crash is a bug, not an answer
    for value in args.values():
        if isinstance(value, str) and any(ch.isspace() for ch in value.strip()) and result.success:
            # a whitespace-containing string may only succeed where it is not a SMILES (a strategy hint, a stock...)
            assert name in ("propose_disconnection", "get_global_strategy", "check_availability", "validate_reaction",
                            "repair_reaction"), (name, args)


@FEW
@given(value=json_values | smiles_like)
def test_render_report_and_map_atoms_on_hostile_arguments(value, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    for name, args in (("render_report", {"retro_graph": value, "output_dir": str(out)}),
                       ("map_atoms", {"reaction_smiles": value, "mapper": "template"})):
        result = run_skill(name, args)
        assert result.success or (result.error and result.error_code != "skill_crashed"), (name, result)


@HOSTILE
@given(query=st.one_of(st.text(max_size=200), smiles_like, st.integers(), st.none(), st.lists(st.text(max_size=5))))
def test_agent_invoke_on_any_query(query):
    agent = _agent()
    try:
        state = agent.invoke(query)
    except RetroError as exc:
        if not isinstance(query, str):
            assert exc.code == "invalid_query" and "must be a string" in exc.message
        else:
            assert exc.code in ("empty_query", "query_too_long")
        return
    assert isinstance(query, str) and query.strip()
    assert isinstance(state.get("final_answer"), str)


_AGENT = None


def _agent():
    global _AGENT
    if _AGENT is None:
        from molx_agent.agents.molx import MolxAgent

        _AGENT = MolxAgent(llm=None)
    return _AGENT


def test_invoke_of_a_number_names_the_type():
    with pytest.raises(RetroError) as exc:
        _agent().invoke(123)
    assert exc.value.code == "invalid_query" and "not int" in exc.value.message


@FEW
@given(command=st.sampled_from([*sorted(COMMANDS), "frobnicate", "", " next "]),
       args=st.dictionaries(st.text(max_size=10), any_argument, max_size=3) | st.none())
def test_session_commands_on_hostile_arguments(tmp_path_factory, command, args):
    path = tmp_path_factory.mktemp("s") / "s.json"
    cmd = RetroCmd(path, engine=toy_engine())
    cmd.execute("init", {"target": PARACETAMOL})
    cmd.execute("next")
    before = path.read_bytes()
    try:
        result = cmd.execute(command, args)
    except RetroError:
        assert path.read_bytes() == before  # a refused command never rewrites the session
        return
    assert isinstance(result, dict)


@FEW
@given(target=smiles_like | smiles_with_space | st.sampled_from(["", "C" * 200, "aspirin", "not a molecule"]))
def test_mcp_search_tool_on_hostile_targets(target):
    from molx_agent.mcp_server import run_search

    out = run_search(toy_engine(), target, time_limit=2, max_expansions=20)
    assert out["success"] or out["error"], out
    assert out.get("error_code") != "search_failed", out["error"]  # an internal failure, not a clear refusal
    if isinstance(target, str) and any(ch.isspace() for ch in target.strip()) and target.strip() not in ("not a molecule",):
        assert not out["success"]

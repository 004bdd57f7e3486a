"""Skill registry, SkillResult and the skills backed by the retro engine (stock, model, report)."""

from __future__ import annotations

import json

import pytest

from molx_agent.interfaces.skills import SKILL_REGISTRY, SkillResult, get_skill, list_skills, run_skill
from molx_agent.interfaces.skills.map_atoms import rxnmapper_available

SEED_SKILLS = {
    "analyze_molecule": "AnalyzeMoleculeSkill",
    "analyze_scaffold": "AnalyzeScaffoldSkill",
    "analyze_selectivity": "AnalyzeSelectivitySkill",
    "break_bond": "BreakBondSkill",
    "check_availability": "CheckAvailabilitySkill",
    "decide_strategy": "DecideStrategySkill",
    "get_global_strategy": "GetGlobalStrategySkill",
    "map_atoms": "MapAtomsSkill",
    "plan_ring_strategy": "PlanRingStrategySkill",
    "propose_disconnection": "ProposeDisconnectionSkill",
    "render_report": "RenderReportSkill",
    "repair_reaction": "RepairReactionSkill",
    "validate_reaction": "ValidateReactionSkill",
}


def test_registry_has_the_seed_names_and_classes():
    assert {name: cls.__name__ for name, cls in SKILL_REGISTRY.items()} == SEED_SKILLS
    for name, cls in SKILL_REGISTRY.items():
        assert cls.__module__ == f"molx_agent.interfaces.skills.{name}"
        assert cls.description


def test_list_skills_publishes_parameters():
    info = {s["name"]: s for s in list_skills()}
    assert info["break_bond"]["required"] == ["smiles", "atom1_idx", "atom2_idx"]
    assert info["get_global_strategy"]["required"] == ["target_smiles"]
    assert info["get_global_strategy"]["parameters"]["max_pg_operations"]["default"] == 2
    assert info["get_global_strategy"]["parameters"]["max_steps"]["default"] == 10
    assert info["propose_disconnection"]["parameters"]["max_proposals"]["default"] == 5
    assert info["render_report"]["parameters"]["output_dir"]["default"] == "outputs/report"


def test_skill_result_shape():
    ok = SkillResult.ok({"a": 1}).to_dict()
    assert ok == {"success": True, "data": {"a": 1}, "error": ""}
    assert json.loads(json.dumps(ok)) == ok


def test_unknown_skill_suggests_a_name():
    res = run_skill("analyse_molecule", {"smiles": "CCO"})
    assert not res.success and res.error_code == "unknown_skill"
    assert "analyze_molecule" in res.error
    from molx_agent.errors import SkillError

    with pytest.raises(SkillError) as err:
        get_skill("nope")
    assert err.value.code == "unknown_skill"


@pytest.mark.parametrize(
    ("name", "args", "needle"),
    [
        ("break_bond", {"smiles": "CCO"}, "atom1_idx"),
        ("break_bond", {"smiles": "CCO", "atom1_idx": -1, "atom2_idx": 1}, "atom1_idx"),
        ("analyze_molecule", {"smile": "CCO"}, "unexpected argument"),
        ("check_availability", {"smiles_list": []}, "empty"),
        ("repair_reaction", {"reaction_smiles": "CCO>>CC=O"}, "issues"),
    ],
)
def test_invalid_arguments_fail_cleanly(name, args, needle):
    res = run_skill(name, args)
    assert not res.success
    assert res.error_code == "invalid_args"
    assert needle in res.error


def test_arguments_must_be_an_object():
    res = get_skill("analyze_molecule").run(["CCO"])  # type: ignore[arg-type]
    assert not res.success and res.error_code == "invalid_args"


def test_check_availability_names_the_source_and_keeps_bad_items(paracetamol):
    res = run_skill("check_availability", {"smiles_list": f'["CCO", "not_a_smiles", "{paracetamol}"]'})
    assert res.success
    recs = res.data["precursors"]
    assert [r["smiles"] for r in recs] == ["CCO", "not_a_smiles", paracetamol]
    assert recs[0]["available"] and recs[0]["source"] and recs[0]["source"] != "sa_estimate"
    assert recs[1]["available"] is False and recs[1]["error"]["code"] == "invalid_smiles"
    assert res.data["n_errors"] == 1 and res.data["n_total"] == 3


def test_check_availability_comma_separated_and_estimate_label():
    # a made-up, complex molecule: no stock has it, so the SA estimate decides and says so
    odd = "CC1(C)C2CCC1(C)C(C2)OC(=O)C1=CC=C(N3CCN(CC3)C3=NC=CC=N3)C=C1"
    res = run_skill("check_availability", {"smiles_list": f"CCO,{odd}"})
    assert res.success
    rec = res.data["precursors"][1]
    assert rec["in_stock"] is False and rec["source"] == "sa_estimate" and rec["estimated"] is True


def test_propose_disconnection_uses_the_single_step_model(paracetamol):
    res = run_skill("propose_disconnection", {"target_smiles": paracetamol, "max_proposals": 3})
    assert res.success, res.error
    props = res.data["proposals"]
    assert 1 <= len(props) <= 3
    assert [p["rank"] for p in props] == list(range(1, len(props) + 1))
    top_sets = [set(p["precursors"]) for p in props]
    assert any("Nc1ccc(O)cc1" in s for s in top_sets)  # the N-acylation of 4-aminophenol
    for p in props:
        assert p["reaction_smiles"].endswith(">>CC(=O)Nc1ccc(O)cc1")
        assert p["template_id"]


def test_propose_disconnection_filters_by_reaction_name(paracetamol):
    res = run_skill("propose_disconnection", {"target_smiles": paracetamol, "strategy_hint": "amide"})
    assert res.success
    assert res.data["proposals"]
    assert all("amide" in (p["reaction_name"] + p["category"]).lower() for p in res.data["proposals"])


def test_propose_disconnection_bad_smiles():
    res = run_skill("propose_disconnection", {"target_smiles": "C1CC"})
    assert not res.success and res.error_code == "invalid_smiles"


def test_map_atoms_with_own_templates(paracetamol):
    prop = run_skill("propose_disconnection", {"target_smiles": paracetamol}).data["proposals"][0]
    res = run_skill("map_atoms", {"reaction_smiles": prop["reaction_smiles"], "mapper": "template"})
    assert res.success, res.error
    mapped = res.data["mapped_reaction_smiles"]
    assert ":1]" in mapped and res.data["mapper"] == "template"
    assert res.data["template_id"] == prop["template_id"]


@pytest.mark.skipif(rxnmapper_available(), reason="RXNMapper installed: every reaction can be mapped")
def test_map_atoms_unknown_reaction_without_rxnmapper_is_a_clear_error():
    # no template makes paracetamol from dichloromethane
    res = run_skill("map_atoms", {"reaction_smiles": "ClCCl>>CC(=O)Nc1ccc(O)cc1"})
    assert not res.success and res.error_code == "mapping_unavailable"
    assert "mapping" in res.error  # tells how to install the extra
    res = run_skill("map_atoms", {"reaction_smiles": "CCO>>CC=O", "mapper": "rxnmapper"})
    assert not res.success and res.error_code == "mapping_unavailable"


def test_map_atoms_rejects_non_reactions():
    res = run_skill("map_atoms", {"reaction_smiles": "CCO"})
    assert not res.success and res.error_code == "invalid_reaction"


def test_render_report_writes_html_md_json(tmp_path, paracetamol):
    from molx_agent.retro.route import RetroGraph

    graph = RetroGraph.new(paracetamol, "paracetamol")
    rxn = graph.add_reaction(graph.target_id, ["CC(=O)Cl", "Nc1ccc(O)cc1"], reaction_type="N-acylation")
    for nid in rxn.reactant_nodes:
        graph.molecule_nodes[nid].role = "terminal"
        graph.molecule_nodes[nid].availability = {"available": True, "source": "common-reagents"}
    res = run_skill("render_report", {"retro_graph": graph.to_dict(), "output_dir": str(tmp_path / "rep")})
    assert res.success, res.error
    paths = res.data["report_paths"]
    for key in ("html", "md", "json"):
        assert (tmp_path / "rep").joinpath(paths[key].split("/")[-1]).is_file()
    html = open(paths["html"], encoding="utf-8").read()
    assert "data:image/png;base64" in html and "http://" not in html.replace("http://www.w3.org", "")
    assert res.data["complete"] is True and res.data["n_steps"] == 1


def test_render_report_rejects_a_non_graph(tmp_path):
    res = run_skill("render_report", {"retro_graph": {"nodes": []}, "output_dir": str(tmp_path)})
    assert not res.success and res.error_code == "invalid_retro_graph"


def test_skills_as_langchain_tools():
    from molx_agent.tools.skill_tools import get_skill_tools

    tools = get_skill_tools()
    assert sorted(t.name for t in tools) == sorted(SEED_SKILLS)
    tool = {t.name: t for t in tools}["check_availability"]
    out = json.loads(tool.invoke({"smiles_list": ["CCO"]}))
    assert out["success"] is True and out["data"]["precursors"][0]["smiles"] == "CCO"


def test_skills_join_the_agents_tool_registry():
    from molx_agent.agents.modules.tools import get_registry

    names = get_registry().get_tool_names()
    assert set(SEED_SKILLS) <= set(names)


def test_map_atoms_prefers_rxnmapper_when_installed(monkeypatch):
    """With the optional extra installed, map_atoms hands any reaction to RXNMapper (stand-in module here)."""
    import sys
    import types

    from molx_agent.interfaces.skills import map_atoms

    calls = []

    class FakeRXNMapper:
        def get_attention_guided_atom_maps(self, reactions):
            calls.append(reactions)
            return [{"mapped_rxn": "[CH3:1][OH:2]>>[CH2:1]=[O:2]", "confidence": 0.97}]

    monkeypatch.setitem(sys.modules, "rxnmapper", types.SimpleNamespace(RXNMapper=FakeRXNMapper))
    monkeypatch.setattr(map_atoms, "rxnmapper_available", lambda: True)
    res = run_skill("map_atoms", {"reaction_smiles": "CO>>C=O"})
    assert res.success and res.data["mapper"] == "rxnmapper" and res.data["confidence"] == 0.97
    assert calls == [["CO>>C=O"]]
    res = run_skill("map_atoms", {"reaction_smiles": "CC(=O)Cl.Nc1ccc(O)cc1>>CC(=O)Nc1ccc(O)cc1", "mapper": "template"})
    assert res.data["mapper"] == "template"  # an explicit mapper choice is honoured

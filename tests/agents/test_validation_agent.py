"""ValidationAgent on hand-built states, and the reaction_validation query end to end."""

from __future__ import annotations

from molx_agent.agents.validation import ValidationAgent
from molx_agent.retro.route import RetroGraph

PARACETAMOL_RXN = "CC(=O)Cl.Nc1ccc(O)cc1>>CC(=O)Nc1ccc(O)cc1"


def _state(inputs, language="en", results=None, depends_on=()):
    return {
        "language": language,
        "current_task_id": "t2",
        "tasks": {"t2": {"id": "t2", "type": "validation", "inputs": inputs, "depends_on": list(depends_on),
                         "status": "pending"}},
        "results": dict(results or {}),
        "errors": [],
    }


def test_single_reaction_en():
    out = ValidationAgent().run(_state({"reaction_smiles": [PARACETAMOL_RXN]}))
    res = out["results"]["t2"]
    assert out["tasks"]["t2"]["status"] == "done"
    assert res["is_valid"] and res["atom_balance"]["balanced"]
    assert "valid" in res["summary"] and "HCl" in res["summary"] and "C8H10ClNO2" in res["summary"]


def test_single_reaction_zh_and_invalid():
    res = ValidationAgent().run(_state({"reaction_smiles": ["c1ccccc1O>>Cc1ccccc1O"]}, "zh"))["results"]["t2"]
    assert not res["is_valid"]
    assert "无效" in res["summary"] and "skeleton_imbalance" in res["summary"]


def test_several_reactions_keep_bad_ones_as_records():
    out = ValidationAgent().run(_state({"reaction_smiles": [PARACETAMOL_RXN, "CC(C>>CC"]}))
    res = out["results"]["t2"]
    assert len(res["reactions"]) == 2 and res["n_valid"] == 1 and res["all_valid"] is False
    assert res["reactions"][1]["error"]["code"] == "invalid_smiles"


def test_bad_single_reaction_fails_the_task():
    out = ValidationAgent().run(_state({"reaction_smiles": ["not a reaction"]}))
    assert out["tasks"]["t2"]["status"] == "failed"
    assert out["errors"][-1]["code"] == "invalid_reaction"


def test_route_dependency_validates_each_step(toy_engine):
    graph = RetroGraph.new("CC(=O)Nc1ccc(O)cc1")
    graph.add_reaction(graph.target_id, ["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], reaction_type="amide_coupling", score=0.6)
    for leaf in graph.leaves():
        leaf.role, leaf.availability = "terminal", {"available": True, "source": "toy_stock.smi", "tier": "verified"}
    dep = {"route_graph": graph.to_dict(), "summary": "route"}
    out = ValidationAgent(engine=toy_engine).run(_state({}, results={"t1": dep}, depends_on=["t1"]))
    res = out["results"]["t2"]
    assert res["all_valid"] and res["n_steps"] == 1 and res["steps"][0]["is_valid"]
    assert res["verdict"] == "accept" and res["targets"][0]["confidence"] == "high"
    assert "1 route(s) judged (1 acceptable)" in res["summary"]


def _paracetamol_routes() -> list[dict]:
    """Two routes to paracetamol from verified leaves: an implausible one (score 1e-5) first, then a sound one."""
    graphs = []
    for precursors, score in ((["Nc1ccc(O)cc1"], 1e-5), (["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], 0.6)):
        graph = RetroGraph.new("CC(=O)Nc1ccc(O)cc1")
        graph.add_reaction(graph.target_id, precursors, reaction_type="acylation", score=score)
        for leaf in graph.leaves():
            leaf.role, leaf.availability = "terminal", {"available": True, "source": "toy", "tier": "verified"}
        graphs.append(graph.to_dict())
    return graphs


def test_every_route_of_every_target_is_judged_with_reasons(toy_engine):
    search = {"targets": [
        {"target_smiles": "CC(=O)Nc1ccc(O)cc1", "target_name": "paracetamol", "solved": True,
         "route_graphs": _paracetamol_routes(), "searches": []},
        {"target_smiles": "CCO", "target_name": "ethanol", "solved": False, "route_graph": None,
         "reasons": ["no template applies"], "route_graphs": [], "searches": []}]}
    res = ValidationAgent(engine=toy_engine).run(
        _state({}, results={"t1": search}, depends_on=["t1"]))["results"]["t2"]
    para, eth = res["targets"]
    assert [r["verdict"] for r in para["routes"]] == ["reject", "accept"] and para["best_route"] == 1
    assert para["verdict"] == "accept"
    assert eth["verdict"] == "reject" and eth["issues"][0]["code"] == "not_solved"
    assert res["verdict"] == "weak" and any(i["code"] == "not_solved" and i["target"] == "CCO" for i in res["issues"])
    assert "no template applies" in res["summary"]


def test_chinese_route_judgement_says_each_target_has_an_acceptable_route_not_every_route(toy_engine):
    # one of two routes acceptable: the head must not read "all acceptable" (全部可接受) before "1 of 2 acceptable"
    search = {"targets": [{"target_smiles": "CC(=O)Nc1ccc(O)cc1", "target_name": "对乙酰氨基酚", "solved": True,
                           "route_graphs": _paracetamol_routes(), "searches": []}]}
    res = ValidationAgent(engine=toy_engine).run(
        _state({}, "zh", results={"t1": search}, depends_on=["t1"]))["results"]["t2"]
    assert res["verdict"] == "accept"
    assert res["summary"].startswith("路线评估：每个目标都有可接受的路线。"), res["summary"]
    assert "全部可接受" not in res["summary"]


def test_route_steps_are_judged_with_the_templates_atom_map_as_the_search_judged_them():
    # a piperazinone ring closure (intramolecular N-alkylation): the unmapped alignment misreads it
    precursor, product = "CN(CCCl)C(=O)CNC1CNC1", "CN1CCN(C2CNC2)CC1=O"
    mapped = ("[CH3:1][N:2]([CH2:3][CH2:4][Cl:13])[C:11](=[O:12])[CH2:10][NH:5][CH:6]1[CH2:7][NH:8][CH2:9]1"
              ">>[CH3:1][N:2]1[CH2:3][CH2:4][N:5]([CH:6]2[CH2:7][NH:8][CH2:9]2)[CH2:10][C:11]1=[O:12]")

    def run(mapped_reaction):
        graph = RetroGraph.new(product)
        graph.add_reaction(graph.target_id, [precursor], reaction_type="alkylation", mapped_reaction=mapped_reaction)
        out = ValidationAgent().run(_state({}, results={"t1": {"route_graph": graph.to_dict()}}, depends_on=["t1"]))
        return out["results"]["t2"]["steps"][0]

    with_map = run(mapped)
    assert with_map["is_valid"] and with_map["atom_map_source"] == "template"
    assert with_map["reaction_smiles"] == f"{precursor}>>{product}"
    without = run("")
    assert not without["is_valid"] and without["atom_map_source"] == "alignment"
    assert "bond_topology_violation" in without["hard_fail_reasons"]
    # a map of another reaction is ignored
    stale = run("[CH3:1][OH:2]>>[CH3:1][OH:2]")
    assert not stale["is_valid"] and stale["atom_map_source"] == "alignment"


def test_nothing_to_validate_fails_clearly():
    out = ValidationAgent().run(_state({"query": "hello"}))
    assert out["tasks"]["t2"]["status"] == "failed" and out["errors"][-1]["code"] == "no_reaction"


def test_cli_run_answers_with_verdict_and_balance():
    from typer.testing import CliRunner

    from molx_agent.cli.main import app

    result = CliRunner().invoke(app, ["run", "--query", f"Is {PARACETAMOL_RXN} balanced?"])
    assert result.exit_code == 0, result.output
    assert "atom-balanced" in result.output and "HCl" in result.output


def test_best_route_prefers_the_one_without_an_implausible_mechanism_step(monkeypatch):
    # two weak routes of medium confidence (sildenafil through the agent): the cheaper one has a step no chemist
    # would run (tier 1), the other only a low-scored step; the search ranks the latter first, so does the judgement
    from molx_agent.agents import validation

    judged = [
        {"verdict": "weak", "confidence": "medium", "score": 10.0, "n_steps": 6, "steps": [],
         "issues": [{"code": "unactivated_carbanion", "message": "mechanism"}]},
        {"verdict": "weak", "confidence": "medium", "score": 12.0, "n_steps": 7, "steps": [],
         "issues": [{"code": "low_score_step", "message": "low"}]},
    ]
    monkeypatch.setattr(validation, "judge_route_dict", lambda engine, graph: dict(judged[graph["i"]]))
    record = {"target_smiles": "CCO", "target_name": "t", "solved": True, "route_graphs": [{"i": 0}, {"i": 1}]}
    out = validation.judge_target(None, record, "en")
    assert out["best_route"] == 1 and [i["code"] for i in out["issues"]] == ["low_score_step"]
    # with the tiers equal, the lower score still decides
    judged[1]["issues"] = [{"code": "unactivated_carbanion", "message": "mechanism"}]
    assert validation.judge_target(None, record, "en")["best_route"] == 0


def test_a_route_kept_from_an_earlier_attempt_with_a_step_the_replan_avoids_is_not_the_best(monkeypatch):
    # citalopram through the agent: attempt 1's route cyanates with N-methylpyrrolidone (stripped_amine); the re-plan
    # excluded that step and attempt 2 found other weak routes, yet the kept attempt-1 route (lower score) was chosen
    from molx_agent.agents import validation

    avoided = "CN(C)CCCC1(c2ccc(F)cc2)OCc2cc(Cl)ccc21.CN1CCCC1=O>>CN(C)CCCC1(c2ccc(F)cc2)OCc2cc(C#N)ccc21"
    judged = [
        {"verdict": "weak", "confidence": "medium", "score": 14.0, "n_steps": 4, "issues": [
            {"code": "stripped_amine", "message": "mechanism"}], "steps": [{"reaction_smiles": "CC>>CCC"}]},
        {"verdict": "weak", "confidence": "medium", "score": 9.0, "n_steps": 3, "issues": [
            {"code": "stripped_amine", "message": "mechanism"}],
         # the same step written in another reactant order and SMILES
         "steps": [{"reaction_smiles": "O=C1CCCN1C.CN(C)CCCC1(OCc2cc(Cl)ccc12)c1ccc(F)cc1>>"
                                       "CN(C)CCCC1(c2ccc(F)cc2)OCc2cc(C#N)ccc21"}]},
    ]
    monkeypatch.setattr(validation, "judge_route_dict", lambda engine, graph: dict(judged[graph["i"]]))
    record = {"target_smiles": "CCO", "target_name": "t", "solved": True, "route_graphs": [{"i": 0}, {"i": 1}],
              "searches": [{"attempt": 1}, {"attempt": 2, "exclude_steps": [avoided]}]}
    out = validation.judge_target(None, record, "en")
    assert out["best_route"] == 0
    assert [r["keeps_avoided_step"] for r in out["routes"]] == [False, True]
    # with no re-plan to avoid it, the lower score decides as before
    record["searches"] = [{"attempt": 1}]
    out = validation.judge_target(None, record, "en")
    assert out["best_route"] == 1 and "keeps_avoided_step" not in out["routes"][1]
    # when every route keeps an avoided step, the best of them is still the answer
    record["searches"] = [{"attempt": 2, "exclude_steps": [avoided, "CC>>CCC"]}]
    assert validation.judge_target(None, record, "en")["best_route"] == 1


def test_a_chinese_route_judgement_names_its_verdict_and_issues_in_chinese(toy_engine):
    graph = RetroGraph.new("CC(=O)Nc1ccc(O)cc1")
    graph.add_reaction(graph.target_id, ["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], reaction_type="acylation", score=0.6)
    for leaf in graph.leaves():  # both starting materials known from the Bloom filter only
        leaf.role, leaf.availability = "terminal", {"available": True, "source": "zinc", "tier": "probable"}
    search = {"targets": [{"target_smiles": "CC(=O)Nc1ccc(O)cc1", "target_name": "对乙酰氨基酚", "solved": True,
                           "route_graphs": [graph.to_dict()], "searches": []}]}
    res = ValidationAgent(engine=toy_engine).run(
        _state({}, "zh", results={"t1": search}, depends_on=["t1"]))["results"]["t2"]
    assert res["verdict"] == "weak" and res["targets"][0]["confidence"] == "medium"
    summary = res["targets"][0]["summary"]
    assert "判定较弱（置信度 中）" in summary and "ZINC Bloom 过滤器" in summary
    assert "confirm with a supplier" not in summary  # the English message stays in the issue record


def test_issue_summaries_fall_back_to_the_message():
    from molx_agent.agents.validation import issue_summary

    issue = {"code": "probable_leaf", "message": "starting material found only in the ZINC Bloom filter"}
    assert issue_summary(issue, "en") == issue["message"]
    assert issue_summary(issue, "zh").startswith("起始原料仅在 ZINC")
    assert issue_summary({"code": "fg_conflict", "message": "x"}, "zh").startswith("有步骤中的官能团")
    assert issue_summary({"code": "something_new", "message": "plain"}, "zh") == "plain"


def test_a_best_judged_route_that_is_not_the_searchs_first_is_named_with_its_steps(monkeypatch):
    # atenolol through the agent (verified-only re-plan): the search's first route, which its summary describes,
    # carries a selectivity warning while the judgement's best is another route; the answer must say which one and
    # give its steps, not describe one route as the best and judge another best
    from molx_agent.agents import validation

    judged = [
        {"verdict": "weak", "confidence": "medium", "score": 7.99, "n_steps": 3, "issues": [
            {"code": "incompatible_group", "message": "the amine reacts"}],
         "steps": [{"reaction_smiles": "CC(C)N.ClCC1CO1>>CC(C)NCC(O)CCl", "reaction_type": "Epoxide Opening"}]},
        {"verdict": "accept", "confidence": "high", "score": 8.58, "n_steps": 2, "issues": [],
         "steps": [{"reaction_smiles": "ClCC1CO1.NC(=O)Cc1ccc(O)cc1>>NC(=O)Cc1ccc(OCC2CO2)cc1",
                    "reaction_type": "Williamson Ether Synthesis"},
                   {"reaction_smiles": "CC(C)N.NC(=O)Cc1ccc(OCC2CO2)cc1>>CC(C)NCC(O)COc1ccc(CC(N)=O)cc1",
                    "reaction_type": "Epoxide Opening with Amine"}]},
    ]
    monkeypatch.setattr(validation, "judge_route_dict", lambda engine, graph: dict(judged[graph["i"]]))
    record = {"target_smiles": "CC(C)NCC(O)COc1ccc(CC(N)=O)cc1", "target_name": "atenolol", "solved": True,
              "route_graphs": [{"i": 0}, {"i": 1}]}
    out = validation.judge_target(None, record, "en")
    assert out["best_route"] == 1
    assert "route 1 of the search's list, not its first" in out["summary"]
    assert "route 0, the one described above: verdict weak, confidence medium: the amine reacts" in out["summary"]
    assert ("(1) Williamson Ether Synthesis: ClCC1CO1 + NC(=O)Cc1ccc(O)cc1 -> NC(=O)Cc1ccc(OCC2CO2)cc1; "
            "(2) Epoxide Opening with Amine:") in out["summary"]
    zh = validation.judge_target(None, dict(record, target_name="阿替洛尔"), "zh")["summary"]
    # routes are named by their number in the search's list, as the route-choice question numbers its options
    assert "评估最佳的是搜索结果中的路线 1（路线按搜索排序从 0 编号），而非排序第一的路线 0" in zh \
        and "路线 1 的正向步骤：(1) Williamson 醚合成: " in zh and "第 0 条" not in zh
    # the search's first route judged best: no note
    judged[0], judged[1] = judged[1], judged[0]
    out = validation.judge_target(None, record, "en")
    assert out["best_route"] == 0 and "search's list" not in out["summary"]

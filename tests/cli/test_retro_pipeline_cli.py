"""``molx-agent retro plan|run|decide|explore|compare|finalize|status`` end to end on the real engine.

Aspirin and paracetamol: every decision type by hand, invalid instructions, the exploration budget,
the repair retries and the hard gate; paracetamol also decomposes a precursor (a two-step route).
Paracetamol: --auto, several routes, compare, finalize, and the task limit (MAX_TOTAL_TASKS).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from molx_agent.cli.main import app
from molx_agent.cli.retro import (
    run_retro_compare,
    run_retro_decide,
    run_retro_explore,
    run_retro_finalize,
    run_retro_plan,
    run_retro_run,
    run_retro_status,
)

runner = CliRunner()


def cli(*args: str, code: int = 0) -> dict:
    res = runner.invoke(app, list(args))
    assert res.exit_code == code, f"exit {res.exit_code}: {res.output}"
    assert "Traceback" not in res.output
    return (
        json.loads(res.stdout) if code == 0 or res.stdout.strip().startswith("{") else {"stderr": res.stderr}
    )


def cli_error(*args: str, code: int = 2) -> str:
    res = runner.invoke(app, list(args))
    assert res.exit_code == code, f"exit {res.exit_code}: {res.output}"
    assert "Traceback" not in res.output and res.stderr.startswith("Error:")
    return res.stderr


def decide(session: Path, decision: dict, route: str = "route_1") -> dict:
    return cli(
        "retro", "decide", "--session-dir", str(session), "--route", route, "--decision", json.dumps(decision)
    )


def route_file(session: Path, route: str = "route_1") -> str:
    return (session / "routes" / f"{route}.json").read_text(encoding="utf-8")


def explore(session: Path, tool: str, params: dict, route: str = "route_1") -> dict:
    return cli(
        "retro",
        "explore",
        "--session_dir",
        str(session),
        "--route",
        route,
        "--tool",
        tool,
        "--params",
        json.dumps(params),
    )


def explore_error(session: Path, tool: str, params: dict, route: str = "route_1") -> str:
    """A refused exploration call: exit 2 and a clear message."""
    return cli_error(
        "retro", "explore", "--session_dir", str(session), "--route", route, "--tool", tool, "--params",
        json.dumps(params),
    )


def decide_error(session: Path, decision: dict, route: str = "route_1") -> str:
    """A rejected DecisionInstruction: exit 2, a clear message, and the route file untouched."""
    before = route_file(session, route)
    err = cli_error(
        "retro", "decide", "--session_dir", str(session), "--route", route, "--decision", json.dumps(decision)
    )
    assert route_file(session, route) == before
    return err


def test_aspirin_every_decision_by_hand(tmp_path, aspirin):
    session = tmp_path / "aspirin"
    out = cli("retro", "plan", "--target_smiles", aspirin, "--output_dir", str(session), "--name", "aspirin")
    assert out["routes"][0]["route_id"] == "route_1"
    assert [t["type"] for t in out["routes"][0]["tasks"]] == ["STRATEGY", "ANALYZE", "DISCONNECT"]

    # 1. strategy_selection
    ctx = cli("retro", "run", "--session_dir", str(session), "--route", "route_1")
    assert ctx["status"] == "paused" and ctx["decision_type"] == "strategy_selection"
    for key in (
        "task_id",
        "context",
        "available_actions",
        "decision_history",
        "exploration_tools",
        "exploration_budget",
    ):
        assert key in ctx
    assert ctx["exploration_budget"] == 5
    # exploration: allowed tool, then a tool outside the matrix
    res = cli(
        "retro",
        "explore",
        "--session-dir",
        str(session),
        "--route",
        "route_1",
        "--tool",
        "analyze_selectivity",
        "--params",
        json.dumps({"smiles": aspirin}),
    )
    assert res["exploration_budget"] == 4
    err = explore_error(session, "validate_reaction", {"reaction_smiles": "CCO>>CC=O"})
    assert "not available at a strategy_selection" in err
    # an invalid instruction is rejected and changes nothing
    before = route_file(session)
    err = cli_error(
        "retro",
        "decide",
        "--session-dir",
        str(session),
        "--route",
        "route_1",
        "--decision",
        json.dumps({"task_id": "42", "action": "use_default"}),
    )
    assert "does not match" in err
    err = cli_error(
        "retro",
        "decide",
        "--session-dir",
        str(session),
        "--route",
        "route_1",
        "--decision",
        json.dumps(
            {"task_id": ctx["task_id"], "action": "choose_strategy", "params": {"chosen_strategy": "spiral"}}
        ),
    )
    assert "chosen_strategy" in err
    err = cli_error(
        "retro", "decide", "--session-dir", str(session), "--route", "route_1", "--decision", "{oops"
    )
    assert "not valid JSON" in err
    assert route_file(session) == before
    ctx = decide(
        session,
        {
            "task_id": ctx["task_id"],
            "action": "choose_strategy",
            "params": {"chosen_strategy": "linear"},
            "reasoning": "two-step target",
        },
    )

    # 2. disconnection_decision; exhaust the exploration budget here
    assert ctx["decision_type"] == "disconnection_decision"
    bonds = ctx["context"]["atom_bond_map"]["strategic_bonds"]
    assert bonds and ctx["context"]["model_proposals"]
    for i in range(5):
        res = run_retro_explore(str(session), "route_1", "analyze_molecule", {"smiles": "O=C(O)c1ccccc1O"})
        assert res["exploration_budget"] == 4 - i
    err = explore_error(session, "analyze_molecule", {"smiles": aspirin})
    assert "exploration budget exhausted" in err
    # a custom reaction that is not balanced (methane cannot supply an acetyl group)
    ctx = decide(
        session,
        {
            "task_id": ctx["task_id"],
            "action": "custom_reaction",
            "params": {"reaction_smiles": f"C.O=C(O)c1ccccc1O>>{aspirin}"},
        },
    )

    # 3. validation_judgment: hard gate, then repairs until the retries run out
    assert ctx["decision_type"] == "validation_judgment"
    assert ctx["context"]["is_valid"] is False and ctx["context"]["issues"]
    ids = [a["action_id"] for a in ctx["available_actions"]]
    assert "accept" not in ids and "repair" in ids
    err = cli_error(
        "retro",
        "decide",
        "--session-dir",
        str(session),
        "--route",
        "route_1",
        "--decision",
        json.dumps({"task_id": ctx["task_id"], "action": "accept"}),
    )
    assert "hard gate" in err
    # the other exploration tools of this decision point, on the real engine
    rxn = ctx["context"]["reaction_smiles"]
    feas = run_retro_explore(str(session), "route_1", "assess_feasibility", {"reaction_smiles": rxn})
    assert feas["result"]["confidence"] <= 0.85 and feas["log_line"].startswith("[assess_feasibility]")
    avail = run_retro_explore(
        str(session), "route_1", "check_availability", {"smiles_list": '["C", "O=C(O)c1ccccc1O"]'}
    )
    assert [p["source"] for p in avail["result"]["precursors"]] and avail["result"]["n_total"] == 2
    pgs = run_retro_explore(
        str(session),
        "route_1",
        "recommend_protecting_groups",
        {"functional_groups": ["phenol", "carboxylic acid"]},
    )
    assert pgs["result"]["recommended"] and pgs["exploration_budget"] == 2
    ctx = decide(session, {"task_id": ctx["task_id"], "action": "repair"})
    # 4. repair_judgment
    assert ctx["decision_type"] == "repair_judgment"
    assert ctx["context"]["original_reaction_smiles"].startswith("C.")
    ctx = decide(session, {"task_id": ctx["task_id"], "action": "reject_and_retry"})
    ctx = decide(session, {"task_id": ctx["task_id"], "action": "reject_and_retry"})
    assert ctx["decision_type"] == "repair_judgment" and ctx["context"]["repair_retries_left"] == 0
    err = cli_error(
        "retro",
        "decide",
        "--session-dir",
        str(session),
        "--route",
        "route_1",
        "--decision",
        json.dumps({"task_id": ctx["task_id"], "action": "reject_and_retry"}),
    )
    assert "repair retries exhausted" in err and "MAX_REPAIR_RETRIES=3" in err
    ctx = decide(
        session,
        {"task_id": ctx["task_id"], "action": "abandon_bond", "reasoning": "methane is no acyl donor"},
    )

    # back at the disconnection decision, with the failed attempt recorded; now the top strategic bond
    assert ctx["decision_type"] == "disconnection_decision"
    assert ctx["context"]["failed_attempts"][0]["reaction_smiles"].startswith("C.")
    assert ctx["exploration_budget"] == 5  # a new decision point has a fresh budget
    top = ctx["context"]["atom_bond_map"]["strategic_bonds"][0]
    assert top["chemical_label"].startswith("ester")
    err = cli_error(
        "retro",
        "decide",
        "--session-dir",
        str(session),
        "--route",
        "route_1",
        "--decision",
        json.dumps(
            {"task_id": ctx["task_id"], "action": "select_bond", "params": {"atom1_idx": 0, "atom2_idx": 7}}
        ),
    )
    assert "not bonded" in err
    ctx = decide(
        session,
        {
            "task_id": ctx["task_id"],
            "action": "select_bond",
            "params": {"atom1_idx": top["atoms"][0], "atom2_idx": top["atoms"][1]},
        },
    )
    assert ctx["decision_type"] == "validation_judgment"
    assert ctx["context"]["is_valid"] is True, ctx["context"]
    ctx = decide(
        session,
        {
            "task_id": ctx["task_id"],
            "action": "accept_with_note",
            "reaction_conditions": {"reagent": "Ac2O", "catalyst": "H2SO4"},
        },
    )

    # 5. recursion_decision
    assert ctx["decision_type"] == "recursion_decision"
    precursors = ctx["context"]["precursors"]
    assert {p["suggested_action"] for p in precursors} <= {"mark_terminal", "mark_optional", "decompose"}
    assert all(p["source"] for p in precursors)
    ctx = decide(
        session,
        {
            "task_id": ctx["task_id"],
            "action": "recursion_decision",
            "params": {
                "precursor_decisions": [
                    {"smiles": p["smiles"], "action": "mark_terminal", "reason": "commercial"}
                    for p in precursors
                ]
            },
        },
    )
    assert ctx["status"] == "completed"
    assert ctx["route_summary"]["completed_steps"] == 1

    seen = {
        h["decision_type"] for h in run_retro_status(str(session), "route_1")["routes"][0]["decision_history"]
    }
    assert seen == {
        "strategy_selection",
        "disconnection_decision",
        "validation_judgment",
        "repair_judgment",
        "recursion_decision",
    }
    # decide after the end is a clear error
    err = cli_error(
        "retro",
        "decide",
        "--session-dir",
        str(session),
        "--route",
        "route_1",
        "--decision",
        json.dumps({"task_id": "1", "action": "use_default"}),
    )
    assert "not waiting for a decision" in err

    fin = cli("retro", "finalize", "--session-dir", str(session), "--route", "route_1")
    paths = fin["report_paths"]
    assert fin["complete"] is True and fin["n_steps"] == 1
    for key in ("html", "md", "json", "retro_graph"):
        assert Path(paths[key]).is_file()
    html = Path(paths["html"]).read_text(encoding="utf-8")
    assert "data:image/png;base64" in html
    graph = json.loads(Path(paths["retro_graph"]).read_text(encoding="utf-8"))
    assert graph["target_smiles"] == aspirin and len(graph["reaction_nodes"]) == 1
    # the finalized graph renders with the render_report skill too
    res = cli(
        "skill",
        "render_report",
        "--args",
        json.dumps({"retro_graph": graph, "output_dir": str(tmp_path / "skill_report")}),
    )
    assert res["success"] is True


def test_paracetamol_every_decision_by_hand(tmp_path, paracetamol):
    """A two-step route for paracetamol, every decision made through the CLI (seed 000 workflow)."""
    from molx_agent.interfaces.pipeline.decisions import recursion_default
    from molx_agent.interfaces.pipeline.limits import LIMITS

    session = tmp_path / "para"
    out = cli("retro", "plan", "--target-smiles", paracetamol, "--output-dir", str(session))
    assert out["target_smiles"] == paracetamol

    # 1. strategy_selection: invalid instructions first, then use_default
    ctx = cli("retro", "run", "--session_dir", str(session), "--route", "route_1")
    assert ctx["status"] == "paused" and ctx["decision_type"] == "strategy_selection"
    assert ctx["context"]["recommended_strategy"] in ("linear", "convergent", "mixed")
    err = decide_error(session, {"task_id": ctx["task_id"], "action": "select_bond"})
    assert "'select_bond' is not available at this strategy_selection" in err and "choose_strategy" in err
    err = decide_error(session, {"task_id": ctx["task_id"], "action": "use_default", "decision": "x"})
    assert "invalid DecisionInstruction" in err and "decision: unexpected argument" in err
    err = decide_error(session, {"action": "use_default"})
    assert "task_id" in err
    ctx = decide(session, {"task_id": ctx["task_id"], "action": "use_default"})

    # 2. disconnection_decision: spend the whole exploration budget with the 5 tools allowed here
    assert ctx["decision_type"] == "disconnection_decision" and ctx["exploration_budget"] == 5
    assert [t["tool_id"] for t in ctx["exploration_tools"]] == [
        "assess_feasibility",
        "analyze_selectivity",
        "analyze_molecule",
        "validate_reaction",
        "recommend_protecting_groups",
    ]
    acid_chloride = f"CC(=O)Cl.Nc1ccc(O)cc1>>{paracetamol}"
    calls = [
        ("assess_feasibility", {"reaction_smiles": acid_chloride}),
        ("analyze_selectivity", {"smiles": paracetamol}),
        ("analyze_molecule", {"smiles": "Nc1ccc(O)cc1"}),
        ("validate_reaction", {"reaction_smiles": acid_chloride, "reaction_class": "amide coupling"}),
        ("recommend_protecting_groups", {"functional_groups": ["phenol", "amine"]}),
    ]
    # a call that fails on its input is a clear error and costs nothing
    err = explore_error(session, "analyze_molecule", {"smiles": "C1CC"})
    assert "Failed to parse SMILES" in err
    for i, (tool, params) in enumerate(calls):
        res = explore(session, tool, params)
        assert res["exploration_budget"] == 4 - i and res["log_line"].startswith(f"[{tool}] ")
    assert "is_valid=True" in explore_log(session, ctx["task_id"])[3]
    err = explore_error(session, "assess_feasibility", {"reaction_smiles": acid_chloride})
    assert "exploration budget exhausted: 5/5" in err and "use_default" in err
    status = cli("retro", "status", "--session_dir", str(session))
    assert status["routes"][0]["pending_decision"]["exploration_budget"] == 0
    # an unbalanced custom disconnection (methane is no acetyl donor)
    err = decide_error(
        session,
        {"task_id": ctx["task_id"], "action": "custom_reaction", "params": {"reaction_smiles": "CCO>>CC=O"}},
    )
    assert "does not make" in err
    ctx = decide(
        session,
        {
            "task_id": ctx["task_id"],
            "action": "custom_reaction",
            "params": {"reaction_smiles": f"C.Nc1ccc(O)cc1>>{paracetamol}"},
            "exploration_log": ["[assess_feasibility] feasibility=high"],
        },
    )

    # 3. validation_judgment: the atom-balance failure is a hard gate; use_default -> repair
    assert ctx["decision_type"] == "validation_judgment" and ctx["exploration_budget"] == 5
    assert ctx["context"]["is_valid"] is False
    assert any("balance" in i["code"] for i in ctx["context"]["issues"]), ctx["context"]["issues"]
    assert "accept" not in [a["action_id"] for a in ctx["available_actions"]]
    err = decide_error(session, {"task_id": ctx["task_id"], "action": "accept_with_note"})
    assert "hard gate" in err
    ctx = decide(session, {"task_id": ctx["task_id"], "action": "use_default"})

    # 4. repair_judgment: retry until MAX_REPAIR_RETRIES is used up, then a custom repair
    assert ctx["decision_type"] == "repair_judgment"
    for key in (
        "repaired_smiles",
        "repaired_precursors",
        "original_issues",
        "repair_strategy",
        "changes_made",
        "original_reaction_smiles",
    ):
        assert key in ctx["context"]
    assert ctx["context"]["original_reaction_smiles"] == f"C.Nc1ccc(O)cc1>>{paracetamol}"
    assert ctx["context"]["original_issues"]
    # the context carries the repair_reaction skill's own answer
    direct = cli(
        "skill",
        "repair_reaction",
        "--args",
        json.dumps(
            {"reaction_smiles": f"C.Nc1ccc(O)cc1>>{paracetamol}", "issues": ctx["context"]["original_issues"]}
        ),
    )["data"]
    for key in ("repaired_smiles", "repair_strategy", "changes_made"):
        assert ctx["context"][key] == direct[key]
    assert ctx["context"]["repair_retries_left"] == LIMITS.MAX_REPAIR_RETRIES - 1
    for left in (1, 0):
        ctx = decide(session, {"task_id": ctx["task_id"], "action": "reject_and_retry"})
        assert ctx["decision_type"] == "repair_judgment" and ctx["context"]["repair_retries_left"] == left
    assert "reject_and_retry" not in [a["action_id"] for a in ctx["available_actions"]]
    err = decide_error(session, {"task_id": ctx["task_id"], "action": "reject_and_retry"})
    assert "repair retries exhausted" in err and "abandon" in err
    err = decide_error(
        session,
        {
            "task_id": ctx["task_id"],
            "action": "use_custom_repair",
            "params": {"repaired_reaction_smiles": 42},
        },
    )
    assert "repaired_reaction_smiles is required" in err
    ctx = decide(
        session,
        {
            "task_id": ctx["task_id"],
            "action": "use_custom_repair",
            "params": {
                "repaired_reaction_smiles": acid_chloride,
                "repaired_precursors": ["CC(=O)Cl", "Nc1ccc(O)cc1"],
            },
            "reasoning": "acetyl chloride supplies the acetyl group",
        },
    )
    assert ctx["decision_type"] == "validation_judgment"
    assert ctx["context"]["is_valid"] is True and ctx["context"]["reaction_smiles"] == acid_chloride
    ctx = decide(session, {"task_id": ctx["task_id"], "action": "use_default"})  # valid -> accept

    # 5. recursion_decision: the suggestions follow the seed's rule; decompose 4-aminophenol
    assert ctx["decision_type"] == "recursion_decision" and ctx["context"]["current_depth"] == 0
    precursors = {p["smiles"]: p for p in ctx["context"]["precursors"]}
    assert set(precursors) == {"CC(=O)Cl", "Nc1ccc(O)cc1"}
    for p in precursors.values():
        assert {"smiles", "sa_score", "molecular_weight", "suggested_action"} <= set(p)
        expected = recursion_default(p["sa_score"], p["molecular_weight"], p["in_stock"], LIMITS.MW_TERMINAL)[
            0
        ]
        assert p["suggested_action"] == expected
    err = decide_error(
        session,
        {
            "task_id": ctx["task_id"],
            "action": "recursion_decision",
            "params": {"precursor_decisions": [{"smiles": "c1ccccc1", "action": "decompose"}]},
        },
    )
    assert "not a precursor of this step" in err
    ctx = decide(
        session,
        {
            "task_id": ctx["task_id"],
            "action": "recursion_decision",
            "params": {
                "precursor_decisions": [
                    {"smiles": "Nc1ccc(O)cc1", "action": "decompose", "reason": "show the nitro reduction"},
                    {"smiles": "ClC(C)=O", "action": "mark_optional", "reason": "easy to make"},
                ]
            },
        },
    )

    # second level: 4-aminophenol, disconnected with the single-step model's nitro reduction
    assert ctx["decision_type"] == "disconnection_decision"
    assert ctx["context"]["molecule_smiles"] == "Nc1ccc(O)cc1" and ctx["context"]["depth"] == 1
    assert ctx["context"]["route_summary"]["completed_steps"] == 1
    nitro = [p for p in ctx["context"]["model_proposals"] if p["precursors"] == ["O=[N+]([O-])c1ccc(O)cc1"]]
    assert nitro, ctx["context"]["model_proposals"]
    ctx = decide(
        session,
        {
            "task_id": ctx["task_id"],
            "action": "custom_reaction",
            "params": {"reaction_smiles": nitro[0]["reaction_smiles"]},
        },
    )
    assert ctx["decision_type"] == "validation_judgment" and ctx["context"]["is_valid"] is True
    ctx = decide(
        session,
        {
            "task_id": ctx["task_id"],
            "action": "accept_with_note",
            "reaction_conditions": {
                "reaction_type": "Nitro reduction",
                "reagents": "H2, Pd/C",
                "solvent": "EtOH",
            },
        },
    )
    assert ctx["decision_type"] == "recursion_decision" and ctx["context"]["current_depth"] == 1
    suggested = {p["smiles"]: p["suggested_action"] for p in ctx["context"]["precursors"]}
    ctx = decide(session, {"task_id": ctx["task_id"], "action": "use_default"})
    assert ctx["status"] == "completed" and ctx["route_summary"]["completed_steps"] == 2

    detail = cli("retro", "status", "--session_dir", str(session), "--route", "route_1")["routes"][0]
    history = detail["decision_history"]
    assert [h["decision_type"] for h in history] == [
        "strategy_selection",
        "disconnection_decision",
        "validation_judgment",
        "repair_judgment",
        "repair_judgment",
        "repair_judgment",
        "validation_judgment",
        "recursion_decision",
        "disconnection_decision",
        "validation_judgment",
        "recursion_decision",
    ]
    assert history[2]["resolved_action"] == "repair" and history[6]["resolved_action"] == "accept"
    assert history[-1]["resolved_action"] == "recursion_decision"
    assert {d["smiles"]: d["action"] for d in history[-1]["params"]["precursor_decisions"]} == suggested
    assert history[1]["exploration_log"] == ["[assess_feasibility] feasibility=high"]

    fin = cli("retro", "finalize", "--session_dir", str(session), "--route", "route_1")
    assert fin["complete"] is True and fin["n_steps"] == 2
    html = Path(fin["report_paths"]["html"]).read_text(encoding="utf-8")
    md = Path(fin["report_paths"]["md"]).read_text(encoding="utf-8")
    assert "data:image/png;base64" in html and "Nitro reduction" in html and "Nitro reduction" in md
    graph = json.loads(Path(fin["report_paths"]["retro_graph"]).read_text(encoding="utf-8"))
    assert len(graph["reaction_nodes"]) == 2
    assert sorted(r["reaction_smiles"] for r in graph["reaction_nodes"]) == sorted(
        [acid_chloride, nitro[0]["reaction_smiles"]]
    )
    comp = cli("retro", "compare", "--session_dir", str(session))
    assert comp["routes"][0]["n_steps"] == 2 and comp["routes"][0]["longest_linear_sequence"] == 2
    # the same self-contained HTML report as `molx-agent route` (same template and stylesheet)
    res = runner.invoke(
        app,
        ["route", paracetamol, "--n-routes", "1", "--time-limit", "20", "--output-dir", str(tmp_path / "r")],
    )
    assert res.exit_code == 0, res.output
    searched = (tmp_path / "r" / "SYNTHESIS_REPORT.html").read_text(encoding="utf-8")
    assert set(_sections(searched)) <= set(_sections(html)) and "Decision history" in _sections(html)
    assert _stylesheet(searched) == _stylesheet(html) and _stylesheet(html)
    for doc in (html, searched):
        assert not re.search(r'(src|href)="(https?:)?//', doc)  # nothing loaded from outside the file


def _sections(html: str) -> list[str]:
    return re.findall(r"<h2[^>]*>([^<]+)", html)


def _stylesheet(html: str) -> str:
    found = re.search(r"<style>(.*?)</style>", html, re.S)
    return found.group(1) if found else ""


def explore_log(session: Path, task_id: str, route: str = "route_1") -> list[str]:
    return [e["summary"] for e in json.loads(route_file(session, route))["exploration_log"][task_id]]


def test_paracetamol_auto_routes_compare_finalize(tmp_path, paracetamol):
    session = tmp_path / "para"
    out = run_retro_plan(paracetamol, str(session), n_routes=2, name="paracetamol")
    assert [r["route_id"] for r in out["routes"]] == ["route_1", "route_2"]
    done = cli("retro", "run", "--session-dir", str(session), "--route", "route_1", "--auto")
    assert done["status"] == "completed", done
    assert done["route_summary"]["completed_steps"] >= 1
    # route_2 by hand: the model's top proposal instead of the top bond, defaults elsewhere
    ctx = run_retro_run(str(session), "route_2")
    ctx = run_retro_decide(str(session), "route_2", {"task_id": ctx["task_id"], "action": "use_default"})
    proposal = ctx["context"]["model_proposals"][0]
    ctx = run_retro_decide(
        str(session),
        "route_2",
        {
            "task_id": ctx["task_id"],
            "action": "custom_reaction",
            "params": {"reaction_smiles": proposal["reaction_smiles"]},
        },
    )
    while ctx["status"] == "paused":
        ctx = run_retro_decide(
            str(session), "route_2", json.dumps({"task_id": ctx["task_id"], "action": "use_default"})
        )
    assert ctx["status"] == "completed"

    comp = cli("retro", "compare", "--session-dir", str(session))
    rows = {r["route_id"]: r for r in comp["routes"]}
    assert set(rows) == {"route_1", "route_2"} and set(comp["ranking"]) == set(rows)
    for row in rows.values():
        assert row["complete"] and row["n_steps"] >= 1
        assert row["starting_materials"] and all(s["source"] for s in row["starting_materials"])
        assert "in stock" in row["availability"] and "feasibility" in row
    res = runner.invoke(app, ["retro", "compare", "--session-dir", str(session), "--table"])
    assert (
        res.exit_code == 0 and "route_1" in res.stdout and "route_2" in res.stdout and "Ranking" in res.stdout
    )
    status = cli("retro", "status", "--session-dir", str(session))
    assert [r["status"] for r in status["routes"]] == ["completed", "completed"]
    fin = run_retro_finalize(str(session), "route_1", str(tmp_path / "report"))
    assert Path(fin["report_paths"]["html"]).is_file() and fin["complete"]


def test_plan_auto_and_real_binary_with_seed_spellings(tmp_path, paracetamol):
    session = tmp_path / "bin"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "molx_agent.cli.main",
            "retro",
            "plan",
            "--target_smiles",
            paracetamol,
            "--output_dir",
            str(session),
            "--auto",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["runs"][0]["status"] == "completed"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "molx_agent.cli.main",
            "retro",
            "finalize",
            "--session_dir",
            str(session),
            "--route",
            "route_1",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert Path(json.loads(proc.stdout)["report_paths"]["html"]).is_file()


def test_task_limit_is_hit_and_reported(tmp_path, paracetamol):
    """Disconnect, fail validation, retry, ... through the CLI until MAX_TOTAL_TASKS stops the route."""
    session = tmp_path / "limit"
    cli("retro", "plan", "--target_smiles", paracetamol, "--output_dir", str(session), "--no-proposals")
    ctx = cli("retro", "run", "--session_dir", str(session))
    ctx = decide(session, {"task_id": ctx["task_id"], "action": "use_default"})
    bad = {"reaction_smiles": f"C.Oc1ccc(N)cc1>>{paracetamol}"}  # unbalanced: always fails validation
    n_tasks = [ctx["context"]["route_summary"]["total_tasks"]]
    err = None
    for _ in range(60):
        if ctx["decision_type"] == "disconnection_decision":
            instruction = {"task_id": ctx["task_id"], "action": "custom_reaction", "params": bad}
        else:
            assert ctx["decision_type"] == "validation_judgment" and ctx["context"]["is_valid"] is False
            instruction = {"task_id": ctx["task_id"], "action": "retry_other_bond"}
        before = route_file(session)
        res = runner.invoke(
            app, ["retro", "decide", "--session_dir", str(session), "--decision", json.dumps(instruction)]
        )
        if res.exit_code != 0:
            err = res
            break
        ctx = json.loads(res.stdout)
        assert ctx["status"] == "paused"
        n_tasks.append(ctx["context"]["route_summary"]["total_tasks"])
    assert err is not None, "the task limit was never reached"
    # the rejected decision: exit 2, the seed's symptom and remedy, nothing written
    assert err.exit_code == 2 and "Traceback" not in err.output
    assert "would exceed MAX_TOTAL_TASKS=50" in err.stderr and "mark_terminal" in err.stderr
    assert route_file(session) == before
    assert max(n_tasks) <= 50 and n_tasks == sorted(n_tasks) and n_tasks[-1] >= 48
    status = cli("retro", "status", "--session_dir", str(session), "--route", "route_1")["routes"][0]
    assert status["n_tasks"] == n_tasks[-1] and status["status"] == "paused"
    assert status["pending_decision"]["decision_type"] == "validation_judgment"
    assert cli("retro", "run", "--session_dir", str(session))["task_id"] == ctx["task_id"]  # still waiting
    # --auto decides with use_default until a decision needs more tasks than are left: limit_reached, exit 1
    res = runner.invoke(app, ["retro", "run", "--session_dir", str(session), "--auto"])
    assert res.exit_code == 1 and "Traceback" not in res.output
    out = json.loads(res.stdout)
    assert out["status"] == "limit_reached" and out["error"]["code"] == "task_limit_exceeded"
    assert "MAX_TOTAL_TASKS" in res.stderr
    tasks = json.loads(route_file(session))["tasks"]
    assert len(tasks) <= 50
    # the partial route can still be finalized, with a warning
    fin = cli("retro", "finalize", "--session_dir", str(session))
    assert fin["complete"] is False and fin["pending_molecules"] == [paracetamol] and fin["warning"]
    assert Path(fin["report_paths"]["html"]).is_file()


def test_bad_inputs_give_clear_errors(tmp_path, aspirin):
    err = cli_error("retro", "plan", "--target-smiles", "C1CC(", "--output-dir", str(tmp_path / "x"))
    assert "Failed to parse SMILES" in err
    err = cli_error("retro", "run", "--session-dir", str(tmp_path / "nowhere"))
    assert "session directory not found" in err
    session = tmp_path / "s"
    run_retro_plan(aspirin, str(session), n_routes=2, proposals=False)
    err = cli_error("retro", "run", "--session-dir", str(session))
    assert "pass --route" in err
    err = cli_error("retro", "run", "--session-dir", str(session), "--route", "route_9")
    assert "no route 'route_9'" in err
    err = cli_error("retro", "plan", "--target-smiles", "CCO", "--output-dir", str(session))
    assert "already holds a session" in err
    err = cli_error(
        "retro",
        "plan",
        "--target-smiles",
        aspirin,
        "--output-dir",
        str(tmp_path / "nostock"),
        "--stock",
        str(tmp_path / "missing.smi"),
    )
    assert "stock file not found" in err and not (tmp_path / "nostock").exists()
    err = explore_error(session, "analyze_molecule", {"smiles": "CCO"})
    assert "not paused" in err
    (session / "routes" / "route_2.json").write_text("{broken", encoding="utf-8")
    status = cli("retro", "status", "--session-dir", str(session))
    assert [r["status"] for r in status["routes"]] == ["planned", "unreadable"]
    assert "not a valid route file" in status["routes"][1]["error"]["message"]
    err = cli_error("retro", "run", "--session-dir", str(session), "--route", "route_2")
    assert "not a valid route file" in err
    # plan on the same directory adds a route
    out = run_retro_plan(aspirin, str(session), proposals=False)
    assert out["routes"][0]["route_id"] == "route_3"


@pytest.mark.parametrize("leftover", [".session.json.abc.tmp"])
def test_session_writes_are_atomic(tmp_path, aspirin, leftover):
    session = tmp_path / "atomic"
    run_retro_plan(aspirin, str(session), proposals=False)
    # a crashed writer leaves only its temp file behind; the session still loads
    (session / leftover).write_text("{half", encoding="utf-8")
    assert run_retro_status(str(session))["routes"][0]["status"] == "planned"
    assert not [p for p in session.rglob("*.tmp") if p.name != leftover]
    run_retro_compare(str(session))


def test_a_crash_while_saving_leaves_the_route_file_intact(tmp_path, aspirin, monkeypatch):
    import os

    from molx_agent.interfaces.pipeline import session_store

    session = tmp_path / "crash"
    run_retro_plan(aspirin, str(session), proposals=False)
    before = route_file(session)

    def boom(*_args, **_kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        run_retro_run(str(session))
    monkeypatch.undo()
    assert route_file(session) == before  # the old file is untouched, no partial write
    assert not list(session.rglob("*.tmp"))  # the temp file was cleaned up
    assert session_store.SessionStore(session).load_route("route_1").status.value == "planned"
    assert run_retro_run(str(session))["status"] == "paused"  # and the session carries on


def test_decision_file_avoids_shell_escaping(tmp_path):
    """--decision-file (like batch) carries SMILES with > # \\ / @ untouched."""
    target = "C[C@@H](NC(=O)/C=C/c1ccccc1)C#N"
    session = tmp_path / "file"
    cli("retro", "plan", "--target-smiles", target, "--output-dir", str(session), "--no-proposals")
    ctx = cli("retro", "run", "--session-dir", str(session))
    f = tmp_path / "decision.json"
    f.write_text(json.dumps({"task_id": ctx["task_id"], "action": "use_default"}), encoding="utf-8")
    ctx = cli("retro", "decide", "--session-dir", str(session), "--decision_file", str(f))
    assert ctx["decision_type"] == "disconnection_decision"
    rxn = "O=C(Cl)/C=C/c1ccccc1.C[C@@H](N)C#N>>" + target
    f.write_text(
        json.dumps(
            {"task_id": ctx["task_id"], "action": "custom_reaction", "params": {"reaction_smiles": rxn}}
        ),
        encoding="utf-8",
    )
    ctx = cli("retro", "decide", "--session-dir", str(session), "--decision-file", str(f))
    assert ctx["decision_type"] == "validation_judgment"
    assert ctx["context"]["reaction_smiles"] == rxn
    assert ctx["context"]["precursors"] == ["O=C(Cl)/C=C/c1ccccc1", "C[C@@H](N)C#N"]
    err = cli_error(
        "retro", "decide", "--session-dir", str(session), "--decision-file", str(tmp_path / "no.json")
    )
    assert "not found" in err
    f.write_text("{not json", encoding="utf-8")
    err = cli_error("retro", "decide", "--session-dir", str(session), "--decision-file", str(f))
    assert "not valid JSON" in err


def test_auto_on_a_target_without_disconnections_fails_clearly(tmp_path):
    """Perfluorohexane: no strategic bond, no template: --auto ends in status failed, exit 1, for plan and run."""
    target = "FC(F)(F)C(F)(F)C(F)(F)C(F)(F)C(F)(F)C(F)(F)F"
    session = tmp_path / "pfc"
    res = runner.invoke(
        app, ["retro", "plan", "--target-smiles", target, "--output-dir", str(session), "--auto"]
    )
    assert res.exit_code == 1 and "Traceback" not in res.output
    out = json.loads(res.stdout)
    assert out["runs"][0]["status"] == "failed"
    assert out["runs"][0]["reasons"] == [f"no disconnection left for {target}"]
    assert "route_1: failed: no disconnection left" in res.stderr
    res = runner.invoke(app, ["retro", "run", "--session-dir", str(session), "--auto"])
    assert res.exit_code == 1 and json.loads(res.stdout)["status"] == "failed"
    fin = cli("retro", "finalize", "--session-dir", str(session))
    assert fin["complete"] is False and fin["n_steps"] == 0 and fin["pending_molecules"] == [target]

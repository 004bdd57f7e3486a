"""``molx-agent retro plan|run|decide|explore|compare|finalize|status`` end to end on the real engine.

Aspirin: every decision type by hand, an invalid instruction, the exploration budget, the repair
retries and the hard gate.  Paracetamol: --auto, several routes, compare, finalize, and the task limit.
"""

from __future__ import annotations

import json
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
from molx_agent.errors import RetroError

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
    err = cli_error(
        "retro",
        "explore",
        "--session-dir",
        str(session),
        "--route",
        "route_1",
        "--tool",
        "validate_reaction",
        "--params",
        json.dumps({"reaction_smiles": "CCO>>CC=O"}),
    )
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
    err = cli_error(
        "retro",
        "explore",
        "--session-dir",
        str(session),
        "--route",
        "route_1",
        "--tool",
        "analyze_molecule",
        "--params",
        json.dumps({"smiles": aspirin}),
    )
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
    session = tmp_path / "limit"
    run_retro_plan(paracetamol, str(session), proposals=False)
    ctx = run_retro_run(str(session))
    ctx = run_retro_decide(str(session), None, {"task_id": ctx["task_id"], "action": "use_default"})
    bad = {"reaction_smiles": f"C.Oc1ccc(N)cc1>>{paracetamol}"}  # unbalanced: always fails validation
    error = None
    for _ in range(40):
        try:
            if ctx.get("decision_type") == "disconnection_decision":
                ctx = run_retro_decide(
                    str(session),
                    None,
                    {"task_id": ctx["task_id"], "action": "custom_reaction", "params": bad},
                )
            else:
                assert ctx["decision_type"] == "validation_judgment"
                ctx = run_retro_decide(
                    str(session), None, {"task_id": ctx["task_id"], "action": "retry_other_bond"}
                )
        except RetroError as exc:
            error = exc
            break
        if ctx["status"] == "limit_reached":
            break
    status = run_retro_status(str(session), "route_1")["routes"][0]
    assert status["n_tasks"] <= 50
    if error is not None:
        assert error.code == "task_limit_exceeded" and "MAX_TOTAL_TASKS=50" in str(error)
    else:
        assert ctx["status"] == "limit_reached" and ctx["error"]["code"] == "task_limit_exceeded"
    # through the CLI: a clear error, non-zero exit, no traceback
    res = runner.invoke(
        app,
        [
            "retro",
            "decide",
            "--session-dir",
            str(session),
            "--decision",
            json.dumps({"task_id": ctx.get("task_id", "0"), "action": "retry_other_bond"}),
        ],
    )
    assert res.exit_code in (1, 2) and "Traceback" not in res.output
    assert "MAX_TOTAL_TASKS" in res.output or "not waiting" in res.output
    # the partial route can still be finalized
    fin = run_retro_finalize(str(session))
    assert fin["complete"] is False and fin["pending_molecules"] and fin["warning"]


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
    err = cli_error(
        "retro",
        "explore",
        "--session-dir",
        str(session),
        "--route",
        "route_1",
        "--tool",
        "analyze_molecule",
        "--params",
        '{"smiles": "CCO"}',
    )
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

    from molx_agent.retro.pipeline import session_store

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

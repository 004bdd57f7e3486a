"""``molx-agent skill``: run_skill_command and the CLI (exit codes, JSON on stdout)."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from molx_agent.cli.main import app
from molx_agent.cli.skill import run_skill_command, run_skill_list

runner = CliRunner()


def test_run_skill_command_success(paracetamol):
    out = run_skill_command("check_availability", json.dumps({"smiles_list": [paracetamol]}))
    assert out["success"] is True and out["error"] == ""
    assert out["data"]["precursors"][0]["source"]


def test_run_skill_command_malformed_json_is_a_failed_result():
    out = run_skill_command("analyze_molecule", '{"smiles": ')
    assert out["success"] is False and out["error_code"] == "invalid_json"


def test_skill_list_cli():
    res = runner.invoke(app, ["skill", "--list"])
    assert res.exit_code == 0
    names = [s["name"] for s in json.loads(res.stdout)]
    assert len(names) == 13 and names == sorted(names)
    assert names == [s["name"] for s in run_skill_list()]


def test_skill_cli_success_and_args_file(tmp_path, paracetamol):
    res = runner.invoke(
        app, ["skill", "propose_disconnection", "--args", json.dumps({"target_smiles": paracetamol})]
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["success"] is True
    f = tmp_path / "args.json"
    f.write_text(json.dumps({"smiles_list": ["CCO", "c1ccccc1"]}), encoding="utf-8")
    res = runner.invoke(app, ["skill", "check_availability", "--args-file", str(f)])
    assert res.exit_code == 0
    assert json.loads(res.stdout)["data"]["n_total"] == 2


def test_skill_cli_failure_exit_codes(tmp_path):
    res = runner.invoke(app, ["skill", "propose_disconnection", "--args", '{"target_smiles": "C1CC"}'])
    assert res.exit_code == 2  # bad input: exit 2 on every surface (issue 29)
    body = json.loads(res.stdout)
    assert body["success"] is False and body["error_code"] == "invalid_smiles"
    assert "Traceback" not in res.output
    res = runner.invoke(app, ["skill", "no_such_skill", "--args", "{}"])
    assert res.exit_code == 2 and json.loads(res.stdout)["error_code"] == "unknown_skill"
    res = runner.invoke(app, ["skill", "analyze_molecule", "--args", "{not json"])
    assert res.exit_code == 2 and json.loads(res.stdout)["error_code"] == "invalid_json"
    res = runner.invoke(app, ["skill", "analyze_molecule", "--args-file", str(tmp_path / "missing.json")])
    assert res.exit_code == 2 and "not found" in res.stderr
    res = runner.invoke(app, ["skill"])
    assert res.exit_code == 2


def test_skill_cli_subprocess(paracetamol):
    import subprocess
    import sys

    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "molx_agent.cli.main",
            "skill",
            "check_availability",
            "--args",
            json.dumps({"smiles_list": [paracetamol, "[C@@H](F)(Cl)Br", "C#N", "F/C=C/F"]}),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["data"]["n_total"] == 4


def test_retro_group_has_skill_and_batch_too(tmp_path):
    res = runner.invoke(app, ["retro", "skill", "check_availability", "--args", '{"smiles_list": ["CCO"]}'])
    assert res.exit_code == 0 and json.loads(res.stdout)["success"] is True
    res = runner.invoke(app, ["retro", "skill", "analyze_molecule", "--args", '{"smiles": "C1CC"}'])
    assert res.exit_code == 2 and json.loads(res.stdout)["error_code"] == "invalid_smiles"
    f = tmp_path / "tasks.json"
    f.write_text(json.dumps([{"skill": "analyze_molecule", "args": {"smiles": "CCO"}}]), encoding="utf-8")
    res = runner.invoke(app, ["retro", "batch", str(f)])
    assert res.exit_code == 0 and json.loads(res.stdout)["n_succeeded"] == 1


def test_skill_args_from_stdin():
    args = {"smiles_list": ["N#Cc1ccccc1", "F/C=C\\F", "C[C@@H](N)C(=O)O"]}
    res = runner.invoke(app, ["skill", "check_availability", "--args-file", "-"], input=json.dumps(args))
    assert res.exit_code == 0, res.output
    assert [p["smiles"] for p in json.loads(res.stdout)["data"]["precursors"]] == args["smiles_list"]
    res = runner.invoke(app, ["skill", "check_availability", "--args", "{}", "--args-file", "-"], input="{}")
    assert res.exit_code != 0 and "not both" in res.stdout

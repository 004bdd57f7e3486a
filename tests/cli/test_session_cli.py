"""`molx-agent session`: JSON out, exit codes, clear errors, file unchanged on bad input."""

from __future__ import annotations

import json
import subprocess
import sys

from typer.testing import CliRunner

from molx_agent.cli.main import app
from molx_agent.cli.session import run_session

runner = CliRunner()


def _cli(*args):
    return runner.invoke(app, ["session", *args])


def test_run_session_function(tmp_path):
    res = run_session("init", tmp_path / "s.json", {"target": "CC(=O)Nc1ccc(O)cc1"})
    assert res["ok"] and run_session("status", tmp_path / "s.json")["steps_executed"] == 0


def test_cli_full_flow(tmp_path):
    s = str(tmp_path / "s.json")
    r = _cli("init", "--session", s, "--args", '{"target": "CC(=O)Nc1ccc(O)cc1", "name": "Paracetamol"}')
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["target"] == "CC(=O)Nc1ccc(O)cc1"
    r = _cli("next", "--session", s)
    assert json.loads(r.stdout)["current"]["node_id"] == "mol_0"
    args = tmp_path / "args.json"
    args.write_text('{"precursors": ["CC(=O)Cl", "Nc1ccc(O)cc1"]}', encoding="utf-8")
    r = _cli("try_precursors", "--session", s, "--args-file", str(args))
    assert r.exit_code == 0 and json.loads(r.stdout)["success"] is True
    r = _cli("try_precursors", "--session", s, "--args", '{"precursors": ["CCO"]}')
    assert r.exit_code == 1 and json.loads(r.stdout)["success"] is False
    r = _cli("commit", "--session", s, "--args", '{"idx": 0, "reasoning": "acid chloride"}')
    assert r.exit_code == 0 and json.loads(r.stdout)["tree_complete"] is True
    r = _cli("export", "--session", s, "--args", json.dumps({"output_dir": str(tmp_path / "out")}))
    assert r.exit_code == 0 and json.loads(r.stdout)["visualization_ok"] is True


def test_cli_bad_input(tmp_path):
    s = tmp_path / "s.json"
    _cli("init", "--session", str(s), "--args", '{"target": "CC(=O)Nc1ccc(O)cc1"}')
    before = s.read_bytes()
    for args, needle in ((["frobnicate"], "unknown session command"),
                         (["commit", "--args", "{}"], "no molecule is awaiting a decision"),
                         (["explore", "--args", "{bad json"], "not valid JSON"),
                         (["explore", "--args", "[1]"], "JSON object"),
                         (["next", "--args", '{"x": 1}'], "unknown argument")):
        r = runner.invoke(app, ["session", args[0], "--session", str(s), *args[1:]])
        assert r.exit_code == 2, (args, r.output)
        assert needle in r.stderr and "Traceback" not in r.output
        assert s.read_bytes() == before
    r = _cli("status", "--session", str(tmp_path / "missing.json"))
    assert r.exit_code == 2 and "session file not found" in r.stderr


def test_cli_subprocess(tmp_path):
    s = str(tmp_path / "s.json")
    base = [sys.executable, "-m", "molx_agent.cli.main", "session"]
    subprocess.run(base + ["init", "--session", s, "--args", '{"target": "Nc1ccc(O)cc1"}'], check=True,
                   capture_output=True, timeout=300)
    proc = subprocess.run(base + ["status", "--session", s], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0 and json.loads(proc.stdout)["target"] == "Nc1ccc(O)cc1"
    proc = subprocess.run(base + ["explore", "--session", s, "--args", '{"bond_idx": 0}'],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2 and proc.stderr.startswith("Error: explore: no molecule") and not proc.stdout

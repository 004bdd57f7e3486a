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


def test_cli_bad_input_with_a_molecule_awaiting(tmp_path):
    """Every bad-input case exits 2 with the problem named on stderr, no traceback, file byte-identical."""
    s = tmp_path / "s.json"
    _cli("init", "--session", str(s), "--args", '{"target": "CC(=O)Nc1ccc(O)cc1"}')
    _cli("next", "--session", str(s))
    _cli("try_precursors", "--session", str(s), "--args", '{"precursors": ["CC(=O)Cl", "Nc1ccc(O)cc1"]}')
    before = s.read_bytes()
    cases = (("explore", '{"bond_idx": 99}', "bond index 99 does not exist"),
             ("try_bond", '{"bond_idx": -3}', "bond index -3 does not exist"),
             ("custom_cap", '{"bond_idx": 42, "cap_i": "Br", "cap_j": "B(O)O"}', "bond index 42 does not exist"),
             ("explore", "{}", "missing required argument 'bond_idx'"),
             ("explore", '{"bond_idx": "2"}', "argument 'bond_idx' must be int, got str"),
             ("try_precursors", '{"precursors": "CCO"}', "argument 'precursors' must be list[str]"),
             ("commit", '{"reasoning": "no idx"}', "no sandbox attempt is selected"),
             ("select", '{"idx": 5}', "sandbox attempt 5 does not exist"),
             ("commit", '{"idx": 0, "confidence": "certain"}', "must be one of high, medium, low"),
             ("init", '{"target": "CCO", "terminal_cs_threshold": NaN}', "must be number"),
             ("teleport", "{}", "unknown session command 'teleport'"))
    for command, args, needle in cases:
        r = _cli(command, "--session", str(s), "--args", args)
        assert r.exit_code == 2, (command, args, r.output)
        assert needle in r.stderr, (command, r.stderr)
        assert "Traceback" not in r.output and not r.stdout
        assert s.read_bytes() == before, command


def test_cli_corrupted_and_foreign_session_files(tmp_path):
    s = tmp_path / "s.json"
    _cli("init", "--session", str(s), "--args", '{"target": "CC(=O)Nc1ccc(O)cc1"}')
    _cli("next", "--session", str(s))
    good = json.loads(s.read_text(encoding="utf-8"))
    truncated = s.read_text(encoding="utf-8")[:200]
    damaged = json.loads(json.dumps(good))
    damaged["current"]["sandbox"]["attempts"] = None
    route = tmp_path / "route.json"  # another molx-agent file, not a session
    route.write_text(json.dumps(good["tree"]), encoding="utf-8")
    for path, text, needle in ((s, truncated, "is not valid JSON"),
                               (s, json.dumps(damaged), "is damaged: current.sandbox.attempts must be a list"),
                               (route, None, "is not a molx-agent retrosynthesis session"),
                               (s, "", "is not valid JSON")):
        if text is not None:
            path.write_text(text, encoding="utf-8")
        before = path.read_bytes()
        for command in ("status", "next", "commit"):
            r = _cli(command, "--session", str(path), "--args", '{"idx": 0}' if command == "commit" else "{}")
            assert r.exit_code == 2 and needle in r.stderr, (command, r.stderr)
            assert "Traceback" not in r.output and path.read_bytes() == before

"""Every CLI command on hostile input: exit 2 with one line naming the problem, never a traceback or exit 1 for
bad input, never an internal temporary file name, and files that a refused command must not touch unchanged.

Property-based over JSON arguments and argument/task/decision/data file contents (random bytes, UTF-16, gzip,
binary, deep nesting), plus the specific cases of issue 29 (a directory for a file, an --output-dir that is a
file, both --decision and --decision-file, a chat.sqlite that is not a database, an unknown chat session, a binary
MCP config for doctor, a ragged CSV).
"""

from __future__ import annotations

import gzip
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st
from typer.testing import CliRunner

from molx_agent.cli.main import app
from tests.hostile.conftest import (
    FEW,
    HOSTILE,
    PARACETAMOL,
    assert_clean_failure,
    hostile_file_bytes,
    json_values,
    nested_json,
    smiles_like,
)

runner = CliRunner()


def cli(*args: str, input: str | bytes | None = None):  # noqa: A002 - click's name
    res = runner.invoke(app, list(args), input=input)
    assert res.exit_code in (0, 1, 2), (args, res.exit_code, res.output[-1500:])
    assert not isinstance(res.exception, Exception) or isinstance(res.exception, SystemExit), res.exception
    assert_clean_failure(res.output)
    return res


# -- skill, batch: JSON arguments ------------------------------------------------------------------------------
@FEW
@given(value=json_values)
def test_skill_with_any_json_arguments(value):
    res = cli("skill", "analyze_molecule", "--args", json.dumps(value))
    assert res.exit_code in (0, 2)  # analyze_molecule fails only for bad input
    if res.exit_code == 2:
        assert res.stderr.startswith("Error: ")


@FEW
@given(data=hostile_file_bytes)
def test_skill_args_file_with_any_bytes(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("args") / "args.json"
    path.write_bytes(data)
    res = cli("skill", "analyze_molecule", "--args-file", str(path))
    assert res.exit_code in (0, 2)


@FEW
@given(data=hostile_file_bytes)
def test_batch_with_any_task_file(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("batch") / "tasks.json"
    path.write_bytes(data)
    res = cli("batch", str(path))
    if res.exit_code == 0:
        assert json.loads(res.stdout)["n_failed"] == 0


@FEW
@given(tasks=st.lists(st.fixed_dictionaries({"skill": st.sampled_from(["analyze_molecule", "validate_reaction",
                                                                      "check_availability", "nope"]),
                                             "args": st.dictionaries(st.sampled_from(["smiles", "reaction_smiles",
                                                                                      "smiles_list", "x"]),
                                                                     smiles_like | json_values, max_size=2)}),
                      max_size=4))
def test_batch_keeps_one_record_per_hostile_task(tmp_path_factory, tasks):
    path = tmp_path_factory.mktemp("batch") / "tasks.json"
    path.write_text(json.dumps(tasks), encoding="utf-8")
    res = cli("batch", str(path))
    report = json.loads(res.stdout)
    assert report["n_tasks"] == len(tasks) == len(report["results"])
    assert res.exit_code == (1 if report["n_failed"] else 0)
    assert not any(r.get("error_code") == "skill_crashed" for r in report["results"]), report


@pytest.mark.parametrize("depth", [65, 500, 5000, 100_000])
def test_deeply_nested_json_is_bad_input_everywhere(tmp_path, depth):
    deep = nested_json(depth)
    f = tmp_path / "deep.json"
    f.write_text(deep, encoding="utf-8")
    for args in (["skill", "analyze_molecule", "--args", deep], ["skill", "analyze_molecule", "--args-file", str(f)],
                 ["batch", str(f)], ["session", "status", "--session", str(tmp_path / "s.json"), "--args-file", str(f)]):
        res = cli(*args)
        assert res.exit_code == 2 and "deeper than" in res.output, (args, res.output)


# -- argument and data files: the real problem is named ----------------------------------------------------------
def _bad_files(tmp_path):
    series = "smiles,pIC50\nCCO,5\nCCN,6\n"
    files = {
        "a directory": (tmp_path / "adir.csv", None, "is a directory"),
        "UTF-16 JSON": (tmp_path / "u16.json", '{"smiles": "CCO"}'.encode("utf-16"), None),
        "gzip": (tmp_path / "gz.csv", gzip.compress(series.encode()), "gzip-compressed"),
        "binary": (tmp_path / "bin.csv", bytes(range(256)) * 4, "binary data"),
        "not UTF-8": (tmp_path / "latin.json", '{"smiles": "CCO", "x": "µ"}'.encode("latin-1"), "not UTF-8"),
    }
    (tmp_path / "adir.csv").mkdir()
    for path, data, _ in files.values():
        if data is not None:
            path.write_bytes(data)
    return files


def test_argument_files_name_their_real_problem(tmp_path):
    for what, (path, _data, needle) in _bad_files(tmp_path).items():
        for args in (["skill", "analyze_molecule", "--args-file", str(path)], ["batch", str(path)],
                     ["session", "status", "--session", str(tmp_path / "s.json"), "--args-file", str(path)]):
            res = cli(*args)
            if needle is None:  # UTF-16 JSON is read
                assert res.exit_code in (0, 1, 2) and "UTF" not in res.stderr, (what, args, res.output)
                continue
            assert res.exit_code == 2, (what, args, res.output)
            assert needle in res.output and "not found" not in res.output, (what, args, res.output)


def test_data_files_name_their_real_problem(tmp_path):
    files = _bad_files(tmp_path)
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("smiles,pIC50\nCCO,5,1\nCCN,6,2\n", encoding="utf-8")
    files["ragged"] = (ragged, None, "line 2 has 3 fields but the header has 2")
    for what, (path, _data, needle) in files.items():
        if path.suffix != ".csv":
            continue
        for args in (["sar", str(path), "--output-dir", str(tmp_path / "out")],
                     ["run", "--query", "analyse the SAR", "--data", str(path)]):
            res = cli(*args)
            assert res.exit_code == 2, (what, args, res.output)
            assert needle in res.output and "SMILES column" not in res.output, (what, args, res.output)


@FEW
@given(data=hostile_file_bytes)
def test_sar_reader_on_any_bytes(tmp_path_factory, data):
    from molx_agent.errors import DataError
    from molx_agent.sar.io import read_table

    path = tmp_path_factory.mktemp("sar") / "data.csv"
    path.write_bytes(data)
    try:
        table = read_table(path)
    except DataError as exc:
        assert exc.code and exc.message
        return
    assert table.n_rows >= 1


@FEW
@given(rows=st.lists(st.lists(st.text(alphabet="CNOc1()=,;\t \"x5.", max_size=8), min_size=1, max_size=4),
                     min_size=1, max_size=6))
def test_sar_reader_on_any_small_table(tmp_path_factory, rows):
    from molx_agent.errors import DataError
    from molx_agent.sar.io import read_table

    path = tmp_path_factory.mktemp("sar") / "data.csv"
    path.write_text("\n".join(",".join(r) for r in [["smiles", "pIC50"], *rows]), encoding="utf-8")
    try:
        read_table(path)
    except DataError as exc:
        assert exc.code in ("ragged_rows", "empty_file", "unreadable_file", "binary_file"), exc


# -- output directories, both options, sessions -----------------------------------------------------------------
def test_an_output_dir_that_is_a_file_is_bad_input(tmp_path):
    blocker = tmp_path / "a_file"
    blocker.write_text("x", encoding="utf-8")
    series = tmp_path / "series.csv"
    series.write_text("smiles,pIC50\nCCO,5\n", encoding="utf-8")
    cases = [
        ["route", PARACETAMOL, "--output-dir", str(blocker), "--time-limit", "1"],
        ["sar", str(series), "--output-dir", str(blocker)],
        ["retro", "plan", "--target-smiles", PARACETAMOL, "--output-dir", str(blocker)],
        ["run", "--query", "MW of aspirin", "--output-dir", str(blocker)],
        ["batch", str(series), "--output", str(tmp_path)],
    ]
    for args in cases:
        res = cli(*args)
        assert res.exit_code == 2, (args, res.output)
        assert "is a file" in res.output or "is a directory" in res.output, (args, res.output)
    plan = cli("retro", "plan", "--target-smiles", PARACETAMOL, "--output-dir", str(tmp_path / "sess"))
    assert plan.exit_code == 0
    res = cli("retro", "finalize", "--session-dir", str(tmp_path / "sess"), "--output-dir", str(blocker))
    assert res.exit_code == 2 and "is a file" in res.output


def test_retro_decide_refuses_both_decision_options(tmp_path):
    assert cli("retro", "plan", "--target-smiles", PARACETAMOL, "--output-dir", str(tmp_path / "s")).exit_code == 0
    route = tmp_path / "s" / "routes" / "route_1.json"
    before = route.read_bytes()
    f = tmp_path / "d.json"
    f.write_text('{"task_id": "x", "action": "use_default"}', encoding="utf-8")
    res = cli("retro", "decide", "--session-dir", str(tmp_path / "s"), "--decision", "{}", "--decision-file", str(f))
    assert res.exit_code == 2 and "not both" in res.output
    assert route.read_bytes() == before


@FEW
@given(decision=json_values)
def test_retro_decide_with_any_json(tmp_path_factory, decision):
    work = tmp_path_factory.mktemp("decide")
    assert cli("retro", "plan", "--target-smiles", PARACETAMOL, "--output-dir", str(work / "s")).exit_code == 0
    assert cli("retro", "run", "--session-dir", str(work / "s")).exit_code == 0
    route = work / "s" / "routes" / "route_1.json"
    before = route.read_bytes()
    res = cli("retro", "decide", "--session-dir", str(work / "s"), "--decision", json.dumps(decision))
    if res.exit_code == 2:
        assert route.read_bytes() == before  # a rejected decision leaves the session unchanged


@FEW
@given(command=st.sampled_from(["next", "context", "explore", "try_precursors", "commit", "select", "skip",
                                "status", "frobnicate", "try_bond", "smart_cap"]),
       params=st.dictionaries(st.sampled_from(["precursors", "idx", "bond", "atoms", "reasoning", "x"]),
                              json_values | smiles_like, max_size=2))
def test_session_commands_with_any_arguments(tmp_path_factory, command, params):
    session = tmp_path_factory.mktemp("session") / "s.json"
    assert cli("session", "init", "--session", str(session), "--args",
               json.dumps({"target": PARACETAMOL})).exit_code == 0
    before = session.read_bytes()
    res = cli("session", command, "--session", str(session), "--args", json.dumps(params))
    if res.exit_code == 2:
        assert session.read_bytes() == before


@HOSTILE
@given(query=st.text(max_size=300) | smiles_like)
def test_run_with_any_query(query):
    res = cli("run", "--query", query, "--llm", "rules")
    if not query.strip():
        assert res.exit_code == 2 and "empty" in res.output


def test_run_refuses_a_huge_query_at_once():
    res = cli("run", "--query", "What is the molecular weight of aspirin? " * 2500)
    assert res.exit_code == 2 and "query is 10" in res.output and "limit is 20,000" in res.output


def test_run_recognises_single_atom_smiles():
    for smiles in ("[NH4+]", "[Fe]"):
        res = cli("run", "--query", f"What is the molecular weight of {smiles}?", "--json")
        doc = json.loads(res.stdout)
        assert res.exit_code == 0 and doc["intent"] == "molecule_query", doc["final_answer"]


def test_chat_database_that_is_not_a_database(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    (home / "chat.sqlite").write_bytes(b"this is not sqlite" * 100)
    monkeypatch.setenv("MOLX_HOME", str(home))
    res = cli("chat", "--llm", "rules", input="MW of aspirin\n")
    assert res.exit_code == 2 and "not a database" in res.output


def test_chat_unknown_session_is_an_error():
    res = cli("chat", "--session", "never-seen", "--llm", "rules", input="MW of aspirin\n")
    assert res.exit_code == 2 and "no chat session 'never-seen'" in res.output


@pytest.mark.parametrize("content", [bytes(range(256)), gzip.compress(b'{"servers": {}}'), nested_json(3000).encode(),
                                     None])
def test_doctor_on_a_hostile_mcp_config(tmp_path, monkeypatch, content):
    path = tmp_path / "mcp.json"
    if content is None:
        path.mkdir()
    else:
        path.write_bytes(content)
    monkeypatch.setenv("MCP_SERVERS_CONFIG", str(path))
    res = cli("doctor")
    assert "[FAIL] mcp:" in res.stdout and str(path) in res.stdout


def test_huge_molecules_are_refused_at_once_by_every_retrosynthesis_command(tmp_path):
    residues = ("N[C@@H](Cc1ccccc1)C(=O)", "N[C@@H](CO)C(=O)", "N[C@@H](CCCCN)C(=O)", "N[C@@H](CC(=O)O)C(=O)")
    big = "".join(residues[i % 4] for i in range(300)) + "O"  # a 300-residue peptide: `route` ran > 590 s on one
    tasks = tmp_path / "tasks.json"
    tasks.write_text(json.dumps([{"skill": "analyze_molecule", "args": {"smiles": "C" * 2_000_000}},
                                 {"skill": "propose_disconnection", "args": {"target_smiles": big}}]), encoding="utf-8")
    for args in (["route", big], ["retro", "plan", "--target-smiles", big, "--output-dir", str(tmp_path / "p"), "--auto"],
                 ["session", "init", "--session", str(tmp_path / "s.json"), "--args", json.dumps({"target": big})],
                 ["route", "C" * 10_000]):
        res = cli(*args)
        assert res.exit_code == 2 and "heavy atoms; retrosynthesis accepts at most 150" in res.output, (args[:2], res.output)
    res = cli("batch", str(tasks))
    codes = [r["error_code"] for r in json.loads(res.stdout)["results"]]
    assert res.exit_code == 1 and codes == ["smiles_too_long", "molecule_too_large"]

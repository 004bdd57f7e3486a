"""``molx-agent batch TASKS.json``: one result per task, failures never stop the batch."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from molx_agent.cli.batch import run_batch
from molx_agent.cli.main import app

runner = CliRunner()

# SMILES with every shell-hostile character of seed 000: > # \ / @ ( ) [ ] =
TRICKY_TASKS = [
    {
        "skill": "check_availability",
        "args": {"smiles_list": ["N#Cc1ccccc1", "F/C=C\\F", "C[C@@H](N)C(=O)O", "[Na+].[Cl-]"]},
    },
    {
        "skill": "map_atoms",
        "args": {"reaction_smiles": "CC(=O)OC(C)=O.Nc1ccc(O)cc1>>CC(=O)Nc1ccc(O)cc1", "mapper": "template"},
    },
    {
        "skill": "propose_disconnection",
        "args": {"target_smiles": "C[C@@H](C(=O)N/N=C/c1ccccc1)C#N", "max_proposals": 2},
    },
    {"skill": "check_availability", "args": {"smiles_list": "not/a\\smiles#@"}},
    {"skill": "no_such_skill", "args": {}},
    {"args": {"smiles": "CCO"}},
    {"skill": "propose_disconnection", "args": {"target_smiles": "CC(=O)Nc1ccc(O)cc1"}},
    {"skill": "analyze_molecule", "args": {"smiles": "F/C=C/C[C@H](C#N)c1ccc(Br)cc1"}},
    {"skill": "validate_reaction", "args": {"reaction_smiles": "CC(=O)Cl.Nc1ccc(O)cc1>>CC(=O)Nc1ccc(O)cc1"}},
    {"skill": "break_bond", "args": {"smiles": "CC(=O)Oc1ccccc1C(=O)O", "atom1_idx": 1, "atom2_idx": 3}},
]


def test_run_batch_keeps_going_and_keeps_order(tmp_path):
    f = tmp_path / "tasks.json"
    f.write_text(json.dumps(TRICKY_TASKS), encoding="utf-8")
    report = run_batch(f, tmp_path / "out.json")
    assert report["n_tasks"] == len(TRICKY_TASKS) == len(report["results"])
    assert [r["index"] for r in report["results"]] == list(range(len(TRICKY_TASKS)))
    ok = [r["success"] for r in report["results"]]
    assert ok[0] and ok[1] and ok[2] and ok[6] and ok[7] and ok[8] and ok[9]
    assert (
        report["results"][7]["data"]["molecule_info"]["canonical_smiles"] == "N#C[C@@H](C/C=C/F)c1ccc(Br)cc1"
    )
    assert report["results"][8]["data"]["is_valid"] is True
    assert "O=C(O)c1ccccc1O" in report["results"][9]["data"]["fragments"]
    assert not ok[4] and report["results"][4]["error_code"] == "unknown_skill"
    assert not ok[5] and report["results"][5]["error_code"] == "invalid_task"
    # the SMILES survived the trip through the file untouched
    smiles = [p["smiles"] for p in report["results"][0]["data"]["precursors"]]
    assert smiles == TRICKY_TASKS[0]["args"]["smiles_list"]
    assert report["results"][3]["data"]["precursors"][0]["error"]["code"] == "invalid_smiles"
    assert json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))["n_tasks"] == len(TRICKY_TASKS)


def test_batch_cli_exit_status(tmp_path):
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"tasks": TRICKY_TASKS[:2]}), encoding="utf-8")
    res = runner.invoke(app, ["batch", str(good)])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["n_failed"] == 0
    mixed = tmp_path / "mixed.json"
    mixed.write_text(json.dumps(TRICKY_TASKS), encoding="utf-8")
    res = runner.invoke(app, ["batch", str(mixed)])
    assert res.exit_code == 1
    body = json.loads(res.stdout)
    assert body["n_failed"] == 2 and len(body["results"]) == len(TRICKY_TASKS)


def test_batch_cli_bad_files(tmp_path):
    res = runner.invoke(app, ["batch", str(tmp_path / "missing.json")])
    assert res.exit_code == 2 and "not found" in res.stderr
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    res = runner.invoke(app, ["batch", str(bad)])
    assert res.exit_code == 2 and "not valid JSON" in res.stderr
    obj = tmp_path / "obj.json"
    obj.write_text('{"skill": "analyze_molecule"}', encoding="utf-8")
    res = runner.invoke(app, ["batch", str(obj)])
    assert res.exit_code == 2 and "list" in res.stderr
    assert "Traceback" not in res.output

"""RetroCmd end to end on the real engine: queue, sandbox, commit, audit, persistence, export, bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from molx_agent.errors import DataError, RetroError, ValidationError
from molx_agent.retro import RetroCmd
from molx_agent.retro.engine import RetroEngine
from molx_agent.retro.toy_model import DictSingleStepModel

PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"


@pytest.fixture
def paracetamol_session(tmp_path):
    cmd = RetroCmd(tmp_path / "para.json")
    cmd.execute("init", {"target": PARACETAMOL, "name": "Paracetamol"})
    return cmd


@pytest.fixture
def paracetamol_awaiting(paracetamol_session):
    paracetamol_session.execute("next")
    return paracetamol_session


def _amide_bond(cmd):
    ctx = cmd.execute("context", {"detail": "compact"})["current"]
    return next(b for b in ctx["bond_summary"] if b["atoms"] == [1, 3])


def test_init_and_next_give_the_seed_shapes(paracetamol_session, tmp_path):
    data = json.loads((tmp_path / "para.json").read_text())
    for key in ("session_id", "target", "config", "status", "current", "queue", "seen_smiles", "tree",
                "audit_state"):
        assert key in data
    assert data["queue"] == [[PARACETAMOL, 0]]
    ctx = paracetamol_session.execute("next")
    cur = ctx["current"]
    assert cur["action"] == "awaiting_decision" and cur["is_target"] and cur["node_id"] == "mol_0"
    assert {"bond_summary", "fgi_summary", "functional_groups", "audit_state_summary"} <= set(cur)
    # the target is never skipped, even though it is a simple commercial compound
    assert cur["availability"]["available"] is True
    amide = _amide_bond(paracetamol_session)
    assert amide["n_alternatives"] >= 2
    assert "Amide Bond Formation" in amide["reaction_types"]  # reaction names, each once
    assert not any("(Retro" in rt for rt in amide["reaction_types"])
    assert len(set(amide["reaction_types"])) == len(amide["reaction_types"])


def test_explore_uses_templates_and_single_step_model(paracetamol_awaiting):
    amide = _amide_bond(paracetamol_awaiting)
    ex = paracetamol_awaiting.execute("explore", {"bond_idx": amide["bond_idx"]})
    sources = {a["source"] for a in ex["alternatives"]}
    assert "template" in sources and "single_step_model" in sources
    assert ["CC(=O)Cl", "Nc1ccc(O)cc1"] in [sorted(a["precursors"]) for a in ex["alternatives"]]
    cap = ex["smart_capping"][0]
    assert cap["reaction_type"] == "Amide bond formation" and cap["confidence"] == 0.9
    assert cap["fragments"] == ["CC(=O)O", "Nc1ccc(O)cc1"] and cap["description"]
    assert {"template", "template_id", "precursors", "incompatible_with"} <= set(ex["alternatives"][0])


def test_sandbox_never_writes_the_tree(paracetamol_awaiting):
    before = paracetamol_awaiting.state().graph.to_dict()
    amide = _amide_bond(paracetamol_awaiting)
    paracetamol_awaiting.execute("try_bond", {"bond_idx": amide["bond_idx"], "alt_idx": 0})
    paracetamol_awaiting.execute("try_precursors", {"precursors": ["CC(=O)O", "Nc1ccc(O)cc1"]})
    assert paracetamol_awaiting.state().graph.to_dict() == before
    listing = paracetamol_awaiting.execute("sandbox_list")
    assert listing["n_attempts"] == 2 and listing["selected"] is None
    assert paracetamol_awaiting.execute("sandbox_clear") == {"ok": True, "cleared": 2}


def test_try_precursors_checks_smiles_cycles_and_validation(paracetamol_awaiting):
    good = paracetamol_awaiting.execute("try_precursors", {"precursors": ["CC(=O)Cl", "Nc1ccc(O)cc1"],
                                                           "reaction_type": "Schotten-Baumann acylation"})
    assert good["success"] and good["source"] == "llm_proposed" and good["attempt_idx"] == 0
    assert good["forward_validation"]["pass"] is True and good["atom_balance"]["balance_score"] > 0.8
    assert all(d["cs_score"] is not None for d in good["precursor_details"])
    bad = paracetamol_awaiting.execute("try_precursors", {"precursors": ["C1CC", "Nc1ccc(O)cc1"]})
    assert not bad["success"] and bad["errors"][0]["code"] == "invalid_smiles"
    loop = paracetamol_awaiting.execute("try_precursors", {"precursors": [PARACETAMOL]})
    assert not loop["success"] and loop["errors"][0]["code"] == "cycle"
    wrong = paracetamol_awaiting.execute("try_precursors", {"precursors": ["CCO"]})
    assert not wrong["success"] and wrong["forward_validation"]["hard_fail_reasons"]
    audit = paracetamol_awaiting.state().audit
    assert len(audit.failed_attempts) == 3


def test_commit_writes_step_evidence_and_audit(paracetamol_awaiting):
    amide = _amide_bond(paracetamol_awaiting)
    ex = paracetamol_awaiting.execute("explore", {"bond_idx": amide["bond_idx"]})
    alt = next(i for i, a in enumerate(ex["alternatives"]) if a["template_id"] == "G01_amide_acid_chloride_retro")
    paracetamol_awaiting.execute("try_bond", {"bond_idx": amide["bond_idx"], "alt_idx": alt})
    paracetamol_awaiting.execute("select", {"idx": 0})
    res = paracetamol_awaiting.execute("commit", {"reasoning": "酰氯法条件温和", "confidence": "high",
                                                  "rejected": [{"method": "Ac2O route", "reason": "副产物处理"}]})
    assert res["success"] and res["step_id"] == "rxn_1" and res["tree_complete"] is True
    assert sorted(res["new_terminal"]) == ["CC(=O)Cl", "Nc1ccc(O)cc1"] and res["new_pending"] == []
    state = paracetamol_awaiting.state()
    rxn = state.graph.reaction_nodes[0]
    assert rxn.template_evidence.template_id == "G01_amide_acid_chloride_retro"
    assert rxn.template_evidence.source == "template"
    assert rxn.llm_decision.confidence == "high" and rxn.llm_decision.rejected_alternatives[0]["method"]
    assert rxn.forward_validation["pass"] is True
    for node in state.graph.terminals():
        assert node.availability["available"] and node.availability["source"]
        assert node.llm_analysis["terminal_reason"].startswith("in stock: ")
    assert state.audit.decision_history[-1].outcome == "committed"
    assert state.audit.linear_step_count == 1
    assert paracetamol_awaiting.execute("next")["action"] == "queue_empty"


def test_gate_failed_commit_leaves_tree(paracetamol_awaiting):
    paracetamol_awaiting.execute("try_precursors", {"precursors": ["CCO"]})
    res = paracetamol_awaiting.execute("commit", {"idx": 0, "reasoning": "test"})
    assert res["success"] is False and res["outcome"] == "gate_failed"
    state = paracetamol_awaiting.state()
    assert state.graph.n_steps == 0 and state.audit.decision_history[-1].outcome == "gate_failed"


def _benzyl_paracetamol_tried(tmp_path):
    """A session on O-benzyl paracetamol (user stock: acetyl chloride) with the amide disconnection tried."""
    stock = tmp_path / "my_stock.smi"
    stock.write_text("CC(=O)Cl\n", encoding="utf-8")
    cmd = RetroCmd(tmp_path / "s.json")
    cmd.execute("init", {"target": "CC(=O)Nc1ccc(OCc2ccccc2)cc1", "stock": str(stock),
                         "terminal_cs_threshold": 0.5})
    cmd.execute("next")
    cmd.execute("try_precursors", {"precursors": ["CC(=O)Cl", "Nc1ccc(OCc2ccccc2)cc1"]})
    return cmd


def test_user_stock_queue_skip_and_finalize(tmp_path):
    cmd = _benzyl_paracetamol_tried(tmp_path)
    res = cmd.execute("commit", {"idx": 0, "reasoning": "amide"})
    assert res["new_terminal"] == ["CC(=O)Cl"] and res["new_pending"] == ["Nc1ccc(OCc2ccccc2)cc1"]
    assert res["tree_complete"] is False
    terminal = cmd.execute("tree")["terminals"][0]
    assert terminal["stock_source"] == "my_stock" or terminal["stock_source"].startswith("my_stock")
    nxt = cmd.execute("next")["current"]
    assert nxt["smiles"] == "Nc1ccc(OCc2ccccc2)cc1" and nxt["depth"] == 1 and not nxt["is_target"]
    assert cmd.execute("skip", {"reason": "no idea"})["skipped"]
    assert cmd.execute("next")["action"] == "queue_empty"
    assert cmd.execute("tree")["tree_complete"] is False
    fin = cmd.execute("finalize", {"summary": "partial"})
    assert fin["status"] == "incomplete" and fin["unresolved"] == ["Nc1ccc(OCc2ccccc2)cc1"]
    assert cmd.state().audit.decision_history[-1].action == "skip"


def test_target_accept(tmp_path):
    cmd = RetroCmd(tmp_path / "s.json")
    cmd.execute("init", {"target": "Nc1ccc(O)cc1"})
    cmd.execute("next")
    assert cmd.execute("accept", {"reason": "简单商业试剂"})["tree_complete"] is True


def _bytes(path):
    return path.read_bytes()


@pytest.mark.parametrize("command,args,code", [
    ("frobnicate", {}, "unknown_command"),
    ("explore", {}, "missing_argument"),
    ("explore", {"bond_idx": "2"}, "bad_argument_type"),
    ("explore", {"bond_idx": 99}, "invalid_bond_idx"),
    ("explore", {"bond_idx": 2, "foo": 1}, "unknown_argument"),
    ("commit", {"reasoning": "x"}, "nothing_selected"),
    ("commit", {"idx": 3}, "invalid_attempt_idx"),
    ("select", {"idx": 0}, "invalid_attempt_idx"),
    ("try_fgi", {"fgi_idx": 999}, "invalid_fgi_idx"),
    ("commit", {"idx": 0, "confidence": "sure"}, "bad_argument_value"),
    ("init", {"target": PARACETAMOL}, "session_exists"),
    ("custom_cap", {"bond_idx": -1, "cap_i": "Br", "cap_j": "B(O)O"}, "invalid_bond_idx"),
])
def test_bad_input_leaves_file_unchanged(paracetamol_awaiting, command, args, code):
    before = _bytes(paracetamol_awaiting.session_file)
    with pytest.raises(RetroError) as err:
        paracetamol_awaiting.execute(command, args)
    assert err.value.code == code
    assert _bytes(paracetamol_awaiting.session_file) == before


def test_corrupted_foreign_and_missing_files(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text('{"session_id": "x", ', encoding="utf-8")
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"hello": "world"}', encoding="utf-8")
    for path, code in ((broken, "corrupted_session_file"), (foreign, "foreign_session_file")):
        before = path.read_bytes()
        with pytest.raises(ValidationError) as err:
            RetroCmd(path).execute("status")
        assert err.value.code == code and path.read_bytes() == before
    with pytest.raises(DataError) as err:
        RetroCmd(tmp_path / "nope.json").execute("next")
    assert err.value.code == "session_not_found"


def test_invalid_target(tmp_path):
    with pytest.raises(RetroError) as err:
        RetroCmd(tmp_path / "s.json").execute("init", {"target": "not a smiles"})
    assert err.value.code == "invalid_smiles" and not (tmp_path / "s.json").exists()


def test_new_process_continues_where_the_last_stopped(paracetamol_awaiting, tmp_path):
    paracetamol_awaiting.execute("try_precursors", {"precursors": ["CC(=O)Cl", "Nc1ccc(O)cc1"]})
    script = (
        "import json, sys\n"
        "from molx_agent.retro import RetroCmd\n"
        "c = RetroCmd(sys.argv[1])\n"
        "out = {'list': c.execute('sandbox_list'), 'next': c.execute('next')['current']['node_id']}\n"
        "c.execute('select', {'idx': 0})\n"
        "out['commit'] = c.execute('commit', {'reasoning': 'from another process'})\n"
        "print(json.dumps(out))\n")
    proc = subprocess.run([sys.executable, "-c", script, str(paracetamol_awaiting.session_file)],
                          capture_output=True, text=True, timeout=300, check=True)
    out = json.loads(proc.stdout)
    assert out["list"]["n_attempts"] == 1 and out["next"] == "mol_0"
    assert out["commit"]["success"] and out["commit"]["tree_complete"]
    state = paracetamol_awaiting.state()
    assert state.graph.n_steps == 1 and state.graph.reaction_nodes[0].llm_decision.selection_reasoning == (
        "from another process")


def test_export_folder(paracetamol_awaiting, tmp_path):
    paracetamol_awaiting.execute("try_precursors", {"precursors": ["CC(=O)Cl", "Nc1ccc(O)cc1"]})
    paracetamol_awaiting.execute("commit", {"idx": 0, "reasoning": "acid chloride"})
    paracetamol_awaiting.execute("finalize", {"summary": "done"})
    res = paracetamol_awaiting.execute("export", {"name": "Paracetamol", "output_dir": str(tmp_path / "output")})
    out = tmp_path / "output"
    folder = res["output_dir"]
    assert folder.startswith(str(out)) and folder.endswith("_Paracetamol")
    for f in ("SYNTHESIS_REPORT.html", "SYNTHESIS_REPORT.md", "report.txt", "tree.json", "tree.txt",
              "terminals.json", "visualization.json", "session.json"):
        assert f in res["files"]
    assert len(res["files"]) == res["n_files"] == 8 and res["n_images"] == 5 and res["visualization_ok"] is True
    assert sorted(res["images"]) == ["images/mol_0.png", "images/mol_1.png", "images/mol_2.png",
                                     "images/rxn_1_reaction.png", "images/synthesis_tree.png"]
    assert res["html_report"] == f"{folder}/SYNTHESIS_REPORT.html"
    vis = json.loads(open(f"{folder}/visualization.json").read())
    assert {n["id"] for n in vis["nodes"]} == {"mol_0", "mol_1", "mol_2", "rxn_1"} and len(vis["edges"]) == 3
    assert res["summary"] == "Paracetamol: 1 step, 2 starting materials, visualization=✓"
    # the exported session.json is a resumable session
    assert RetroCmd(f"{folder}/session.json").execute("status")["tree_complete"] is True
    terminals = json.loads(open(f"{folder}/terminals.json").read())
    assert {t["source"] for t in terminals} <= {"common-reagents", "zinc-instock-mini"}


def test_capping_and_fgi_commands(paracetamol_awaiting):
    amide = _amide_bond(paracetamol_awaiting)
    caps = paracetamol_awaiting.execute("smart_cap", {"bond_idx": amide["bond_idx"], "max": 2})
    assert caps["ok"] and len(caps["proposals"]) == 2 and caps["proposals"][0]["confidence"] == 0.9
    direct = paracetamol_awaiting.execute("smart_cap", {"smiles": "CC(=O)Nc1ccccc1", "bond": [1, 3]})
    assert direct["proposals"][0]["fragments"] == ["CC(=O)O", "Nc1ccccc1"]
    custom = paracetamol_awaiting.execute("custom_cap", {"bond_idx": amide["bond_idx"], "cap_i": "Cl",
                                                         "cap_j": "[H]"})
    assert custom["source"] == "custom_cap" and sorted(custom["precursors"]) == ["CC(=O)Cl", "Nc1ccc(O)cc1"]
    fgi = paracetamol_awaiting.execute("explore_fgi")
    assert fgi["n_fgi"] >= 1
    att = paracetamol_awaiting.execute("try_fgi", {"fgi_idx": 0})
    assert att["source"] == "fgi" and att["fgi_idx"] == 0
    full = paracetamol_awaiting.execute("context", {"detail": "full"})
    assert full["current"]["sandbox"]["n_attempts"] == 2 and "audit_state" in full


def _damage(path, edit):
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")


@pytest.mark.parametrize("edit,field", [
    (lambda d: d["current"]["sandbox"].__setitem__("selected", 4), "current.sandbox.selected"),
    (lambda d: d["current"]["sandbox"].__setitem__("attempts", "x"), "current.sandbox.attempts"),
    (lambda d: d["current"]["sandbox"]["attempts"][0].pop("precursors"), "current.sandbox.attempts[0]"),
    (lambda d: d["current"].pop("depth"), "current.depth"),
    (lambda d: d["current"].__setitem__("node_id", ["mol_0"]), "current.node_id"),
    (lambda d: d["current"].__setitem__("smiles", "CCO"), "current.smiles"),
    (lambda d: d["config"].__setitem__("max_depth", "x"), "config.max_depth"),
    (lambda d: d["config"].__setitem__("terminal_cs_threshold", None), "config.terminal_cs_threshold"),
    (lambda d: d["tree"]["molecule_nodes"]["mol_0"].__setitem__("decision_context", {}), "decision_context"),
    (lambda d: d["tree"]["molecule_nodes"]["mol_0"].__setitem__("role", "boss"), "mol_0.role"),
    (lambda d: d["tree"]["reaction_nodes"].append({"step_id": "rxn_9", "reaction_smiles": "", "product_node":
                                                   "mol_0", "reactant_nodes": ["mol_7"]}), "reactant_nodes"),
    (lambda d: d.__setitem__("queue", [["CCO"]]), "queue[0]"),
    (lambda d: d["audit_state"].__setitem__("decision_history", {}), "audit_state.decision_history"),
])
@pytest.mark.parametrize("command,args", [("status", {}), ("commit", {"idx": 0, "reasoning": "x"}),
                                          ("try_bond", {"bond_idx": 2}), ("export", {})])
def test_damaged_session_file_is_a_clear_error_and_left_unchanged(paracetamol_awaiting, edit, field, command,
                                                                   args, tmp_path):
    """A hand-edited or damaged file names the damaged field; no command crashes or rewrites it."""
    paracetamol_awaiting.execute("try_precursors", {"precursors": ["CC(=O)Cl", "Nc1ccc(O)cc1"]})
    path = paracetamol_awaiting.session_file
    _damage(path, edit)
    before = path.read_bytes()
    if command == "export":
        args = {"output_dir": str(tmp_path / "out")}
    with pytest.raises(ValidationError) as err:
        paracetamol_awaiting.execute(command, args)
    assert err.value.code == "corrupted_session_file" and "is damaged" in err.value.message
    assert field in err.value.message
    assert path.read_bytes() == before and not (tmp_path / "out").exists()


def test_non_finite_numbers_and_directory_session_are_refused(tmp_path):
    with pytest.raises(ValidationError) as err:
        RetroCmd(tmp_path / "s.json").execute("init", {"target": PARACETAMOL,
                                                        "terminal_cs_threshold": float("nan")})
    assert err.value.code == "bad_argument_type" and not (tmp_path / "s.json").exists()
    with pytest.raises(ValidationError) as err:
        RetroCmd(tmp_path).execute("init", {"target": PARACETAMOL, "overwrite": True})
    assert err.value.code == "session_not_a_file" and "directory" in err.value.message


def test_read_only_commands_never_rewrite_the_file(paracetamol_awaiting, tmp_path):
    before = paracetamol_awaiting.session_file.read_bytes()
    for command, args in (("context", {"detail": "full"}), ("context", {"detail": "tree"}), ("status", {}),
                          ("explore", {"bond_idx": 2}), ("explore_fgi", {}), ("sandbox_list", {}),
                          ("smart_cap", {"bond_idx": 2}), ("tree", {}), ("report", {}),
                          ("export", {"output_dir": str(tmp_path / "out")})):
        paracetamol_awaiting.execute(command, args)
        assert paracetamol_awaiting.session_file.read_bytes() == before, command


def test_work_after_finalize_reopens_the_session(tmp_path):
    cmd = _benzyl_paracetamol_tried(tmp_path)
    cmd.execute("commit", {"idx": 0, "reasoning": "amide"})
    assert cmd.execute("finalize", {"summary": "stopped early"})["status"] == "incomplete"
    assert cmd.execute("next")["current"]["smiles"] == "Nc1ccc(OCc2ccccc2)cc1"
    assert cmd.execute("status")["status"] == "in_progress"


def test_trivial_target_is_never_skipped(tmp_path):
    """4-Aminophenol is in stock, small and trivial, but as the target it still awaits a decision."""
    cmd = RetroCmd(tmp_path / "s.json")
    cmd.execute("init", {"target": "Nc1ccc(O)cc1"})
    cur = cmd.execute("next")["current"]
    assert cur["is_target"] and cur["is_terminal"] and cur["classification"] == "trivial"
    assert cur["availability"]["available"] and cur["node_id"] == "mol_0"


def test_queue_quick_pass_rules_and_queue_empty(tmp_path, monkeypatch):
    """Heavy atoms <= 6 -> terminal at once; a molecule with no disconnection and no FGI is skipped by
    `next`; the stock rule names the stock; then queue_empty."""
    stock = tmp_path / "bench.smi"
    stock.write_text("CCO\n", encoding="utf-8")  # neither precursor is in this stock
    # a toy engine whose single-step model proposes nothing
    cmd = RetroCmd(tmp_path / "s.json", engine=RetroEngine(model=DictSingleStepModel({})))
    cmd.execute("init", {"target": "O=C(Nc1ccc(O)cc1)C1CC1", "stock": str(stock), "terminal_cs_threshold": 0.0})
    cmd.execute("next")
    cmd.execute("try_precursors", {"precursors": ["O=C(Cl)C1CC1", "Nc1ccc(O)cc1"]})
    res = cmd.execute("commit", {"idx": 0, "reasoning": "acid chloride"})
    assert res["new_terminal"] == ["O=C(Cl)C1CC1"] and res["new_pending"] == ["Nc1ccc(O)cc1"]
    reasons = {t["smiles"]: t["reason"] for t in cmd.execute("tree")["terminals"]}
    assert reasons == {"O=C(Cl)C1CC1": "quick pass: 6 heavy atoms <= 6"}
    # nothing proposes a disconnection of 4-aminophenol: `next` marks it terminal and moves on
    from molx_agent.interfaces.session import engine

    monkeypatch.setattr(engine, "template_alternatives", lambda smiles: ({}, []))
    out = cmd.execute("next")
    assert out["action"] == "queue_empty" and out["tree_complete"] is True
    assert out["auto_terminal"] == [{"smiles": "Nc1ccc(O)cc1", "node_id": "mol_2",
                                     "reason": "no disconnectable bond and no FGI"}]


def test_a_failed_save_leaves_the_previous_file(paracetamol_awaiting, monkeypatch):
    """Saving is atomic: if the final rename fails, the old session is intact and no temp file is left."""
    import os

    path = paracetamol_awaiting.session_file
    before = path.read_bytes()

    def boom(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        paracetamol_awaiting.execute("try_precursors", {"precursors": ["CC(=O)Cl", "Nc1ccc(O)cc1"]})
    assert path.read_bytes() == before
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_protection_lifecycle_in_the_audit_state(tmp_path):
    """Retro order: the O-debenzylation is committed first (Bn 'removed' there, install planned), the
    O-benzylation later closes the entry (installed -> removed)."""
    stock = tmp_path / "bench.smi"
    stock.write_text("CC(=O)Cl\nBrCc1ccccc1\nNc1ccc(O)cc1\n", encoding="utf-8")
    cmd = RetroCmd(tmp_path / "s.json")
    cmd.execute("init", {"target": PARACETAMOL, "stock": str(stock), "terminal_cs_threshold": 1.0})
    cmd.execute("next")
    fgi = next(f["fgi_idx"] for f in cmd.execute("explore_fgi")["fgi"]
               if f["template_id"] == "G80_benzyl_deprotection_retro")
    cmd.execute("try_fgi", {"fgi_idx": fgi})
    assert cmd.execute("commit", {"idx": 0, "reasoning": "Bn"})["protection_events"] == ["Bn removed in rxn_1"]
    entry = cmd.state().audit.protections[0]
    assert (entry.protection, entry.install_step, entry.remove_step, entry.status) == (
        "Bn", "planned", "rxn_1", "planned")
    cmd.execute("next")
    cmd.execute("try_precursors", {"precursors": ["CC(=O)Cl", "Nc1ccc(OCc2ccccc2)cc1"]})
    cmd.execute("commit", {"idx": 0, "reasoning": "amide"})
    cmd.execute("next")
    cmd.execute("try_precursors", {"precursors": ["Nc1ccc(O)cc1", "BrCc1ccccc1"], "reaction_type": "Williamson"})
    res = cmd.execute("commit", {"idx": 0, "reasoning": "O-benzylation"})
    assert res["protection_events"] == ["Bn installed in rxn_3"] and res["tree_complete"]
    audit = cmd.state().audit
    assert len(audit.protections) == 1 and audit.protections[0].status == "removed"
    assert audit.protections[0].install_step == "rxn_3" and audit.protections[0].functional_group
    assert audit.linear_step_count == 3 and [d.step_id for d in audit.decision_history] == ["rxn_1", "rxn_2",
                                                                                            "rxn_3"]


def test_cycle_to_an_ancestor_is_refused(tmp_path):
    stock = tmp_path / "bench.smi"
    stock.write_text("CC(=O)Cl\n", encoding="utf-8")
    cmd = RetroCmd(tmp_path / "s.json")
    target = "CC(=O)Nc1ccc(OCc2ccccc2)cc1"
    cmd.execute("init", {"target": target, "stock": str(stock), "terminal_cs_threshold": 0.5})
    cmd.execute("next")
    cmd.execute("try_precursors", {"precursors": ["CC(=O)Cl", "Nc1ccc(OCc2ccccc2)cc1"]})
    cmd.execute("commit", {"idx": 0, "reasoning": "amide"})
    assert cmd.execute("next")["current"]["depth"] == 1
    before = cmd.state().graph.to_dict()
    loop = cmd.execute("try_precursors", {"precursors": [target, "O"]})
    assert not loop["success"] and loop["errors"][0]["code"] == "cycle"
    assert "ancestor mol_0" in loop["errors"][0]["message"]
    res = cmd.execute("commit", {"idx": 0, "reasoning": "loop", "override_gates": True})
    assert res["success"] is False and cmd.state().graph.to_dict() == before


def test_export_defaults_to_output_folder_of_the_seed(paracetamol_awaiting, tmp_path, monkeypatch):
    """Without output_dir, export writes to ./output/YYYYMMDD_HHMMSS_NAME/ (seed 001), or MOLX_OUTPUT_DIR if set."""
    from molx_agent.config import reset_settings_cache

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("MOLX_OUTPUT_DIR", raising=False)
    reset_settings_cache()
    res = paracetamol_awaiting.execute("export", {"name": "Paracetamol"})
    assert re.fullmatch(r"output/\d{8}_\d{6}_Paracetamol", res["output_dir"]), res["output_dir"]
    assert (tmp_path / res["html_report"]).is_file()
    monkeypatch.setenv("MOLX_OUTPUT_DIR", str(tmp_path / "mine"))
    reset_settings_cache()
    res = paracetamol_awaiting.execute("export", {"name": "Paracetamol"})
    assert res["output_dir"].startswith(str(tmp_path / "mine"))

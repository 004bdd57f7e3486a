"""The session examples run to a complete tree and export; the exported HTML passes the real-browser check."""

from __future__ import annotations

import json
import os
import runpy
import sys
from pathlib import Path

import pytest

from tests.browser import check_html_in_browser, require_chromium

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXPORTED = ("SYNTHESIS_REPORT.html", "SYNTHESIS_REPORT.md", "report.txt", "tree.json", "tree.txt",
            "terminals.json", "visualization.json", "session.json")


def _run_example(name: str, out: Path, monkeypatch) -> Path:
    monkeypatch.setattr(sys, "argv", [name, str(out)])
    runpy.run_path(str(EXAMPLES / name), run_name="__main__")
    folders = list((out / "output").iterdir())
    assert len(folders) == 1
    return folders[0]


@pytest.mark.parametrize("example,target,n_steps,sources", [
    ("session_paracetamol.py", "Paracetamol", 1, {"template"}),
    ("session_losartan.py", "Losartan", 3, {"llm_proposed", "fgi", "template"}),
])
def test_example_runs_to_completion_and_exports(example, target, n_steps, sources, tmp_path, monkeypatch,
                                                capsys):
    folder = _run_example(example, tmp_path, monkeypatch)
    assert folder.name.endswith(f"_{target}") and folder.name[:8].isdigit() and folder.name[8] == "_"
    assert sorted(p.name for p in folder.iterdir() if p.is_file()) == sorted(EXPORTED)
    session = json.loads((folder / "session.json").read_text(encoding="utf-8"))
    assert session["queue"] == [] and session["current"] is None
    assert session["status"]["status"] == "completed" and session["status"]["tree_complete"] is True
    steps = session["tree"]["reaction_nodes"]
    assert len(steps) == n_steps
    assert {s["template_evidence"]["source"] for s in steps} == sources
    assert all(s["llm_decision"]["selection_reasoning"] and s["forward_validation"]["pass"] for s in steps)
    history = session["audit_state"]["decision_history"]
    assert [h["outcome"] for h in history] == ["committed"] * n_steps
    terminals = json.loads((folder / "terminals.json").read_text(encoding="utf-8"))
    assert terminals and all(t["status"] == "in_stock" and t["source"] for t in terminals)
    images = {p.name for p in (folder / "images").iterdir()}
    assert {"synthesis_tree.png", "mol_0.png"} <= images
    assert {f"{s['step_id']}_reaction.png" for s in steps} <= images
    steps_text = "1 step" if n_steps == 1 else f"{n_steps} steps"
    assert f"{target}: {steps_text}, {len(terminals)} starting materials, visualization=✓" in (
        capsys.readouterr().out)


@pytest.mark.browser
@pytest.mark.parametrize("example,target", [("session_paracetamol.py", "Paracetamol"),
                                            ("session_losartan.py", "Losartan")])
def test_exported_session_report_in_chromium(example, target, tmp_path, monkeypatch):
    """Open the exported SYNTHESIS_REPORT.html in headless Chromium: no console error, no request
    leaving the page, every image loaded (target, tree, one per step, one per starting material); a
    full-page screenshot is saved (in ``$MOLX_SCREENSHOT_DIR`` when set)."""
    require_chromium()
    folder = _run_example(example, tmp_path, monkeypatch)
    session = json.loads((folder / "session.json").read_text(encoding="utf-8"))
    n_steps = len(session["tree"]["reaction_nodes"])
    n_sm = len(json.loads((folder / "terminals.json").read_text(encoding="utf-8")))
    shots = Path(os.environ.get("MOLX_SCREENSHOT_DIR") or tmp_path)  # set it to keep the screenshots
    shots.mkdir(parents=True, exist_ok=True)
    shot = shots / f"{target}_session_report.png"
    result = check_html_in_browser(folder / "SYNTHESIS_REPORT.html", shot)
    assert result.ok, result.problems
    assert result.n_images == 1 + 1 + n_steps + n_sm
    assert target in result.title and "Starting materials" in result.body_text
    assert shot.stat().st_size > 10_000

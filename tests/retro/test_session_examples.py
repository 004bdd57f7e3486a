"""The session examples run to the end, and the exported report passes the real-browser check."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import pytest

from tests.browser import check_html_in_browser, chromium_executable

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run_example(name: str, out: Path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "argv", [name, str(out)])
    runpy.run_path(str(EXAMPLES / name), run_name="__main__")


@pytest.mark.parametrize("example,target", [("session_paracetamol.py", "Paracetamol"),
                                            ("session_losartan.py", "Losartan")])
def test_example_runs_to_completion_and_exports(example, target, tmp_path, monkeypatch, capsys):
    _run_example(example, tmp_path, monkeypatch)
    folders = list((tmp_path / "output").iterdir())
    assert len(folders) == 1 and folders[0].name.endswith(f"_{target}")
    folder = folders[0]
    session = json.loads((folder / "session.json").read_text(encoding="utf-8"))
    assert session["queue"] == [] and session["current"] is None
    assert session["status"]["status"] in ("completed", "incomplete")
    assert session["tree"]["reaction_nodes"], "at least one committed step"
    assert (folder / "images" / "synthesis_tree.png").is_file()
    assert "visualization=✓" in capsys.readouterr().out
    if chromium_executable():
        result = check_html_in_browser(folder / "SYNTHESIS_REPORT.html", tmp_path / f"{target}.png")
        assert result.ok, result.problems
        assert result.n_images >= 4

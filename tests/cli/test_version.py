"""``molx-agent version``: run_version and the CLI."""

from __future__ import annotations

import json
from importlib.metadata import version

from typer.testing import CliRunner

from molx_agent import __version__
from molx_agent.cli.main import app
from molx_agent.cli.version import run_version

runner = CliRunner()


def test_run_version_reports_installed_versions():
    info = run_version()
    assert list(info) == ["molx-agent", "rdkit", "langgraph", "langchain-core", "mcp"]
    assert info["molx-agent"] == version("molx-agent") == __version__
    assert info["langgraph"] == version("langgraph")


def test_cli_version_text_and_json():
    res = runner.invoke(app, ["version"])
    assert res.exit_code == 0 and f"molx-agent {__version__}" in res.stdout
    res = runner.invoke(app, ["version", "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout) == run_version()

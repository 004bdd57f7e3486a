"""`molx-agent serve` settings and start-up errors: environment values, a missing server extra."""

from __future__ import annotations

import pytest


def test_server_settings_from_env(monkeypatch):
    from molx_agent.server.app import ServerSettings

    monkeypatch.setenv("MOLX_API_KEY", "k")
    monkeypatch.setenv("MOLX_MAX_UPLOAD_MB", "5")
    monkeypatch.setenv("MOLX_MAX_SEARCHES", "3")
    s = ServerSettings.from_env(port=9000)
    assert (s.api_key, s.max_upload_mb, s.max_searches, s.port, s.host) == ("k", 5.0, 3, 9000, "127.0.0.1")
    assert ServerSettings.from_env(api_key="explicit").api_key == "explicit"


@pytest.mark.parametrize("name,value", [("MOLX_MAX_UPLOAD_MB", "lots"), ("MOLX_MAX_SEARCHES", "0"),
                                        ("MOLX_SERVER_WORKERS", "-2")])
def test_bad_server_settings_are_clear_errors(monkeypatch, name, value):
    from molx_agent.errors import ConfigError
    from molx_agent.server.app import ServerSettings

    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigError) as err:
        ServerSettings.from_env()
    assert name in str(err.value)


def test_serve_without_the_server_extra_says_how_to_install_it(monkeypatch):
    import importlib.util

    from typer.testing import CliRunner

    from molx_agent.cli.main import app

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "uvicorn" else real(name, *a))
    res = CliRunner().invoke(app, ["serve", "--port", "8123"])
    assert res.exit_code == 2 and "molx-agent[server]" in res.stderr and "Traceback" not in res.output

"""The protocols moved from molx_agent/retro/ to molx_agent/interfaces/; every old import path still works and
names the very same module objects (no second copy of a module, so classes and registries are shared)."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest

SUBMODULES = {
    "skills": ["base", "registry", "propose_disconnection", "check_availability", "_common"],
    "pipeline": ["service", "orchestrator", "executors", "exploration", "limits", "models", "session_store"],
    "session": ["args", "commands", "engine", "schema", "state", "views"],
}


@pytest.mark.parametrize("package", sorted(SUBMODULES))
def test_old_package_and_submodules_are_the_new_modules(package):
    old = importlib.import_module(f"molx_agent.retro.{package}")
    new = importlib.import_module(f"molx_agent.interfaces.{package}")
    assert old is new
    for sub in SUBMODULES[package]:
        assert importlib.import_module(f"molx_agent.retro.{package}.{sub}") is importlib.import_module(
            f"molx_agent.interfaces.{package}.{sub}")


def test_documented_old_names():
    import molx_agent.retro.session.args as m

    import molx_agent.interfaces.session.args as new_args
    from molx_agent.interfaces.session import RetroCmd as NewRetroCmd
    from molx_agent.interfaces.skills import run_skill as new_run_skill
    from molx_agent.retro import RetroCmd
    from molx_agent.retro.skills import SKILL_REGISTRY, run_skill

    assert m is new_args and m.SPECS is new_args.SPECS
    assert RetroCmd is NewRetroCmd
    assert run_skill is new_run_skill and len(SKILL_REGISTRY) == 13


@pytest.mark.parametrize("order", ["old_first", "new_first"])
def test_identity_holds_in_a_fresh_process_whichever_path_comes_first(order):
    a, b = "molx_agent.retro.session.args", "molx_agent.interfaces.session.args"
    first, second = (a, b) if order == "old_first" else (b, a)
    code = (f"import importlib\nx = importlib.import_module({first!r})\ny = importlib.import_module({second!r})\n"
            "import molx_agent.retro.pipeline.service as s, molx_agent.interfaces.pipeline.service as t\n"
            "print(x is y and s is t)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "True"


def test_unknown_old_submodule_is_still_an_import_error():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("molx_agent.retro.skills.no_such_module")

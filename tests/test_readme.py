"""The README's examples run as written from a fresh clone (offline).

Every command of the README's ``bash`` blocks runs through the CLI in-process (``uv run molx-agent`` is the
console script of the same Typer app) in an empty folder holding the clone's ``examples/`` and ``config/``;
environment prefixes (``MCP_ENABLED=true ...``) and a ``printf ... |`` pipe into ``chat`` are honoured, and the
``python`` blocks run in a subprocess.  The one placeholder, the chat session id, is replaced by the id the
previous ``chat`` printed.  Searches run as written in the ``slow`` test; the default test runs them with short
limits (``--time-limit``/``time limit`` in the query).  ``make`` targets are not run (``make test`` would
recurse; ``make demo`` installs).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.conftest import REPO_ROOT

README = REPO_ROOT / "README.md"
CHAT_ID_PLACEHOLDER = "3f2a9c0b1d2e"
RUN_ID_PLACEHOLDER = "9c1e0f2a7b3d4e5f"  # `run --resume ID`: the thread id an earlier `run ... --json` printed
SHORT_ROUTE = ["--time-limit", "5", "--max-expansions", "100"]


def readme_blocks(language: str) -> list[str]:
    """The bodies of the README's fenced blocks in ``language``."""
    text = README.read_text(encoding="utf-8")
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def readme_commands() -> list[list[str]]:
    """Every shell command of the README's ``bash`` blocks as words (trailing comments dropped), in order."""
    out = []
    for block in readme_blocks("bash"):
        for line in block.splitlines():
            words = shlex.split(line, comments=True)
            if words:
                out.append(words)
    return out


def is_search(words: list[str]) -> bool:
    return words[3:4] == ["route"] or any(w.startswith("Plan a synthesis") for w in words)


def shorten(args: list[str]) -> list[str]:
    """A search with short limits (the default test); everything else unchanged."""
    if args[:1] == ["route"]:
        kept, skip = [], False
        for w in args:
            if skip:
                skip = False
                continue
            if w in ("--time-limit", "--max-expansions"):
                skip = True
                continue
            kept.append(w)
        return kept + SHORT_ROUTE
    return [w + ", time limit 5" if w.startswith("Plan a synthesis") else w for w in args]


def split_command(words: list[str]) -> tuple[dict[str, str], str | None, list[str]]:
    """``(environment prefix, piped stdin, molx-agent arguments)`` of one README command."""
    stdin = None
    if "|" in words:
        bar = words.index("|")
        assert words[0] == "printf" and bar == 2, words
        stdin = words[1].encode("latin-1", "backslashreplace").decode("unicode_escape")
        words = words[bar + 1:]
    env = {}
    while words and re.fullmatch(r"[A-Z_]+=\S*", words[0]):
        key, value = words[0].split("=", 1)
        env[key] = value
        words = words[1:]
    assert words[:3] == ["uv", "run", "molx-agent"], f"README command does not use `uv run molx-agent`: {words}"
    return env, stdin, words[3:]


@pytest.fixture
def fresh_clone(tmp_path, monkeypatch):
    """An empty working folder with the clone's ``examples/`` and ``config/`` (nothing else of the repo)."""
    work = tmp_path / "clone"
    work.mkdir()
    for name in ("examples", "config"):
        (work / name).symlink_to(REPO_ROOT / name, target_is_directory=True)
    monkeypatch.chdir(work)
    monkeypatch.setenv("MOLX_LLM_PROVIDER", "rules")
    return work


def run_readme(monkeypatch, *, short: bool) -> list[str]:
    """Run every README command; returns the ones that failed (with their output)."""
    from molx_agent.cli.main import app
    from molx_agent.config import reset_settings_cache

    runner = CliRunner()
    failures: list[str] = []
    chat_id = None
    run_id = None
    for words in readme_commands():
        if words[0] == "make":
            continue
        command = shlex.join(words)
        env, stdin, args = split_command(words)
        if short and is_search(words):
            args = shorten(args)
        if CHAT_ID_PLACEHOLDER in args:
            assert chat_id, "the README resumes a chat before starting one"
            args = [chat_id if a == CHAT_ID_PLACEHOLDER else a for a in args]
        if RUN_ID_PLACEHOLDER in args:
            assert run_id, "the README resumes a run before a `run --json` printed its thread id"
            args = [run_id if a == RUN_ID_PLACEHOLDER else a for a in args]
        with monkeypatch.context() as m:
            for key, value in env.items():
                m.setenv(key, value)
            reset_settings_cache()
            if stdin is None and args[:1] == ["chat"]:  # an interactive chat: the user asks one question
                stdin = "What is the molecular weight of aspirin?\n"
            res = runner.invoke(app, args, input=stdin if stdin is not None else "")
        reset_settings_cache()
        if args[:1] == ["chat"] and "--session" not in args:
            found = re.search(r"\(session (\w+)\)", res.stderr)
            chat_id = found.group(1) if found else None
        if args[:1] == ["run"] and "--json" in args and res.exit_code in (0, 1):
            found = re.search(r'"thread_id": "(\w+)"', res.stdout)
            run_id = found.group(1) if found else run_id
        if res.exit_code != 0 or "Traceback" in res.output:
            failures.append(f"{command}\n  -> exit {res.exit_code}\n{res.output[-1500:]}")
    return failures


def test_readme_commands_are_all_checked():
    commands = readme_commands()
    assert len(commands) >= 15
    for words in commands:
        if words[0] != "make":
            split_command(words)  # every command is `uv run molx-agent ...` (with an env prefix or a pipe)
        for word in words:  # no example names a file a fresh clone does not have
            for part in word.split(","):
                if re.fullmatch(r"[\w./-]+\.(csv|xlsx|smi|json|sdf)", part) and not part.startswith("runs/"):
                    assert (REPO_ROOT / part).is_file(), f"{shlex.join(words)}: {part} is not in the repository"


def test_readme_commands_run(fresh_clone, monkeypatch):
    failures = run_readme(monkeypatch, short=True)
    assert not failures, "\n\n".join(failures)


@pytest.mark.slow
def test_readme_commands_run_as_written_with_full_searches(fresh_clone, monkeypatch):
    failures = run_readme(monkeypatch, short=False)
    assert not failures, "\n\n".join(failures)


def test_readme_python_blocks_run(fresh_clone):
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    for code in readme_blocks("python"):
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300, env=env,
                              cwd=fresh_clone)
        assert proc.returncode == 0, proc.stderr[-2000:]


def test_gitignore_covers_what_the_examples_write():
    ignored = Path(REPO_ROOT / ".gitignore").read_text(encoding="utf-8").split()
    for folder in ("outputs/", "output/", "reports/", "runs/"):
        assert folder in ignored

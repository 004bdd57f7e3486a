"""Two writers at once and writers killed with SIGKILL: nothing is lost, nothing is corrupted.

- Two processes each make attempts (``try_precursors``) on one interactive-session file at the same moment:
  every attempt of both persists (the session file is locked from load to save).  Before the lock, one of the two
  writers' attempts vanished 5 times out of 5.
- A writer that finds the session locked for longer than ``MOLX_LOCK_TIMEOUT`` fails clearly (exit 1, the file
  unchanged); two processes adding routes to one pipeline session keep both routes.
- A process killed with SIGKILL while writing a session file, a pipeline session, any atomically written file or
  the chat database leaves a file that loads (the last complete version), never half a file.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from molx_agent.cli.main import app
from molx_agent.config import reset_settings_cache
from molx_agent.interfaces.session import RetroCmd
from molx_agent.io_utils import file_lock, timestamped_dir
from tests.conftest import REPO_ROOT
from tests.hostile.child_writer import PARACETAMOL, toy_engine

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL") or sys.platform == "win32", reason="POSIX only")


def spawn(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    full_env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "tests.hostile.child_writer", *args], cwd=REPO_ROOT, env=full_env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen, timeout: float = 120) -> None:
    out, err = proc.communicate(timeout=timeout)
    assert proc.returncode == 0, err[-3000:]


def wait_for(path: Path, proc: subprocess.Popen, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, proc.communicate()[1][-3000:]
        assert time.monotonic() < end, "the child never started writing"
        time.sleep(0.01)


@pytest.fixture
def awaiting_session(tmp_path):
    """A session file whose target is awaiting a decision (init + next), on the toy engine."""
    path = tmp_path / "s.json"
    cmd = RetroCmd(path, engine=toy_engine())
    cmd.execute("init", {"target": PARACETAMOL})
    cmd.execute("next")
    return path


def attempts(path: Path) -> list[dict]:
    state = json.loads(path.read_text(encoding="utf-8"))
    return state["current"]["sandbox"]["attempts"]


# -- two writers ----------------------------------------------------------------------------------------------------
def test_two_concurrent_try_precursors_writers_both_persist(awaiting_session, tmp_path):
    go = tmp_path / "go"
    n = 3
    children = [spawn("session", str(awaiting_session), str(n), str(tag), env={"GO": str(go)}) for tag in (0, 1)]
    time.sleep(0.5)  # let both import and reach the barrier
    go.touch()
    for child in children:
        finish(child)
    kinds = sorted(a.get("reaction_type", "") for a in attempts(awaiting_session))
    expected = sorted(f"child {tag} attempt {i}" for tag in (0, 1) for i in range(n))
    assert kinds == expected, "an attempt was lost"


def test_a_session_locked_too_long_fails_clearly_and_unchanged(awaiting_session, monkeypatch):
    monkeypatch.setenv("MOLX_LOCK_TIMEOUT", "0.3")
    reset_settings_cache()
    before = awaiting_session.read_bytes()
    lock = awaiting_session.parent / f".{awaiting_session.name}.lock"
    with file_lock(lock, timeout=1):  # another process holds the session
        start = time.monotonic()
        res = CliRunner().invoke(app, ["session", "try_precursors", "--session", str(awaiting_session), "--args",
                                       json.dumps({"precursors": ["CC(=O)Cl", "Nc1ccc(O)cc1"]})])
        waited = time.monotonic() - start
    assert res.exit_code == 1 and "is busy" in res.stderr and "Traceback" not in res.output
    assert waited >= 0.3 and awaiting_session.read_bytes() == before


def test_read_only_session_commands_do_not_wait_for_the_lock(awaiting_session, monkeypatch):
    monkeypatch.setenv("MOLX_LOCK_TIMEOUT", "0.2")
    reset_settings_cache()
    with file_lock(awaiting_session.parent / f".{awaiting_session.name}.lock", timeout=1):
        res = CliRunner().invoke(app, ["session", "status", "--session", str(awaiting_session)])
    assert res.exit_code == 0


def test_two_processes_adding_routes_to_one_pipeline_session_keep_both(tmp_path):
    from molx_agent.interfaces.pipeline.service import plan_session
    from molx_agent.interfaces.pipeline.session_store import SessionStore

    directory = tmp_path / "pipeline"
    plan_session(PARACETAMOL, directory, with_proposals=False, engine=toy_engine())
    go = tmp_path / "go"
    children = [spawn("pipeline", str(directory), "2", env={"GO": str(go)}) for _ in range(2)]
    time.sleep(0.5)
    go.touch()
    for child in children:
        finish(child)
    store = SessionStore(directory)
    meta = store.load_meta()
    assert len(meta["routes"]) == 5 == len(set(meta["routes"]))
    for route_id in meta["routes"]:
        store.load_route(route_id)


def test_timestamped_dirs_created_at_the_same_second_are_distinct(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(8) as pool:
        dirs = list(pool.map(lambda _: timestamped_dir(tmp_path, "same"), range(16)))
    assert len(set(dirs)) == 16 and all(d.is_dir() for d in dirs)


# -- SIGKILL mid-write ----------------------------------------------------------------------------------------------
def kill_rounds(role: str, args: list[str], tmp_path: Path, check, rounds: int = 3):
    """Start the writer ``rounds`` times, SIGKILL it at a random moment while it writes, check the file each time."""
    rng = random.Random(29)
    for r in range(rounds):
        ready = tmp_path / f"ready_{role}_{r}"
        child = spawn(role, *args, env={"READY": str(ready)})
        try:
            wait_for(ready, child)
            time.sleep(rng.uniform(0.05, 0.6))
            assert child.poll() is None, child.communicate()[1][-3000:]
        finally:
            child.send_signal(signal.SIGKILL)
            child.communicate()
        check()


def test_sigkill_while_writing_a_session_file(awaiting_session, tmp_path):
    from molx_agent.interfaces.session.state import load_session

    def check():
        state = load_session(awaiting_session)  # loads and passes the schema checks
        assert state.current is not None

    kill_rounds("session-loop", [str(awaiting_session)], tmp_path, check)


def test_sigkill_while_adding_routes_to_a_pipeline_session(tmp_path):
    from molx_agent.interfaces.pipeline.session_store import SessionStore

    directory = tmp_path / "pipeline"

    def check():
        store = SessionStore(directory)
        if not store.exists():
            return
        for route_id in store.load_meta()["routes"]:
            store.load_route(route_id)

    kill_rounds("pipeline", [str(directory), "1000"], tmp_path, check)


def test_sigkill_while_writing_a_file_atomically(tmp_path):
    path = tmp_path / "routes.json"

    def check():
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert doc["version"] == doc["end"]

    kill_rounds("atomic", [str(path)], tmp_path, check)
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert all(name.startswith(".routes.json.") for name in leftovers)  # hidden, beside the file, never the file


def test_sigkill_during_a_chat_turn_keeps_the_database_usable(tmp_path):
    home = tmp_path / "home"
    home.mkdir()

    def check():
        from molx_agent.agents.molx import ChatSession
        from molx_agent.config import get_settings

        with ChatSession("killed", settings=get_settings(molx_home=home, llm_provider="rules"), llm=None) as chat:
            history = chat.history()
            assert all(m["role"] in ("user", "assistant") for m in history)

    kill_rounds("chat", [str(home)], tmp_path, check, rounds=2)

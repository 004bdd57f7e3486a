"""Sessions on a Postgres checkpointer (`serve --checkpointer postgresql://...`): a throw-away PostgreSQL server
(the machine's `initdb`/`pg_ctl`, on 127.0.0.1, stopped at the end) and the `postgres` extra; skipped when either
is missing."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import free_port, toy_agent_factory

pytestmark = pytest.mark.server


def _pg_bin(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    for base in sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True):
        if (base / name).is_file():
            return str(base / name)
    return None


@pytest.fixture
def postgres_url():
    pytest.importorskip("langgraph.checkpoint.postgres", reason="the postgres extra is not installed")
    initdb, pg_ctl = _pg_bin("initdb"), _pg_bin("pg_ctl")
    if not initdb or not pg_ctl:
        pytest.skip("PostgreSQL server binaries (initdb, pg_ctl) not installed")
    prefix: list[str] = []
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="molx_pg_"))  # not under pytest's basetemp: the postgres user must reach it
    if os.geteuid() == 0:  # postgres refuses to run as root
        if not shutil.which("runuser"):
            pytest.skip("running as root without runuser")
        try:
            shutil.chown(base, "postgres")
        except (LookupError, OSError):
            shutil.rmtree(base, ignore_errors=True)
            pytest.skip("no postgres user to run the server as")
        prefix = ["runuser", "-u", "postgres", "--"]
    data, port = base / "data", free_port()
    subprocess.run([*prefix, initdb, "-D", str(data), "-A", "trust", "-U", "molx"], check=True, capture_output=True,
                   timeout=120)
    subprocess.run([*prefix, pg_ctl, "-D", str(data), "-o", f"-k {base} -h 127.0.0.1 -p {port}", "-l",
                    str(base / "log"), "-w", "-t", "60", "start"], check=True, capture_output=True, timeout=90)
    try:
        yield f"postgresql://molx@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*prefix, pg_ctl, "-D", str(data), "-m", "immediate", "stop"], capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)


def test_sessions_on_postgres_survive_a_restart(make_app, postgres_url, tmp_path):
    with TestClient(make_app(checkpointer_url=postgres_url), raise_server_exceptions=False) as c:
        assert c.get("/health").json()["checkpointer"] == "postgres"
        sid = c.post("/api/v1/sessions", json={"name": "pg"}).json()["id"]
        r = c.post("/api/v1/agent/invoke", json={"query": "MW of aspirin", "session_id": sid})
        assert r.status_code == 200 and "180.16" in r.json()["final_answer"]
        c.post("/api/v1/agent/invoke", json={"query": "and its logP?", "session_id": sid})
        other = c.post("/api/v1/agent/invoke", json={"query": "MW of caffeine"}).json()["session_id"]
    # a new server process on the same database: the conversation is there
    with TestClient(make_app(checkpointer_url=postgres_url, agent=toy_agent_factory(tmp_path)),
                    raise_server_exceptions=False) as c:
        ids = [s["id"] for s in c.get("/api/v1/sessions").json()["sessions"]]
        assert sid in ids and other in ids
        hist = c.get(f"/api/v1/sessions/{sid}/history").json()["messages"]
        assert [m["content"] for m in hist if m["role"] == "user"] == ["MW of aspirin", "and its logP?"]
        assert c.delete(f"/api/v1/sessions/{sid}").status_code == 200
        assert sid not in [s["id"] for s in c.get("/api/v1/sessions").json()["sessions"]]
        assert c.get(f"/api/v1/sessions/{other}").status_code == 200

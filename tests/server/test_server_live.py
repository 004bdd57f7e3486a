"""A real server on 127.0.0.1: uvicorn in a thread (SSE arrives as it happens, concurrent clients) and the
`molx-agent serve` command in a subprocess (binds 127.0.0.1, refuses a bad checkpointer URL clearly)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from tests.server.conftest import SERIES_CSV, free_port, sse_events

pytestmark = pytest.mark.server


def test_live_stream_upload_and_concurrent_sessions(live_server):
    server = live_server(api_key="k1")
    h = {"Authorization": "Bearer k1"}
    with httpx.Client(base_url=server.url, timeout=60) as c:
        assert c.get("/health").status_code == 401
        assert c.get("/health", headers=h).json()["status"] == "ok"
        assert c.get("/").status_code == 200  # the page needs no key
        sid = c.post("/api/v1/sessions", headers=h).json()["id"]
        r = c.post(f"/api/v1/sessions/{sid}/files", headers=h, files={"file": ("series.csv", SERIES_CSV.read_bytes())})
        assert r.status_code == 201
        # SSE: read the events as they come
        seen = []
        with c.stream("POST", "/api/v1/agent/stream", headers=h,
                      json={"query": "Plan a synthesis of paracetamol", "session_id": sid}) as resp:
            assert resp.headers["content-type"].startswith("text/event-stream")
            buf = ""
            for chunk in resp.iter_text():
                buf += chunk
                while "\n\n" in buf:
                    block, buf = buf.split("\n\n", 1)
                    seen.extend(sse_events(block + "\n\n"))
        kinds = [e["event"] for e in seen]
        assert kinds[0] == "session" and "node_start" in kinds and kinds[-1] == "final"
        assert any(e["event"] == "progress" for e in seen)
        assert seen[-1]["status"] == "done" and any(f["path"].endswith(".html") for f in seen[-1]["files"])

        def ask(i: int) -> tuple[str, str]:
            s = c.post("/api/v1/sessions", headers=h).json()["id"]
            doc = c.post("/api/v1/agent/invoke", headers=h, json={"query": "MW of aspirin", "session_id": s}).json()
            return s, doc["final_answer"]

        with ThreadPoolExecutor(6) as pool:
            out = list(pool.map(ask, range(6)))
        assert all("180.16" in a for _, a in out) and len({s for s, _ in out}) == 6
        for s, _ in out:
            assert len(c.get(f"/api/v1/sessions/{s}/history", headers=h).json()["messages"]) == 2


def _serve(args, env, port):
    proc = subprocess.Popen([sys.executable, "-m", "molx_agent.cli.main", "serve", "--port", str(port), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    return proc


def test_cli_serve_binds_localhost_and_stops(tmp_path):
    port = free_port()
    env = {**os.environ, "MOLX_HOME": str(tmp_path / "home"), "MOLX_OUTPUT_DIR": str(tmp_path / "out"),
           "MOLX_LLM_PROVIDER": "rules"}
    proc = _serve([], env, port)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stderr.read()
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)
        assert r.json()["status"] == "ok"
        out = subprocess.run(["ss", "-ltn"], capture_output=True, text=True).stdout if os.path.exists("/usr/bin/ss") \
            or os.path.exists("/bin/ss") else ""
        if out:
            lines = [ln for ln in out.splitlines() if f":{port} " in ln]
            assert lines and all("127.0.0.1:" in ln for ln in lines), lines
        doc = httpx.post(f"http://127.0.0.1:{port}/api/v1/agent/invoke", json={"query": "MW of aspirin"},
                         timeout=60).json()
        assert "180.16" in doc["final_answer"]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def test_cli_serve_bad_checkpointer_is_a_clear_error(tmp_path):
    env = {**os.environ, "MOLX_HOME": str(tmp_path / "home")}
    res = subprocess.run([sys.executable, "-m", "molx_agent.cli.main", "serve", "--port", str(free_port()),
                          "--checkpointer", "mysql://x"], capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 2 and "unsupported checkpointer URL" in res.stderr and "Traceback" not in res.stderr
    res = subprocess.run([sys.executable, "-m", "molx_agent.cli.main", "serve", "--port", "70000"],
                         capture_output=True, text=True, env=env, timeout=60)
    assert res.returncode == 2 and "--port" in res.stderr


def test_postgres_url_without_a_reachable_database_is_a_clear_error(tmp_path):
    from molx_agent.errors import ConfigError
    from molx_agent.server.store import open_checkpointer

    with pytest.raises(ConfigError) as err:
        open_checkpointer(f"postgresql://nobody:pw@127.0.0.1:{free_port()}/molx", tmp_path)
    assert err.value.code in ("postgres_unavailable", "checkpointer_unavailable")
    assert "pw" not in str(err.value)

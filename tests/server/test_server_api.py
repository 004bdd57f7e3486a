"""The HTTP API on a toy retrosynthesis engine (TestClient): agent invoke/stream/batch, sessions, files, depiction,
health, JSON errors."""

from __future__ import annotations

from tests.server.conftest import SERIES_CSV, sse_events


def _new_session(client, **body):
    r = client.post("/api/v1/sessions", json=body or None)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def test_health_page_and_docs(client):
    h = client.get("/health").json()
    assert h["status"] == "ok" and h["checkpointer"] == "sqlite" and h["max_searches"] == 2
    page = client.get("/")
    assert page.status_code == 200 and "molx-agent" in page.text and "/static/app.js" in page.text
    assert "default-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/static/app.css").status_code == 200
    spec = client.get("/openapi.json").json()
    for path in ("/api/v1/agent/invoke", "/api/v1/agent/stream", "/api/v1/agent/resume", "/api/v1/agent/batch",
                 "/api/v1/sessions", "/api/v1/sessions/{session_id}", "/api/v1/sessions/{session_id}/history",
                 "/api/v1/sessions/{session_id}/files", "/api/v1/sessions/{session_id}/files/{path}", "/health"):
        assert path in spec["paths"], path
    assert "openapi.json" in client.get("/static/docs.js").text and client.get("/docs").status_code == 200


def test_page_loads_nothing_from_outside():
    """Offline: the page and its scripts name no host (no CDN)."""
    import re
    from pathlib import Path

    static = Path(__import__("molx_agent.server.app", fromlist=["STATIC_DIR"]).STATIC_DIR)
    for f in static.iterdir():
        text = f.read_text(encoding="utf-8")
        assert not re.search(r"(src|href)=[\"']?(https?:)?//", text), f.name
        assert "http://" not in text and "https://" not in text, f.name


def test_sessions_create_list_get_history_delete(client):
    sid = _new_session(client, name="GSK3B series")
    assert any(s["id"] == sid and s["name"] == "GSK3B series" for s in client.get("/api/v1/sessions").json()["sessions"])
    r = client.post("/api/v1/agent/invoke", json={"query": "What is the molecular weight of aspirin?", "session_id": sid})
    assert r.status_code == 200, r.text
    doc = r.json()
    assert doc["status"] == "done" and doc["session_id"] == sid and "180.16" in doc["final_answer"]
    detail = client.get(f"/api/v1/sessions/{sid}").json()
    assert detail["n_turns"] == 1 and detail["interrupt"] is None
    hist = client.get(f"/api/v1/sessions/{sid}/history").json()
    assert [m["role"] for m in hist["messages"]] == ["user", "assistant"]
    assert hist["turns"][0]["query"] == "What is the molecular weight of aspirin?"
    # a second turn in the same session sees the first (same checkpointer thread)
    client.post("/api/v1/agent/invoke", json={"query": "and its logP?", "session_id": sid})
    assert len(client.get(f"/api/v1/sessions/{sid}/history").json()["messages"]) == 4
    assert client.delete(f"/api/v1/sessions/{sid}").json() == {"deleted": sid}
    r = client.get(f"/api/v1/sessions/{sid}")
    assert r.status_code == 404 and r.json()["error"]["code"] == "session_not_found"
    assert all(s["id"] != sid for s in client.get("/api/v1/sessions").json()["sessions"])


def test_sessions_are_the_chat_sessions(client, tmp_path):
    """A session started with `molx-agent chat` is listed and readable (same SQLite file under MOLX_HOME)."""
    from molx_agent.cli.chat import run_chat

    run_chat("from-chat", lines=["MW of aspirin"], out=lambda s: None, err=lambda s: None, llm="rules",
             interactive=False)
    ids = [s["id"] for s in client.get("/api/v1/sessions").json()["sessions"]]
    assert "from-chat" in ids
    hist = client.get("/api/v1/sessions/from-chat/history").json()
    assert hist["messages"][0]["content"] == "MW of aspirin"
    r = client.post("/api/v1/agent/invoke", json={"query": "and its logP?", "session_id": "from-chat"})
    assert r.status_code == 200 and r.json()["session_id"] == "from-chat"


def test_invoke_without_session_creates_one_and_checks_input(client):
    r = client.post("/api/v1/agent/invoke", json={"query": "logP of ibuprofen"})
    assert r.status_code == 200
    sid = r.json()["session_id"]
    assert client.get(f"/api/v1/sessions/{sid}").status_code == 200
    for body, code in [({"query": ""}, "empty_query"), ({"query": "x", "options": {"bogus": 1}}, "invalid_options"),
                       ({"query": "x", "options": {"search_time": -1}}, "invalid_search_time"),
                       ({"query": "x", "session_id": "nosuch"}, "session_not_found"),
                       ({"query": "x", "session_id": "../etc"}, "invalid_session_id"),
                       ({"quer": "x"}, "invalid_request"), ({"query": 5}, "invalid_request")]:
        r = client.post("/api/v1/agent/invoke", json=body)
        assert r.status_code in (400, 404, 422), (body, r.text)
        assert r.json()["error"]["code"] == code, (body, r.json())
        assert "Traceback" not in r.text


def test_stream_emits_node_events_and_the_final_answer(client):
    sid = _new_session(client)
    r = client.post("/api/v1/agent/stream", json={"query": "MW of caffeine", "session_id": sid})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    events = sse_events(r.text)
    kinds = [e["event"] for e in events]
    assert kinds[0] == "session" and events[0]["session_id"] == sid
    assert "node_start" in kinds and kinds[-1] == "final"
    final = events[-1]
    assert "194.19" in final["final_answer"] and final["session_id"] == sid and final["thread_id"] == sid


def test_route_question_gives_routes_and_report_files(client):
    sid = _new_session(client)
    doc = client.post("/api/v1/agent/invoke", json={"query": "Plan a synthesis of paracetamol", "session_id": sid,
                                                    "options": {"search_time": 5}}).json()
    assert doc["status"] == "done", doc
    routes = [r for r in doc["results"].values() if isinstance(r, dict) and r.get("routes")]
    assert routes and routes[0]["solved"]
    tree = routes[0]["routes"][0]
    assert tree["metadata"]["route"]["confidence"] in ("high", "medium", "low")
    assert tree["children"][0]["metadata"]["reaction_name"] == "N-acetylation"
    leaves = tree["children"][0]["children"]
    assert {leaf["metadata"]["availability"]["tier"] for leaf in leaves} == {"verified"}
    paths = [f["path"] for f in doc["files"]]
    html = [p for p in paths if p.endswith("SYNTHESIS_REPORT.html")]
    assert html and all(p.startswith("reports/") for p in paths)
    assert any(p.endswith("tree.json") for p in paths)
    listed = [f["path"] for f in client.get(f"/api/v1/sessions/{sid}/files").json()["files"]]
    assert set(paths) <= set(listed)
    r = client.get(f"/api/v1/sessions/{sid}/files/{html[0]}")
    assert r.status_code == 200 and "paracetamol" in r.text
    assert r.headers["content-security-policy"] == "sandbox" and "attachment" in r.headers["content-disposition"]


def test_upload_series_and_get_the_sar_report(client):
    sid = _new_session(client)
    with SERIES_CSV.open("rb") as fh:
        r = client.post(f"/api/v1/sessions/{sid}/files", files={"file": ("series.csv", fh, "text/csv")})
    assert r.status_code == 201, r.text
    assert r.json()["path"] == "uploads/series.csv" and r.json()["size"] == SERIES_CSV.stat().st_size
    doc = client.post("/api/v1/agent/invoke", json={"query": "Analyse the SAR of this series", "session_id": sid,
                                                    "files": ["series.csv"]}).json()
    assert doc["status"] == "done", doc
    html = [f for f in doc["files"] if f["path"].endswith(".html")]
    assert html, doc["files"]
    report = client.get(f"/api/v1/sessions/{sid}/files/{html[0]['path']}", params={"inline": True})
    assert report.status_code == 200 and "inline" in report.headers["content-disposition"]
    assert "GSK3B" in report.text
    # the upload downloads as it was sent
    assert client.get(f"/api/v1/sessions/{sid}/files/uploads/series.csv").content == SERIES_CSV.read_bytes()


def test_query_naming_an_uploaded_file_uses_the_session_copy(client):
    sid = _new_session(client)
    client.post(f"/api/v1/sessions/{sid}/files", files={"file": ("series.csv", SERIES_CSV.read_bytes())})
    doc = client.post("/api/v1/agent/invoke", json={"query": "Analyse the SAR of examples/series.csv",
                                                    "session_id": sid}).json()
    assert doc["status"] == "done" and any(f["path"].endswith(".html") for f in doc["files"]), doc


def test_batch(client):
    r = client.post("/api/v1/agent/batch", json={"queries": ["MW of aspirin", {"query": "logP of ibuprofen"}, ""]})
    assert r.status_code == 200, r.text
    res = r.json()
    assert res["n_errors"] == 1 and res["results"][2]["error"]["code"] == "empty_query"
    assert "180.16" in res["results"][0]["final_answer"] and "3.07" in res["results"][1]["final_answer"]
    assert res["results"][0]["session_id"] != res["results"][1]["session_id"]
    r = client.post("/api/v1/agent/batch", json={"queries": ["x"] * 21})
    assert r.status_code == 400 and r.json()["error"]["code"] == "batch_too_large"


def test_depict(client):
    r = client.get("/api/v1/depict", params={"smiles": "CC(=O)Nc1ccc(O)cc1"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml") and "<svg" in r.text
    r = client.get("/api/v1/depict", params={"smiles": "CC(=O)OC(C)=O.Nc1ccc(O)cc1>>CC(=O)Nc1ccc(O)cc1"})
    assert r.status_code == 200 and "<svg" in r.text
    r = client.get("/api/v1/depict", params={"smiles": "C1CC(("})
    assert r.status_code == 400 and r.json()["error"]["code"] in ("invalid_smiles", "smiles_contains_whitespace")


def test_unknown_route_and_method_are_json(client):
    r = client.get("/api/v1/nope")
    assert r.status_code == 404 and r.json()["error"]["code"] == "not_found"
    r = client.get("/api/v1/agent/invoke")
    assert r.status_code == 405 and r.json()["error"]["code"] == "method_not_allowed"


def test_internal_errors_are_json_without_traceback(make_app):
    from fastapi.testclient import TestClient

    class Broken:
        def invoke(self, *a, **k):
            raise RuntimeError("secret internals /etc/shadow")

    with TestClient(make_app(agent=lambda molx, cp: Broken()), raise_server_exceptions=False) as c:
        r = c.post("/api/v1/agent/invoke", json={"query": "MW of aspirin"})
        assert r.status_code == 500
        assert r.json()["error"]["code"] == "internal_error" and "secret" not in r.text and "Traceback" not in r.text
        events = sse_events(c.post("/api/v1/agent/stream", json={"query": "MW of aspirin"}).text)
        assert events[-1]["event"] == "error" and events[-1]["code"] == "internal_error"

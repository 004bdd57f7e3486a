"""Interrupts over HTTP: plan approval and route choice answered through /agent/resume (JSON and SSE), with a small
agent implementing the contract and with the real agent on a toy two-route engine."""

from __future__ import annotations

import json

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import sse_events, two_route_agent_factory

ROUTE_QUERY = "Plan a synthesis of CC(=O)Nc1ccc(O)cc1"


@pytest.fixture
def fake(make_app):
    with TestClient(make_app(agent="fake"), raise_server_exceptions=False) as c:
        yield c


@pytest.fixture
def real(make_app, tmp_path):
    with TestClient(make_app(agent=two_route_agent_factory(tmp_path)), raise_server_exceptions=False) as c:
        yield c


def test_contract_agent_stream_interrupt_then_resume(fake):
    events = sse_events(fake.post("/api/v1/agent/stream", json={"query": "route to paracetamol"}).text)
    sid = events[0]["session_id"]
    assert events[-1]["event"] == "interrupt" and events[-1]["interrupt"]["kind"] == "plan_approval"
    assert events[-1]["session_id"] == sid
    # the session shows the pending question (a page reloaded mid-run can answer it)
    assert fake.get(f"/api/v1/sessions/{sid}").json()["interrupt"]["kind"] == "plan_approval"
    r = fake.post("/api/v1/agent/resume", json={"session_id": sid, "answer": {"approve": True}})
    assert r.status_code == 200 and r.json()["status"] == "interrupted"
    assert r.json()["interrupt"]["kind"] == "route_choice"
    events = sse_events(fake.post("/api/v1/agent/resume/stream", json={"thread_id": sid, "answer": {"route": 1}}).text)
    kinds = [e["event"] for e in events]
    assert "node_start" in kinds and "progress" in kinds and kinds[-1] == "final"
    assert "Beckmann" in events[-1]["final_answer"] and events[-1]["session_id"] == sid
    assert fake.get(f"/api/v1/sessions/{sid}").json()["interrupt"] is None
    assert fake.get(f"/api/v1/sessions/{sid}/history").json()["turns"][0]["answer"].startswith("Plan approved")


def test_resume_errors(fake):
    r = fake.post("/api/v1/agent/resume", json={"answer": {"approve": True}})
    assert r.status_code == 400 and r.json()["error"]["code"] == "missing_session_id"
    r = fake.post("/api/v1/agent/resume", json={"session_id": "nosuch", "answer": {"approve": True}})
    assert r.status_code == 404 and r.json()["error"]["code"] == "session_not_found"


def test_real_agent_plan_approval_then_route_choice(real):
    sid = real.post("/api/v1/sessions").json()["id"]
    body = {"query": ROUTE_QUERY, "session_id": sid, "options": {"confirm_plan": True, "choose_route": True}}
    events = sse_events(real.post("/api/v1/agent/stream", json=body).text)
    intr = [e for e in events if e["event"] == "interrupt"]
    assert intr and intr[0]["interrupt"]["kind"] == "plan_approval" and intr[0]["thread_id"] == sid
    assert not any(e["event"] == "node_start" and e.get("node") == "work" for e in events)  # nothing ran yet
    assert events[-1]["event"] == "final" and events[-1]["status"] == "interrupted"
    # an invalid answer: a clear error, the question still waits
    r = real.post("/api/v1/agent/resume", json={"session_id": sid, "answer": {"approve": "yes please"}})
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_answer"
    assert real.get(f"/api/v1/sessions/{sid}").json()["interrupt"]["kind"] == "plan_approval"
    events = sse_events(real.post("/api/v1/agent/resume/stream",
                                  json={"session_id": sid, "answer": {"approve": True}}).text)
    assert any(e["event"] == "progress" for e in events) or any(e["event"] == "node_start" for e in events)
    intr = [e for e in events if e["event"] == "interrupt"]
    assert intr and intr[0]["interrupt"]["kind"] == "route_choice"
    options = intr[0]["interrupt"]["options"]
    assert len(options) == 2 and "CC(=O)Cl" in json.dumps(options[1])
    r = real.post("/api/v1/agent/resume", json={"session_id": sid, "answer": {"route": 1}})
    doc = r.json()
    assert r.status_code == 200 and doc["status"] == "done", doc
    assert "the chemist chose route 1" in doc["final_answer"]
    tree = next(f for f in doc["files"] if f["path"].endswith("tree.json"))
    assert "CC(=O)Cl" in real.get(f"/api/v1/sessions/{sid}/files/{tree['path']}").text
    turns = real.get(f"/api/v1/sessions/{sid}/history").json()["turns"]
    assert len(turns) == 1 and turns[0]["query"] == ROUTE_QUERY


def test_real_agent_invoke_returns_the_interrupt_and_rejecting_the_plan_replans(real):
    r = real.post("/api/v1/agent/invoke", json={"query": ROUTE_QUERY, "options": {"confirm_plan": True}})
    doc = r.json()
    assert doc["status"] == "interrupted" and doc["interrupt"]["kind"] == "plan_approval"
    sid = doc["session_id"]
    r = real.post("/api/v1/agent/resume", json={"session_id": sid,
                                                "answer": {"approve": False, "feedback": "skip the report"}})
    assert r.status_code == 200 and r.json()["status"] == "interrupted"  # the revised plan is asked again
    assert r.json()["interrupt"]["kind"] == "plan_approval"
    r = real.post("/api/v1/agent/resume", json={"session_id": sid, "answer": {"approve": True}})
    assert r.json()["status"] == "done"
    r = real.post("/api/v1/agent/resume", json={"session_id": sid, "answer": {"approve": True}})
    assert r.status_code == 400 and r.json()["error"]["code"] == "no_pending_question"

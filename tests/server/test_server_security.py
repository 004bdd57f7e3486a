"""Security of the web API: the API key, path traversal, uploads (size, type, names), one session never reading
another's files, errors without tracebacks."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.server.conftest import SERIES_CSV

KEY = "s3cret-key"


@pytest.fixture
def keyed(make_app):
    with TestClient(make_app(api_key=KEY), raise_server_exceptions=False) as c:
        yield c


def _session(client, headers=None):
    r = client.post("/api/v1/sessions", headers=headers)
    assert r.status_code == 201, r.text
    return r.json()["id"]


def _upload(client, sid, name, data, headers=None):
    return client.post(f"/api/v1/sessions/{sid}/files", files={"file": (name, data)}, headers=headers)


@pytest.mark.parametrize("method,path", [
    ("GET", "/health"), ("GET", "/openapi.json"), ("GET", "/api/v1/sessions"), ("POST", "/api/v1/sessions"),
    ("GET", "/api/v1/sessions/abc"), ("DELETE", "/api/v1/sessions/abc"), ("GET", "/api/v1/sessions/abc/history"),
    ("GET", "/api/v1/sessions/abc/files"), ("POST", "/api/v1/sessions/abc/files"),
    ("GET", "/api/v1/sessions/abc/files/uploads/x.csv"), ("POST", "/api/v1/agent/invoke"),
    ("POST", "/api/v1/agent/stream"), ("POST", "/api/v1/agent/resume"), ("POST", "/api/v1/agent/batch"),
    ("GET", "/api/v1/depict?smiles=CCO"), ("GET", "/api/v1/nope"),
])
def test_every_api_route_needs_the_key(keyed, method, path):
    r = keyed.request(method, path, json={"query": "MW of aspirin"} if method == "POST" else None)
    assert r.status_code == 401 and r.json()["error"]["code"] == "missing_api_key", r.text
    r = keyed.request(method, path, headers={"Authorization": "Bearer wrong"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key"
    r = keyed.request(method, path, headers={"X-API-Key": KEY[:-1]})
    assert r.status_code == 401 and r.json()["error"]["code"] == "invalid_api_key"


def test_the_page_loads_without_the_key_and_the_key_works_both_ways(keyed):
    for path in ("/", "/static/app.js", "/static/app.css", "/docs", "/static/docs.js"):
        assert keyed.get(path).status_code == 200, path
    assert keyed.get("/health", headers={"Authorization": f"Bearer {KEY}"}).json()["status"] == "ok"
    assert keyed.get("/health", headers={"X-API-Key": KEY}).json()["status"] == "ok"
    sid = _session(keyed, headers={"X-API-Key": KEY})
    r = keyed.post("/api/v1/agent/invoke", json={"query": "MW of aspirin", "session_id": sid},
                   headers={"Authorization": f"Bearer {KEY}"})
    assert r.status_code == 200 and "180.16" in r.json()["final_answer"]


@pytest.mark.parametrize("path", [
    "../session.json", "..%2Fsession.json", "uploads/../../session.json", "uploads/..%2F..%2F..%2Fchat.sqlite",
    "%2Fetc%2Fpasswd", "uploads/%2E%2E/%2E%2E/session.json", "..\\..\\session.json", "uploads/%00x.csv",
])
def test_download_path_traversal_is_refused(client, path):
    sid = _session(client)
    r = client.get(f"/api/v1/sessions/{sid}/files/{path}")
    assert r.status_code in (400, 404), (path, r.status_code, r.text)
    assert r.json()["error"]["code"] in ("invalid_path", "file_not_found", "not_found")
    assert "checkpoints" not in r.text and "root:" not in r.text


def test_download_through_a_symlink_is_refused(client, tmp_path):
    secret = tmp_path / "secret.csv"
    secret.write_text("smiles\nCCO\n")
    sid = _session(client)
    store = client.app.state.store
    link = store.files_dir(sid) / "uploads" / "link.csv"
    link.symlink_to(secret)
    r = client.get(f"/api/v1/sessions/{sid}/files/uploads/link.csv")
    assert r.status_code == 400 and r.json()["error"]["code"] == "invalid_path"
    assert all(f["name"] != "link.csv" for f in client.get(f"/api/v1/sessions/{sid}/files").json()["files"])


def test_upload_names_are_sanitised_and_confined(client):
    sid = _session(client)
    store = client.app.state.store
    for name in ("../../evil.csv", "/etc/cron.d/evil.csv", "..\\..\\evil.csv", "a b;rm -rf.csv", ".hidden.csv"):
        r = _upload(client, sid, name, b"smiles,pKi\nCCO,5\n")
        assert r.status_code == 201, (name, r.text)
        rec = r.json()
        assert rec["path"].startswith("uploads/") and "/" not in rec["name"] and not rec["name"].startswith(".")
        assert (store.files_dir(sid) / rec["path"]).resolve().is_relative_to(store.files_dir(sid).resolve())
    assert not (store.root / "evil.csv").exists() and not (store.root.parent / "evil.csv").exists()
    r = _upload(client, sid, "..", b"x")
    assert r.status_code == 400 and r.json()["error"]["code"] in ("invalid_filename", "unsupported_file")


def test_oversized_wrong_type_and_fake_uploads_are_refused(make_app):
    with TestClient(make_app(max_upload_mb=0.01), raise_server_exceptions=False) as c:
        sid = _session(c)
        r = _upload(c, sid, "big.csv", b"smiles\n" + b"C" * 20_000)
        assert r.status_code == 413 and r.json()["error"]["code"] == "file_too_large"
        for name, data in [("x.exe", b"MZ\x90"), ("report.html", b"<script>"), ("noext", b"a,b"),
                           ("x.py", b"import os")]:
            r = _upload(c, sid, name, data)
            assert r.status_code == 415 and r.json()["error"]["code"] == "unsupported_file", name
        r = _upload(c, sid, "fake.csv", b"\x1f\x8b\x08\x00" + b"\x00" * 20)
        assert r.status_code == 400 and r.json()["error"]["code"] == "compressed_file"
        r = _upload(c, sid, "fake.xlsx", b"not a workbook")
        assert r.status_code == 400 and r.json()["error"]["code"] == "not_a_workbook"
        r = _upload(c, sid, "empty.csv", b"")
        assert r.status_code == 400 and r.json()["error"]["code"] == "empty_file"
        assert [f["name"] for f in c.get(f"/api/v1/sessions/{sid}/files").json()["files"]] == []
        r = c.post(f"/api/v1/sessions/{sid}/files", data={"notfile": "x"})
        assert r.status_code == 422 and r.json()["error"]["code"] == "invalid_request"


def test_upload_to_an_unknown_session_is_refused(client):
    r = _upload(client, "nosuch", "series.csv", SERIES_CSV.read_bytes())
    assert r.status_code == 404 and r.json()["error"]["code"] == "session_not_found"
    r = _upload(client, "..", "series.csv", SERIES_CSV.read_bytes())
    assert r.status_code in (400, 404)


def test_one_session_never_reads_another_sessions_files(client):
    a, b = _session(client), _session(client)
    assert _upload(client, a, "secret_series.csv", SERIES_CSV.read_bytes()).status_code == 201
    assert client.get(f"/api/v1/sessions/{a}/files/uploads/secret_series.csv").status_code == 200
    # by path (an unencoded ../ is resolved by the client itself, into a request for session a)
    for path in ("uploads/secret_series.csv", f"..%2F..%2F{a}%2Ffiles%2Fuploads%2Fsecret_series.csv",
                 f"%2E%2E/%2E%2E/{a}/files/uploads/secret_series.csv"):
        r = client.get(f"/api/v1/sessions/{b}/files/{path}")
        assert r.status_code in (400, 404) and "GSK3B" not in r.text, path
    assert client.get(f"/api/v1/sessions/{b}/files").json()["files"] == []
    # as a file of a question
    secret_path = str(client.app.state.store.files_dir(a) / "uploads" / "secret_series.csv")
    for files in (["secret_series.csv"], [secret_path], [f"../../{a}/files/uploads/secret_series.csv"]):
        r = client.post("/api/v1/agent/invoke", json={"query": "Analyse the SAR", "session_id": b, "files": files})
        assert r.status_code in (400, 404), (files, r.text)
        assert r.json()["error"]["code"] in ("file_not_found", "invalid_path")
    # named in the question's text
    for query in (f"Analyse the SAR of {secret_path}", "Analyse the SAR of secret_series.csv",
                  "Analyse the SAR of /etc/passwd.csv"):
        r = client.post("/api/v1/agent/invoke", json={"query": query, "session_id": b})
        assert r.status_code == 400 and r.json()["error"]["code"] == "file_not_in_session", query
    assert client.get(f"/api/v1/sessions/{b}/history").json()["messages"] == []


def test_deleting_a_session_deletes_its_files_only(client):
    a, b = _session(client), _session(client)
    _upload(client, a, "series.csv", SERIES_CSV.read_bytes())
    _upload(client, b, "series.csv", SERIES_CSV.read_bytes())
    store = client.app.state.store
    assert client.delete(f"/api/v1/sessions/{a}").status_code == 200
    assert not store.folder(a).exists()
    assert client.get(f"/api/v1/sessions/{b}/files/uploads/series.csv").status_code == 200


def test_a_json_body_over_the_limit_is_refused(client):
    r = client.post("/api/v1/agent/invoke", content=b'{"query": "' + b"C" * 1_100_000 + b'"}',
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "request_too_large"


def test_sanitize_filename_unit():
    from molx_agent.errors import ValidationError
    from molx_agent.server.store import sanitize_filename

    assert sanitize_filename("../../a/b/Series 1.csv") == "Series_1.csv"
    assert sanitize_filename("C:\\Users\\x\\data.xlsx") == "data.xlsx"
    assert sanitize_filename("化合物 1.csv") == "化合物_1.csv"
    assert len(sanitize_filename("a" * 500 + ".csv")) <= 120 and sanitize_filename("a" * 500 + ".csv").endswith(".csv")
    for bad in ("", "..", "/", "...."):
        with pytest.raises(ValidationError):
            sanitize_filename(bad)

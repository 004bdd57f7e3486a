"""Load on the web server (issue 27): 20 concurrent chat clients asking molecule questions while 2 route searches
run, on one ``molx-agent serve`` process.

The server runs in this process (uvicorn on 127.0.0.1, a free port, a temporary MOLX_HOME) with the default agent
and engine, at most 2 route searches at once (the ``serve`` default).  Two clients stream a route search each
(``/agent/stream``); ``--clients`` clients each open a session and ask ``--questions`` molecule questions in turn
(``/agent/invoke``), checking every answer; a probe calls ``/health`` every 0.5 s (the event loop must stay
responsive while the agent works in the thread pool).  At the end every session's history is read back: each must
hold exactly its own questions and answers (no lost or mixed-up session state).

    uv run python benchmarks/server_load.py [--clients 20] [--questions 5] [--search-time 30] [--json]
    uv run python benchmarks/server_load.py --url http://127.0.0.1:8000 [--api-key KEY]   # a running server

Exit status 1 when any request failed, an answer was wrong or a session lost state.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

#: (question, a string the answer must contain)
QUESTIONS = [
    ("What is the molecular weight of aspirin?", "180.16"),
    ("What is the logP of ibuprofen?", "3.07"),
    ("Molecular weight of caffeine", "194.19"),
    ("TPSA of paracetamol", "49.33"),
    ("What is the molecular weight of CCO?", "46.07"),
    ("Molecular weight of benzene", "78.11"),
    ("logP of aspirin", "1.31"),
]
SEARCH_TARGETS = ["Plan a synthesis of paracetamol", "Plan a synthesis of CC(=O)Nc1ccc(OCC)cc1"]


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def start_server(search_limit: int) -> tuple[Any, str]:
    """uvicorn serving the default app on a free 127.0.0.1 port, in a thread."""
    import socket

    import uvicorn

    from molx_agent.server.app import ServerSettings, create_app

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    app = create_app(ServerSettings.from_env(max_searches=search_limit))
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning",
                                            timeout_keep_alive=75))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        if time.monotonic() > deadline:
            raise RuntimeError("server did not start")
        time.sleep(0.05)
    return server, f"http://127.0.0.1:{port}"


def run_load(url: str, *, clients: int, questions: int, search_time: float, api_key: str | None,
             timeout: float, searches: int = 2) -> dict[str, Any]:
    import httpx

    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    http = httpx.Client(base_url=url, headers=headers, timeout=timeout,
                        limits=httpx.Limits(max_connections=clients + 8, max_keepalive_connections=clients + 8))
    errors: list[str] = []
    chat_latency: list[float] = []
    search_records: list[dict[str, Any]] = []
    health_latency: list[float] = []
    peak_active = 0
    lock = threading.Lock()
    done = threading.Event()

    def probe() -> None:
        nonlocal peak_active
        while not done.is_set():
            t0 = time.perf_counter()
            try:
                h = http.get("/health", timeout=30).json()
                with lock:
                    health_latency.append(time.perf_counter() - t0)
                    peak_active = max(peak_active, h.get("active_searches") or 0)
            except Exception as exc:  # noqa: BLE001 - a benchmark records every failure
                with lock:
                    errors.append(f"health: {type(exc).__name__}: {exc}")
            done.wait(0.5)

    def search(query: str) -> None:
        t0 = time.perf_counter()
        events: list[dict[str, Any]] = []
        try:
            sid = http.post("/api/v1/sessions").json()["id"]
            body = {"query": query, "session_id": sid, "options": {"search_time": search_time}}
            with http.stream("POST", "/api/v1/agent/stream", json=body) as resp:
                resp.raise_for_status()
                buf = ""
                for chunk in resp.iter_text():
                    buf += chunk
                    while "\n\n" in buf:
                        block, buf = buf.split("\n\n", 1)
                        for line in block.splitlines():
                            if line.startswith("data:"):
                                events.append(json.loads(line[5:]))
            final = events[-1] if events else {}
            ok = final.get("event") == "final" and final.get("status") == "done"
            if not ok:
                with lock:
                    errors.append(f"search {query!r}: last event {final.get('event')}: {final.get('message')}")
            with lock:
                search_records.append({"query": query, "session_id": sid, "seconds": time.perf_counter() - t0,
                                       "events": len(events), "progress_events": sum(e.get("event") == "progress"
                                                                                     for e in events),
                                       "ok": ok, "reports": len([f for f in final.get("files") or []
                                                                 if f["path"].endswith(".html")])})
        except Exception as exc:  # noqa: BLE001
            with lock:
                errors.append(f"search {query!r}: {type(exc).__name__}: {exc}")

    sessions: dict[str, list[str]] = {}

    def chat(i: int) -> None:
        try:
            sid = http.post("/api/v1/sessions", json={"name": f"load client {i}"}).json()["id"]
            asked = []
            for k in range(questions):
                q, expect = QUESTIONS[(i + k) % len(QUESTIONS)]
                t0 = time.perf_counter()
                r = http.post("/api/v1/agent/invoke", json={"query": q, "session_id": sid})
                with lock:
                    chat_latency.append(time.perf_counter() - t0)
                if r.status_code != 200:
                    with lock:
                        errors.append(f"chat {i}: HTTP {r.status_code}: {r.text[:200]}")
                    continue
                if expect not in r.json().get("final_answer", ""):
                    with lock:
                        errors.append(f"chat {i}: answer to {q!r} lacks {expect}")
                asked.append(q)
            with lock:
                sessions[sid] = asked
        except Exception as exc:  # noqa: BLE001
            with lock:
                errors.append(f"chat {i}: {type(exc).__name__}: {exc}")

    prober = threading.Thread(target=probe, daemon=True)
    prober.start()
    t_start = time.perf_counter()
    with ThreadPoolExecutor(clients + len(SEARCH_TARGETS)) as pool:
        futures = [pool.submit(search, q) for q in SEARCH_TARGETS[:searches]]
        if searches:
            time.sleep(1.0)  # the searches are under way before the chat clients start
        t_chat = time.perf_counter()
        futures += [pool.submit(chat, i) for i in range(clients)]
        for f in futures:
            f.result()
    wall = time.perf_counter() - t_start
    chat_wall = time.perf_counter() - t_chat
    done.set()
    prober.join(timeout=5)

    # no lost or mixed-up session state: each session holds exactly its own turns
    lost = 0
    for sid, asked in sessions.items():
        hist = http.get(f"/api/v1/sessions/{sid}/history").json()
        users = [m["content"] for m in hist["messages"] if m["role"] == "user"]
        answers = [m for m in hist["messages"] if m["role"] == "assistant"]
        if users != asked or len(answers) != len(asked) or len(hist["turns"]) != len(asked):
            lost += 1
            errors.append(f"session {sid}: history has {len(users)} questions / {len(hist['turns'])} turns, "
                          f"expected {len(asked)}")
    for rec in search_records:
        turns = http.get(f"/api/v1/sessions/{rec['session_id']}/history").json()["turns"]
        if len(turns) != 1:
            lost += 1
            errors.append(f"search session {rec['session_id']}: {len(turns)} turns recorded")
    http.close()
    n_chat = len(chat_latency)
    return {
        "clients": clients, "questions_per_client": questions, "n_searches": searches, "search_time_limit_s": search_time,
        "chat_requests": n_chat, "chat_wall_s": round(chat_wall, 2),
        "chat_throughput_per_s": round(n_chat / chat_wall, 2) if chat_wall else None,
        "chat_latency_s": {"p50": round(_pct(chat_latency, 0.5), 2), "p95": round(_pct(chat_latency, 0.95), 2),
                           "max": round(max(chat_latency, default=float("nan")), 2),
                           "mean": round(statistics.fmean(chat_latency), 2) if chat_latency else None},
        "searches": [{k: (round(v, 1) if isinstance(v, float) else v) for k, v in r.items() if k != "session_id"}
                     for r in search_records],
        "peak_active_searches": peak_active,
        "health_latency_s": {"p50": round(_pct(health_latency, 0.5), 3), "max": round(max(health_latency,
                                                                                          default=float("nan")), 3),
                             "n": len(health_latency)},
        "sessions_checked": len(sessions) + len(search_records), "sessions_lost_state": lost,
        "errors": errors[:50], "n_errors": len(errors), "wall_s": round(wall, 2),
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--questions", type=int, default=5, help="questions per chat client")
    ap.add_argument("--search-time", type=float, default=30.0, help="time limit of each route search (s)")
    ap.add_argument("--searches", type=int, default=2, choices=(0, 1, 2),
                    help="route searches running meanwhile (0: the chat clients alone, a baseline)")
    ap.add_argument("--url", help="a running server (default: start one in this process)")
    ap.add_argument("--api-key", default=os.environ.get("MOLX_API_KEY"))
    ap.add_argument("--timeout", type=float, default=900.0, help="per-request timeout (s)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--out", type=Path, help="also write the JSON here")
    args = ap.parse_args(argv)

    server = None
    tmp = None
    url = args.url
    if url is None:
        tmp = tempfile.TemporaryDirectory(prefix="molx_load_")
        os.environ["MOLX_HOME"] = str(Path(tmp.name) / "home")
        os.environ["MOLX_OUTPUT_DIR"] = str(Path(tmp.name) / "outputs")
        os.environ.setdefault("MOLX_LLM_PROVIDER", "rules")
        from molx_agent.config import reset_settings_cache

        reset_settings_cache()
        server, url = start_server(2)
    try:
        res = run_load(url, clients=args.clients, questions=args.questions, search_time=args.search_time,
                       api_key=args.api_key, timeout=args.timeout, searches=args.searches)
    finally:
        if server is not None:
            server.should_exit = True
        if tmp is not None:
            time.sleep(0.5)
            tmp.cleanup()
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(res, indent=2) + "\n")
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        lat = res["chat_latency_s"]
        print(f"{res['clients']} chat clients x {res['questions_per_client']} questions while "
              f"{res['n_searches']} route searches ran ({res['search_time_limit_s']:g} s limit)")
        print(f"chat: {res['chat_requests']} answers in {res['chat_wall_s']} s ({res['chat_throughput_per_s']}/s); "
              f"latency p50 {lat['p50']} s, p95 {lat['p95']} s, max {lat['max']} s")
        for s in res["searches"]:
            print(f"search {s['query']!r}: {s['seconds']} s, {s['events']} events ({s['progress_events']} progress), "
                  f"ok={s['ok']}, {s['reports']} HTML report(s)")
        print(f"peak concurrent searches {res['peak_active_searches']}; /health p50 {res['health_latency_s']['p50']} s,"
              f" max {res['health_latency_s']['max']} s")
        print(f"sessions checked {res['sessions_checked']}, lost state {res['sessions_lost_state']}; "
              f"errors {res['n_errors']}")
        for e in res["errors"][:10]:
            print("  " + e)
    return 0 if res["n_errors"] == 0 and res["sessions_lost_state"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())

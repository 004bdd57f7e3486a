"""ChatSession: SQLite-persisted multi-turn state, history, clear, resume in a new process."""

from __future__ import annotations

import json
import subprocess
import sys

from molx_agent.agents.molx import ChatSession, list_sessions


def test_send_history_followup_and_clear(tmp_path):
    with ChatSession("s1", llm=None) as chat:
        first = chat.send("What is the logP of ibuprofen?")
        assert "3.07" in first["final_answer"]
        second = chat.send("and its TPSA?")  # follow-up without a molecule
        assert "37.3" in second["final_answer"]
        hist = chat.history()
        assert [m["role"] for m in hist] == ["user", "assistant", "user", "assistant"]
        assert hist[0]["content"] == "What is the logP of ibuprofen?"
        assert (tmp_path / "molx_home" / "chat.sqlite").exists()
        assert "s1" in list_sessions()
        chat.clear()
        assert chat.history() == []


def test_sessions_are_isolated():
    with ChatSession("a", llm=None) as a, ChatSession("b", llm=None) as b:
        a.send("MW of aspirin")
        assert b.history() == []
        assert len(a.history()) == 2


def test_session_resumes_in_a_new_process(tmp_path):
    env_code = (
        "import json, sys\n"
        "from molx_agent.agents.molx import ChatSession\n"
        "with ChatSession('persist', llm=None) as c:\n"
        "    if sys.argv[1] == 'send':\n"
        "        c.send('What is the molecular weight of paracetamol?')\n"
        "    else:\n"
        "        s = c.send('and its cLogP?')\n"
        "        print(json.dumps({'history': c.history(), 'answer': s['final_answer']}))\n"
    )
    import os

    env = {**os.environ, "MOLX_HOME": str(tmp_path / "molx_home"), "MOLX_LLM_PROVIDER": "rules"}
    subprocess.run([sys.executable, "-c", env_code, "send"], check=True, env=env, capture_output=True)
    out = subprocess.run([sys.executable, "-c", env_code, "resume"], check=True, env=env, capture_output=True,
                         text=True)
    data = json.loads(out.stdout)
    assert [m["role"] for m in data["history"]] == ["user", "assistant"] * 2
    assert "151.16" in data["history"][1]["content"]
    assert "1.35" in data["answer"]  # paracetamol cLogP, resolved from the previous turn's molecule


def test_every_intent_over_several_turns_of_one_session(toy_engine, tmp_path):
    from molx_agent.agents.molx import MolxAgent
    from tests.agents.conftest import SERIES_CSV

    turns = [
        ("What is the logP of ibuprofen?", None, "molecule_query", "3.07"),
        ("and its TPSA?", None, "molecule_query", "37.3"),
        ("Plan a synthesis of paracetamol", None, "retrosynthesis", "verdict accept"),
        ("Is CC(=O)Cl.Nc1ccc(O)cc1>>CC(=O)Nc1ccc(O)cc1 balanced?", None, "reaction_validation", "atom-balanced"),
        ("Clean this file", [str(SERIES_CSV)], "data_processing", "60 compounds kept"),
        ("Analyse the SAR of this series", [str(SERIES_CSV)], "sar_analysis", "Most potent: GSK3B-017"),
        ("which compound is most potent?", None, "sar_analysis", "not recomputed"),
        ("Plan the synthesis of the best compounds of this series", [str(SERIES_CSV)], "synthesis_of_hits", "buy it"),
        ("What's the weather like?", None, "unsupported", "rephrase"),
    ]
    agent = MolxAgent(llm=None, engine=toy_engine, search_workers=1)
    with ChatSession("all-intents", agent=agent) as chat:
        for text, files, intent, expected in turns:
            state = chat.send(text, files=files, options={"search_time": 1})
            assert state["intent"] == intent, (text, state["intent"])
            assert expected in state["final_answer"], (text, state["final_answer"][:600])
            assert state["thread_id"] == "all-intents"
        assert len(chat.history()) == 2 * len(turns)
        recorded = chat.recorder.turns()
        assert [t["intent"] for t in recorded] == [t[2] for t in turns]
        assert recorded[5]["tasks"][1]["type"] == "sar" and recorded[5]["report_paths"]
        assert (tmp_path / "molx_home" / "sessions" / "all-intents.jsonl").is_file()
        chat.clear()
        assert chat.history() == [] and chat.recorder.turns() == []

"""Child processes of the concurrency and SIGKILL tests: ``python -m tests.hostile.child_writer ROLE ARGS...``.

Each role writes one kind of file the product writes, through the product's own code, on the toy engine:

- ``session FILE N TAG``: ``N`` ``try_precursors`` on a session file (each attempt's precursors carry ``TAG``);
- ``session-loop FILE``: ``try_precursors`` / ``sandbox_clear`` until killed;
- ``pipeline DIR N``: ``N`` routes added to a pipeline session directory (``plan_session`` on the same target);
- ``atomic FILE``: ``atomic_write_json`` of growing documents until killed;
- ``chat HOME``: chat turns in ``HOME/chat.sqlite`` until killed.

A role that starts after a barrier waits for the file ``GO`` (an environment variable names it) so two children
begin together; every role touches ``READY`` (if set) once it is writing.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

PARACETAMOL = "CC(=O)Nc1ccc(O)cc1"
#: precursor sets a child proposes, one per attempt (all parse; the forward check judges them)
PROPOSALS = [["CC(=O)Cl", "Nc1ccc(O)cc1"], ["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], ["CC(=O)O", "Nc1ccc(O)cc1"],
             ["CC(=O)Br", "Nc1ccc(O)cc1"], ["CC(=O)OC", "Nc1ccc(O)cc1"], ["CC(=O)OCC", "Nc1ccc(O)cc1"]]


def toy_engine():
    from molx_agent.retro.engine import RetroEngine
    from molx_agent.retro.toy_model import DictSingleStepModel

    return RetroEngine(model=DictSingleStepModel({
        PARACETAMOL: [(["CC(=O)OC(C)=O", "Nc1ccc(O)cc1"], 0.6, "N-acetylation", "acylation")],
    }))


def _barrier() -> None:
    go = os.environ.get("GO")
    if go:
        while not Path(go).exists():
            time.sleep(0.005)


def _ready() -> None:
    ready = os.environ.get("READY")
    if ready:
        Path(ready).touch()


def session(path: str, n: int, tag: int) -> None:
    from molx_agent.interfaces.session import RetroCmd

    cmd = RetroCmd(path, engine=toy_engine())
    _barrier()
    for i in range(n):
        cmd.execute("try_precursors", {"precursors": PROPOSALS[(tag * n + i) % len(PROPOSALS)],
                                       "reaction_type": f"child {tag} attempt {i}"})


def session_loop(path: str) -> None:
    from molx_agent.interfaces.session import RetroCmd

    cmd = RetroCmd(path, engine=toy_engine())
    _ready()
    i = 0
    while True:
        cmd.execute("try_precursors", {"precursors": PROPOSALS[i % len(PROPOSALS)], "reaction_type": f"loop {i}"})
        if i % 4 == 3:
            cmd.execute("sandbox_clear", {})
        i += 1


def pipeline(directory: str, n: int) -> None:
    from molx_agent.interfaces.pipeline.service import plan_session

    engine = toy_engine()
    _barrier()
    _ready()
    for _ in range(n):
        plan_session(PARACETAMOL, directory, with_proposals=False, engine=engine)


def atomic(path: str) -> None:
    from molx_agent.io_utils import atomic_write_json

    _ready()
    i = 0
    while True:
        atomic_write_json(path, {"version": i, "payload": ["x" * 1000] * (200 + i % 300), "end": i})
        i += 1


def chat(home: str) -> None:
    os.environ["MOLX_HOME"] = home
    os.environ["MOLX_LLM_PROVIDER"] = "rules"
    from molx_agent.agents.molx import ChatSession

    with ChatSession("killed", llm=None) as session:
        _ready()
        i = 0
        while True:
            session.send(f"What is the molecular weight of {['aspirin', 'ibuprofen', 'caffeine'][i % 3]}?")
            i += 1


def main(argv: list[str]) -> None:
    role, *args = argv
    if role == "session":
        session(args[0], int(args[1]), int(args[2]))
    elif role == "session-loop":
        session_loop(args[0])
    elif role == "pipeline":
        pipeline(args[0], int(args[1]))
    elif role == "atomic":
        atomic(args[0])
    elif role == "chat":
        chat(args[0])
    else:  # pragma: no cover
        raise SystemExit(f"unknown role {role}")


if __name__ == "__main__":
    main(sys.argv[1:])

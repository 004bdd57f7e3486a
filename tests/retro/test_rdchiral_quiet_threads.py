"""``rdchiral_quiet`` in several threads at once (two route searches in the web server): each thread's stray prints
are dropped, other threads' output passes, and ``sys.stdout`` is restored when the last block ends (it used to be
left a StringIO for good, swallowing everything the process printed afterwards)."""

from __future__ import annotations

import sys
import threading

from molx_agent.retro.named_templates import rdchiral_quiet


def test_quiet_blocks_in_threads_restore_stdout(capsys):
    real = sys.stdout
    inside = threading.Barrier(5)  # four quiet threads and this one
    leave = [threading.Event() for _ in range(4)]

    def quiet(i: int) -> None:
        with rdchiral_quiet():
            print(f"stray print {i}")  # dropped
            inside.wait(timeout=10)
            leave[i].wait(timeout=10)

    threads = [threading.Thread(target=quiet, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    inside.wait(timeout=10)
    print("main thread still prints")  # not in a quiet block: passes while the others are quiet
    for i in (0, 2, 1, 3):  # leave out of order
        leave[i].set()
    for t in threads:
        t.join(timeout=10)
    assert sys.stdout is real
    print("after")
    out = capsys.readouterr().out
    assert "main thread still prints" in out and "after" in out and "stray print" not in out


def test_nested_quiet_blocks_in_one_thread(capsys):
    real = sys.stdout
    with rdchiral_quiet():
        with rdchiral_quiet():
            print("x")
        print("y")
    assert sys.stdout is real
    print("z")
    assert capsys.readouterr().out == "z\n"

"""Route searches of the server run in child processes (ProcessSearches): the result and the progress records come
back, at most ``limit`` run at once, and the app closes the pool at shutdown."""

from __future__ import annotations

import threading

from tests.server.conftest import make_toy_engine


def test_process_searches_return_results_and_progress(tmp_path):
    from molx_agent.server.runner import ProcessSearches

    engine = ProcessSearches(make_toy_engine(tmp_path), 2)
    try:
        progress: list[dict] = []
        results = {}

        def go(smiles: str) -> None:
            results[smiles] = engine.search(smiles, time_limit=10, progress=progress.append, name="x")

        threads = [threading.Thread(target=go, args=(s,)) for s in ("CC(=O)Nc1ccc(O)cc1",
                                                                    "COc1cc(Nc2nccc(-c3cnn4ncccc34)n2)cc(OC)c1")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        assert results["CC(=O)Nc1ccc(O)cc1"].solved  # the toy model and stock were rebuilt in the child
        assert results["CC(=O)Nc1ccc(O)cc1"].routes[0].n_steps == 1
        assert progress and all("n_expansions" in p for p in progress)
        assert engine.peak <= 2 and engine.active == 0
        assert engine.availability(["CCO"])  # everything but search is the engine's own
    finally:
        engine.close()

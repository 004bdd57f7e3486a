"""Real-data check of validate_reaction on a slice of the USPTO-50K test set (full run: benchmarks/)."""

from __future__ import annotations

import importlib.util
from pathlib import Path


def _bench():
    path = Path(__file__).resolve().parents[2] / "benchmarks" / "chem_validation.py"
    spec = importlib.util.spec_from_file_location("chem_validation_bench", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_true_reactions_pass_and_corruptions_fail(shared_data):
    res = _bench().run_benchmark(shared_data, limit=150, n_molecules=20, repeats=1)
    assert res["true_reactions"]["pass_rate"] >= 0.95
    for kind, stats in res["corruptions"].items():
        assert stats["n"] > 50, kind
        assert stats["rejection_rate"] >= 0.9, (kind, stats)
    assert res["throughput"]["analyze_errors"] == 0

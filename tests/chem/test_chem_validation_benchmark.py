"""Real-data check of validate_reaction on a slice of the USPTO-50K test set (full run: benchmarks/)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def bench(repo_script):
    return repo_script("benchmarks/chem_validation.py")


def test_true_reactions_pass_and_corruptions_fail(shared_data, bench):
    res = bench.run_benchmark(shared_data, limit=150, n_molecules=20, repeats=1)
    assert res["true_reactions"]["pass_rate"] >= 0.95
    for kind, stats in res["corruptions"].items():
        assert stats["n"] > 50, kind
        assert stats["rejection_rate"] >= 0.9, (kind, stats)
    assert res["throughput"]["analyze_errors"] == 0

"""``benchmarks/rdchiral_equivalence.py``: the product filter and bad arguments (argument errors stop before any
model is loaded); one small run on two products when the benchmark data is present."""

from __future__ import annotations

import json

import pytest


def test_products_are_chosen_by_their_stereo(benchmark_script):
    mod = benchmark_script("rdchiral_equivalence")
    assert mod.wanted("C[C@H](N)C(=O)O", "any") and mod.wanted("C[C@H](N)C(=O)O", "tetrahedral")
    assert not mod.wanted("C[C@H](N)C(=O)O", "double") and mod.wanted("F/C=C\\F", "double")
    assert not mod.wanted("CCO", "any") and mod.wanted("CCO", "all")


@pytest.mark.parametrize("argv", [["--sample", "0"], ["--stereo", "cis"], ["--split", "train"]])
def test_bad_arguments_exit_2(argv, capsys, benchmark_script):
    with pytest.raises(SystemExit) as exc:
        benchmark_script("rdchiral_equivalence").main(argv)
    assert exc.value.code == 2
    assert "error" in capsys.readouterr().err


def test_a_small_run_finds_no_difference(tmp_path, capsys, benchmark_script):
    mod = benchmark_script("rdchiral_equivalence")
    from single_step import SPLITS  # on the path once the module is loaded

    if not SPLITS["val"].is_file():
        pytest.skip("USPTO-50K split not present (../shared/data)")
    out = tmp_path / "eq.json"
    assert mod.main(["--split", "val", "--sample", "2", "--seed", "3", "--stereo", "any", "--json", str(out)]) == 0
    summary = json.loads(out.read_text())["summary"]
    assert summary["sample"] == 2 and summary["applications"] > 0 and summary["stereo_path"] > 0
    assert summary["different"] == 0 and summary["raised_by_one"] == 0

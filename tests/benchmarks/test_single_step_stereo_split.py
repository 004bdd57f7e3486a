"""``benchmarks/single_step_stereo_split.py``: the stereo test, the per-group summary and bad arguments (no model
is loaded: argument errors stop before it)."""

from __future__ import annotations

import pytest


def test_stereo_is_read_from_the_smiles(benchmark_script):
    mod = benchmark_script("single_step_stereo_split")
    assert mod.has_stereo("C[C@H](N)C(=O)O") and mod.has_stereo("C/C=C/C") and mod.has_stereo("F/C=C\\F")
    assert not mod.has_stereo("CC(N)C(=O)O") and not mod.has_stereo("c1ccccc1Br")


def test_summary_of_a_group(benchmark_script):
    mod = benchmark_script("single_step_stereo_split")
    rows = [{"ms": 10.0, "slow_calls": 2, "slow_ms": 4.0, "stereo_calls": 0, "stereo_ms": 0.0, "fast_calls": 0,
             "fast_ms": 0.0},
            {"ms": 30.0, "slow_calls": 0, "slow_ms": 0.0, "stereo_calls": 0, "stereo_ms": 0.0, "fast_calls": 6,
             "fast_ms": 12.0},
            {"ms": 50.0, "slow_calls": 1, "slow_ms": 2.0, "stereo_calls": 3, "stereo_ms": 6.0, "fast_calls": 3,
             "fast_ms": 3.0}]
    assert mod.summarise(rows) == {"n": 3, "median_ms": 30.0, "mean_ms": 30.0, "rdchiral_calls": 1.0,
                                   "rdchiral_ms": 2.0, "stereo_calls": 1.0, "stereo_ms": 2.0, "fast_calls": 3.0,
                                   "fast_ms": 5.0}
    assert mod.summarise([]) == {"n": 0}


@pytest.mark.parametrize("argv", [["--sample", "0"], ["--warmup", "-1"], ["--split", "train"]])
def test_bad_arguments_exit_2(argv, capsys, benchmark_script):
    with pytest.raises(SystemExit) as exc:
        benchmark_script("single_step_stereo_split").main(argv)
    assert exc.value.code == 2
    assert "error" in capsys.readouterr().err

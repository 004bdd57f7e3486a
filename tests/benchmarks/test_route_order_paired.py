"""The paired route-order benchmark's summary (benchmarks/route_order_paired.py)."""

from __future__ import annotations

from benchmarks.route_order_paired import main, summarize


def _record(tid, rank_0, rank_pen, codes_0, codes_pen, steps=(3, 3), length=4):
    def first(n, codes):
        return {"n_steps": n, "confidence": "medium" if codes and codes[0] else "high", "leaves": []}

    return {"id": tid, "route_length": length, "solved": True, "rank_0": rank_0, "rank_pen": rank_pen,
            "codes_0": codes_0, "codes_pen": codes_pen, "first_0": first(steps[0], codes_0),
            "first_pen": first(steps[1], codes_pen)}


def test_summary_counts_each_order():
    records = [
        # the clean route moved above the warned one: the reference route (the clean one) 2nd -> 1st
        _record("a", 2, 1, [["incompatible_group"], []], [[], ["incompatible_group"]]),
        # a one-step shortcut in both orders; the reference route not among the routes
        _record("b", None, None, [["competing_reaction"]], [["competing_reaction"]], steps=(1, 1)),
        # unchanged
        _record("c", 5, 5, [[]], [[]], length=2),
        {"id": "d", "solved": False, "error": "ChemistryError: bad"},
    ]
    s = summarize(records)
    assert (s["n_targets"], s["solved"], s["errors"]) == (4, 3, 1)
    off, on = s["penalty_0"], s["penalty_shipped"]
    assert (off["top1"], off["top3"], off["top5"], off["top10"]) == (0, 1, 2, 2)
    assert (on["top1"], on["top3"], on["top5"], on["top10"]) == (1, 1, 2, 2)
    assert off["best_routes_with_selectivity_warning"] == 2 and on["best_routes_with_selectivity_warning"] == 1
    assert (off["one_step_best_where_ref_3plus"], off["n_ref_3plus"]) == (1, 2)
    assert off["best_route_confidence"] == {"high": 1, "medium": 2} and on["best_route_confidence"] == {"high": 2,
                                                                                                     "medium": 1}
    assert s["first_route_changed"] == ["a"]


def test_missing_files_exit_2(tmp_path, capsys):
    assert main(["--ids-file", str(tmp_path / "none.txt"), "--out", str(tmp_path / "r.jsonl")]) == 2
    assert "file not found" in capsys.readouterr().err

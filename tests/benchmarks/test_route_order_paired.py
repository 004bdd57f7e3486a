"""The paired route-order benchmark's summary (benchmarks/route_order_paired.py)."""

from __future__ import annotations

from benchmarks.route_order_paired import main, summarize


def _record(tid, rank_0, rank_pen, codes_0, codes_pen, steps=(3, 3), length=4, leaves=((), ())):
    def first(n, codes, tiers):
        return {"n_steps": n, "confidence": "medium" if codes and codes[0] else "high",
                "leaves": [[f"C{i}", tier] for i, tier in enumerate(tiers)]}

    return {"id": tid, "route_length": length, "solved": True, "rank_0": rank_0, "rank_pen": rank_pen,
            "codes_0": codes_0, "codes_pen": codes_pen, "first_0": first(steps[0], codes_0, leaves[0]),
            "first_pen": first(steps[1], codes_pen, leaves[1])}


def test_summary_counts_each_order():
    records = [
        # the clean route moved above the warned one: the reference route (the clean one) 2nd -> 1st
        _record("a", 2, 1, [["incompatible_group"], []], [[], ["incompatible_group"]]),
        # a one-step shortcut in both orders; the reference route not among the routes
        _record("b", None, None, [["competing_reaction"]], [["competing_reaction"]], steps=(1, 1)),
        # unchanged
        _record("c", 5, 5, [[]], [[]], length=2, leaves=(("verified", "probable"), ("verified", "probable"))),
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
    assert off["best_routes_with_probable_leaf"] == on["best_routes_with_probable_leaf"] == 1
    assert s["first_route_changed"] == ["a"]


def test_the_paired_build_sets_the_named_penalty_on_a_copy_of_the_config():
    import dataclasses

    import benchmarks.route_order_paired as rop
    from molx_agent.retro.search import SearchConfig

    seen = []

    class Search:
        config = SearchConfig()
        _final: dict = {}
        validation_cut = False
        rescoring = {"applied": True}

    def build(search, k, name=""):
        seen.append((search.config.selectivity_penalty, search.config.probable_route_penalty))
        return [len(seen)]

    old = (rop._BUILD, rop._FIELD[0], rop._PENALTY[0])
    try:
        rop._BUILD, rop._FIELD[0], rop._PENALTY[0] = build, "probable_route_penalty", None
        search = Search()
        assert rop._paired_build(search, 5) == [2] and rop._ALT["routes"] == [1]
        # penalty 0 first, then the shipped one; the other penalty untouched in both
        assert seen == [(1.5, 0.0), (1.5, SearchConfig().probable_route_penalty)]
        assert dataclasses.asdict(search.config) == dataclasses.asdict(SearchConfig())
    finally:
        rop._BUILD, rop._FIELD[0], rop._PENALTY[0] = old


def test_missing_files_exit_2(tmp_path, capsys):
    assert main(["--ids-file", str(tmp_path / "none.txt"), "--out", str(tmp_path / "r.jsonl")]) == 2
    assert "file not found" in capsys.readouterr().err

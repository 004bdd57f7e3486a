"""``benchmarks/drug_routes.py``: its drug sets and its refusal of unknown names (no search runs)."""

from __future__ import annotations

import pytest

from molx_agent.chem.names import lookup_name


def test_the_drug_sets_are_the_twenty_and_forty_named_drugs(benchmark_script):
    dr = benchmark_script("drug_routes")
    assert len(dr.DRUGS) == 20 and len(dr.MORE_DRUGS) == 40 and not set(dr.DRUGS) & set(dr.MORE_DRUGS)
    assert dr.drug_names("all") == [*dr.DRUGS, *dr.MORE_DRUGS] and dr.drug_names("more") == list(dr.MORE_DRUGS)
    assert dr.drug_names(" aspirin, mefenamic acid ,") == ["aspirin", "mefenamic acid"]
    assert all(lookup_name(name) is not None for name in dr.drug_names("all"))


def test_the_new_set_is_forty_more_drugs_of_the_name_table(benchmark_script):
    dr = benchmark_script("drug_routes")
    assert len(dr.NEW_DRUGS) == len(set(dr.NEW_DRUGS)) == 40 and not set(dr.NEW_DRUGS) & set(dr.drug_names("all"))
    assert dr.drug_names("every") == [*dr.DRUGS, *dr.MORE_DRUGS, *dr.NEW_DRUGS]
    assert all(lookup_name(name) is not None for name in dr.drug_names("new"))


@pytest.mark.parametrize("name", ["rest", "other", "further"])
def test_the_rest_and_other_sets_are_forty_drugs_of_the_name_table_no_other_set_holds(name, benchmark_script):
    dr = benchmark_script("drug_routes")
    drugs = dr.drug_names(name)
    others = {drug for key, names in dr.DRUG_SETS.items() if key != name for drug in names}
    assert len(drugs) == len(set(drugs)) == 40 and not set(drugs) & others
    assert all(lookup_name(drug) is not None for drug in drugs)


@pytest.mark.parametrize("spec", ["aspirin,no such drug", " , "])
def test_an_unknown_or_empty_drug_list_is_refused_before_any_search(spec, capsys, benchmark_script):
    dr = benchmark_script("drug_routes")
    with pytest.raises(SystemExit) as exc:
        dr.main(["--drugs", spec])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert ("no such drug" in err) if "no such" in spec else "names no drug" in err

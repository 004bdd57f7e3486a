"""Rules-mode intent classification, entity extraction and language detection."""

from __future__ import annotations

import pytest

from molx_agent.agents.intent_classifier import (
    DATA_EXTENSIONS,
    INTENT_RESPONSES,
    IntentClassifierAgent,
    detect_language,
    extract_entities,
)


@pytest.mark.parametrize(
    ("query", "files", "intent"),
    [
        ("What is the molecular weight and logP of aspirin?", None, "molecule_query"),
        ("阿司匹林的分子量是多少?", None, "molecule_query"),
        ("Tell me about CC(=O)Nc1ccc(O)cc1", None, "molecule_query"),
        ("Plan a synthesis of paracetamol", None, "retrosynthesis"),
        ("请为 CC(=O)Nc1ccc(O)cc1 设计逆合成路线", None, "retrosynthesis"),
        ("Is CC(=O)O.OCC>>CC(=O)OCC balanced?", None, "reaction_validation"),
        ("analyse the SAR of series.csv", None, "sar_analysis"),
        ("分析这些分子的 R1 SAR", ["series.csv"], "sar_analysis"),
        ("clean and standardise this file", ["hits.sdf"], "data_processing"),
        ("run SAR and plan synthesis routes for the best compounds", ["series.csv"], "synthesis_of_hits"),
        ("what's the weather like?", None, "unsupported"),
        ("is it necessary?", None, "unsupported"),
    ],
)
def test_rules_intents(query, files, intent):
    result = IntentClassifierAgent().classify(query, files)
    assert result.intent == intent, result.reasoning
    assert 0 < result.confidence <= 1 and result.reasoning and result.source == "rules"


def test_language_detection():
    assert detect_language("阿司匹林的分子量") == "zh" and detect_language("MW of aspirin") == "en"
    update = IntentClassifierAgent().run({"user_query": "布洛芬的 logP"})
    assert update["language"] == "zh" and update["intent"] == "molecule_query"


def test_entities_smiles_names_reactions_files():
    ents = extract_entities("Compare aspirin with c1ccccc1O (see data/x.csv); is CCO.CC(=O)O>>CCOC(C)=O ok?")
    assert ents.names == ["aspirin"]
    assert ents.smiles == ["c1ccccc1O", "CC(=O)Oc1ccccc1C(=O)O"]
    assert ents.reaction_smiles == ["CCO.CC(=O)O>>CCOC(C)=O"]
    assert ents.files == ["data/x.csv"]


def test_prose_is_not_smiles_but_broken_smiles_is_kept():
    assert extract_entities("(e.g. R1=Me) IC50 of 5 nM in CO2 NO").smiles == []
    assert extract_entities("What is the TPSA of C1CC?").smiles == ["C1CC"]  # reported as invalid later


def test_unsupported_has_friendly_responses_in_both_languages():
    assert "aspirin" in INTENT_RESPONSES["unsupported"]["en"]
    assert "阿司匹林" in INTENT_RESPONSES["unsupported"]["zh"]
    assert not IntentClassifierAgent.is_supported("unsupported")
    assert IntentClassifierAgent.is_supported("retrosynthesis")


def test_data_extensions_match_the_sar_readers():
    sar_io = pytest.importorskip("molx_agent.sar.io")
    assert set(DATA_EXTENSIONS) == set(sar_io.SUPPORTED_SUFFIXES)


@pytest.mark.parametrize(
    ("query", "reaction"),
    [("Is CC(=O)Cl.c1cccc1N>>CC(=O)Nc1ccccc1 balanced?", "CC(=O)Cl.c1cccc1N>>CC(=O)Nc1ccccc1"),
     ("Validate C1CC.CC>>CCC", "C1CC.CC>>CCC")],
)
def test_reaction_with_a_broken_molecule_is_still_a_reaction(query, reaction):
    assert extract_entities(query).reaction_smiles == [reaction]
    assert IntentClassifierAgent().classify(query).intent == "reaction_validation"


@pytest.mark.parametrize("query", ["pIC50>>7 here", "is x>>y ok", "foo>>bar", "a>b>c"])
def test_prose_with_arrows_is_not_a_reaction(query):
    assert extract_entities(query).reaction_smiles == []


def test_name_table_covers_common_drugs_and_reagents_and_every_smiles_parses():
    from rdkit import Chem

    from molx_agent.chem.names import load_name_table, resolve_name

    table = load_name_table()
    assert len(table) >= 200
    assert all(Chem.MolFromSmiles(e.smiles) is not None for e in table)
    for name in ("paracetamol", "ibuprofen", "imatinib", "triethylamine", "DMF", "acetic anhydride"):
        assert resolve_name(name), name
    ents = extract_entities("plan a synthesis of paracetamol")
    assert ents.names == ["paracetamol"] and ents.smiles == ["CC(=O)Nc1ccc(O)cc1"]

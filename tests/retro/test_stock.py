"""Stocks: file stocks, the packaged common reagents, ZINC (molbloom mini catalogue), composites, availability."""

from __future__ import annotations

import gzip

import pytest

from molx_agent.errors import DataError
from molx_agent.retro import stock as stock_mod
from molx_agent.retro.stock import (
    CommonReagentsStock,
    CompositeStock,
    FileStock,
    ZincStock,
    check_availability,
    listed_form,
    load_stock,
    salt_forms,
)

ACETIC_ANHYDRIDE = "CC(=O)OC(C)=O"
PHENOL_IK = "ISWSIDIOOBJBQZ-UHFFFAOYSA-N"


@pytest.fixture
def reagents_smi(tmp_path):
    path = tmp_path / "reagents.smi"
    path.write_text("# my stock\nsmiles\nCC(=O)OC(C)=O acetic anhydride\nNc1ccc(O)cc1\n\nCCO\n")
    return path


@pytest.fixture
def noncanonical_gz(tmp_path):
    path = tmp_path / "stock.txt.gz"
    with gzip.open(path, "wt") as fh:
        fh.write("OCC\nc1ccccc1O\nnot_a_smiles((\n" + PHENOL_IK + "\n")
    return path


def test_file_stock_reads_smi_with_comments_header_and_names(reagents_smi):
    st = FileStock(reagents_smi)
    assert len(st) == 3
    assert ACETIC_ANHYDRIDE in st
    assert "O=C(C)OC(C)=O" in st  # same molecule, other SMILES
    assert "OCC" in st
    assert "CCN" not in st
    assert st.source_of("CCO") == "reagents.smi"
    assert st.source_of("CCN") is None


def test_file_stock_gz_noncanonical_inchikey_and_invalid_lines(noncanonical_gz):
    st = FileStock(noncanonical_gz)
    assert st.canonicalized
    assert st.n_invalid == 1
    assert "CCO" in st
    assert PHENOL_IK in st.inchikeys
    assert "Oc1ccccc1" in st
    assert st.info()["n_inchikeys"] == 1


def test_file_stock_csv_with_smiles_column(tmp_path):
    path = tmp_path / "vendor.csv"
    path.write_text("id,SMILES,price\n1,CC(=O)Cl,3.5\n2,\"c1ccncc1\",1\n")
    st = FileStock(path)
    assert "CC(=O)Cl" in st and "c1ccncc1" in st and len(st) == 2


def test_file_stock_inchikey_only_file(tmp_path):
    path = tmp_path / "keys.txt"
    path.write_text(PHENOL_IK + "\n")
    st = FileStock(path)
    assert "Oc1ccccc1" in st
    assert "Cc1ccccc1" not in st


@pytest.mark.parametrize("content", [b"", b"# only a comment\n\n", b"smiles\n"])
def test_empty_stock_file_is_a_clear_error(tmp_path, content):
    path = tmp_path / "empty.smi"
    path.write_bytes(content)
    with pytest.raises(DataError) as err:
        FileStock(path)
    assert err.value.code == "empty_stock"
    assert str(path) in str(err.value)


def test_missing_and_unreadable_stock_files(tmp_path):
    with pytest.raises(DataError) as err:
        FileStock(tmp_path / "nope.smi")
    assert err.value.code == "stock_file_not_found"
    binary = tmp_path / "bin.smi"
    binary.write_bytes(b"\xff\xfe\x00\x81garbage\x00")
    with pytest.raises(DataError) as err:
        FileStock(binary)
    assert err.value.code == "stock_file_unreadable"
    with pytest.raises(DataError):
        FileStock(tmp_path)  # a directory


def test_common_reagents_stock_holds_frequent_training_reagents():
    st = CommonReagentsStock()
    for reagent in ("CC(=O)Cl", ACETIC_ANHYDRIDE, "CC(C)(C)OC(=O)OC(=O)OC(C)(C)C", "BrCc1ccccc1"):
        assert reagent in st, reagent
    # imatinib is a product, never a common reagent
    assert "Cc1ccc(NC(=O)c2ccc(CN3CCN(C)CC3)cc2)cc1Nc1nccc(-c2cccnc2)n1" not in st
    assert st.name == "common-reagents"


def test_zinc_stock_uses_only_the_packaged_mini_catalogue(monkeypatch):
    import molbloom

    calls = []

    def fake_buy(smiles, catalog="zinc-instock", canonicalize=True, check_common=True):
        calls.append(catalog)
        return True

    monkeypatch.setattr(molbloom, "buy", fake_buy)
    st = ZincStock()
    assert "c1ccccc1" in st
    assert calls == ["zinc-instock-mini"]
    assert "not((smiles" not in st  # unparsable never reaches molbloom
    assert calls == ["zinc-instock-mini"]


def test_zinc_hits_of_any_size_are_probable_but_only_building_blocks_end_a_route():
    from molx_agent.retro.judge import judge_leaf

    desmethyl_imatinib = "Cc1ccc(NC(=O)c2ccc(CN3CCNCC3)cc2)cc1Nc1nccc(-c2cccnc2)n1"  # sold, 36 heavy atoms
    zinc = load_stock("zinc")
    assert zinc.tier_of(desmethyl_imatinib) == (ZincStock.name, "probable")
    leaf = judge_leaf(desmethyl_imatinib, zinc)
    assert leaf["tier"] == "probable" and not leaf["accept"] and "36 heavy atoms" in leaf["reason"]
    assert desmethyl_imatinib not in load_stock("zinc-25")
    assert load_stock("zinc-25").info()["max_heavy_atoms"] == 25


def test_zinc_stock_real_filter_answers_offline():
    st = ZincStock()
    assert "CCO" in st
    assert st.info()["false_positive_rate"] == pytest.approx(0.07)


def test_composite_stock_reports_the_first_source(reagents_smi, tmp_path):
    other = tmp_path / "other.smi"
    other.write_text("CCO\nCCCO\n")
    comp = CompositeStock([FileStock(reagents_smi), FileStock(other)])
    assert comp.source_of("CCO") == "reagents.smi"
    assert comp.source_of("CCCO") == "other.smi"
    assert comp.source_of("CCCCO") is None
    assert "CCCO" in comp and "CCCCO" not in comp
    with pytest.raises(DataError):
        CompositeStock([])


def test_load_stock_specs(reagents_smi, tmp_path):
    assert isinstance(load_stock("zinc"), ZincStock)
    assert isinstance(load_stock("common"), CommonReagentsStock)
    assert isinstance(load_stock(str(reagents_smi)), FileStock)
    assert isinstance(load_stock(reagents_smi), FileStock)
    comp = load_stock(f"{reagents_smi},zinc")
    assert isinstance(comp, CompositeStock)
    assert [s.name for s in comp.stocks] == ["reagents.smi", "zinc-instock-mini"]
    default = load_stock(None)
    assert default.name == "building-blocks+common-reagents+zinc-instock-mini"
    st = FileStock(reagents_smi)
    assert load_stock(st) is st
    with pytest.raises(DataError):
        load_stock(str(tmp_path / "missing.smi"))
    with pytest.raises(DataError):
        load_stock("  ")


def test_check_availability_records_every_molecule_with_its_source(reagents_smi):
    st = FileStock(reagents_smi)
    out = check_availability(["OCC", "CC(C)(C)c1ccc(cc1)C(O)CCCN1CCC(CC1)C(O)(c1ccccc1)c1ccccc1", "C1CC", "C"], st)
    assert [r["smiles"] for r in out] == ["OCC", "CC(C)(C)c1ccc(cc1)C(O)CCCN1CCC(CC1)C(O)(c1ccccc1)c1ccccc1", "C1CC", "C"]
    ethanol, terfenadine, bad, methane = out
    assert ethanol["available"] and ethanol["source"] == "reagents.smi" and not ethanol["estimated"]
    assert ethanol["canonical_smiles"] == "CCO"
    assert terfenadine["available"] is False and terfenadine["source"] == "sa_estimate" and terfenadine["estimated"]
    assert terfenadine["sa_class"] in ("easily_synthesizable", "complex")
    assert bad["available"] is False and bad["error"]["code"] == "invalid_smiles"
    assert methane["source"] == "sa_estimate" and methane["estimated"] is True
    assert isinstance(methane["sa_score"], float)


def test_check_availability_without_fallback(reagents_smi):
    out = check_availability("C", FileStock(reagents_smi), fallback=False)
    assert out[0]["available"] is False and out[0]["source"] is None


def test_check_availability_default_stock_accepts_a_single_string():
    rec = check_availability("CC(=O)Cl")[0]
    assert rec["available"] and rec["tier"] == "verified" and rec["source"] in ("building-blocks", "common-reagents")


def test_sa_class_thresholds():
    assert stock_mod.sa_class(2.19) == "purchasable"
    assert stock_mod.sa_class(2.2) == "easily_synthesizable"
    assert stock_mod.sa_class(3.5) == "complex"
    assert stock_mod.sa_class(None) is None


def test_salt_forms_neutral_parent_and_full_organometallic_reagent():
    assert salt_forms("[C-]#N") == ("C#N",)
    assert salt_forms("C[O-]") == ("CO",)
    assert salt_forms("O=S([O-])c1ccccc1") == ("O=S(O)c1ccccc1",)
    assert set(salt_forms("[CH3][Mg+]")) == {"[CH3][Mg][Br]", "[CH3][Mg][Cl]", "[CH3][Mg][I]"}
    # neutral molecules, zwitterions that stay as drawn (nitro, azide) and boron anions have no other form
    for smiles in ("CCO", "O=[N+]([O-])c1ccccc1", "[N-]=[N+]=[N-]", "[BH3-]C#N"):
        assert salt_forms(smiles) == ()


def test_an_ion_is_in_stock_when_its_neutral_parent_or_full_reagent_is(tmp_path):
    path = tmp_path / "stock.smi"
    path.write_text("C#N\nCO\n[CH3][Mg][Br]\nNc1ccccc1\n")
    stock = FileStock(path)
    assert "[C-]#N" in stock and "C[O-]" in stock and "C[Mg+]" in stock
    assert stock.source_of("[C-]#N") == stock.name
    assert "[NH3+]c1ccccc1" in stock  # the anilinium salt of a listed aniline
    assert "CC[O-]" not in stock  # ethanol is not listed
    assert "C[CH2][Mg+]" not in stock  # nor is any ethylmagnesium halide
    composite = CompositeStock([FileStock(tmp_path / "stock.smi", name="file")])
    assert composite.source_of("[C-]#N") == "file"


def test_listed_form_is_what_the_stock_holds(tmp_path):
    path = tmp_path / "stock.smi"
    path.write_text("C#N\nCO\n[CH3][Mg][Br]\nClCc1ccccc1\n")
    stock = FileStock(path, name="file")
    assert listed_form(stock, "[C-]#N") == "C#N"
    assert listed_form(stock, "C[O-]") == "CO"
    assert listed_form(stock, "C[Mg+]") == "[CH3][Mg][Br]"
    assert listed_form(stock, "ClCc1ccccc1") == "ClCc1ccccc1"  # listed as given
    assert listed_form(stock, "CC[O-]") is None  # not in stock
    # a composite asks the stock that has the molecule
    other = tmp_path / "other.smi"
    other.write_text("[C-]#N\n")
    assert listed_form(CompositeStock([FileStock(other, name="ions"), stock]), "[C-]#N") == "[C-]#N"
    assert listed_form(CompositeStock([FileStock(other, name="ions"), stock]), "C[O-]") == "CO"

    class _Plain:  # any object with the Stock protocol, without listed_form
        name = "plain"

        def __contains__(self, smiles):
            return smiles == "CCO"

        def source_of(self, smiles):
            return self.name if smiles in self else None

    assert listed_form(_Plain(), "CCO") == "CCO" and listed_form(_Plain(), "CC") is None


def test_a_salt_entry_offers_its_compound_and_is_what_the_route_buys(tmp_path):
    path = tmp_path / "catalogue.smi"
    path.write_text("[Na+].[C-]#N\nCCN.Cl\n[N-]=[N+]=[N-].[Na+]\nCCO.CCN\nc1ccccc1\n")  # not RDKit-canonical order
    stock = FileStock(path, name="cat")
    assert "[C-]#N" in stock and listed_form(stock, "[C-]#N") == "[C-]#N.[Na+]"
    assert "NCC" in stock and listed_form(stock, "NCC") == "CCN.Cl"  # any spelling of ethylamine
    assert listed_form(stock, "[N-]=[N+]=[N-]") == "[N-]=[N+]=[N-].[Na+]"
    assert "CCO" not in stock  # a mixture of two compounds is not a salt
    assert "O=C(O)c1ccccc1" not in FileStock(_write(tmp_path / "benzoate.smi", "O=C([O-])c1ccccc1.[Na+]\n"))
    # (an organic acid is not what its salt sells; hydrogen cyanide is, as below: no one buys HCN)
    assert listed_form(stock, "c1ccccc1") == "c1ccccc1"
    assert stock.info()["n_salts"] == 3
    records = check_availability(["[C-]#N", "c1ccccc1"], stock)
    assert records[0]["available"] and records[0]["listed_as"] == "[C-]#N.[Na+]"
    assert "listed_as" not in records[1]


def _write(path, text):
    path.write_text(text)
    return path


def test_an_inorganic_acid_bought_only_as_a_salt_is_in_stock_as_its_anion(tmp_path):
    # thiocyanic acid as published 2-aminobenzothiazole syntheses draw it (riluzole: the aniline, KSCN, Br2),
    # hydrogen cyanide, hydrazoic acid (both spellings) and cyanic acid: each is bought as its anion's salt
    assert salt_forms("N#CS") == ("N#C[S-]",)
    assert salt_forms("C#N") == ("[C-]#N",)
    assert salt_forms("N=[N+]=[N-]") == salt_forms("[N-]=[N+]=N") == ("[N-]=[N+]=[N-]",)
    assert salt_forms("N#CO") == ("N#C[O-]",)
    assert salt_forms("CS") == () and salt_forms("OC(=O)c1ccccc1") == ()  # an organic acid has no such form
    stock = FileStock(_write(tmp_path / "ions.smi", "N#C[S-]\n[Na+].[C-]#N\n[N-]=[N+]=[N-].[Na+]\n"), name="ions")
    assert "N#CS" in stock and listed_form(stock, "N#CS") == "N#C[S-]"
    assert listed_form(stock, "C#N") == "[C-]#N.[Na+]"
    assert listed_form(stock, "N=[N+]=[N-]") == "[N-]=[N+]=[N-].[Na+]"
    assert "N#CO" not in stock  # no cyanate listed
    assert "N#CS" not in FileStock(_write(tmp_path / "none.smi", "Nc1ccccc1\n"))
    # the packaged stock: riluzole's two precursors by the Hugerschoff synthesis (G206) are verified, the
    # thiocyanate bought as the anion
    default = stock_mod.default_stock()
    for smiles in ("N#CS", "Nc1ccc(OC(F)(F)F)cc1"):
        assert stock_mod.stock_tier(default, smiles)[1] == "verified"
    assert listed_form(default, "N#CS") == "N#C[S-]"


def test_packaged_reagents_list_salts_and_prefer_a_direct_entry():
    stock = CommonReagentsStock()
    assert listed_form(stock, "[AlH4-]") == "[AlH4-].[Li+]"  # bought as lithium aluminium hydride
    assert listed_form(stock, "[N-]=[N+]=[N-]") == "[N-]=[N+]=[N-]"  # listed itself (and as sodium azide)


def test_a_tautomer_of_an_entry_is_in_stock_and_bought_as_listed(tmp_path):
    path = tmp_path / "stock.smi"
    path.write_text("Oc1ccnc2cc(Br)ccc12\nCc1cccc(O)n1\nCC(O)=S\nCC(=O)CC(C)=O\n")
    stock = FileStock(path, name="file")
    # InChI's mobile-H layer: 4-quinolone / 4-hydroxyquinoline, 2-pyridone / 2-hydroxypyridine, thioacetic acid
    assert listed_form(stock, "O=c1cc[nH]c2cc(Br)ccc12") == "Oc1ccnc2cc(Br)ccc12"
    assert listed_form(stock, "Cc1cccc(=O)[nH]1") == "Cc1cccc(O)n1"
    assert listed_form(stock, "CC(=O)S") == "CC(O)=S"
    # keto-enol tautomers are distinct compounds in standard InChI: not matched
    assert "CC(=O)C=C(C)O" not in stock
    # an isomer with the same heavy atoms is not a tautomer
    assert "Oc1ccnc2ccc(Br)cc12" not in stock and "Cc1ccc(O)nc1" not in stock


def test_a_molecule_without_stereo_is_bought_as_any_stereoisomer_but_not_the_reverse(tmp_path):
    path = tmp_path / "stock.smi"
    path.write_text("COC(=O)[C@H](C)O\nCC(Cl)CO\n[2H]C([2H])([2H])C(N)CC\nC/C=C/C(=O)O\n")
    stock = FileStock(path, name="file")
    assert listed_form(stock, "COC(=O)C(C)O") == "COC(=O)[C@H](C)O"  # methyl lactate: the (S) entry serves
    assert listed_form(stock, "CC=CC(=O)O") == "C/C=C/C(=O)O"  # unspecified double bond: the E entry serves
    assert "COC(=O)[C@@H](C)O" not in stock  # the enantiomer is another compound
    assert "C[C@@H](Cl)CO" not in stock  # a racemate does not give one enantiomer
    assert "CCC(C)N" not in stock  # the deuterated entry is another compound
    assert "CC/C=C/C(=O)O" not in stock


def test_alias_matching_is_skipped_for_large_stocks(tmp_path, monkeypatch):
    path = tmp_path / "stock.smi"
    path.write_text("Cc1cccc(O)n1\nCCO\nCCN\n")
    monkeypatch.setattr(stock_mod, "ALIAS_INDEX_MAX", 2)
    stock = FileStock(path, name="file")
    assert "Cc1cccc(O)n1" in stock and "Cc1cccc(=O)[nH]1" not in stock


def test_heavy_atom_signature_ignores_hydrogens_charges_and_stereo():
    sig = stock_mod.heavy_atom_signature
    assert sig("O=c1cc[nH]c2cc(Br)ccc12") == sig("Oc1ccnc2cc(Br)ccc12") == "Br1C9N1O1"
    assert sig("C[C@@H](Cl)CO") == sig("CC(Cl)CO") == "C3Cl1O1"
    assert sig("[2H]C([2H])Cl") == "C1Cl1"
    assert sig("c1cc[se]c1") == "C4Se1"
    assert sig("CC(=O)[O-].[Na+]") == "C2Na1O2"


def test_a_listed_tautomer_is_preferred_to_a_stereoisomer(tmp_path):
    path = tmp_path / "stock.smi"
    path.write_text("CC(O)c1cccc(O)n1\nC[C@@H](O)c1cccc(O)n1\n")  # the chiral entry sorts first
    stock = FileStock(path, name="file")
    assert listed_form(stock, "CC(O)c1cccc(=O)[nH]1") == "CC(O)c1cccc(O)n1"


@pytest.mark.parametrize(("template_id", "product", "reagent"), [
    ("G40_grignard_ketone_retro", "CC(C)(O)c1ccccc1", "[CH3][Mg+]"),  # MeMgBr on acetophenone
    ("G43_weinreb_ketone_retro", "CC(=O)c1ccc2ncccc2c1", "[CH3][Mg+]"),  # MeMgBr on a Weinreb amide
    ("G96_kumada_retro", "Cc1ccc(-c2ccccc2)cc1", "[Mg+][c]1ccccc1"),  # PhMgBr
    ("G33_negishi_retro", "c1ccc(-c2ccccn2)cc1", "[Zn+][c]1ccccn1"),  # 2-pyridylzinc bromide
])
def test_named_organometallic_reagents_are_written_as_the_verified_stock_lists_them(template_id, product, reagent):
    # the learned templates and the building-block stock write Grignard and organozinc reagents as R[Mg+] / R[Zn+]
    # (USPTO-50K: 235 and 50 training reactants); a named template writing R[Mg]Br could never end a route in stock
    from molx_agent.chem.templates import apply_named_template

    assert any(reagent in pset for pset in apply_named_template(template_id, product))
    assert load_stock(None).tier_of(reagent)[1] == "verified"


@pytest.mark.parametrize("smiles", [
    # 4-hydroxycoumarin and benzalacetone (Link's warfarin synthesis): the first warfarin route was a Heck coupling
    # to benzalacetone beside a Bloom-filter 4-hydroxycoumarin
    "O=c1cc(O)c2ccccc2o1", "CC(=O)/C=C/c1ccccc1", "CC(=O)C=Cc1ccccc1",
    # the Bloom-filter leaves of the first routes to diphenhydramine, thalidomide, atenolol, metoprolol,
    # glibenclamide and fenofibrate
    "OC(c1ccccc1)c1ccccc1", "O=C1NC(=O)c2ccccc21", "NC(=O)Cc1ccc(O)cc1", "COCCc1ccc(O)cc1",
    "NCCc1ccc(S(N)(=O)=O)cc1", "CC(C)OC(=O)C(C)(C)Br",
    # lasamide, furosemide's precursor (its S_N_Ar with furfurylamine), and tizanidine's aryl amine
    "NS(=O)(=O)c1cc(C(=O)O)c(Cl)cc1Cl", "Nc1c(Cl)ccc2nsnc12",
])
def test_the_building_block_stock_holds_commodity_precursors_of_drugs(smiles):
    """Commodity chemicals in the names table (reagents, 2026-12-06), so in the verified building-block stock."""
    assert load_stock("building-blocks").tier_of(smiles)[1] == "verified"

"""scripts/build_stock.py: the building-block stock rule on a tiny fixture, and byte-identical re-runs."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from molx_agent.retro.stock import FileStock, canonical_smiles, inchikey

ACID = "OC(=O)c1ccccc1"  # a reactant, never a product
AMINE = "NCc1ccccc1"  # a reactant, never a product
AMIDE = "O=C(NCc1ccccc1)c1ccccc1"  # product of the first training reaction
BROMIDE = "Brc1ccc(C)cc1"  # reactant of a training reaction, product of a test reaction
PHENOL = "Oc1ccc(C)cc1"  # reactant whose InChIKey is a benchmark intermediate
HYDROXYPYRIDINE = "Oc1ccccn1"  # reactant whose tautomer (2-pyridone) is a validation product
BOC2O = "CC(C)(C)OC(=O)OC(=O)OC(C)(C)C"
BENCHMARK_REAGENT = "O=C(C1CC1)N1CCNCC1"  # a names-table reagent that is a benchmark intermediate


def _write_gz(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(gzip.compress(text.encode(), mtime=0))


@pytest.fixture
def fixture_data(tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "data"
    _write_gz(data / "uspto50k" / "train_unmapped.csv.gz", "liu2017_split,reactants,product\n"
              f"train,{ACID}.{AMINE},{AMIDE}\n"
              f"train,{AMIDE}.{BROMIDE},CC\n"
              f"train,{PHENOL}.{HYDROXYPYRIDINE}.{ACID},CCC\n")
    header = "id,class,reactants>reagents>production\n"
    _write_gz(data / "uspto50k" / "gln_split_val.csv.gz",
              header + "V1,1,[CH3:1][I:2].[OH:3][c:4]1[cH:5][cH:6][cH:7][cH:8][n:9]1>>[O:3]=[c:4]1[cH:5][cH:6][cH:7][cH:8][nH:9]1\n")
    _write_gz(data / "uspto50k" / "gln_split_test.csv.gz",
              header + "T1,1,[cH:1]1[cH:2][cH:3][c:4]([CH3:7])[cH:5][cH:6]1.[Br:8][Br:9]>>"
              "[Br:8][c:1]1[cH:2][cH:3][c:4]([CH3:7])[cH:5][cH:6]1\n")
    _write_gz(data / "multistep" / "exclude_product_inchikeys.txt.gz",
              inchikey(PHENOL) + "\n" + inchikey(BENCHMARK_REAGENT) + "\n")
    names = tmp_path / "names.json"
    names.write_text(json.dumps({"version": 1, "entries": [
        {"name": "Boc anhydride", "smiles": BOC2O, "kind": "reagent"},
        {"name": "benzoic acid", "smiles": "O=C(O)c1ccccc1", "kind": "reagent"},
        {"name": "aspirin", "smiles": "CC(=O)Oc1ccccc1C(=O)O", "kind": "drug"},
        {"name": "cyclopropanecarbonylpiperazine", "smiles": BENCHMARK_REAGENT, "kind": "reagent"},
    ]}))
    return data, names


def _run(build, data: Path, names: Path, out_dir: Path) -> tuple[bytes, bytes]:
    common, bb = out_dir / "common.smi", out_dir / "bb.smi.gz"
    assert build.main(["--data", str(data), "--names", str(names), "--min-count", "1", "--out", str(common),
                       "--bb-out", str(bb)]) == 0
    return common.read_bytes(), bb.read_bytes()


def test_building_blocks_rule_and_reproducible_bytes(repo_script, fixture_data, tmp_path):
    build = repo_script("scripts/build_stock.py")
    data, names = fixture_data
    first = _run(build, data, names, tmp_path / "a")
    second = _run(build, data, names, tmp_path / "b")
    assert first == second  # byte-identical re-run
    bb = first[1]
    assert bb[:2] == b"\x1f\x8b" and bb[4:8] == b"\x00\x00\x00\x00"  # gzip, mtime 0
    lines = gzip.decompress(bb).decode().splitlines()
    assert all(line.startswith("#") for line in lines[:8]) and not lines[8].startswith("#")
    rows = dict(line.split("\t") for line in lines if not line.startswith("#"))
    assert list(rows) == sorted(rows)
    assert rows == {canonical_smiles(ACID): "2", canonical_smiles(AMINE): "1", canonical_smiles(BOC2O): "0"}
    # not: the training product AMIDE, the test product BROMIDE, the benchmark-excluded PHENOL, the validation
    # product's tautomer HYDROXYPYRIDINE, the drug; the names reagent benzoic acid keeps its USPTO count
    assert all(canonical_smiles(s) == s for s in rows)
    assert "1 added from names.json, 3 entries" in lines[6]
    stock = FileStock(tmp_path / "a" / "bb.smi.gz", canonicalize=False)
    assert len(stock) == 3 and "O=C(O)c1ccccc1" in stock and AMIDE not in stock and PHENOL not in stock
    # the common-reagents file keeps its own rule (training products only; a test product is kept)
    common = first[0].decode().splitlines()
    assert f"{canonical_smiles(BROMIDE)}\t1\tuspto50k_train" in common
    # a names-table reagent and a training reagent that are benchmark molecules are in neither stock
    assert not any(line.startswith(canonical_smiles(BENCHMARK_REAGENT) + "\t") for line in common)
    assert not any(line.startswith(canonical_smiles(PHENOL) + "\t") for line in common)
    assert f"{canonical_smiles(ACID)}\t2\tuspto50k_train" in common
    assert canonical_smiles(BENCHMARK_REAGENT) not in rows
    # --check compares a rebuild with the files on disk
    args = ["--data", str(data), "--names", str(names), "--min-count", "1"]
    assert build.main([*args, "--out", str(tmp_path / "a" / "common.smi"),
                       "--bb-out", str(tmp_path / "a" / "bb.smi.gz"), "--check"]) == 0
    (tmp_path / "a" / "bb.smi.gz").write_bytes(gzip.compress(b"C\t1\n", mtime=0))
    assert build.main([*args, "--out", str(tmp_path / "a" / "common.smi"),
                       "--bb-out", str(tmp_path / "a" / "bb.smi.gz"), "--check"]) == 1


def test_packaged_building_blocks_load_exactly():
    from molx_agent.retro.stock import DATA_DIR

    path = DATA_DIR / "building_blocks.smi.gz"
    stock = FileStock(path, canonicalize=False)
    assert len(stock) > 20_000 and stock.n_invalid == 0
    sample = sorted(stock.smiles)[::500]
    assert all(canonical_smiles(s) == s for s in sample)
    assert "CC(C)(C)OC(=O)OC(=O)OC(C)(C)C" in stock  # Boc2O
    with gzip.open(path, "rt") as fh:
        header = [line for line in fh if line.startswith("#")]
    assert any("exclude_product_inchikeys" in line for line in header)


def test_only_building_block_like_uspto_entries_are_kept(repo_script):
    build = repo_script("scripts/build_stock.py")
    small = "O=C(O)c1ccc(Br)cc1"  # 10 heavy atoms, used once: kept
    mid = "CC(C)(C)OC(=O)N1CCN(c2ccc(C(=O)O)cc2)CC1"  # 22 heavy atoms: kept only when two reactions use it
    big = "CC(C)(C)OC(=O)N1CCN(c2ccc(C(=O)NCc3ccc(Cl)cc3Cl)cc2)CC1"  # 31 heavy atoms: never
    assert (build.heavy_atoms(small), build.heavy_atoms(mid), build.heavy_atoms(big)) == (10, 22, 31)

    def kept(counts: dict[str, int]) -> set[str]:
        training = build.Training()
        training.n_rows = 3
        training.used.update({canonical_smiles(k): v for k, v in counts.items()})
        data, _ = build.building_blocks(training, set(), 0, set(), names=Path("/nonexistent/names.json"))
        return {line.split("\t")[0] for line in gzip.decompress(data).decode().splitlines() if not line.startswith("#")}

    assert kept({small: 1, mid: 1, big: 5}) == {canonical_smiles(small)}
    assert kept({small: 1, mid: 2, big: 5}) == {canonical_smiles(small), canonical_smiles(mid)}

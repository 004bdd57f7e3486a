"""scripts/build_templates.py: deterministic output and the multi-step exclusion list."""

from __future__ import annotations

import csv
import gzip
import json
from pathlib import Path

import numpy as np
import pytest
from rdkit import Chem

from molx_agent.retro.templates_db import INDEX_FILE, TEMPLATES_FILE, read_template_library

N_SUBSET = 200


@pytest.fixture(scope="module")
def build_module(repo_script):
    return repo_script("scripts/build_templates.py")


@pytest.fixture
def uspto_train(shared_data) -> Path:
    return shared_data / "uspto50k" / "train_mapped.csv.gz"


@pytest.fixture
def benchmark_exclusions(shared_data) -> Path:
    return shared_data / "multistep" / "exclude_product_inchikeys.txt.gz"


def _first_products(train: Path, n: int) -> list[str]:
    with gzip.open(train, "rt", newline="") as fh:
        return [row["product"] for _, row in zip(range(n), csv.DictReader(fh), strict=False)]


def test_build_is_deterministic_and_drops_excluded_products(build_module, uspto_train, benchmark_exclusions, tmp_path):
    out_a, out_b = tmp_path / "a", tmp_path / "b"
    meta = build_module.build(uspto_train, benchmark_exclusions, out_a, limit=N_SUBSET, workers=1)
    build_module.build(uspto_train, benchmark_exclusions, out_b, limit=N_SUBSET, workers=1)
    for name in (TEMPLATES_FILE, INDEX_FILE):
        assert (out_a / name).read_bytes() == (out_b / name).read_bytes(), name

    with gzip.open(benchmark_exclusions, "rt") as fh:
        excluded = {line.strip() for line in fh}
    products = _first_products(uspto_train, N_SUBSET)
    keys = [Chem.MolToInchiKey(Chem.MolFromSmiles(p)) for p in products]
    n_excluded = sum(k in excluded for k in keys)
    assert n_excluded > 0  # the subset really contains benchmark products
    assert meta["n_reactions_excluded"] == n_excluded

    with np.load(out_a / INDEX_FILE) as npz:
        kept_rows = npz["train_row"].tolist()
    assert kept_rows == sorted(kept_rows)
    assert not any(keys[i] in excluded for i in kept_rows)
    lib = read_template_library(out_a)
    assert lib.n_train == len(kept_rows) == meta["n_reactions_used"]
    assert sum(t.count for t in lib.templates) == lib.n_train


def test_build_drops_a_listed_product(build_module, uspto_train, tmp_path):
    products = _first_products(uspto_train, 20)
    target_key = Chem.MolToInchiKey(Chem.MolFromSmiles(products[3]))
    exclude = tmp_path / "exclude.txt.gz"
    exclude.write_bytes(gzip.compress(f"{target_key}\n".encode()))
    meta = build_module.build(uspto_train, exclude, tmp_path / "out", limit=20, workers=1)
    assert meta["n_reactions_excluded"] == sum(
        Chem.MolToInchiKey(Chem.MolFromSmiles(p)) == target_key for p in products
    )
    with np.load(tmp_path / "out" / INDEX_FILE) as npz:
        assert 3 not in npz["train_row"].tolist()
    with gzip.open(tmp_path / "out" / TEMPLATES_FILE, "rt") as fh:
        data = json.load(fh)
    assert data["templates"] and {"id", "retro_smarts", "count", "reaction_class"} <= set(data["templates"][0])

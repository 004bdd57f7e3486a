"""The packaged template library learned from USPTO-50K (built by ``scripts/build_templates.py``).

Two files under ``molx_agent/data/``:

* ``retro_templates.json.gz`` — metadata and one record per unique retro template
  (``id``, ``retro_smarts``, ``count``, ``reaction_class``, ``class_counts``, ``necessary_reagent``,
  ``intra_only``, ``dimer_only``), sorted by decreasing count.
* ``retro_train_index.npz`` — per training reaction kept by the build: ``template_idx`` (row in the
  template list), ``train_row`` (row in the training file), ``source`` (0 USPTO-50K training reactions, 1 PaRoutes
  route reactions; absent in a USPTO-50K-only library) and the on-bits of the product and reactant
  Morgan fingerprints in CSR layout (``*_offsets`` uint32, ``*_bits`` uint16).

The USPTO-50K templates come first (``meta["n_templates_uspto50k"]`` of them when PaRoutes templates follow), in
the order the USPTO-50K reactions alone give, so a policy trained on them indexes the same templates.

:func:`load_template_library` reads both once and expands the fingerprints into packed ``uint64``
bit matrices for vectorised Tanimoto similarity (:func:`bulk_tanimoto`).
"""

from __future__ import annotations

import gzip
import json
from dataclasses import dataclass
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np
from rdkit import Chem
from rdkit.Chem import rdFingerprintGenerator

from molx_agent.errors import DataError

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
TEMPLATES_FILE = "retro_templates.json.gz"
INDEX_FILE = "retro_train_index.npz"

# Fingerprint of products and reactant sets used for nearest-neighbour ranking.
FINGERPRINT: dict[str, Any] = {"type": "morgan", "radius": 2, "fp_size": 2048, "chirality": False}
_WORDS = FINGERPRINT["fp_size"] // 64


@lru_cache(maxsize=1)
def _generator() -> Any:
    return rdFingerprintGenerator.GetMorganGenerator(radius=FINGERPRINT["radius"], fpSize=FINGERPRINT["fp_size"])


def fingerprint_bits_of_mol(mol: Chem.Mol) -> list[int]:
    """Sorted on-bit indices of the library fingerprint of ``mol``."""
    return list(_generator().GetFingerprint(mol).GetOnBits())


def fingerprint_bits(smiles: str) -> list[int]:
    """On-bits of the library fingerprint of a (possibly multi-component) SMILES; [] if unparsable."""
    mol = Chem.MolFromSmiles(smiles)
    if mol is None:
        return []
    return fingerprint_bits_of_mol(mol)


def fingerprint_words_of_mol(mol: Chem.Mol) -> np.ndarray:
    """The library fingerprint of ``mol`` packed as :func:`pack_bits` packs its on-bits (built from RDKit's numpy
    array directly, a third faster than from the bit list)."""
    return np.packbits(_generator().GetFingerprintAsNumPy(mol), bitorder="little").view(np.uint64)


def pack_bits(bits: list[int] | np.ndarray) -> np.ndarray:
    """One fingerprint as a packed ``uint64`` row of ``fp_size / 64`` words."""
    row = np.zeros(FINGERPRINT["fp_size"], dtype=bool)
    row[np.asarray(bits, dtype=np.int64)] = True
    return np.packbits(row, bitorder="little").view(np.uint64)


def _dense_from_csr(offsets: np.ndarray, bits: np.ndarray) -> np.ndarray:
    n = len(offsets) - 1
    dense = np.zeros((n, FINGERPRINT["fp_size"]), dtype=bool)
    rows = np.repeat(np.arange(n), np.diff(offsets.astype(np.int64)))
    dense[rows, bits.astype(np.int64)] = True
    return np.packbits(dense, axis=1, bitorder="little").view(np.uint64)


def popcount(words: np.ndarray) -> np.ndarray:
    """Number of set bits per row of a packed ``uint64`` matrix (or of a single row)."""
    return np.bitwise_count(words).sum(axis=-1, dtype=np.int32)


def bulk_tanimoto(query: np.ndarray, matrix: np.ndarray, matrix_counts: np.ndarray) -> np.ndarray:
    """Tanimoto similarity of one packed fingerprint against every row of ``matrix``."""
    common = np.bitwise_count(matrix & query).sum(axis=1, dtype=np.int32)
    q = int(np.bitwise_count(query).sum())
    denom = matrix_counts + q - common
    with np.errstate(divide="ignore", invalid="ignore"):
        sim = np.where(denom > 0, common / np.maximum(denom, 1), 0.0)
    return sim.astype(np.float32)


class BitIndex:
    """Exact Tanimoto of one sparse fingerprint against every row of a packed ``uint64`` matrix, from posting lists.

    Per bit, the rows that have it; for a bit set in more than half of the rows, the rows that lack it instead, so no
    list is longer than half the matrix. The number of bits a row shares with the query is a sum of ``np.bincount``
    over the query's lists: the same integers :func:`bulk_tanimoto` counts from the packed rows, so the same
    similarities, in under a third of its time on the packaged library (55,320 rows;
    ``benchmarks/neighbour_search.py``). Built once per library (:attr:`TemplateLibrary.product_index`), about 9 MB.
    """

    def __init__(self, rows: np.ndarray, bits: np.ndarray, n_rows: int, fp_size: int) -> None:
        """From the (row, bit) pairs of the matrix's on-bits, rows ascending (:meth:`from_packed`, :meth:`from_csr`)."""
        order = np.argsort(np.asarray(bits, dtype=np.int16), kind="stable")  # rows stay ascending within each bit
        rows, bits = np.asarray(rows, dtype=np.int32)[order], np.asarray(bits, dtype=np.int16)[order]
        bounds = np.searchsorted(bits, np.arange(fp_size + 1))
        self.complement = np.diff(bounds) > n_rows // 2
        everyone = np.arange(n_rows, dtype=np.int32)
        lists = []
        for b in range(fp_size):
            have = rows[bounds[b]:bounds[b + 1]]
            if self.complement[b]:
                lacking = np.ones(n_rows, dtype=bool)
                lacking[have] = False
                have = everyone[lacking]
            lists.append(have)
        self.rows = np.concatenate(lists) if lists else np.zeros(0, dtype=np.int32)
        self.offsets = np.zeros(fp_size + 1, dtype=np.int64)
        np.cumsum([len(x) for x in lists], out=self.offsets[1:])
        self.n_rows = n_rows

    @classmethod
    def from_csr(cls, offsets: np.ndarray, bits: np.ndarray, fp_size: int) -> BitIndex:
        """From the library file's per-row on-bit lists (``offsets``: row starts, ``bits``: on-bits)."""
        n_rows = len(offsets) - 1
        rows = np.repeat(np.arange(n_rows, dtype=np.int32), np.diff(np.asarray(offsets, dtype=np.int64)))
        return cls(rows, bits, n_rows, fp_size)

    @classmethod
    def from_packed(cls, matrix: np.ndarray, chunk: int = 4096) -> BitIndex:
        """From a packed ``uint64`` matrix (unpacked in blocks: the whole matrix as bytes could be large)."""
        n_rows = int(matrix.shape[0])
        rows_parts, bits_parts = [], []
        for start in range(0, n_rows, chunk):
            block = np.unpackbits(np.ascontiguousarray(matrix[start:start + chunk]).view(np.uint8), axis=1,
                                  bitorder="little")
            r, b = np.nonzero(block)
            rows_parts.append(r + start)
            bits_parts.append(b)
        rows = np.concatenate(rows_parts) if rows_parts else np.zeros(0, dtype=np.int32)
        bits = np.concatenate(bits_parts) if bits_parts else np.zeros(0, dtype=np.int16)
        return cls(rows, bits, n_rows, int(matrix.shape[1]) * 64)

    def common(self, bits: list[int] | np.ndarray) -> tuple[np.ndarray, int]:
        """Per row, how many of the query's on-bits it has; and the number of distinct query bits."""
        query = np.unique(np.asarray(bits, dtype=np.int64))
        flipped = self.complement[query]
        have = [self.rows[self.offsets[b]:self.offsets[b + 1]] for b in query[~flipped].tolist()]
        lack = [self.rows[self.offsets[b]:self.offsets[b + 1]] for b in query[flipped].tolist()]
        counts = np.bincount(np.concatenate(have), minlength=self.n_rows) if have else \
            np.zeros(self.n_rows, dtype=np.int64)
        if lack:
            counts = counts + (len(lack) - np.bincount(np.concatenate(lack), minlength=self.n_rows))
        return counts, int(query.shape[0])

    def tanimoto(self, bits: list[int] | np.ndarray, row_counts: np.ndarray) -> np.ndarray:
        """:func:`bulk_tanimoto` of the fingerprint with on-bits ``bits`` (``row_counts``: each row's on-bits)."""
        common, q = self.common(bits)
        denom = row_counts + q - common
        with np.errstate(divide="ignore", invalid="ignore"):
            sim = np.where(denom > 0, common / np.maximum(denom, 1), 0.0)
        return sim.astype(np.float32)


@dataclass(frozen=True)
class TemplateRecord:
    """One learned retro template."""

    index: int
    id: str
    retro_smarts: str
    count: int
    reaction_class: int | None
    necessary_reagent: str = ""
    intra_only: bool = False
    dimer_only: bool = False


@dataclass(frozen=True)
class TemplateLibrary:
    """The learned templates and the training-set fingerprints, ready for nearest-neighbour ranking."""

    templates: tuple[TemplateRecord, ...]
    template_idx: np.ndarray  # (n_train,) int32: template of each training reaction
    train_row: np.ndarray  # (n_train,) int32: row of each reaction in its source's file (see ``source``)
    product_fps: np.ndarray  # (n_train, words) uint64
    product_counts: np.ndarray  # (n_train,) int32
    reactant_fps: np.ndarray  # (n_train, words) uint64
    reactant_counts: np.ndarray  # (n_train,) int32
    meta: dict[str, Any]
    source: np.ndarray | None = None  # (n_train,) uint8: 0 USPTO-50K training, 1 PaRoutes; None: all USPTO-50K
    # general (radius-0) templates: only the atoms that change and the leaving groups (``scripts/build_templates.py``)
    general_templates: tuple[TemplateRecord, ...] = ()
    general_idx: np.ndarray | None = None  # (n_train,) int32: general template of each reaction, -1 when none
    # the products' on-bits as the index file stores them: (row offsets, bits); builds ``product_index`` fast
    product_csr: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def n_train(self) -> int:
        return int(self.template_idx.shape[0])

    @cached_property
    def product_index(self) -> BitIndex:
        """The training products' fingerprints as posting lists (:class:`BitIndex`), built at first use: from the
        library file's on-bit lists when read from it (``product_csr``), else from ``product_fps``."""
        if self.product_csr is not None:
            return BitIndex.from_csr(*self.product_csr, fp_size=int(self.product_fps.shape[1]) * 64)
        return BitIndex.from_packed(self.product_fps)

    @property
    def sources(self) -> np.ndarray:
        """Per training reaction: 0 USPTO-50K training reaction, 1 PaRoutes route reaction."""
        if self.source is None:
            return np.zeros(self.n_train, dtype=np.uint8)
        return self.source

    @property
    def has_general(self) -> bool:
        """Whether the library carries general (radius-0) templates."""
        return bool(self.general_templates) and self.general_idx is not None

    @property
    def n_uspto_templates(self) -> int:
        """How many templates (the first ones) the USPTO-50K training reactions give."""
        return int(self.meta.get("n_templates_uspto50k", len(self.templates)))


def _read_json_gz(path: Path) -> dict[str, Any]:
    try:
        with gzip.open(path, "rb") as fh:
            return json.loads(fh.read())
    except FileNotFoundError as exc:
        raise DataError("missing_data_file", f"Template library not found: {path}", value=str(path),
                        hint="run scripts/build_templates.py") from exc
    except (OSError, ValueError) as exc:
        raise DataError("bad_data_file", f"Template library is unreadable: {path}", value=str(path)) from exc


def read_template_library(data_dir: str | Path | None = None) -> TemplateLibrary:
    """Read the template library from ``data_dir`` (default: the packaged data folder)."""
    base = Path(data_dir) if data_dir is not None else DATA_DIR
    meta = _read_json_gz(base / TEMPLATES_FILE)
    if meta.get("fingerprint") != FINGERPRINT:
        raise DataError("bad_data_file", "Template library was built with another fingerprint",
                        value=meta.get("fingerprint"), hint="rebuild with scripts/build_templates.py")
    templates = tuple(
        TemplateRecord(
            index=i,
            id=t["id"],
            retro_smarts=t["retro_smarts"],
            count=int(t["count"]),
            reaction_class=t.get("reaction_class"),
            necessary_reagent=t.get("necessary_reagent") or "",
            intra_only=bool(t.get("intra_only")),
            dimer_only=bool(t.get("dimer_only")),
        )
        for i, t in enumerate(meta.pop("templates"))
    )
    general = tuple(
        TemplateRecord(index=i, id=t["id"], retro_smarts=t["retro_smarts"], count=int(t["count"]),
                       reaction_class=None)
        for i, t in enumerate(meta.pop("general_templates", ()))
    )
    index_path = base / INDEX_FILE
    try:
        with np.load(index_path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except FileNotFoundError as exc:
        raise DataError("missing_data_file", f"Template index not found: {index_path}", value=str(index_path),
                        hint="run scripts/build_templates.py") from exc
    product_fps = _dense_from_csr(arrays["product_offsets"], arrays["product_bits"])
    reactant_fps = _dense_from_csr(arrays["reactant_offsets"], arrays["reactant_bits"])
    return TemplateLibrary(
        templates=templates,
        template_idx=arrays["template_idx"].astype(np.int32),
        train_row=arrays["train_row"].astype(np.int32),
        product_fps=product_fps,
        product_counts=popcount(product_fps),
        reactant_fps=reactant_fps,
        reactant_counts=popcount(reactant_fps),
        meta=meta,
        source=arrays["source"].astype(np.uint8) if "source" in arrays else None,
        general_templates=general,
        general_idx=arrays["general_idx"].astype(np.int32) if general and "general_idx" in arrays else None,
        product_csr=(arrays["product_offsets"], arrays["product_bits"]),
    )


@lru_cache(maxsize=1)
def load_template_library() -> TemplateLibrary:
    """The packaged template library, read once per process."""
    return read_template_library()


__all__ = [
    "DATA_DIR",
    "TEMPLATES_FILE",
    "INDEX_FILE",
    "FINGERPRINT",
    "BitIndex",
    "TemplateRecord",
    "TemplateLibrary",
    "fingerprint_bits",
    "fingerprint_bits_of_mol",
    "fingerprint_words_of_mol",
    "pack_bits",
    "popcount",
    "bulk_tanimoto",
    "read_template_library",
    "load_template_library",
]

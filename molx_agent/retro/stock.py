"""Purchasability: which molecules count as starting materials.

A stock answers two questions about a molecule: is it in stock (``smiles in stock``) and which
stock said so (``stock.source_of(smiles)``).  An ion counts as in stock when its neutral parent or its
full reagent form is (:func:`salt_forms`: ``[C-]#N`` -> ``C#N``, ``C[Mg+]`` -> ``C[Mg]Br``), since
reaction data strip the counter-ions that stocks keep; and an inorganic acid no one buys as such (hydrogen cyanide,
hydrazoic, cyanic, thiocyanic, nitrous acid, hydrogen sulfide) counts as in stock when its anion is, which is how
it is bought (NaCN, NaN3, KOCN, KSCN, NaNO2, NaSH).  Implementations:

- :class:`ZincStock` -- the ZINC20 in-stock Bloom filter shipped inside the ``molbloom`` wheel
  (``catalog="zinc-instock-mini"``, 9.2 M molecules, false-positive rate about 7 %).  molbloom's
  default catalogue downloads a file, so it is never used.  Only building blocks (<= 25 heavy atoms)
  count by default: ZINC vendors also sell drugs and their metabolites (``"zinc-all"`` lifts the cap).
- :class:`FileStock` -- a user file with one SMILES or InChIKey per line (``.smi``, ``.txt``, ``.csv``,
  optionally gzipped).  Entries are kept as canonical SMILES / InChIKeys in Python sets; an entry that is one
  compound with counter-ions (``[C-]#N.[Na+]``, ``CCN.Cl``, see ``COUNTER_IONS``) also offers the compound, and
  (stocks up to ``ALIAS_INDEX_MAX`` entries) an entry offers its other tautomers (same standard InChIKey: a
  4-quinolone for a listed 4-hydroxyquinoline) and serves a molecule written without stereo as any of its
  stereoisomers (:meth:`FileStock.alias_of`); the route then buys the entry as listed.
- :class:`CommonReagentsStock` -- the packaged ``data/common_reagents.smi``: reactants used in at
  least five USPTO-50K training reactions and never produced by one (``scripts/build_stock.py``).
- :class:`CompositeStock` -- several stocks; the first that has a molecule is its source.

:func:`check_availability` answers per molecule with ``available``, ``source`` and the SA / CS
scores; an SA-score estimate (seed 000 thresholds) is used only as a labelled fallback
(``source="sa_estimate"``, ``estimated=True``) when no stock has the molecule.
"""

from __future__ import annotations

import csv
import gzip
import io
import logging
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from molx_agent.errors import ChemistryError, DataError

logger = logging.getLogger(__name__)

DATA_DIR = Path(__file__).resolve().parents[1] / "data"
COMMON_REAGENTS_FILE = DATA_DIR / "common_reagents.smi"
BUILDING_BLOCKS_FILE = DATA_DIR / "building_blocks.smi.gz"
ZINC_CATALOG = "zinc-instock-mini"
ZINC_FALSE_POSITIVE_RATE = 0.07
#: ZINC in-stock also sells drugs, metabolites and late intermediates (N-desmethyl-imatinib, ...).  A hit of any size
#: is reported (tier ``probable``); whether it may end a route is the leaf policy's decision
#: (``retro.judge.judge_leaf``: only building-block-like Bloom-filter hits).  ``ZincStock(max_heavy_atoms=25)`` or
#: the spec ``"zinc-25"`` ignores larger hits altogether (the behaviour before the leaf policy).
ZINC_MAX_HEAVY_ATOMS: int | None = None

#: SA-score classes of seed 000 (``SAThresholds``): the one copy lives in ``chem.properties``.
from molx_agent.chem.properties import SA_PURCHASABLE, sa_class  # noqa: E402

_SMILES_HEADERS = {"smiles", "canonical_smiles", "smi", "structure"}
_INCHIKEY_HEADERS = {"inchikey", "inchi_key", "standard_inchikey"}
_CANON_SAMPLE = 200
#: A file stock with at most this many SMILES entries also answers for other tautomers and, for a molecule written
#: without stereo, for stereoisomers of its entries (:meth:`FileStock.alias_of`); the index is built at the first
#: miss.  Larger stocks answer by exact canonical SMILES only (indexing a million entries would take minutes).
ALIAS_INDEX_MAX = 250_000
_ATOM_TOKEN = re.compile(r"\[[0-9]*([A-Z][a-z]?|[a-z][a-z]?)|(Br|Cl|[BCNOPSFIbcnops])")
_NO_STEREO_BLOCK = "UHFFFAOYSA"


# -- molecule keys ---------------------------------------------------------------------------------
def _quiet_mol(smiles: str) -> Any:
    from rdkit import Chem, RDLogger

    lg = RDLogger.logger()
    lg.setLevel(RDLogger.CRITICAL)
    try:
        return Chem.MolFromSmiles(smiles)
    finally:
        lg.setLevel(RDLogger.WARNING)


@lru_cache(maxsize=200_000)
def canonical_smiles(smiles: str) -> str | None:
    """RDKit canonical isomeric SMILES, or ``None`` when RDKit cannot parse ``smiles`` (cached)."""
    from rdkit import Chem

    mol = _quiet_mol(smiles) if smiles else None
    return Chem.MolToSmiles(mol) if mol is not None else None


@lru_cache(maxsize=200_000)
def inchikey(smiles: str) -> str | None:
    """Standard InChIKey of ``smiles`` or ``None`` (cached)."""
    from rdkit import Chem, RDLogger

    mol = _quiet_mol(smiles) if smiles else None
    if mol is None:
        return None
    lg = RDLogger.logger()
    lg.setLevel(RDLogger.CRITICAL)
    try:
        key = Chem.MolToInchiKey(mol)
    finally:
        lg.setLevel(RDLogger.WARNING)
    return key or None


@lru_cache(maxsize=200_000)
def heavy_atom_signature(smiles: str) -> str:
    """Element counts of the heavy atoms written in ``smiles`` (``C7N1O1``), read from the text without parsing.

    Tautomers and stereoisomers of a molecule share it, so it is a cheap pre-filter before InChIKeys are compared.
    """
    counts: dict[str, int] = {}
    for bracket, plain in _ATOM_TOKEN.findall(smiles):
        element = (bracket or plain).capitalize()
        if element != "H":
            counts[element] = counts.get(element, 0) + 1
    return "".join(f"{e}{n}" for e, n in sorted(counts.items()))


#: Organometallic cations as USPTO writes them once the halide is stripped (``C[Mg+]``), and the halides that
#: complete them as a stock lists the reagent (``C[Mg]Br``).
_METAL_CATIONS = ("[Mg+]", "[Zn+]")
_METAL_HALIDES = ("Br", "Cl", "I")

#: Inorganic acids that are bought as their salts (gases, an explosive, acids that polymerise or decompose: HCN,
#: HN3, HOCN, HSCN, HNO2, H2S), written as a template writes the acid (published routes draw thiocyanic acid, ``N#CS``,
#: for the thiocyanate of a 2-aminobenzothiazole synthesis, nitrous acid for NaNO2 and acid), and the anion a stock
#: lists for them (KSCN, NaNO2, NaSH, ...).
_ACIDS_SOLD_AS_SALTS = {
    "C#N": "[C-]#N",
    "[N-]=[N+]=N": "[N-]=[N+]=[N-]",
    "N=[N+]=[N-]": "[N-]=[N+]=[N-]",
    "N#CO": "N#C[O-]",
    "N#CS": "N#C[S-]",
    "O=NO": "O=N[O-]",
    "S": "[SH-]",
}


#: Counter-ions and solvates a catalogue writes beside the compound it sells (canonical SMILES): an entry made of
#: one compound and some of these also offers the compound (``[C-]#N.[Na+]`` offers cyanide, ``CCN.Cl`` ethylamine).
COUNTER_IONS = frozenset({
    "[Li+]", "[Na+]", "[K+]", "[Cs+]", "[Mg+2]", "[Ca+2]", "[Zn+2]", "[Cu+]", "[Ag+]", "[NH4+]", "[H+]",
    "Cl", "[Cl-]", "Br", "[Br-]", "I", "[I-]", "F", "[F-]", "O", "[OH-]",
    "O=S(=O)(O)O", "O=S(=O)([O-])O", "O=S(=O)([O-])[O-]", "CS(=O)(=O)O", "CS(=O)(=O)[O-]",
    "Cc1ccc(S(=O)(=O)O)cc1", "Cc1ccc(S(=O)(=O)[O-])cc1", "O=P(O)(O)O", "O=[N+]([O-])O",
    "CC(=O)O", "CC(=O)[O-]", "O=C(O)C(F)(F)F", "O=C([O-])C(F)(F)F", "O=C(O)C(=O)O",
    "O=C(O)/C=C/C(=O)O", "O=C(O)/C=C\\C(=O)O", "F[P-](F)(F)(F)(F)F", "F[B-](F)(F)F",
})


def _salt_parent(entry: str) -> str | None:
    """The one compound of a catalogue entry that is that compound plus counter-ions (string split, no parsing)."""
    if "." not in entry:
        return None
    rest = {part for part in entry.split(".") if part not in COUNTER_IONS}
    return rest.pop() if len(rest) == 1 else None


@lru_cache(maxsize=50_000)
def salt_forms(smiles: str) -> tuple[str, ...]:
    """Other ways a stock may list the reagent an ionic ``smiles`` stands for (empty for neutral molecules).

    Reaction data strip counter-ions, so a template can ask for cyanide as ``[C-]#N``, methoxide as
    ``C[O-]`` or a Grignard reagent as ``C[Mg+]``, while a stock lists the neutral parent (``C#N``, ``CO``)
    or the full reagent (``C[Mg]Br``).  Returned: the neutral parent (RDKit ``Uncharger``; boron anions
    such as cyanoborohydride are left alone) and, for an organomagnesium or organozinc cation, the
    bromide, chloride and iodide; for an inorganic acid bought only as a salt (``N#CS``, thiocyanic acid), its anion
    (``N#C[S-]``, see ``_ACIDS_SOLD_AS_SALTS``).  Canonical SMILES, without ``smiles`` itself.
    """
    if smiles in _ACIDS_SOLD_AS_SALTS:
        return (_ACIDS_SOLD_AS_SALTS[smiles],)
    if "+" not in smiles and "-]" not in smiles:
        return ()
    mol = _quiet_mol(smiles)
    if mol is None:
        return ()
    from rdkit import Chem
    from rdkit.Chem.MolStandardize import rdMolStandardize

    own = Chem.MolToSmiles(mol)
    forms: list[str] = []
    if not any(a.GetSymbol() == "B" and a.GetFormalCharge() < 0 for a in mol.GetAtoms()):
        neutral = Chem.MolToSmiles(rdMolStandardize.Uncharger(canonicalOrder=True).uncharge(mol))
        if neutral != own:
            forms.append(neutral)
    for cation in _METAL_CATIONS:
        if cation in smiles and smiles.count("+") == 1 and "-]" not in smiles:
            for halide in _METAL_HALIDES:
                full = _quiet_mol(smiles.replace(cation, f"{cation[:3]}]({halide})", 1))
                if full is not None:
                    forms.append(Chem.MolToSmiles(full))
    return tuple(dict.fromkeys(f for f in forms if f != own))


def listed_form(stock: Stock, smiles: str) -> str | None:
    """The entry ``stock`` sells ``smiles`` as: ``smiles`` itself, its neutral parent or full reagent when the stock
    holds that instead (:func:`salt_forms`), or a salt entry of it (``[C-]#N.[Na+]``, see ``COUNTER_IONS``);
    ``None`` when not in stock.  A route ends in what is
    bought, so the search writes this form as the leaf (the reacting ion stays in the step's mapped reaction).
    Works with any :class:`Stock` (one without ``listed_form`` lists molecules as given)."""
    method = getattr(stock, "listed_form", None)
    if callable(method):
        return method(smiles)
    return smiles if smiles in stock else None


def _has_isotopes(smiles: str) -> bool:
    mol = _quiet_mol(smiles)
    return mol is None or any(a.GetIsotope() for a in mol.GetAtoms())


def _is_inchikey(token: str) -> bool:
    return (
        len(token) == 27
        and token[14] == "-"
        and token[25] == "-"
        and token[:14].isalpha()
        and token[:14].isupper()
    )


# -- the interface -------------------------------------------------------------------------------------
@runtime_checkable
class Stock(Protocol):
    """What the search and the availability check need from a stock."""

    name: str

    def __contains__(self, smiles: object) -> bool: ...

    def source_of(self, smiles: str) -> str | None:
        """Name of the stock that has ``smiles`` (``None`` when not in stock)."""
        ...


class BaseStock:
    """Shared behaviour: per-SMILES answer cache and ``source_of`` from ``__contains__``.

    ``tier``: how sure an answer of this stock is: ``verified`` (exact entries of a real list: the packaged
    building blocks, a catalogue file) or ``probable`` (a probabilistic index such as a Bloom filter).
    """

    name = "stock"
    tier = "verified"

    def __init__(self) -> None:
        self._cache: dict[str, bool] = {}

    def _lookup(self, smiles: str) -> bool:  # pragma: no cover - abstract
        raise NotImplementedError

    def __contains__(self, smiles: object) -> bool:
        if not isinstance(smiles, str) or not smiles:
            return False
        hit = self._cache.get(smiles)
        if hit is None:
            hit = self._lookup(smiles) or any(self._lookup(form) for form in salt_forms(smiles))
            self._cache[smiles] = hit
        return hit

    def source_of(self, smiles: str) -> str | None:
        return self.name if smiles in self else None

    def tier_of(self, smiles: str) -> tuple[str | None, str]:
        """``(source, tier)``: this stock's name and tier when it has ``smiles``, else ``(None, "unavailable")``."""
        source = self.source_of(smiles)
        return (source, self.tier) if source is not None else (None, "unavailable")

    def listed_form(self, smiles: str) -> str | None:
        """How this stock lists ``smiles``: ``smiles`` itself, or the other form (:func:`salt_forms`) or salt entry
        it holds instead (``C#N`` or ``[C-]#N.[Na+]`` for ``[C-]#N``); ``None`` when not in stock."""
        if smiles not in self:
            return None
        for form in (smiles, *salt_forms(smiles)):
            entry = self._entry(form)
            if entry is not None:
                return entry
        return smiles

    def _entry(self, smiles: str) -> str | None:
        """The stock entry that answers ``smiles`` (``smiles`` itself here; a file stock may name a salt)."""
        return smiles if self._lookup(smiles) else None

    def info(self) -> dict[str, Any]:
        return {"name": self.name, "type": type(self).__name__}

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


class ZincStock(BaseStock):
    """ZINC20 in-stock molecules via the Bloom filter packaged in ``molbloom`` (offline, ~7 % FPR).

    Every hit is ``probable`` (``tier``): about 7 % of them are false positives.  ``max_heavy_atoms`` (default
    ``None``: no limit; the leaf policy decides which hits may end a route) ignores larger hits (spec ``"zinc-25"``).
    """

    name = ZINC_CATALOG
    tier = "probable"  # a Bloom filter: about 7 % of the molecules it "has" are false positives

    def __init__(self, check_common: bool = True, max_heavy_atoms: int | None = ZINC_MAX_HEAVY_ATOMS) -> None:
        super().__init__()
        self.check_common = check_common
        self.max_heavy_atoms = max_heavy_atoms
        self._buy: Any = None

    def _load(self) -> Any:
        if self._buy is None:
            try:
                import molbloom
            except ImportError as exc:  # pragma: no cover - molbloom is a dependency
                raise DataError("stock_unavailable", "molbloom is not installed", value="zinc") from exc
            self._buy = molbloom.buy
        return self._buy

    def _lookup(self, smiles: str) -> bool:
        buy = self._load()
        mol = _quiet_mol(smiles)
        if mol is None:
            return False
        if self.max_heavy_atoms is not None and mol.GetNumHeavyAtoms() > self.max_heavy_atoms:
            return False
        # molbloom canonicalises itself (kekulé SMILES, its filter's key format).
        return bool(buy(smiles, catalog=ZINC_CATALOG, canonicalize=True, check_common=self.check_common))

    def info(self) -> dict[str, Any]:
        return {
            **super().info(),
            "catalog": ZINC_CATALOG,
            "n_molecules": 9_227_726,
            "false_positive_rate": ZINC_FALSE_POSITIVE_RATE,
            "max_heavy_atoms": self.max_heavy_atoms,
            "note": "Bloom filter: a hit means 'probably purchasable' (about 7% false positives)",
        }


def _open_text(path: Path) -> io.TextIOBase:
    with open(path, "rb") as fh:
        magic = fh.read(2)
    if magic == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8")  # type: ignore[return-value]
    return open(path, encoding="utf-8")  # noqa: SIM115


def _read_tokens(path: Path) -> list[str]:
    """First field of every data line (SMILES or InChIKey) of a .smi/.txt/.csv file, gzipped or not."""
    name = path.name.lower()
    is_csv = name.endswith(".csv") or name.endswith(".csv.gz")
    tokens: list[str] = []
    with _open_text(path) as fh:
        if is_csv:
            reader = csv.reader(fh)
            header = next(reader, None)
            if header is None:
                return tokens
            lowered = [h.strip().lower() for h in header]
            col = next((i for i, h in enumerate(lowered) if h in _SMILES_HEADERS | _INCHIKEY_HEADERS), None)
            if col is None:  # no header: the first row is data
                col = 0
                if header and header[0].strip():
                    tokens.append(header[0].strip())
            for row in reader:
                if len(row) > col:
                    tok = row[col].strip()
                    if tok and not tok.startswith("#"):
                        tokens.append(tok)
            return tokens
        for line in fh:
            if not line or line[0] == "#":
                continue
            parts = line.split(None, 1)
            if parts:
                tokens.append(parts[0])
    if tokens and tokens[0].lower() in _SMILES_HEADERS | _INCHIKEY_HEADERS:
        tokens.pop(0)
    return tokens


class FileStock(BaseStock):
    """Molecules listed in a file: one SMILES or InChIKey per line (.smi/.txt/.csv, gzip allowed).

    SMILES are compared as RDKit canonical SMILES, then as other tautomers or stereoisomers of an entry
    (:meth:`alias_of`).  ``canonicalize="auto"`` checks a sample of the
    file: when every sampled SMILES is already RDKit-canonical the entries are stored as they are
    (one million lines load in a few seconds), otherwise every entry is canonicalised (slower; lines
    RDKit cannot parse are counted in ``n_invalid`` and logged).  InChIKey lines are matched against
    the query's InChIKey.
    """

    def __init__(self, path: str | os.PathLike[str], name: str | None = None, canonicalize: bool | str = "auto"):
        super().__init__()
        self.path = Path(path)
        self.name = name or self.path.name
        self.smiles: set[str] = set()
        self.inchikeys: set[str] = set()
        self.salts: dict[str, str] = {}  # compound -> the entry that sells it with counter-ions (first listed)
        self._signatures: dict[str, list[str]] | None = None  # heavy-atom signature -> entries (alias_of)
        self.n_invalid = 0
        self.canonicalized = False
        self._load(canonicalize)

    def _load(self, canonicalize: bool | str) -> None:
        if not self.path.exists():
            raise DataError("stock_file_not_found", f"stock file not found: {self.path}", value=str(self.path),
                            hint="give a .smi/.txt/.csv file with one SMILES or InChIKey per line, or 'zinc'")
        if not self.path.is_file():
            raise DataError("stock_file_unreadable", f"stock path is not a file: {self.path}", value=str(self.path))
        try:
            tokens = _read_tokens(self.path)
        except (UnicodeDecodeError, OSError, EOFError, csv.Error) as exc:
            raise DataError("stock_file_unreadable", f"cannot read stock file {self.path}: {exc}",
                            value=str(self.path), hint="expected UTF-8 text, optionally gzipped") from exc
        smiles_tokens = []
        for tok in tokens:
            if _is_inchikey(tok):
                self.inchikeys.add(tok)
            else:
                smiles_tokens.append(tok)
        if smiles_tokens:
            if canonicalize == "auto":
                step = max(1, len(smiles_tokens) // _CANON_SAMPLE)
                sample = smiles_tokens[::step][:_CANON_SAMPLE]
                canonicalize = any(canonical_smiles(s) != s for s in sample)
            if canonicalize:
                self.canonicalized = True
                logger.info("canonicalising %d SMILES of stock %s", len(smiles_tokens), self.path)
                entries = []
                for tok in smiles_tokens:
                    can = canonical_smiles(tok)
                    if can is None:
                        self.n_invalid += 1
                    else:
                        entries.append(can)
                if self.n_invalid:
                    logger.warning("stock %s: %d lines are not valid SMILES and were not loaded",
                                   self.path, self.n_invalid)
                smiles_tokens = entries
            self.smiles = set(smiles_tokens)
            for entry in smiles_tokens:
                if "." in entry:
                    parent = _salt_parent(entry)
                    if parent is not None and parent not in self.smiles:
                        self.salts.setdefault(parent, entry)
        if not self.smiles and not self.inchikeys:
            raise DataError("empty_stock", f"stock file has no usable SMILES or InChIKey: {self.path}",
                            value=str(self.path), hint="one SMILES or InChIKey per line")

    def __len__(self) -> int:
        return len(self.smiles) + len(self.inchikeys)

    def _entry(self, smiles: str) -> str | None:
        """The entry that sells ``smiles``: itself, or a salt of it (``CCN.Cl`` for ``CCN``, see ``COUNTER_IONS``)."""
        if smiles in self.smiles:
            return smiles
        if smiles in self.salts:
            return self.salts[smiles]
        can = canonical_smiles(smiles)
        if can is None:
            return None
        if can in self.smiles:
            return can
        if can in self.salts:
            return self.salts[can]
        if self.inchikeys:
            key = inchikey(can)
            if key is not None and key in self.inchikeys:
                return can
        return self.alias_of(can)

    def alias_of(self, can: str) -> str | None:
        """The entry that is ``can`` written as another tautomer, or any stereoisomer of ``can`` when ``can`` gives
        no stereo (a buyer who needs the compound with unspecified configuration can use any form); ``None``
        otherwise.

        Compared by standard InChIKey: same key (InChI's mobile-H layer makes 2-pyridone and 2-hydroxypyridine,
        or a 4-quinolone and its 4-hydroxyquinoline, one compound), or, for a query whose key has no stereo
        layer, the same skeleton block and protonation flag with an entry that carries no isotopes.  A query that
        specifies stereo never matches another stereoisomer or a racemate.  Only stocks of at most
        ``ALIAS_INDEX_MAX`` SMILES entries (the index is built at the first miss).
        """
        if self._signatures is None:
            if len(self.smiles) > ALIAS_INDEX_MAX:
                self._signatures = {}
            else:
                index: dict[str, list[str]] = defaultdict(list)
                for entry in sorted(self.smiles):
                    if "." not in entry:  # uncached: each entry is signed once; the cache is for queries
                        index[heavy_atom_signature.__wrapped__(entry)].append(entry)
                self._signatures = dict(index)
        candidates = self._signatures.get(heavy_atom_signature(can)) if self._signatures else None
        if not candidates:
            return None
        key = inchikey(can)
        if key is None:
            return None
        keys = [(entry, inchikey(entry)) for entry in candidates]
        same = next((entry for entry, other in keys if other == key), None)  # the same compound first
        if same is not None or key[15:25] != _NO_STEREO_BLOCK:
            return same
        return next((entry for entry, other in keys if other is not None and other[:14] == key[:14]
                     and other[-1] == key[-1] and not _has_isotopes(entry)), None)

    def _lookup(self, smiles: str) -> bool:
        return self._entry(smiles) is not None

    def info(self) -> dict[str, Any]:
        return {**super().info(), "path": str(self.path), "n_smiles": len(self.smiles),
                "n_inchikeys": len(self.inchikeys), "n_salts": len(self.salts), "n_invalid": self.n_invalid}


class CommonReagentsStock(FileStock):
    """The packaged common reagents: USPTO-50K training reactants used often and never produced."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        super().__init__(path or COMMON_REAGENTS_FILE, name="common-reagents", canonicalize=False)


class BuildingBlocksStock(FileStock):
    """The packaged ``verified`` building blocks (``data/building_blocks.smi.gz``, ``scripts/build_stock.py``):
    reactants of the USPTO-50K training reactions that no USPTO-50K reaction produces and that are building-block
    sized, plus the names table's reagents; benchmark targets and intermediates excluded."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        super().__init__(path or BUILDING_BLOCKS_FILE, name="building-blocks", canonicalize=False)


class CompositeStock(BaseStock):
    """Several stocks; a molecule is in stock when any has it, and its source is the first that does."""

    def __init__(self, stocks: Sequence[Stock], name: str | None = None) -> None:
        super().__init__()
        if not stocks:
            raise DataError("empty_stock", "a composite stock needs at least one stock", value=[])
        self.stocks = list(stocks)
        self.name = name or "+".join(s.name for s in self.stocks)
        self._source: dict[str, tuple[str | None, str]] = {}

    def source_of(self, smiles: str) -> str | None:
        """The first stock that has ``smiles``, exact (``verified``) stocks before probabilistic ones."""
        return self.tier_of(smiles)[0]

    def tier_of(self, smiles: str) -> tuple[str | None, str]:
        """``(source, tier)`` from the first stock with ``smiles``: a verified stock answers before a probable one."""
        if not isinstance(smiles, str) or not smiles:
            return None, "unavailable"
        hit = self._source.get(smiles)
        if hit is None:
            hit = (None, "unavailable")
            for rank in ("verified", "probable"):
                member = next((s for s in self.stocks if _tier(s) == rank and smiles in s), None)
                if member is not None:
                    hit = (member.name, rank)
                    break
            else:
                member = next((s for s in self.stocks if _tier(s) not in ("verified", "probable") and smiles in s), None)
                if member is not None:
                    hit = (member.name, _tier(member))
            self._source[smiles] = hit
        return hit

    @property
    def tier(self) -> str:  # type: ignore[override]
        tiers = {_tier(s) for s in self.stocks}
        return "verified" if tiers == {"verified"} else "mixed"

    def _lookup(self, smiles: str) -> bool:
        return self.source_of(smiles) is not None

    def listed_form(self, smiles: str) -> str | None:
        """The form the first stock that has ``smiles`` lists it in (see :meth:`BaseStock.listed_form`)."""
        source = self.source_of(smiles)
        if source is None:
            return None
        first = next(s for s in self.stocks if s.name == source and smiles in s)
        return listed_form(first, smiles)

    def stock_named(self, name: str) -> Stock | None:
        return next((s for s in self.stocks if s.name == name), None)

    def info(self) -> dict[str, Any]:
        return {**super().info(), "stocks": [s.info() if hasattr(s, "info") else {"name": s.name} for s in self.stocks]}


def _tier(stock: Any) -> str:
    """A stock's tier (``verified`` when it does not say: an exact list)."""
    return str(getattr(stock, "tier", "verified") or "verified")


def stock_tier(stock: Any, smiles: str) -> tuple[str | None, str]:
    """``(source, tier)`` of ``smiles`` in any stock: ``(None, "unavailable")`` when no stock has it."""
    tier_of = getattr(stock, "tier_of", None)
    if callable(tier_of):
        return tier_of(smiles)
    source = stock.source_of(smiles)
    return (source, _tier(stock)) if source is not None else (None, "unavailable")


# -- construction from a spec -------------------------------------------------------------------------
_NAMED = {"zinc": ZincStock, ZINC_CATALOG: ZincStock, "zinc-all": lambda: ZincStock(max_heavy_atoms=None),
          "zinc-25": lambda: ZincStock(max_heavy_atoms=25),
          "common": CommonReagentsStock, "common-reagents": CommonReagentsStock,
          "building-blocks": BuildingBlocksStock, "bb": BuildingBlocksStock,
          "verified": lambda: CompositeStock([BuildingBlocksStock(), CommonReagentsStock()],
                                             name="building-blocks+common-reagents")}


@lru_cache(maxsize=1)
def default_stock() -> CompositeStock:
    """The packaged verified stocks (building blocks, common reagents), then the ZINC in-stock Bloom filter, whose
    hits are only ``probable``."""
    return CompositeStock([BuildingBlocksStock(), CommonReagentsStock(), ZincStock()],
                          name="building-blocks+common-reagents+zinc-instock-mini")


@lru_cache(maxsize=16)
def _named_stock(key: str) -> Stock:
    return _NAMED[key]()


def load_stock(spec: str | os.PathLike[str] | Stock | Iterable[Any] | None = None) -> Stock:
    """Build a stock from a spec.

    ``None``/``"default"`` -> :func:`default_stock`; ``"zinc"``/``"zinc-all"`` -> :class:`ZincStock` (every hit,
    ``probable`` tier); ``"zinc-25"`` -> hits of at most 25 heavy atoms;
    ``"common"`` -> :class:`CommonReagentsStock`; ``"building-blocks"`` -> :class:`BuildingBlocksStock`;
    ``"verified"`` -> both packaged exact stocks (no Bloom filter); a file path -> :class:`FileStock`; a
    comma-separated string or a list of specs -> :class:`CompositeStock` (first match is the source).
    An object with ``__contains__``/``source_of``/``name`` is returned as is.
    """
    if spec is None:
        return default_stock()
    if isinstance(spec, Stock) and not isinstance(spec, (str, os.PathLike)):
        return spec
    if isinstance(spec, os.PathLike):
        return FileStock(spec)
    if isinstance(spec, str):
        text = spec.strip()
        if not text:
            raise DataError("empty_stock_spec", "empty stock specification", value=spec,
                            hint="use 'zinc', 'common', a file path or a comma-separated list")
        if text.lower() == "default":
            return default_stock()
        parts = [p.strip() for p in text.split(",") if p.strip()]
        if len(parts) > 1:
            return CompositeStock([load_stock(p) for p in parts])
        key = parts[0].lower()
        if key in _NAMED and not Path(parts[0]).exists():
            return _named_stock(key)
        return FileStock(parts[0])
    specs = list(spec)
    if len(specs) == 1:
        return load_stock(specs[0])
    return CompositeStock([load_stock(s) for s in specs])


# -- availability ----------------------------------------------------------------------------------------
@lru_cache(maxsize=50_000)
def sa_score(smiles: str) -> float | None:
    """Ertl-Schuffenhauer synthetic accessibility score (1 easy .. 10 hard), ``None`` if unparsable
    (:func:`molx_agent.chem.properties.sa_score`, cached per SMILES)."""
    from molx_agent.chem.properties import sa_score as _sa_score

    mol = _quiet_mol(smiles)
    if mol is None:
        return None
    return _sa_score(mol)


def _cs_score(smiles: str) -> float | None:
    try:
        from molx_agent.chem import compute_cs_score  # chemistry core (may not be built yet)
    except ImportError:
        return None
    try:
        return compute_cs_score(smiles).get("cs_score")
    except Exception as exc:  # noqa: BLE001 - a score is optional context, never a failure
        logger.debug("cs_score failed for %s: %s", smiles, exc)
        return None


def check_one(smiles: str, stock: Stock, fallback: bool = True) -> dict[str, Any]:
    """Availability record of one molecule (see :func:`check_availability`)."""
    record: dict[str, Any] = {"smiles": smiles}
    can = canonical_smiles(smiles) if isinstance(smiles, str) else None
    if can is None:
        err = ChemistryError("invalid_smiles", f"RDKit cannot parse SMILES {smiles!r}", value=smiles)
        record.update(available=False, source=None, in_stock=False, error=err.to_dict())
        return record
    source, tier = stock_tier(stock, can)
    sa = sa_score(can)
    record.update(
        canonical_smiles=can,
        in_stock=source is not None,
        stock=stock.name,
        sa_score=sa,
        sa_class=sa_class(sa),
        cs_score=_cs_score(can),
    )
    if source is not None:
        record.update(available=True, source=source, estimated=False, tier=tier)
        if tier == "probable":
            record["false_positive_rate"] = ZINC_FALSE_POSITIVE_RATE
            record["note"] = (f"Bloom-filter hit only ({source}): about {ZINC_FALSE_POSITIVE_RATE:.0%} of such hits are "
                              "false positives; confirm with a supplier")
        listed = listed_form(stock, can)
        if listed and listed != can:
            record["listed_as"] = listed  # the stock sells it in this form (a salt, the neutral parent)
    elif fallback:
        estimated_ok = sa is not None and sa < SA_PURCHASABLE
        record.update(available=estimated_ok, source="sa_estimate", estimated=True,
                      tier="estimated" if estimated_ok else "unavailable",
                      note="in no stock; SA-score estimate only (a guess, not a catalogue entry)")
    else:
        record.update(available=False, source=None, estimated=False, tier="unavailable")
    return record


def check_availability(
    smiles_list: Sequence[str] | str, stock: Stock | str | None = None, *, fallback: bool = True
) -> list[dict[str, Any]]:
    """Per molecule: ``smiles``, ``canonical_smiles``, ``available``, ``source``, ``tier``, ``in_stock``,
    ``estimated``, ``sa_score``, ``sa_class``, ``cs_score``, and ``listed_as`` when the stock sells the molecule
    in another form (``[C-]#N.[Na+]`` for ``[C-]#N``).

    ``tier``: ``verified`` (an exact entry of an exact stock: the packaged building blocks, a user's catalogue file),
    ``probable`` (a Bloom-filter hit only; ``false_positive_rate`` and a ``note`` say so), ``estimated`` (no stock
    has it; the SA-score fallback calls it purchasable) or ``unavailable``.

    ``source`` is the name of the stock that has the molecule; when no stock has it and ``fallback``
    is on, the SA-score estimate decides (``source="sa_estimate"``, ``estimated=True``, available when
    SA < 2.2).  An unparsable SMILES gives a record with ``available=False`` and an ``error``; no item
    is dropped.
    """
    if isinstance(smiles_list, str):
        smiles_list = [smiles_list]
    stock_obj = load_stock(stock)
    return [check_one(s, stock_obj, fallback=fallback) for s in smiles_list]


__all__ = [
    "Stock",
    "BaseStock",
    "ZincStock",
    "FileStock",
    "CommonReagentsStock",
    "BuildingBlocksStock",
    "CompositeStock",
    "load_stock",
    "default_stock",
    "check_availability",
    "canonical_smiles",
    "inchikey",
    "salt_forms",
    "listed_form",
    "COUNTER_IONS",
    "sa_score",
    "sa_class",
    "ZINC_CATALOG",
    "ZINC_FALSE_POSITIVE_RATE",
    "stock_tier",
]

"""Common drug and reagent names -> SMILES, from the packaged table ``data/names.json``.

The table holds English names, common synonyms/abbreviations and Chinese names
(e.g. ``aspirin`` / ``acetylsalicylic acid`` / ``阿司匹林``).  Lookup is offline and exact
(case-insensitive for English, after whitespace normalisation); nothing is guessed.
"""

from __future__ import annotations

import bisect
import json
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

#: Chinese names have no spaces, so a known name can sit inside a longer one (苯胺 in 4-氟苯胺, 苯甲酸 in
#: 4-甲氧基苯甲酸甲酯): a Chinese match counts only when the character before it cannot continue a chemical name
#: (a locant digit or hyphen, a substituent or skeleton morpheme) and the text after it does not (an ester,
#: anhydride, acyl or substituent ending, or a chain with its functional group: 溴苯 in 对溴苯甲酸).  Salt words
#: before a drug (盐酸利鲁唑, 甲磺酸伊马替尼, 硫酸氢氯吡格雷) leave it named: 酸 and 氢 are not in the set.
_CJK_NAME_BEFORE = frozenset(
    "0123456789-αβγδω"
    "氟氯溴碘硝氨胺基甲乙丙丁戊己庚辛壬癸苯萘吡啶嗪嘧噻唑呋喃吲哚喹啉异叔仲环羟巯氰硫磺酰酯醚烷烯炔苄肼脲胍哌吗"
    "氧羧醛酮醇酚腈叠亚代联一二三四五六"
)
_CJK_NAME_AFTER = re.compile(r"(?:基|酯|酐|酰|(?:甲|乙|丙|丁|异丙|叔丁|苄)酯|(?:甲|乙|丙|丁)(?:酸|醛|酮|醇|腈|酚|胺|醚))")


def _inside_longer_cjk_name(text: str, start: int, end: int) -> bool:
    return (start > 0 and text[start - 1] in _CJK_NAME_BEFORE) or bool(_CJK_NAME_AFTER.match(text, end))


#: What may stand between a Chinese salt word and its drug: nothing (盐酸利鲁唑), or the hydrogen of an acid salt
#: (硫酸氢氯吡格雷, 磷酸二氢...).
_CJK_SALT_JOINS = frozenset({"", "氢", "二氢"})


#: Acids of the table that form a drug's salt when their Chinese name stands before it. Acetic, benzoic and other
#: carboxylic acids are left out: 醋酸地塞米松 and 苯甲酸雌二醇 are esters, other molecules than the drug.
_SALT_ACIDS = frozenset({"hydrochloric acid", "hydroiodic acid", "sulfuric acid", "nitric acid", "fumaric acid",
                         "maleic acid", "oxalic acid", "succinic acid", "L-tartaric acid"})


def _salt_word(text: str, match: NameMatch, following: NameMatch | None) -> bool:
    """Whether ``match`` is the acid of a Chinese salt name: a salt-forming acid (:data:`_SALT_ACIDS`) written in
    Chinese directly before a drug's name, so 盐酸 in 盐酸利鲁唑 names riluzole's salt, not a second molecule."""
    if (following is None or match.name not in _SALT_ACIDS or not _CJK.search(match.matched)
            or text[match.end:following.start] not in _CJK_SALT_JOINS):
        return False
    drug = lookup_name(following.matched)
    return drug is not None and drug.kind == "drug"


@dataclass(frozen=True)
class NameEntry:
    """One row of the name table."""

    name: str
    smiles: str
    formula: str
    kind: str  # "drug" | "reagent"
    synonyms: tuple[str, ...] = field(default_factory=tuple)
    zh: tuple[str, ...] = field(default_factory=tuple)

    @property
    def aliases(self) -> tuple[str, ...]:
        return (self.name, *self.synonyms, *self.zh)


@dataclass(frozen=True)
class NameMatch:
    """A name found in free text."""

    name: str  # canonical (English) name of the entry
    smiles: str
    matched: str  # the text as written by the user
    start: int
    end: int


def _norm(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).strip().lower()
    return re.sub(r"\s+", " ", text)


@lru_cache(maxsize=1)
def load_name_table() -> tuple[NameEntry, ...]:
    """All entries of ``data/names.json`` (cached)."""
    raw = resources.files("molx_agent.data").joinpath("names.json").read_text(encoding="utf-8")
    data = json.loads(raw)
    return tuple(
        NameEntry(
            name=e["name"],
            smiles=e["smiles"],
            formula=e.get("formula", ""),
            kind=e.get("kind", "drug"),
            synonyms=tuple(e.get("synonyms", ())),
            zh=tuple(e.get("zh", ())),
        )
        for e in data["entries"]
    )


@lru_cache(maxsize=1)
def _alias_index() -> dict[str, NameEntry]:
    index: dict[str, NameEntry] = {}
    for entry in load_name_table():
        for alias in entry.aliases:
            index.setdefault(_norm(alias), entry)
    return index


def lookup_name(name: str) -> NameEntry | None:
    """The table entry for ``name`` (any alias, case-insensitive), or ``None``."""
    if not isinstance(name, str) or not name.strip():
        return None
    return _alias_index().get(_norm(name))


def resolve_name(name: str) -> str | None:
    """SMILES for a drug/reagent name (English, synonym or Chinese), or ``None`` if unknown."""
    entry = lookup_name(name)
    return entry.smiles if entry else None


@lru_cache(maxsize=1)
def _smiles_index() -> dict[str, NameEntry]:
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    try:
        index: dict[str, NameEntry] = {}
        for entry in load_name_table():
            mol = Chem.MolFromSmiles(entry.smiles)
            if mol is not None:
                index.setdefault(Chem.MolToSmiles(mol), entry)
        return index
    finally:
        RDLogger.EnableLog("rdApp.*")


def name_for_smiles(smiles: str, language: str = "en") -> str | None:
    """The table name of a molecule given as SMILES (exact structure, stereo included), or ``None``.

    ``language="zh"`` returns the first Chinese name when the entry has one.
    """
    from rdkit import Chem, RDLogger

    RDLogger.DisableLog("rdApp.*")
    try:
        mol = Chem.MolFromSmiles(smiles) if isinstance(smiles, str) and smiles else None
    finally:
        RDLogger.EnableLog("rdApp.*")
    if mol is None:
        return None
    entry = _smiles_index().get(Chem.MolToSmiles(mol))
    if entry is None:
        return None
    return entry.zh[0] if language == "zh" and entry.zh else entry.name


def _is_abbreviation(alias: str) -> bool:
    """Short or all-caps aliases (``TEA``, ``Pro``, ``T4``) only match case-sensitively in text."""
    letters = [c for c in alias if c.isalpha()]
    return len(alias) <= 5 or (bool(letters) and all(c.isupper() for c in letters))


@lru_cache(maxsize=1)
def _text_patterns() -> tuple[re.Pattern[str], re.Pattern[str], list[tuple[str, NameEntry]]]:
    words_ci: dict[str, NameEntry] = {}
    words_cs: dict[str, NameEntry] = {}
    cjk: list[tuple[str, NameEntry]] = []
    for entry in load_name_table():
        for alias in entry.aliases:
            if _CJK.search(alias):
                if len(alias) >= 2:  # single characters (水, 苯, 氨) are too ambiguous in running text
                    cjk.append((alias, entry))
            elif _is_abbreviation(alias):
                words_cs.setdefault(alias, entry)
            else:
                words_ci.setdefault(alias.lower(), entry)

    def build(aliases: list[str], flags: int) -> re.Pattern[str]:
        alt = "|".join(re.escape(a) for a in sorted(aliases, key=len, reverse=True))
        return re.compile(rf"(?<![\w\-]){'(?:' + alt + ')'}(?![\w])", flags)

    cjk.sort(key=lambda t: len(t[0]), reverse=True)
    return build(list(words_ci), re.IGNORECASE), build(list(words_cs), 0), cjk


def find_name_matches(text: str) -> list[NameMatch]:
    """Every known drug/reagent name in ``text``, longest match first, non-overlapping, in text order. The acid of a
    Chinese salt name (盐酸 in 盐酸利鲁唑, 硫酸 in 硫酸氢氯吡格雷) is part of the drug's name, not a match.

    Time grows as ``n log n`` with the number of candidate matches (taken spans are kept sorted and a new span
    is checked against its two neighbours only), so a long text full of names is still fast.
    """
    if not text:
        return []
    ci, cs, cjk = _text_patterns()
    starts: list[int] = []  # the taken spans, sorted by start; they never overlap
    ends: list[int] = []
    found: list[NameMatch] = []

    def free(a: int, b: int) -> bool:
        i = bisect.bisect_right(starts, a)
        return (i == 0 or ends[i - 1] <= a) and (i == len(starts) or starts[i] >= b)

    candidates: list[tuple[int, int, str]] = []
    for pattern in (ci, cs):
        candidates += [(m.start(), m.end(), m.group(0)) for m in pattern.finditer(text)]
    if _CJK.search(text):
        for alias, _entry in cjk:
            start = text.find(alias)
            while start != -1:
                if not _inside_longer_cjk_name(text, start, start + len(alias)):
                    candidates.append((start, start + len(alias), alias))
                start = text.find(alias, start + 1)
    # longest first so "penicillin G" beats "penicillin" and 5-氟尿嘧啶 beats 氟尿嘧啶
    for start, end, matched in sorted(candidates, key=lambda c: (-(c[1] - c[0]), c[0])):
        if not free(start, end):
            continue
        entry = lookup_name(matched)
        if entry is None:
            continue
        i = bisect.bisect_right(starts, start)
        starts.insert(i, start)
        ends.insert(i, end)
        found.append(NameMatch(entry.name, entry.smiles, matched, start, end))
    found.sort(key=lambda m: m.start)
    return [m for i, m in enumerate(found) if not _salt_word(text, m, found[i + 1] if i + 1 < len(found) else None)]


def find_names_in_text(text: str) -> list[tuple[str, str]]:
    """``(name, smiles)`` for each distinct known name in ``text``, in order of first appearance."""
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for match in find_name_matches(text):
        if match.name not in seen:
            seen.add(match.name)
            out.append((match.name, match.smiles))
    return out


__all__ = [
    "NameEntry",
    "NameMatch",
    "load_name_table",
    "lookup_name",
    "resolve_name",
    "name_for_smiles",
    "find_name_matches",
    "find_names_in_text",
]

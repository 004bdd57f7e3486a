"""Input-size limits and the SMILES text rule, in one place, for every surface.

Every surface that takes input from outside (the CLI commands, the Python API, the skills, the pipeline, the
interactive session, the MCP server, the agent) checks it through these functions, so a hostile or mistaken
input is refused at once with a clear error instead of running for minutes, exhausting memory or being
silently truncated.  Why each limit exists (measured on a 2-core x86_64 machine):

- RDKit canonicalisation is quadratic in the atom count (1.4 s for a 10,000-atom chain) and overflows the C
  stack (the process dies) on a 20,000-atom chain, so no molecule above ``max_heavy_atoms`` is canonicalised,
  and no SMILES above ``max_smiles_chars`` is parsed (so even a path that canonicalises without checking the
  atom count never sees more than 10,000 atoms);
- one single-step prediction takes ~5 s on a 157-heavy-atom peptide and ~17 s on a 313-atom one (template
  application grows with the number of matching sites), so retrosynthesis (prediction, route search, the
  pipeline, the session) refuses molecules above ``max_retro_heavy_atoms``;
- a query of 100 KB is neither a question nor something the entity extraction should scan;
- deeply nested JSON makes Python's parser raise ``RecursionError``.

The values come from :class:`molx_agent.config.Settings` (defaults written there once), so a site can raise
them through the environment:

=========================  ============  ==============================  ==========================================
limit                      default       environment variable            refused with (code)
=========================  ============  ==============================  ==========================================
SMILES length              10,000 chars  ``MOLX_MAX_SMILES_CHARS``       ``smiles_too_long``
heavy atoms (any use)      5,000         ``MOLX_MAX_HEAVY_ATOMS``        ``molecule_too_large``
heavy atoms (retro)        150           ``MOLX_MAX_RETRO_HEAVY_ATOMS``  ``molecule_too_large``
query length               20,000 chars  ``MOLX_MAX_QUERY_CHARS``        ``query_too_long``
JSON nesting depth         64            ``MOLX_MAX_JSON_DEPTH``         ``json_too_deep``
JSON document size         20 MB         ``MOLX_MAX_JSON_MB``            ``file_too_large``
data file size             200 MB        ``MOLX_MAX_DATA_FILE_MB``       ``file_too_large``
session lock wait          60 s          ``MOLX_LOCK_TIMEOUT``           ``session_locked``
=========================  ============  ==============================  ==========================================

The SMILES rule: leading and trailing whitespace is ignored; whitespace *inside* a SMILES is an error
(``smiles_contains_whitespace``), because RDKit reads a SMILES only up to the first space and would silently
drop the rest (``"CC O"`` would be ethane).  A surface that accepts several molecules takes a list (or a
``.``-joined SMILES), never a space-separated string.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from molx_agent.errors import ChemistryError, DataError, ValidationError

_BAD_SMILES_CHAR = re.compile(r"[\s\x00-\x1f\x7f]")

#: Matches kept per functional group (and per protecting group); a count that reaches it says ``count_capped``.
MAX_GROUP_MATCHES = 1000


@dataclass(frozen=True)
class Limits:
    """The input-size limits in force (see the module docstring)."""

    max_smiles_chars: int
    max_heavy_atoms: int
    max_retro_heavy_atoms: int
    max_query_chars: int
    max_json_depth: int
    max_json_bytes: int
    max_data_file_bytes: int
    lock_timeout: float


def current_limits() -> Limits:
    """The limits from the settings (environment, ``.env``, defaults)."""
    from molx_agent.config import get_settings

    s = get_settings()
    return Limits(
        max_smiles_chars=s.max_smiles_chars,
        max_heavy_atoms=s.max_heavy_atoms,
        max_retro_heavy_atoms=s.max_retro_heavy_atoms,
        max_query_chars=s.max_query_chars,
        max_json_depth=s.max_json_depth,
        max_json_bytes=int(s.max_json_mb * 1024 * 1024),
        max_data_file_bytes=int(s.max_data_file_mb * 1024 * 1024),
        lock_timeout=s.lock_timeout,
    )


def _preview(text: str, n: int = 60) -> str:
    return text if len(text) <= n else f"{text[:n]}... ({len(text):,} characters)"


def check_smiles_text(smiles: Any, *, what: str = "SMILES") -> str:
    """``smiles`` without surrounding whitespace, or a :class:`ChemistryError`.

    Codes: ``invalid_smiles`` (not a string, empty, control characters), ``smiles_contains_whitespace``,
    ``smiles_too_long``.  Parsing is not done here.
    """
    if not isinstance(smiles, str):
        raise ChemistryError("invalid_smiles", f"{what} must be a string, not {type(smiles).__name__}",
                             value=repr(smiles)[:80], hint="give a SMILES string, e.g. CCO")
    text = smiles.strip()
    if not text:
        raise ChemistryError("invalid_smiles", f"empty {what}", value=smiles, hint="give a non-empty SMILES string")
    limit = current_limits().max_smiles_chars
    if len(text) > limit:
        raise ChemistryError("smiles_too_long", f"{what} is {len(text):,} characters long; the limit is {limit:,}",
                             value=_preview(text),
                             hint="give a smaller molecule, or raise MOLX_MAX_SMILES_CHARS")
    bad = _BAD_SMILES_CHAR.search(text)
    if bad is not None:
        pos, ch = bad.start(), bad.group(0)
        if ch.isspace():
            raise ChemistryError(
                "smiles_contains_whitespace",
                f"{what} {_preview(text)!r} contains whitespace at position {pos}: a SMILES ends at the first "
                "space, so the rest would be silently ignored",
                value=_preview(text),
                hint="remove the whitespace; give several molecules as a list, or joined with '.'",
            )
        raise ChemistryError("invalid_smiles", f"{what} contains the control character {ch!r} at position {pos}",
                             value=_preview(text), hint="give plain SMILES text")
    return text


def check_heavy_atoms(mol: Any, *, retro: bool = False, what: str = "molecule", value: Any = None) -> None:
    """Refuse a parsed molecule with more heavy atoms than the limit (``retro=True``: the retrosynthesis limit).

    Raises ``ChemistryError("molecule_too_large")`` naming the count and the limit.
    """
    lim = current_limits()
    limit = lim.max_retro_heavy_atoms if retro else lim.max_heavy_atoms
    n = mol.GetNumHeavyAtoms()
    if n > limit:
        env = "MOLX_MAX_RETRO_HEAVY_ATOMS" if retro else "MOLX_MAX_HEAVY_ATOMS"
        scope = "retrosynthesis accepts at most" if retro else "the limit is"
        raise ChemistryError(
            "molecule_too_large",
            f"the {what} has {n:,} heavy atoms; {scope} {limit:,}",
            value=_preview(value) if isinstance(value, str) else value,
            hint=f"give a smaller molecule (or a fragment of it), or raise {env}",
        )


def check_query(query: Any) -> str:
    """A query stripped of surrounding whitespace, or a :class:`ValidationError`.

    Codes: ``invalid_query`` (not a string), ``empty_query``, ``query_too_long``.
    """
    if not isinstance(query, str):
        raise ValidationError("invalid_query", f"the query must be a string, not {type(query).__name__}",
                              value=repr(query)[:80], hint='e.g. "What is the molecular weight of aspirin?"')
    text = query.strip()
    if not text:
        raise ValidationError("empty_query", "the query is empty", value=query,
                              hint='e.g. "What is the molecular weight of aspirin?"')
    limit = current_limits().max_query_chars
    if len(text) > limit:
        raise ValidationError("query_too_long", f"the query is {len(text):,} characters long; the limit is {limit:,}",
                              value=_preview(text),
                              hint="ask a shorter question; put many molecules in a data file (--data)")
    return text


def json_depth_exceeds(obj: Any, limit: int) -> bool:
    """Whether ``obj`` (parsed JSON) nests lists/objects deeper than ``limit`` (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(obj, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def parse_json_text(text: str | bytes, what: str = "JSON") -> Any:
    """Parse a JSON document from outside; ``ValidationError`` codes ``invalid_json``, ``json_too_deep``,
    ``file_too_large`` (the message names ``what``, the line and column)."""
    lim = current_limits()
    if len(text) > lim.max_json_bytes:
        raise ValidationError("file_too_large", f"{what} is {len(text) / 1e6:.1f} MB; the limit is "
                              f"{lim.max_json_bytes / 1e6:.0f} MB", hint="raise MOLX_MAX_JSON_MB if this is intended")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValidationError("invalid_json", f"{what} is not valid JSON ({exc.msg} at line {exc.lineno} "
                              f"column {exc.colno})", value=_preview(str(text)[:200])) from None
    except RecursionError:
        raise ValidationError("json_too_deep", f"{what} nests lists/objects deeper than {lim.max_json_depth} levels",
                              hint="flatten the document") from None
    except UnicodeDecodeError as exc:
        raise ValidationError("invalid_json", f"{what} is not UTF-8 text ({exc.reason} at byte {exc.start})",
                              hint="save it as UTF-8") from None
    if json_depth_exceeds(value, lim.max_json_depth):
        raise ValidationError("json_too_deep", f"{what} nests lists/objects deeper than {lim.max_json_depth} levels",
                              hint="flatten the document (or raise MOLX_MAX_JSON_DEPTH)")
    return value


def check_file_size(path: Any, size: int, *, what: str = "file", data: bool = True) -> None:
    """Refuse a file larger than the data-file (``data=True``) or JSON-document limit."""
    lim = current_limits()
    limit = lim.max_data_file_bytes if data else lim.max_json_bytes
    if size > limit:
        env = "MOLX_MAX_DATA_FILE_MB" if data else "MOLX_MAX_JSON_MB"
        raise DataError("file_too_large", f"{what} {path} is {size / 1e6:.1f} MB; the limit is {limit / 1e6:.0f} MB",
                        value=str(path), hint=f"split it, or raise {env}")


__all__ = [
    "Limits",
    "MAX_GROUP_MATCHES",
    "current_limits",
    "check_smiles_text",
    "check_heavy_atoms",
    "check_query",
    "check_file_size",
    "json_depth_exceeds",
    "parse_json_text",
]

"""Match learned predictions against the curated named expert templates of the chemistry core.

``molx_agent.chem.templates.load_named_templates()`` ships hand-written retro templates with reaction
names and categories (e.g. ``G02_amide_retro``).  A learned USPTO-50K template only knows its
(inferred) reaction class, so when a named template applied to the same product gives the same
precursor set, the prediction takes the named template's reaction name and category (and the ranker
counts the agreement as evidence); a precursor set only a named template gives becomes a candidate of
its own (``TemplateKNNModel(merge_named=True)``, with the template's atom-mapped precursors).  The
named templates are compiled once with rdchiral and screened by a substructure pre-check, so matching
costs a few milliseconds per product.  When the chemistry
core's template module is not installed the matcher is absent and predictions keep their class names.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rdchiral.initialization import rdchiralReactants, rdchiralReaction
from rdchiral.main import rdchiralRun
from rdkit import Chem, RDLogger

from molx_agent.retro.fast_rdkit import fast_atom_iteration
from molx_agent.retro.templates_db import DATA_DIR

log = logging.getLogger(__name__)


NAMED_CLASSES_FILE = "named_template_classes.json"


def _load_classes() -> dict[str, int]:
    path = DATA_DIR / NAMED_CLASSES_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {str(k): int(v) for k, v in data["classes"].items()}
    except FileNotFoundError:
        return {}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        log.warning("named template classes unreadable (%s): classes are inferred per candidate", exc)
        return {}


@contextlib.contextmanager
def rdchiral_quiet() -> Iterator[None]:
    """Silence RDKit's C++ log and rdchiral's stray prints; fast atom iteration (``retro.fast_rdkit``)."""
    RDLogger.DisableLog("rdApp.*")
    try:
        with contextlib.redirect_stdout(io.StringIO()), fast_atom_iteration():
            yield
    finally:
        RDLogger.EnableLog("rdApp.*")


@dataclass(frozen=True)
class NamedMatch:
    """The named template that reproduces a precursor set."""

    id: str
    name: str
    category: str


def _outcome_key(outcome: tuple[Chem.Mol, ...]) -> str:
    parts = []
    for mol in outcome:
        mol = Chem.Mol(mol)
        for atom in mol.GetAtoms():
            atom.SetAtomMapNum(atom.GetIntProp("react_atom_idx") + 1 if atom.HasProp("react_atom_idx") else 0)
        parts.append(Chem.MolToSmiles(mol))
    return ".".join(sorted(parts))


class UniqueOutcomes:
    """Wraps an RDKit reaction so ``RunReactants`` drops exact duplicate outcomes.

    A template with symmetric parts matches the same atoms several times and RDKit returns one
    identical outcome per match; rdchiral then post-processes each in Python.  Two outcomes with the
    same atoms (by index in the product) and the same bonds are the same outcome, so only the first
    is kept.  This halves rdchiral's work on typical products without changing any result.
    """

    def __init__(self, reaction: Any) -> None:
        self._reaction = reaction

    def RunReactants(self, reactants: tuple, *args: Any, **kwargs: Any) -> tuple:  # noqa: N802 - RDKit name
        outcomes = self._reaction.RunReactants(reactants, *args, **kwargs)
        if len(outcomes) < 2:
            return outcomes
        seen: set[str] = set()
        unique = []
        for outcome in outcomes:
            try:
                key = _outcome_key(outcome)
            except Exception:  # noqa: BLE001 - cannot key it: keep it, rdchiral will judge
                unique.append(outcome)
                continue
            if key not in seen:
                seen.add(key)
                unique.append(outcome)
        return tuple(unique)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reaction, name)


def compile_template(retro_smarts: str) -> rdchiralReaction:
    """An rdchiral reaction whose RDKit ``RunReactants`` drops exact duplicate outcomes."""
    rxn = rdchiralReaction(retro_smarts)
    rxn.rxn = UniqueOutcomes(rxn.rxn)
    return rxn


@dataclass(frozen=True)
class _Compiled:
    match: NamedMatch
    pattern: Chem.Mol
    reaction: rdchiralReaction


class NamedTemplateMatcher:
    """Applies every named template to a product (cached per product) and looks precursor sets up."""

    def __init__(self, templates: list[Any], cache_size: int = 64, classes: dict[str, int] | None = None) -> None:
        self.templates = list(templates)
        self.classes: dict[str, int] = dict(classes or {})
        self._compiled: list[_Compiled] = []
        RDLogger.DisableLog("rdApp.*")  # rdchiral warns about unmapped leaving groups
        try:
            self._compile_all()
        finally:
            RDLogger.EnableLog("rdApp.*")
        self._cache: OrderedDict[str, dict[tuple[str, ...], tuple[NamedMatch, str]]] = OrderedDict()
        self._cache_size = cache_size

    def _compile_all(self) -> None:
        for tpl in self.templates:
            try:
                pattern = Chem.MolFromSmarts(tpl.retro_smarts.split(">>")[0])
                reaction = compile_template(tpl.retro_smarts)
            except Exception:  # noqa: BLE001 - a named template rdchiral cannot compile is skipped
                log.warning("named template %s does not compile", getattr(tpl, "id", tpl))
                continue
            if pattern is None:
                continue
            pattern.UpdatePropertyCache(strict=False)
            match = NamedMatch(tpl.id, getattr(tpl, "name", tpl.id), getattr(tpl, "category", ""))
            self._compiled.append(_Compiled(match, pattern, reaction))

    def reaction_class(self, template_id: str) -> int | None:
        """The Schneider class measured for a named template on training products (``None``: not measured)."""
        return self.classes.get(template_id)

    @classmethod
    def load(cls, classes: bool = True) -> NamedTemplateMatcher | None:
        """The matcher over ``chem.templates.load_named_templates()``, or ``None`` if unavailable.

        ``classes``: also read the packaged per-template Schneider classes
        (``scripts/build_named_template_classes.py``).
        """
        try:
            from molx_agent.chem.templates import load_named_templates
        except ImportError:
            log.info("named templates not available (molx_agent.chem.templates missing)")
            return None
        try:
            templates = load_named_templates()
        except Exception as exc:  # noqa: BLE001 - a broken named-template file must not disable retro
            log.warning("named templates could not be loaded: %s", exc)
            return None
        return cls(templates, classes=_load_classes() if classes else None)

    def precursor_table(self, product: str) -> dict[tuple[str, ...], tuple[NamedMatch, str]]:
        """Canonical precursor set -> (the first named template (file order) that produces it, the atom-mapped
        precursors as that template wrote them)."""
        hit = self._cache.get(product)
        if hit is not None:
            self._cache.move_to_end(product)
            return hit
        table: dict[tuple[str, ...], tuple[NamedMatch, str]] = {}
        try:
            with rdchiral_quiet():
                target = rdchiralReactants(product)
                for comp in self._compiled:
                    if not target.reactants_achiral.HasSubstructMatch(comp.pattern):
                        continue
                    try:
                        outcomes, mapped = rdchiralRun(comp.reaction, target, combine_enantiomers=False,
                                                       return_mapped=True)
                    except Exception:  # noqa: BLE001 - a template that fails on this product gives nothing
                        continue
                    for smi in outcomes:  # canonical, map-free, components sorted (rdchiral)
                        canon = tuple(smi.split("."))
                        if canon not in table:
                            table[canon] = (comp.match, mapped.get(smi, ("", ()))[0])
        except Exception as exc:  # noqa: BLE001 - rdchiral cannot initialise some products
            log.debug("named templates not applicable to %s: %s", product, exc)
        self._cache[product] = table
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return table

    def match(self, product: str, reactants: tuple[str, ...]) -> NamedMatch | None:
        hit = self.precursor_table(product).get(tuple(sorted(reactants)))
        return hit[0] if hit is not None else None


__all__ = [
    "NAMED_CLASSES_FILE",
    "NamedMatch",
    "NamedTemplateMatcher",
    "UniqueOutcomes",
    "compile_template",
    "rdchiral_quiet",
]

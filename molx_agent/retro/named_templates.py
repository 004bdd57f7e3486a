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
import functools
import json
import logging
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rdchiral.initialization import rdchiralReactants, rdchiralReaction
from rdkit import Chem, RDLogger

from molx_agent.chem.templates import MatchedRemovalOnly, gains_stereocentre
from molx_agent.retro.fast_rdchiral import _write_and_clear_maps, run_template
from molx_agent.retro.fast_rdkit import fast_atom_iteration, memoised_outcome_canonicalisation
from molx_agent.retro.sn2_stereo import invert_substitution_centres
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


class _ThreadQuietStdout:
    """``sys.stdout`` while any thread is in :func:`rdchiral_quiet`: drops what the quiet threads print and passes
    the other threads' output on (``contextlib.redirect_stdout`` is process-wide: two searches in two threads
    restored each other's replacement and left ``sys.stdout`` a ``StringIO`` for good, swallowing all output)."""

    def __init__(self, real: Any) -> None:
        self._real = real

    def write(self, text: str) -> int:
        if getattr(_QUIET, "depth", 0):
            return len(text)
        return self._real.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)


_QUIET = threading.local()
_QUIET_LOCK = threading.Lock()
_QUIET_STATE: dict[str, Any] = {"users": 0, "saved": None, "proxy": None}


def _quiet_enter() -> None:
    with _QUIET_LOCK:
        if _QUIET_STATE["users"] == 0:
            RDLogger.DisableLog("rdApp.*")
            _QUIET_STATE["saved"] = sys.stdout
            _QUIET_STATE["proxy"] = _ThreadQuietStdout(sys.stdout)
            sys.stdout = _QUIET_STATE["proxy"]
        _QUIET_STATE["users"] += 1
    _QUIET.depth = getattr(_QUIET, "depth", 0) + 1


def _quiet_exit() -> None:
    _QUIET.depth -= 1
    with _QUIET_LOCK:
        _QUIET_STATE["users"] -= 1
        if _QUIET_STATE["users"] == 0:
            if sys.stdout is _QUIET_STATE["proxy"]:  # replaced meanwhile by someone else: leave theirs
                sys.stdout = _QUIET_STATE["saved"]
            _QUIET_STATE["saved"] = _QUIET_STATE["proxy"] = None
            RDLogger.EnableLog("rdApp.*")


@contextlib.contextmanager
def rdchiral_quiet() -> Iterator[None]:
    """Silence RDKit's C++ log and rdchiral's stray prints (of this thread only; re-entrant and thread-safe); fast
    atom iteration and memoised outcome canonicalisation (``retro.fast_rdkit``)."""
    _quiet_enter()
    try:
        with fast_atom_iteration(), memoised_outcome_canonicalisation():
            yield
    finally:
        _quiet_exit()


_LOCAL = threading.local()  # the deadline of the template applications running in this thread


class DeadlineBudget:
    """The deadline of a block of template applications and whether it cut any of them short."""

    __slots__ = ("deadline", "cut")

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self.cut = False

    def expired(self) -> bool:
        """Whether the deadline has passed (and so something is about to be cut short: ``cut`` becomes true)."""
        if self.deadline is None or time.perf_counter() <= self.deadline:
            return False
        self.cut = True
        return True


@contextlib.contextmanager
def application_deadline(deadline: float | None) -> Iterator[DeadlineBudget]:
    """Template applications in this block (this thread) stop producing outcomes past ``deadline`` (a
    ``time.perf_counter()`` value; ``None``: no deadline).  Nests (the earlier deadline wins); the budget's
    ``cut`` says whether an application or a loop checking :meth:`DeadlineBudget.expired` was cut short."""
    outer: DeadlineBudget | None = getattr(_LOCAL, "budget", None)
    if outer is not None and outer.deadline is not None:
        deadline = outer.deadline if deadline is None else min(deadline, outer.deadline)
    budget = DeadlineBudget(deadline)
    _LOCAL.budget = budget
    try:
        yield budget
    finally:
        _LOCAL.budget = outer
        if outer is not None and budget.cut:
            outer.cut = True


def _application_expired() -> bool:
    budget: DeadlineBudget | None = getattr(_LOCAL, "budget", None)
    return budget is not None and budget.expired()


@dataclass(frozen=True)
class NamedMatch:
    """The named template that reproduces a precursor set."""

    id: str
    name: str
    category: str


def _outcome_key(outcome: tuple[Chem.Mol, ...]) -> str:
    """Canonical SMILES of an outcome with each atom labelled by the product atom it came from (0: new atom).

    The labels are written into the outcome itself (no copy): rdchiral overwrites the map number of every
    atom that came from the product before it reads any.  A new atom that already carries a map number
    would keep it in rdchiral, so such an outcome is keyed on a copy.
    """
    parts = []
    for mol in outcome:
        for atom in mol.GetAtoms():
            if atom.HasProp("react_atom_idx"):
                atom.SetAtomMapNum(atom.GetIntProp("react_atom_idx") + 1)
            elif atom.GetAtomMapNum():
                mol = Chem.Mol(mol)
                for each in mol.GetAtoms():
                    each.SetAtomMapNum(each.GetIntProp("react_atom_idx") + 1 if each.HasProp("react_atom_idx") else 0)
                break
        parts.append(Chem.MolToSmiles(mol))
    return ".".join(sorted(parts))


class _OutcomesUntilDeadline(tuple):
    """RunReactants outcomes whose iteration (rdchiral's post-processing loop) ends once the deadline of
    :func:`application_deadline` has passed; the first outcome is always given."""

    def __iter__(self) -> Iterator[Any]:
        for i, item in enumerate(tuple.__iter__(self)):
            if i and _application_expired():
                return
            yield item


class UniqueOutcomes:
    """Wraps an RDKit reaction so ``RunReactants`` drops exact duplicate outcomes.

    A template with symmetric parts matches the same atoms several times and RDKit returns one
    identical outcome per match; rdchiral then post-processes each in Python.  Two outcomes with the
    same atoms (by index in the product) and the same bonds are the same outcome, so only the first
    is kept.  This halves rdchiral's work on typical products without changing any result.

    The canonical key (:func:`_outcome_key`, a SMILES) costs about as much as the post-processing it saves, so it
    is computed only for outcomes that could be duplicates: those whose template atoms matched the same set of
    product atoms (read from the first atoms of each outcome molecule, which RDKit builds from the template).
    An outcome whose set no other outcome shares is kept unkeyed; the grouping never merges outcomes, only the
    key does, so what is dropped is still exactly an identical outcome.

    A template that writes a group as unmapped atoms (a benzyl, a Boc) also drops the outcomes where that group
    matched part of a larger structure of the product (``chem.templates.removes_only_matched_atoms``).
    """

    def __init__(self, reaction: Any) -> None:
        # a template with unmapped product-side atoms keeps only outcomes that remove just the atoms those matched
        self._reaction = MatchedRemovalOnly(reaction)
        self._template_sizes = tuple(p.GetNumAtoms() for p in reaction.GetProducts())

    def _matched(self, outcome: tuple[Chem.Mol, ...]) -> frozenset[int]:
        """The product atoms the template's atoms matched (their ``react_atom_idx``)."""
        matched = []
        for mol, size in zip(outcome, self._template_sizes, strict=False):
            for i in range(min(size, mol.GetNumAtoms())):
                atom = mol.GetAtomWithIdx(i)
                if atom.HasProp("react_atom_idx"):
                    matched.append(atom.GetIntProp("react_atom_idx"))
        return frozenset(matched)

    def RunReactants(self, reactants: tuple, *args: Any, **kwargs: Any) -> tuple:  # noqa: N802 - RDKit name
        if _application_expired():  # see application_deadline: no new outcomes once the time is up
            return ()
        outcomes = self._reaction.RunReactants(reactants, *args, **kwargs)
        if len(outcomes) < 2:
            return outcomes
        groups: dict[frozenset[int], list[int]] = {}
        for i, outcome in enumerate(outcomes):
            groups.setdefault(self._matched(outcome), []).append(i)
        drop: set[int] = set()
        keyed = 0
        for members in groups.values():
            if len(members) < 2:
                continue
            seen: set[str] = set()
            for i in members:
                keyed += 1
                if keyed % 16 == 15 and _application_expired():  # a huge molecule: stop deduplicating
                    break
                try:
                    key = _outcome_key(outcomes[i])
                except Exception:  # noqa: BLE001 - cannot key it: keep it, rdchiral will judge
                    continue
                if key in seen:
                    drop.add(i)
                else:
                    seen.add(key)
        unique = [outcome for i, outcome in enumerate(outcomes) if i not in drop]
        budget: DeadlineBudget | None = getattr(_LOCAL, "budget", None)
        if budget is not None and budget.deadline is not None:
            return _OutcomesUntilDeadline(unique)  # rdchiral's per-outcome work stops at the deadline too
        return tuple(unique)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._reaction, name)


def compile_template(retro_smarts: str) -> rdchiralReaction:
    """An rdchiral reaction whose RDKit ``RunReactants`` drops exact duplicate outcomes."""
    rxn = rdchiralReaction(retro_smarts)
    rxn.rxn = UniqueOutcomes(rxn.rxn)
    return rxn


#: First atom-map number rdchiral gives the template's unmapped (leaving-group and reagent) atoms.
_LEAVING_MAP_START = 900


@dataclass(frozen=True)
class _Member:
    """One named template of a family: what replaces the family's marker atoms, and its reagents.

    ``groups``: (marker isotope, leaving-group molecule, index of its atom bonded to the mapped atom);
    ``reagents``: whole reagent molecules of the template (e.g. SOCl2).  Their atoms carry the map numbers
    rdchiral would give them (900 and up, in template order).
    """

    order: int
    match: NamedMatch
    groups: tuple[tuple[int, Chem.Mol, int], ...] = ()
    reagents: tuple[Chem.Mol, ...] = ()

    @functools.cached_property
    def reagent_smiles(self) -> tuple[tuple[str, str], ...]:
        """(atom-mapped, canonical) SMILES of each reagent molecule, written once."""
        return tuple(_smiles_pair(Chem.Mol(reagent)) for reagent in self.reagents)


@dataclass(frozen=True)
class _Family:
    """Named templates with the same product side and the same precursor core, applied once.

    Expert templates come in families that differ only in a leaving group or a reagent (Suzuki with a
    bromide, iodide, chloride or triflate; N-alkylation with a bromide, chloride, iodide, mesylate or
    tosylate).  Their reaction sites are the same, so the family's core template -- each leaving group
    replaced by an isotope-labelled dummy atom, reagents dropped -- is applied once, and each member's
    precursors are built by putting its leaving groups where the dummies are and adding its reagents.
    A template whose unmapped atoms are not single-bonded leaving groups or whole reagent molecules is a
    family of its own and runs as written (``shared`` false).
    """

    pattern: Chem.Mol
    reaction: rdchiralReaction
    members: tuple[_Member, ...]
    shared: bool


def _component(query: Chem.Mol, start: int, mapped: set[int]) -> list[int]:
    seen, stack = {start}, [start]
    while stack:
        atom = query.GetAtomWithIdx(stack.pop())
        for nbr in atom.GetNeighbors():
            idx = nbr.GetIdx()
            if idx not in seen and idx not in mapped:
                seen.add(idx)
                stack.append(idx)
    return sorted(seen)


_PLAIN_BONDS = (Chem.BondType.SINGLE, Chem.BondType.DOUBLE, Chem.BondType.TRIPLE, Chem.BondType.AROMATIC)


def _fragment_mol(query: Chem.Mol, atoms: list[int], maps: dict[int, int]) -> tuple[Chem.Mol, dict[int, int]] | None:
    """The query atoms ``atoms`` as a real molecule (element, charge, bond order; atom-map numbers from
    ``maps``) and the query-to-molecule atom index, or ``None``."""
    rw = Chem.RWMol()
    index: dict[int, int] = {}
    for idx in atoms:
        qa = query.GetAtomWithIdx(idx)
        if qa.GetAtomicNum() == 0:
            return None
        atom = Chem.Atom(qa.GetAtomicNum())
        atom.SetFormalCharge(qa.GetFormalCharge())
        atom.SetIsAromatic(qa.GetIsAromatic())
        atom.SetAtomMapNum(maps[idx])
        index[idx] = rw.AddAtom(atom)
    for bond in query.GetBonds():
        a, b = bond.GetBeginAtomIdx(), bond.GetEndAtomIdx()
        if a in index and b in index:
            if bond.GetBondType() not in _PLAIN_BONDS:
                return None
            rw.AddBond(index[a], index[b], bond.GetBondType())
            if bond.GetBondType() == Chem.BondType.AROMATIC:
                rw.GetBondBetweenAtoms(index[a], index[b]).SetIsAromatic(True)
    mol = rw.GetMol()
    try:
        Chem.SanitizeMol(mol)
    except Exception:  # noqa: BLE001 - not a plain molecule: the template runs as written
        return None
    return mol, index


_Split = tuple[str, str, tuple[tuple[int, Chem.Mol, int], ...], tuple[Chem.Mol, ...]]


def _split_template(retro_smarts: str) -> _Split | None:
    """(product side, core precursor SMARTS, leaving groups, reagents) of a template, or ``None`` when its
    unmapped atoms are not all single-bonded leaving groups or whole reagent molecules."""
    product_side, precursor_side = retro_smarts.split(">>")
    query = Chem.MolFromSmarts(precursor_side)
    if query is None:
        return None
    mapped = {a.GetIdx() for a in query.GetAtoms() if a.GetAtomMapNum()}
    unmapped = [a.GetIdx() for a in query.GetAtoms() if not a.GetAtomMapNum()]
    rd_map = {idx: _LEAVING_MAP_START + k for k, idx in enumerate(unmapped)}  # rdchiral's numbering
    groups: list[tuple[int, int, list[int]]] = []  # (map number of the mapped atom, bonded atom, atoms)
    reagent_atoms: list[list[int]] = []
    done: set[int] = set()
    for idx in unmapped:
        if idx in done:
            continue
        atoms = _component(query, idx, mapped)
        done.update(atoms)
        links = [(a, nbr.GetIdx()) for a in atoms for nbr in query.GetAtomWithIdx(a).GetNeighbors()
                 if nbr.GetIdx() in mapped]
        if not links:
            reagent_atoms.append(atoms)
            continue
        if len(links) != 1:
            return None
        inner, outer = links[0]
        if query.GetBondBetweenAtoms(inner, outer).GetBondType() != Chem.BondType.SINGLE:
            return None
        groups.append((query.GetAtomWithIdx(outer).GetAtomMapNum(), inner, atoms))
    if not groups and not reagent_atoms:
        return None
    if len({g[0] for g in groups}) != len(groups):  # two leaving groups on one atom: keep it simple
        return None
    groups.sort(key=lambda g: g[0])
    core = Chem.RWMol(query)
    leaving = []
    for isotope, (_, inner, atoms) in enumerate(groups, start=1):
        frag = _fragment_mol(query, atoms, rd_map)
        if frag is None:
            return None
        mol, index = frag
        leaving.append((isotope, mol, index[inner]))
        core.ReplaceAtom(inner, Chem.AtomFromSmarts(f"[{isotope}*]"))
    reagents = []
    for atoms in reagent_atoms:
        frag = _fragment_mol(query, atoms, rd_map)
        if frag is None:
            return None
        reagents.append(frag[0])
    drop = {a for _, inner, atoms in groups for a in atoms if a != inner} | {a for r in reagent_atoms for a in r}
    for idx in sorted(drop, reverse=True):
        core.RemoveAtom(idx)
    return product_side, Chem.MolToSmarts(core.GetMol()), tuple(leaving), tuple(reagents)


def _markers(core: Chem.Mol) -> dict[int, int] | None:
    """Marker isotope -> atom index in a family's outcome, or ``None`` if a marker is not a terminal atom."""
    found = {a.GetIsotope(): a.GetIdx() for a in core.GetAtoms() if a.GetAtomicNum() == 0 and a.GetIsotope()}
    if any(core.GetAtomWithIdx(idx).GetDegree() != 1 for idx in found.values()):
        return None
    return found


def _smiles_pair(mol: Chem.Mol) -> tuple[str, str]:
    """(atom-mapped SMILES, canonical SMILES without map numbers) of one molecule; its map numbers are cleared."""
    mapped = _write_and_clear_maps(mol)
    return mapped, Chem.MolToSmiles(mol)


def _split_core(mapped_core: str) -> tuple[tuple[tuple[str, str], ...], list[tuple[Chem.Mol, dict[int, int]]]] | None:
    """A family's outcome (atom-mapped precursors with marker dummies) split into its molecules: the SMILES pairs
    (:func:`_smiles_pair`) of those without a marker, written once for every member, and each molecule with markers
    with its marker isotope -> atom index; ``None`` when unparsable or a marker is not a terminal atom."""
    core = Chem.MolFromSmiles(mapped_core)
    if core is None:
        return None
    fixed: list[tuple[str, str]] = []
    marked: list[tuple[Chem.Mol, dict[int, int]]] = []
    # each molecule sanitised on its own, as the whole was after placing groups: a molecule parsed from mapped SMILES
    # and written again without its map numbers can otherwise keep a stale ring cis/trans perception and give a
    # second SMILES for the same molecule (trans-1,4-cyclohexane [C@H]...[C@H] as [C@@H]...[C@@H])
    for frag in Chem.GetMolFrags(core, asMols=True, sanitizeFrags=True):
        markers = _markers(frag)
        if markers is None:
            return None
        if markers:
            marked.append((frag, markers))
        else:
            fixed.append(_smiles_pair(frag))
    return tuple(fixed), marked


def _place_members_groups(marked: list[tuple[Chem.Mol, dict[int, int]]],
                          member: _Member) -> tuple[tuple[str, str], ...] | None:
    """The SMILES pairs of a family outcome's molecules with markers once the member's leaving groups are in place
    (:func:`_place_groups`, each molecule on its own); ``None`` when a group does not fit or a marker is missing."""
    wanted = {isotope for isotope, _, _ in member.groups}
    if wanted != {isotope for _, markers in marked for isotope in markers}:
        return None
    out = []
    for frag, markers in marked:
        mol = _place_groups(frag, markers, tuple(g for g in member.groups if g[0] in markers))
        if mol is None:
            return None
        out.append(_smiles_pair(mol))
    return tuple(out)


def _place_groups(core: Chem.Mol, markers: dict[int, int],
                  groups: tuple[tuple[int, Chem.Mol, int], ...]) -> Chem.Mol | None:
    """``core`` (an atom-mapped precursor with marker dummies at ``markers``) with leaving ``groups`` (a member's
    ``groups`` entries) in place, sanitised; ``None`` when a marker is missing or a group does not fit.

    Each marker atom is replaced in place by the leaving group's bonded atom, so the bond to the mapped
    atom keeps its index and direction and the stereo tags of its neighbours keep their meaning (and the
    other markers keep their indices).
    """
    rw = Chem.RWMol(core)
    for isotope, group, attach in groups:
        marker = markers.get(isotope)
        if marker is None:
            return None
        index = {attach: marker}
        rw.ReplaceAtom(marker, Chem.Atom(group.GetAtomWithIdx(attach)))
        for atom in group.GetAtoms():
            if atom.GetIdx() != attach:
                index[atom.GetIdx()] = rw.AddAtom(Chem.Atom(atom))
        for bond in group.GetBonds():
            rw.AddBond(index[bond.GetBeginAtomIdx()], index[bond.GetEndAtomIdx()], bond.GetBondType())
            if bond.GetIsAromatic():
                rw.GetBondBetweenAtoms(index[bond.GetBeginAtomIdx()], index[bond.GetEndAtomIdx()]).SetIsAromatic(True)
    mol = rw.GetMol()
    try:
        Chem.SanitizeMol(mol)
    except Exception:  # noqa: BLE001 - the leaving group does not fit here: no outcome, as rdchiral would give
        return None
    return mol


class NamedTemplateMatcher:
    """Applies every named template to a product (cached per product) and looks precursor sets up."""

    def __init__(self, templates: list[Any], cache_size: int = 64, classes: dict[str, int] | None = None,
                 share: bool = True) -> None:
        self.templates = list(templates)
        self._priority = [int(getattr(tpl, "priority", 0)) for tpl in self.templates]
        self._stereo_setting = [bool(getattr(tpl, "stereo_source", "")) for tpl in self.templates]
        self.classes: dict[str, int] = dict(classes or {})
        self._families: list[_Family] = []
        RDLogger.DisableLog("rdApp.*")  # rdchiral warns about unmapped leaving groups
        try:
            self._compile_all(share)
        finally:
            RDLogger.EnableLog("rdApp.*")
        self._cache: OrderedDict[str, dict[tuple[str, ...], tuple[NamedMatch, str]]] = OrderedDict()
        self._cache_size = cache_size

    def _compile_all(self, share: bool) -> None:
        grouped: dict[tuple[str, str], list[_Member]] = {}
        for order, tpl in enumerate(self.templates):
            match = NamedMatch(tpl.id, getattr(tpl, "name", tpl.id), getattr(tpl, "category", ""))
            # a stereo-setting template runs alone: its outcomes are checked for the centre it sets
            split = _split_template(tpl.retro_smarts) if share and not self._stereo_setting[order] else None
            if split is None:
                self._add(tpl.retro_smarts, (_Member(order, match),), shared=False)
                continue
            product_side, core, groups, reagents = split
            grouped.setdefault((product_side, core), []).append(_Member(order, match, groups, reagents))
        for (product_side, core), members in grouped.items():
            if len(members) > 1 and self._add(f"{product_side}>>{core}", tuple(members), shared=True):
                continue
            for member in members:  # a lone template (or a core rdchiral cannot compile) runs as written
                self._add(self.templates[member.order].retro_smarts, (member,), shared=False)
        self._families.sort(key=lambda f: f.members[0].order)

    def _add(self, retro_smarts: str, members: tuple[_Member, ...], shared: bool) -> bool:
        try:
            pattern = Chem.MolFromSmarts(retro_smarts.split(">>")[0])
            reaction = compile_template(retro_smarts)
        except Exception:  # noqa: BLE001 - a named template rdchiral cannot compile is skipped
            log.warning("named template %s does not compile", members[0].match.id)
            return False
        if pattern is None:
            return False
        pattern.UpdatePropertyCache(strict=False)
        self._families.append(_Family(pattern, reaction, members, shared))
        return True

    @property
    def n_applications(self) -> int:
        """Template applications per product at most: one per family (shared or single)."""
        return len(self._families)

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

    def precursor_table(
        self, product: str, target: rdchiralReactants | None = None, *, deadline: float | None = None
    ) -> dict[tuple[str, ...], tuple[NamedMatch, str]]:
        """Canonical precursor set -> (the named template of highest ``priority`` that produces it, the first in file
        order among equals; the atom-mapped precursors as that template wrote them).

        ``target``: the product already initialised by rdchiral (``rdchiralReactants(product)``), to save
        building it again; rdchiral only reads it.  ``deadline``: see :meth:`precursor_table_until`.
        """
        return self.precursor_table_until(product, target, deadline=deadline)[0]

    def precursor_table_until(
        self, product: str, target: rdchiralReactants | None = None, *, deadline: float | None = None
    ) -> tuple[dict[tuple[str, ...], tuple[NamedMatch, str]], bool]:
        """:meth:`precursor_table` and whether ``deadline`` (a ``time.perf_counter()`` value) cut it short.

        Past the deadline no further template is applied (checked before each template family and inside
        template application, see :func:`application_deadline`); a table cut short holds what was found by
        then and is not cached.  Without a deadline the table is complete.
        """
        hit = self._cache.get(product)
        if hit is not None:
            self._cache.move_to_end(product)
            return hit, False
        found: list[tuple[int, tuple[str, ...], NamedMatch, str]] = []
        budget = DeadlineBudget(None)
        try:
            with rdchiral_quiet(), application_deadline(deadline) as budget:
                if target is None:
                    target = rdchiralReactants(product)
                for family in self._families:
                    if budget.expired():
                        break
                    if not target.reactants_achiral.HasSubstructMatch(family.pattern):
                        continue
                    try:
                        outcomes, mapped = run_template(family.reaction, target, combine_enantiomers=False,
                                                       return_mapped=True)
                        outcomes, mapped = invert_substitution_centres(family.reaction, target, outcomes, mapped)
                    except Exception:  # noqa: BLE001 - a template that fails on this product gives nothing
                        continue
                    outcomes = sorted(outcomes)  # rdchiral lists a set: one order in every process
                    if not family.shared:
                        member = family.members[0]
                        if self._stereo_setting[member.order]:  # an asymmetric catalyst needs a centre to set
                            outcomes = [smi for smi in outcomes if gains_stereocentre(product, smi.split("."))]
                        for smi in outcomes:  # canonical, map-free, components sorted (rdchiral)
                            found.append((member.order, tuple(smi.split(".")), member.match,
                                          mapped.get(smi, ("", ()))[0]))
                        continue
                    for smi in outcomes:
                        split = _split_core(mapped.get(smi, ("", ()))[0] or smi)
                        if split is None:
                            continue
                        fixed, marked = split
                        for member in family.members:
                            placed = _place_members_groups(marked, member)
                            if placed is None:
                                continue
                            parts = fixed + placed + member.reagent_smiles
                            found.append((member.order, tuple(sorted(u for _, u in parts)), member.match,
                                          ".".join(sorted(m for m, _ in parts))))
        except Exception as exc:  # noqa: BLE001 - rdchiral cannot initialise some products
            log.debug("named templates not applicable to %s: %s", product, exc)
        cut = budget.cut
        table: dict[tuple[str, ...], tuple[NamedMatch, str]] = {}
        # the template of highest priority names a precursor set, the first in file order among equals
        found.sort(key=lambda item: (-self._priority[item[0]], item[0]))
        for _, canon, match, mapped_smiles in found:
            if canon not in table:
                table[canon] = (match, mapped_smiles)
        if not cut:
            self._cache[product] = table
            if len(self._cache) > self._cache_size:
                self._cache.popitem(last=False)
        return table, cut

    def match(self, product: str, reactants: tuple[str, ...]) -> NamedMatch | None:
        hit = self.precursor_table(product).get(tuple(sorted(reactants)))
        return hit[0] if hit is not None else None


__all__ = [
    "NAMED_CLASSES_FILE",
    "NamedMatch",
    "NamedTemplateMatcher",
    "UniqueOutcomes",
    "DeadlineBudget",
    "application_deadline",
    "compile_template",
    "rdchiral_quiet",
]

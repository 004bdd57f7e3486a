"""How the protocols use the engine: the injected :class:`RetroEngine`, a stock bound to it, one step judgement,
one target resolver.

The skills, the pipeline and the session never load a model or a stock themselves: their entry point passes a
``RetroEngine`` (``run_skill(..., engine=)``, ``Orchestrator(..., engine=)``, ``RetroCmd(..., engine=)``) and only
when none is passed do they fall back to :func:`molx_agent.retro.engine.default_engine` (the process-wide engine
built from settings).  A protocol that takes its own stock spec (a ``check_availability`` argument, a pipeline or
session stock) binds it with :func:`engine_with_stock`, which keeps the engine's model and configuration.

:func:`judge_step` is the protocols' one call of :meth:`RetroEngine.judge_step`, with the search's argument
conventions: ``reaction_type`` = the step's category (else its reaction name), ``template_id`` = a named (expert)
template id only, ``mapped_reaction`` = the proposing template's atom map when known, ``score`` = the single-step
model's probability when the step came from the model.  So the search, the skills, the pipeline and the session
cannot reach opposite verdicts on the same step.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from molx_agent.errors import RetroError
from molx_agent.retro.engine import RetroEngine


def engine_or_default(engine: RetroEngine | None) -> RetroEngine:
    """``engine``, or the process-wide default engine when none was injected."""
    if engine is not None:
        return engine
    from molx_agent.retro.engine import default_engine

    return default_engine()


def is_default_stock(stock: Any) -> bool:
    """True for "no stock of its own" (``None`` or ``"default"``): the engine's own stock is used."""
    return stock is None or (isinstance(stock, str) and stock.strip().lower() == "default")


def engine_with_stock(engine: RetroEngine, stock: str | os.PathLike[str] | Any | None) -> RetroEngine:
    """``engine`` on another stock: ``engine`` itself for no stock (``None``/``"default"``), else a new engine sharing
    its model (the loaded one, or the packaged singleton) and configuration.  The stock loads now, so a bad spec or an
    unreadable file fails here (``DataError``), before any work."""
    if is_default_stock(stock):
        return engine
    return engine.with_stock(stock)


def named_template_id(*candidates: Any) -> str | None:
    """The first candidate that is the id of a named (expert) template, else ``None`` (USPTO ids are not)."""
    from molx_agent.chem.templates import get_template

    for tid in candidates:
        if not tid or not isinstance(tid, str):
            continue
        try:
            get_template(tid)
        except RetroError:
            continue
        return tid
    return None


def judge_step(engine: RetroEngine, precursors: Sequence[str], product: str, *, category: str | None = None,
               reaction_type: str | None = None, template_id: str | None = None,
               mapped_reaction: str | None = None, score: Any = None) -> dict[str, Any]:
    """:meth:`RetroEngine.judge_step` with the search's conventions (see the module docstring).

    ``category``: the step's category when the step came from a template or the model (``""`` when it has none;
    the reaction name is then not used, as in the search); ``None`` when not known: a named template's category,
    else (a chemist's or an LLM's step) the ``reaction_type`` name.  ``template_id`` may be any id: only a named template id is
    passed on.  ``score`` is ignored unless it is a number (a model probability)."""
    try:
        p = float(score) if score is not None and not isinstance(score, bool) else None
    except (TypeError, ValueError):
        p = None
    named = named_template_id(template_id)
    if category is None and named:  # a named template's step has that template's category
        from molx_agent.chem.templates import get_template

        category = get_template(named).category
    kind = (category if category is not None else reaction_type) or None
    return engine.judge_step(list(precursors), product, reaction_type=kind, template_id=named,
                             mapped_reaction=mapped_reaction or None, score=p)


def judge_prediction(engine: RetroEngine, prediction: Any, product: str) -> dict[str, Any]:
    """:func:`judge_step` of one single-step ``Prediction`` (as the search judges it)."""
    return judge_step(engine, list(prediction.reactants), product, category=getattr(prediction, "category", "") or "",
                      template_id=getattr(prediction, "named_template_id", None),
                      mapped_reaction=getattr(prediction, "mapped_reaction", None),
                      score=getattr(prediction, "score", None))


#: the fields of a step judgement the protocols show (``brief_judgement``)
BRIEF_KEYS = ("pass", "ok", "feasibility_score", "feasibility", "hard_fail_reasons", "waived_gates", "verdict",
              "plausibility", "issues")


def brief_judgement(judgement: dict[str, Any]) -> dict[str, Any]:
    """The headline fields of a :func:`judge_step` result (no per-gate details)."""
    return {k: judgement.get(k) for k in BRIEF_KEYS if k in judgement}




def resolve_target(text: Any, *, message: str = "Failed to parse SMILES: {text!r}") -> tuple[str, str]:
    """``(smiles, name)`` through the one target resolver (:func:`molx_agent.retro.targets.resolve_target`: a name
    from the packaged table first, then a SMILES).  A target that is neither is the seeds' ``invalid_smiles`` error
    (``message`` formatted with ``text``), which the protocols document."""
    from molx_agent.errors import ChemistryError
    from molx_agent.retro.targets import resolve_target as _resolve

    try:
        return _resolve(text)
    except ChemistryError as exc:
        if exc.code not in ("unknown_target", "invalid_smiles"):
            raise
        raise ChemistryError("invalid_smiles", message.format(text=text), value=text,
                             hint="pass a valid SMILES (or a known compound name)") from None


__all__ = ["engine_or_default", "engine_with_stock", "is_default_stock", "named_template_id", "judge_step",
           "judge_prediction", "brief_judgement", "resolve_target", "BRIEF_KEYS"]

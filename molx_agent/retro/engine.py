"""``RetroEngine``: the one door to the retrosynthesis engine.

Every surface (the ``route`` CLI, the agent's workers, the 13 skills, the pause/resume pipeline, the interactive
session, the MCP server) reaches the single-step model, the stock, the step and leaf judgements and the search
through one ``RetroEngine``, built once at the entry point and passed down.  Tests pass a toy engine
(``RetroEngine(model=DictSingleStepModel(...), stock=FileStock(...))``) instead of patching loaders.

- :meth:`RetroEngine.predict` -- the single-step model's top-k precursor sets (cached per molecule).
- :meth:`RetroEngine.judge_step` -- forward validation of one step plus its plausibility (one call shape and one
  verdict for the search, the validation worker, the skills, the pipeline and the session).
- :meth:`RetroEngine.judge_leaf` -- may this molecule end a route, at what cost, and how sure are we (tiers).
- :meth:`RetroEngine.availability` -- purchasability records with their tier.
- :meth:`RetroEngine.search` -- the multi-step route search (with the model's search view: the default model
  without the learned policy unless ``MOLX_SEARCH_POLICY=on``, see ``retro.single_step.search_model``).
- :meth:`RetroEngine.judge_route` -- a route's ``confidence`` and ``issues``.
- :meth:`RetroEngine.resolve_target` -- a name or a SMILES to ``(smiles, name)`` (one precedence everywhere).

The model and the stock load lazily, so building an engine is free until it is used.
"""

from __future__ import annotations

import dataclasses
import logging
import threading
from collections.abc import Sequence
from typing import Any

from molx_agent.retro.search_types import ProgressCallback, SearchCaches, SearchConfig, SearchResult

logger = logging.getLogger(__name__)


class RetroEngine:
    """The retrosynthesis engine: single-step model, stock, judgements and search behind one object.

    ``model``: a ``SingleStepModel`` (default: the packaged model, loaded at first use).  ``stock``: a ``Stock`` or a
    spec for :func:`molx_agent.retro.stock.load_stock` (default: the packaged verified building blocks and common
    reagents, then the ZINC in-stock Bloom filter, whose hits are ``probable``).  ``config``: a :class:`SearchConfig` (the search defaults and the
    trust knobs: leaf policy, plausibility floor, route score), written once there.
    """

    def __init__(self, model: Any = None, stock: Any = None, config: SearchConfig | None = None) -> None:
        self._model = model
        self._stock_spec = stock
        self._stock: Any = None
        self.config = config or SearchConfig()
        self._lock = threading.RLock()
        self._predictions: dict[tuple[str, int], list[Any]] = {}
        self._model_source: RetroEngine | None = None  # an engine whose model this one shares (with_stock/with_config)
        self.caches = SearchCaches()

    # -- construction ------------------------------------------------------------------------------------
    @classmethod
    def from_settings(cls, settings: Any = None, **overrides: Any) -> RetroEngine:
        """An engine from ``molx_agent.config.Settings`` (stock spec, search time); keywords override."""
        if settings is None:
            from molx_agent.config import get_settings

            settings = get_settings()
        stock = overrides.pop("stock", getattr(settings, "retro_stock", None))
        model = overrides.pop("model", None)
        config = overrides.pop("config", None)
        if config is None:
            fields = {f.name for f in dataclasses.fields(SearchConfig)}
            config = SearchConfig(**{k: v for k, v in overrides.items() if k in fields})
        return cls(model=model, stock=stock, config=config)

    def with_config(self, **changes: Any) -> RetroEngine:
        """A new engine sharing this one's model and stock, with some config fields changed."""
        other = RetroEngine(model=self._model, stock=self.stock, config=dataclasses.replace(self.config, **changes))
        other._predictions = self._predictions
        other._model_source = self
        return other

    def with_stock(self, stock: Any) -> RetroEngine:
        """A new engine sharing this one's model (loaded or not) and config, with another stock (a spec or a
        ``Stock``; a bad spec fails now, before any search)."""
        from molx_agent.retro.stock import load_stock

        other = RetroEngine(model=self._model, stock=load_stock(stock), config=self.config)
        other._predictions = self._predictions
        other._model_source = self
        return other

    @property
    def model(self) -> Any:
        with self._lock:
            if self._model is None:
                source = getattr(self, "_model_source", None)
                if source is not None:
                    self._model = source.model  # share the parent's model (loaded once)
                else:
                    from molx_agent.retro.single_step import load_single_step_model

                    self._model = load_single_step_model()
            return self._model

    @property
    def stock(self) -> Any:
        with self._lock:
            if self._stock is None:
                from molx_agent.retro.stock import load_stock

                self._stock = load_stock(self._stock_spec)
            return self._stock

    @property
    def stock_spec(self) -> Any:
        """The stock as it was given (a spec string, a path, a ``Stock``, or ``None`` for the default stock)."""
        return self._stock_spec

    def spec(self) -> dict[str, Any]:
        """A description to rebuild this engine in another process: ``{"model", "stock", "config"}``, where
        ``model`` is the model when one was given or loaded (``None``: not loaded yet; the other process then
        loads the packaged model from its files) and ``stock`` the stock spec as given.  Pickle it; a member that
        does not pickle is the caller's to replace by ``None`` (the default)."""
        return {"model": self._model, "stock": self._stock_spec, "config": self.config}

    @property
    def model_loaded(self) -> bool:
        return self._model is not None

    # -- single step ------------------------------------------------------------------------------------------
    def predict(self, smiles: str, top_k: int | None = None, *, deadline: float | None = None) -> list[Any]:
        """Top-k precursor sets for ``smiles`` (``Prediction`` objects, best first; cached per molecule; ``top_k``
        defaults to the search's ``expansion_top_k``).  ``deadline``: a ``time.perf_counter()`` value at which a
        model that supports it stops applying templates (a list cut short is returned, never cached)."""
        key = (smiles, int(top_k if top_k is not None else self.config.expansion_top_k))
        top_k = key[1]
        hit = self._predictions.get(key)
        if hit is None and deadline is not None:
            from molx_agent.retro.search import _takes_deadline

            if _takes_deadline(self.model):
                preds = self.model.predict(smiles, top_k=top_k, deadline=deadline)
                if getattr(preds, "cut_short", False):
                    return list(preds)
                hit = list(preds)
        if hit is None:
            hit = list(self.model.predict(smiles, top_k=top_k))
            if len(self._predictions) > 4096:
                self._predictions.clear()
            self._predictions[key] = hit
        return list(hit)

    def judge_step(self, precursors: Sequence[str], product: str, *, reaction_type: str | None = None,
                   template_id: str | None = None, mapped_reaction: str | None = None,
                   score: float | None = None) -> dict[str, Any]:
        """Forward validation of ``precursors -> product`` plus plausibility (see :func:`retro.judge.judge_step`)."""
        from molx_agent.retro.judge import judge_step

        return judge_step(list(precursors), product, reaction_type=reaction_type, template_id=template_id,
                          mapped_reaction=mapped_reaction, score=score, config=self.config)

    # -- purchasability ----------------------------------------------------------------------------------------
    def availability(self, smiles_list: Sequence[str] | str, *, fallback: bool = True) -> list[dict[str, Any]]:
        """Purchasability records, each with ``tier`` (verified / probable / estimated / unavailable) and ``leaf``:
        the leaf policy's answer (``{accept, cost, reason, reactive}``: may this molecule end a route?), so every
        protocol decides "starting material" the way the search does."""
        from molx_agent.retro.judge import judge_leaf
        from molx_agent.retro.stock import check_availability

        records = check_availability(smiles_list, self.stock, fallback=fallback)
        for rec in records:
            can = rec.get("canonical_smiles")
            if not can:
                continue
            in_stock = rec.get("in_stock")
            leaf = judge_leaf(can, self.stock, self.config, tier=rec.get("tier") if in_stock else "unavailable",
                              source=rec.get("source") if in_stock else None)
            rec["leaf"] = {"accept": leaf["accept"], "cost": None if leaf["cost"] == float("inf") else leaf["cost"],
                           "reason": leaf["reason"], "reactive": leaf["reactive"]}
        return records

    def judge_leaf(self, smiles: str, *, target: str | None = None) -> dict[str, Any]:
        """May ``smiles`` end a route? ``{tier, accept, cost, reason, issues, ...}`` (see :func:`retro.judge.judge_leaf`)."""
        from molx_agent.retro.judge import judge_leaf

        return judge_leaf(smiles, self.stock, self.config, target=target)

    # -- search ----------------------------------------------------------------------------------------------------
    def search(self, target: str, *, time_limit: float | None = None, max_expansions: int | None = None,
               max_depth: int | None = None, n_routes: int | None = None, progress: ProgressCallback | None = None,
               config: SearchConfig | None = None, name: str = "", **changes: Any) -> SearchResult:
        """Multi-step route search from ``target`` (a SMILES) with this engine's model, stock and config.

        Keyword limits (and any other :class:`SearchConfig` field) override the engine's config for this search.
        """
        from molx_agent.retro.search import search_routes

        cfg = config or self.config
        limits = {k: v for k, v in (("time_limit", time_limit), ("max_expansions", max_expansions),
                                     ("max_depth", max_depth), ("n_routes", n_routes)) if v is not None}
        limits.update(changes)
        if limits:
            cfg = dataclasses.replace(cfg, **limits)
        return search_routes(target, stock=self.stock, model=self.model, config=cfg, progress=progress, name=name)

    def judge_route(self, graph: Any) -> dict[str, Any]:
        """``{confidence, issues, verdict, score}`` of a route (see :func:`retro.judge.judge_route`)."""
        from molx_agent.retro.judge import judge_route

        return judge_route(graph, self.stock, self.config)

    # -- targets ---------------------------------------------------------------------------------------------------
    @staticmethod
    def resolve_target(text: str) -> tuple[str, str]:
        """``(smiles, name)`` for a known name or a SMILES (see :func:`retro.targets.resolve_target`)."""
        from molx_agent.retro.targets import resolve_target

        return resolve_target(text)

    def info(self) -> dict[str, Any]:
        stock = self.stock
        return {"stock": getattr(stock, "name", str(stock)), "model_loaded": self.model_loaded,
                "config": dataclasses.asdict(self.config)}


_DEFAULT: RetroEngine | None = None
_DEFAULT_LOCK = threading.Lock()


def default_engine() -> RetroEngine:
    """The process-wide engine built from settings (for entry points only; library code takes an engine)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = RetroEngine.from_settings()
        return _DEFAULT


__all__ = ["RetroEngine", "default_engine"]

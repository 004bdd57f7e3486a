"""The step-by-step retrosynthesis protocols for outside agents and chemists, thin layers over the engine.

- :mod:`molx_agent.interfaces.skills` -- the 13 skills of seed 000 (``run_skill(name, args, engine=None)``).
- :mod:`molx_agent.interfaces.pipeline` -- the pause/resume task pipeline of seed 000.
- :mod:`molx_agent.interfaces.session` -- the interactive ``RetroCmd`` session of seed 001.

Each reaches the single-step model, the stock, the step judgement and the search only through a
:class:`molx_agent.retro.engine.RetroEngine` passed in by its entry point (the CLI, the MCP server, the LangChain
tools).  Like ``chem/`` and ``retro/`` this layer never imports LangChain or LangGraph.  The old paths
``molx_agent.retro.skills`` / ``.pipeline`` / ``.session`` still work (aliases).
"""

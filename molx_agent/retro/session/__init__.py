"""Moved to :mod:`molx_agent.interfaces.session`; this old import path (and every submodule under it) still works.

``molx_agent.retro.session`` and ``molx_agent.retro.session.<module>`` are the very modules of ``molx_agent.interfaces.session``.
"""

from molx_agent._compat import alias_package

alias_package(__name__, "molx_agent.interfaces.session")

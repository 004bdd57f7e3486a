"""Interactive retrosynthesis session (seed 001): ``RetroCmd(session_file, engine=None).execute(command, args)``.

Modules: ``state`` (session file structure, load/save), ``args`` (command schemas), ``commands``
(``RetroCmd`` dispatcher), ``actions`` (commands that change the state), ``views`` (read-only
commands and ``export``), ``context`` (decision context, terminal logic), ``sandbox`` (attempt
evaluation), ``engine`` (the one adapter to ``chem`` and, through ``SessionEngine``, to the injected
:class:`~molx_agent.retro.engine.RetroEngine`).
"""

from molx_agent.interfaces.session.args import COMMANDS
from molx_agent.interfaces.session.commands import RetroCmd

__all__ = ["RetroCmd", "COMMANDS"]

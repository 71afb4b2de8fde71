"""The Kuh-Handel compatible endpoint: existing competition bots (``pyhandel``,
``kuh-handel-lib``) play here unchanged at ``/kuh-handel/`` (see ``docs/kuh-handel.md``)."""

from cardtable.server.compat.lobby import KuhHandel
from cardtable.server.compat.routes import router

__all__ = ["KuhHandel", "router"]

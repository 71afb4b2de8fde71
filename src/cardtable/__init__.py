"""cardtable: card games for people and bots."""

import os as _os

__version__ = "0.1.0"

if _os.environ.get("CARDTABLE_COMPILED_ENGINE"):  # a child of the `cardtable` command: its build
    from cardtable.engine_build import follow_parent as _follow_parent

    _follow_parent()

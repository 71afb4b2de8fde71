"""Build hook for the optional compiled engine; everything else is in pyproject.toml.

``CARDTABLE_COMPILE=1 pip install --no-build-isolation .`` compiles the modules listed under
``[tool.cardtable.compile]`` with mypyc (it needs mypy, a C compiler and the Python headers).
Without the variable the package is plain Python. Editable installs (``pip install -e``) are never
compiled: a compiled module would shadow its edited source.
"""

from __future__ import annotations

import os
import sys
import tomllib
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent


def compiled_modules() -> list[str]:
    with open(HERE / "pyproject.toml", "rb") as f:
        modules: list[str] = tomllib.load(f)["tool"]["cardtable"]["compile"]["modules"]
    return [str(Path("src") / m) for m in modules]


def ext_modules() -> list[object]:
    if os.environ.get("CARDTABLE_COMPILE") != "1":
        return []
    if "editable_wheel" in sys.argv or "develop" in sys.argv:
        print("CARDTABLE_COMPILE ignored for an editable install", file=sys.stderr)
        return []
    from mypyc.build import mypycify

    # the mypy config names packages not compiled here: not a problem for this build
    return list(mypycify(["--no-warn-unused-configs", *compiled_modules()], opt_level="3"))


setup(ext_modules=ext_modules())

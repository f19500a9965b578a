"""The version of this release of sorry-arena (shown by ``/api/v1/health`` and ``/api/v1/ready``).

Read from the installed distribution's metadata (``importlib.metadata``); in a source checkout that is not
installed, from its ``pyproject.toml``; else ``"unknown"``.
"""

from __future__ import annotations

import functools
import tomllib
from importlib import metadata
from pathlib import Path

DISTRIBUTION = "sorry-arena"
_PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


@functools.cache
def version() -> str:
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return source_version(_PYPROJECT)


def source_version(pyproject: Path) -> str:
    """The version a source checkout's ``pyproject.toml`` declares (``"unknown"``: none readable)."""
    try:
        project = tomllib.loads(pyproject.read_text(encoding="utf-8"))["project"]
    except (OSError, KeyError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return "unknown"
    found = project.get("version") if project.get("name") == DISTRIBUTION else None
    return found if isinstance(found, str) else "unknown"

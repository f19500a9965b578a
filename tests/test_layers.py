"""The engine imports nothing outside the standard library (STYLE.md layers), checked on every import statement.

import-linter (run by `make test`) checks the layer contracts between our packages; it can only forbid named
third-party packages, so this test checks the engine's imports against the interpreter's list of stdlib modules.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"


def imported_top_levels(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_engine_imports_only_the_standard_library() -> None:
    files = sorted(ENGINE.rglob("*.py"))
    assert files, "no engine sources found"
    outside = {
        f"{path.relative_to(ENGINE.parent)}: {name}"
        for path in files
        for name in imported_top_levels(path)
        if name != "engine" and name not in sys.stdlib_module_names
    }
    assert not outside, f"engine imports outside the standard library: {sorted(outside)}"


def test_the_check_sees_a_third_party_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nfrom rich.console import Console\nfrom . import sibling\n")
    assert imported_top_levels(sample) - set(sys.stdlib_module_names) == {"rich"}

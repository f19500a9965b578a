"""The floors of docs/architecture.md, checked beyond what import-linter (run by `make test`) can say.

import-linter checks the contracts between our packages, but can only forbid named third-party packages: this test
checks the engine's, the rating arithmetic's and the learning environments' imports against the interpreter's list of
standard library modules (the rating arithmetic may import numpy and scipy too; the environments the engine, numpy,
Gymnasium, PettingZoo and pyarrow), and that a tournament worker process, as started, loads no
Flask at all.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ENGINE = ROOT / "engine"


def imported_top_levels(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


ALLOWED = {
    "engine": set(),
    "ratings": {"numpy", "scipy"},
    "envs": {"engine", "numpy", "gymnasium", "pettingzoo", "pyarrow"},
}
"""Beyond the standard library: the rating arithmetic's arrays and sparse solver; the learning environments' engine,
arrays, environment APIs and Parquet files (docs/architecture.md)."""


@pytest.mark.parametrize("package", ["engine", "ratings", "envs"])
def test_a_pure_package_imports_only_the_standard_library(package: str) -> None:
    files = sorted((ROOT / package).rglob("*.py"))
    assert files, f"no {package} sources found"
    outside = {
        f"{path.relative_to(ROOT)}: {name}"
        for path in files
        for name in imported_top_levels(path)
        if name != package and name not in sys.stdlib_module_names and name not in ALLOWED[package]
    }
    assert not outside, f"{package} imports outside the standard library: {sorted(outside)}"


FLASK_FAMILY = {"flask", "flask_smorest", "werkzeug", "jinja2", "marshmallow", "service"}


def loaded_top_levels(*modules: str) -> set[str]:
    """The top-level packages a fresh interpreter holds after importing ``modules``."""
    code = (
        "import importlib, json, sys\n"
        f"for name in {list(modules)!r}: importlib.import_module(name)\n"
        "print(json.dumps(sorted({name.split('.')[0] for name in sys.modules})))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(json.loads(done.stdout))


def test_a_worker_process_loads_no_flask() -> None:
    """What `sorry-arena worker` imports to play games: the worker, its jobs, the runner and their floors."""
    loaded = loaded_top_levels(
        "cli.worker", "tournament.dispatch.worker", "tournament.jobs", "tournament.play.runner"
    )
    assert {"tournament", "store", "botlink", "engine", "sqlalchemy", "rq"} <= loaded
    assert not loaded & FLASK_FAMILY, f"a worker loads {sorted(loaded & FLASK_FAMILY)}"


def test_the_check_sees_flask_in_the_api() -> None:
    assert {"flask", "service"} <= loaded_top_levels("service.app")


def test_the_check_sees_a_third_party_import(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import os\nfrom rich.console import Console\nfrom . import sibling\n")
    assert imported_top_levels(sample) - set(sys.stdlib_module_names) == {"rich"}

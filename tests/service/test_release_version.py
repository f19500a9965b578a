"""The version of sorry-arena in ``/api/v1/health`` and ``/api/v1/ready`` (on SQLite and PostgreSQL): the project's
own, from the installed metadata or, in a source checkout, from its pyproject.toml (``runtime/release.py``)."""

from __future__ import annotations

import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from runtime import release
from tests.apikit import API
from tests.arenakit import arena_app
from tests.conftest import dispose

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


def declared() -> str:
    version = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["version"]
    assert isinstance(version, str)
    return version


def test_health_and_ready_show_the_version(database_url: str) -> None:
    app = arena_app(database_url)
    try:
        client = app.test_client()
        health = client.get(f"{API}/health")
        assert health.status_code == 200 and health.get_json() == {"ok": True, "version": declared()}
        ready = client.get(f"{API}/ready")
        assert ready.status_code == 200 and ready.get_json()["version"] == declared() == "0.2.0"
    finally:
        dispose(app)


def test_a_source_checkout_reads_its_pyproject(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    def missing(name: str) -> str:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    release.version.cache_clear()
    try:
        assert release.version() == declared()
    finally:
        release.version.cache_clear()
    other = tmp_path / "pyproject.toml"
    other.write_text('[project]\nname = "something-else"\nversion = "9.9"\n', encoding="utf-8")
    assert release.source_version(other) == "unknown"
    other.write_text("not toml [", encoding="utf-8")
    assert release.source_version(other) == "unknown"
    assert release.source_version(tmp_path / "absent.toml") == "unknown"

"""CHANGELOG.md keeps up with the releases: its newest release is the version in pyproject.toml (the one the service
shows in ``/api/v1/health``), it has an Upgrading note, and [Unreleased] stays on top for the next changes."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

from runtime import release

ROOT = Path(__file__).resolve().parents[1]
RELEASE = re.compile(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", re.M)


def releases() -> list[tuple[str, str, str]]:
    """Each release of the changelog, newest first: its version, date and text."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    found = list(RELEASE.finditer(text))
    ends = [match.start() for match in found[1:]] + [len(text)]
    return [(match[1], match[2], text[match.end() : end]) for match, end in zip(found, ends, strict=True)]


def test_the_newest_release_is_the_version_shipped_and_says_how_to_upgrade() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    version, _, text = releases()[0]
    assert version == declared == release.source_version(ROOT / "pyproject.toml")
    assert "\n### Upgrading\n" in text, f"release {version} has no Upgrading note"


def test_unreleased_comes_first_and_releases_run_newest_first() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.index("## [Unreleased]") < RELEASE.search(text).start()  # type: ignore[union-attr]
    versions = [tuple(int(part) for part in version.split(".")) for version, _, _ in releases()]
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    dates = [date for _, date, _ in releases()]
    assert dates == sorted(dates, reverse=True)

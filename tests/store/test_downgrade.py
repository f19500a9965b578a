"""``sorry-arena db downgrade REV`` (store/migrate.py, cli/db.py): from head back to an older revision with data, and
up again with the data kept; a revision that is none, or not older, and a migration that cannot be undone are
refused in one line, nothing changed. On SQLite (with the copy of the file made first) and PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from cli.main import main
from store import migrate
from tests.store.test_interrupted_upgrade import EXPECTED, counts, fill_more


@pytest.fixture
def with_data(database_url: str) -> str:
    """The service's tables at head, with the rows ``fill_more`` writes at 0006 (migrated on top of them)."""
    assert main(["db", "downgrade", "0006", "--database-url", database_url]) == 0
    fill_more(database_url)
    assert main(["db", "upgrade", "--database-url", database_url]) == 0
    return database_url


def test_down_to_an_older_revision_and_up_again_keeps_the_data(
    with_data: str, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["db", "downgrade", "0008", "--database-url", with_data]) == 0
    out, err = capsys.readouterr()
    assert "at revision 0008" in out
    assert "Running downgrade 0009 -> 0008" in err
    assert migrate.current(with_data) == "0008"
    assert main(["db", "upgrade", "--database-url", with_data]) == 0
    assert main(["db", "check", "--database-url", with_data]) == 0
    assert counts(with_data) == EXPECTED
    path = migrate.sqlite_file(with_data)
    if path is not None:  # the copy of the last run stays, the earlier runs' are gone
        assert [copy.name for copy in path.parent.glob(f"{path.name}.pre-*")] == [f"{path.name}.pre-0008"]


def test_refusals_change_nothing(
    database_url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    assert main(["db", "downgrade", "0099", "--database-url", database_url]) == 2
    assert "sorry-arena db downgrade: no revision '0099': one of base, 0001," in capsys.readouterr().err
    assert main(["db", "downgrade", "0012", "--database-url", database_url]) == 0
    assert main(["db", "downgrade", "0014", "--database-url", database_url]) == 2
    assert capsys.readouterr().err.endswith(
        "sorry-arena db downgrade: revision 0014 is not older than the database's (0012)\n"
    )
    real = migrate.irreversible
    monkeypatch.setattr(  # as if 0010 said IRREVERSIBLE = "..."
        migrate,
        "irreversible",
        lambda script: "the moves' old keys are gone" if script.revision == "0010" else real(script),
    )
    assert main(["db", "downgrade", "0005", "--database-url", database_url]) == 2
    err = capsys.readouterr().err
    assert err.endswith(
        "sorry-arena db downgrade: revision 0010 cannot be undone: the moves' old keys are gone\n"
    ), err
    assert "Traceback" not in err
    assert migrate.current(database_url) == "0012", "nothing was undone"


def test_a_sqlite_copy_is_consistent_and_named_after_its_revision(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'arena.db'}"
    migrate.upgrade(url, "0013")
    migrate.upgrade(url)
    copy = tmp_path / "arena.db.pre-0013"
    assert copy.is_file()
    assert migrate.current(f"sqlite:///{copy}") == "0013"
    assert not list(tmp_path.glob("*.partial"))

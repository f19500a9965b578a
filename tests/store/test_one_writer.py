"""A game is written by one writer: no code outside ``store/gamelog.py`` inserts, updates or deletes a game, its
seats, its actions or its events, nor makes one of their rows (checked on the syntax tree of every module)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = (
    "engine",
    "store",
    "botlink",
    "ratings",
    "runtime",
    "service",
    "tournament",
    "clients",
    "cli",
    "benchmarks",
)
GAME_TABLES = {"Game", "Seat", "ActionRecord"}
WRITER = Path("store/gamelog.py")
DEFINITIONS = Path("store/models/games.py")


def game_writes(tree: ast.AST) -> list[str]:
    """``insert(T)``, ``update(T)``, ``delete(T)`` and ``T(...)`` for every game table ``T``, as written."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        callee = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", None)
        if callee in GAME_TABLES:
            found.append(ast.unparse(node)[:80])
        elif callee in {"insert", "update", "delete"} and node.args:
            target = node.args[0]
            name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", None)
            if name in GAME_TABLES:
                found.append(ast.unparse(node)[:80])
    return found


def test_only_the_game_log_writes_games() -> None:
    writes = {}
    files = [path for package in PACKAGES for path in sorted((ROOT / package).rglob("*.py"))]
    assert len(files) > 100
    for path in files:
        relative = path.relative_to(ROOT)
        if relative in (WRITER, DEFINITIONS) or relative.parts[:2] == ("store", "migrations"):
            continue
        found = game_writes(ast.parse(path.read_text(), filename=str(path)))
        if found:
            writes[str(relative)] = found
    assert not writes, f"games written outside {WRITER}: {writes}"
    assert game_writes(ast.parse((ROOT / WRITER).read_text())), "the writer itself must be seen writing"


def test_the_check_sees_each_kind_of_write() -> None:
    planted = (
        "session.add(Seat(game_id=1, seat=0, player_id=1))\n"
        "session.execute(update(Game).where(Game.id == 1).values(status='over'))\n"
        "session.execute(insert(models.ActionRecord), rows)\n"
        "session.execute(delete(Seat))\n"
        "session.execute(update(Tournament).values(status='done'))\n"
        "select(Game.id)\n"
    )
    assert len(game_writes(ast.parse(planted))) == 4

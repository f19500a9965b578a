"""The replay file of ``sorry-arena simulate``: every game played, one JSON line each.

Each line is a game record of :mod:`engine.records` (:func:`~engine.records.make_record`, written with
:func:`~engine.records.dumps`): the settings, the game's seed, the bots by seat, every action with its latency and
fault, the result with forfeits; ``game_id`` is the game's number in the run (the ``game_id`` its bots were sent).
A line is written whole and flushed as its game ends, so a run stopped at any moment leaves complete lines only.
By default the file is ``replays/simulate-<UTC time>.jsonl`` under the working directory.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from engine.records import dumps, make_record
from engine.simulation import GameRecord

DEFAULT_FOLDER = Path("replays")


class ReplayFile:
    """An open replay file; :meth:`write` adds a game."""

    def __init__(self, path: Path, handle: TextIO) -> None:
        self.path = path
        self.handle = handle
        self.games = 0

    @classmethod
    def open(cls, path: str | None, now: datetime | None = None) -> ReplayFile:
        """``path`` opened for writing (replaced if it exists), or a new default file when ``path`` is ``None``.
        Raises ``OSError`` when it cannot be written."""
        if path is not None:
            target = Path(path).expanduser()
            return cls(target, target.open("w", encoding="utf-8"))
        stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%SZ")
        DEFAULT_FOLDER.mkdir(parents=True, exist_ok=True)
        for number in range(1, 1000):
            target = DEFAULT_FOLDER / (
                f"simulate-{stamp}.jsonl" if number == 1 else f"simulate-{stamp}-{number}.jsonl"
            )
            try:
                return cls(target, target.open("x", encoding="utf-8"))
            except FileExistsError:
                continue
        raise FileExistsError(f"{DEFAULT_FOLDER}/simulate-{stamp}-*.jsonl: too many files")

    def write(
        self,
        game: str,
        settings: dict[str, Any],
        record: GameRecord,
        game_id: int,
        started_at: datetime,
        finished_at: datetime,
    ) -> None:
        line = dumps(
            make_record(
                game,
                settings,
                record.seed,
                [{"seat": seat, "name": name} for seat, name in enumerate(record.seating)],
                [
                    {"ply": ply, "seat": seat, "action": action, "latency_ms": latency, "fault": fault}
                    for ply, (seat, action, latency, fault) in enumerate(record.moves)
                ],
                {"ranks": list(record.ranks), "reason": record.reason, "forfeited": list(record.forfeited)},
                game_id=game_id,
                started_at=started_at,
                finished_at=finished_at,
            )
        )
        self.handle.write(line + "\n")
        self.handle.flush()
        self.games += 1

    def close(self) -> None:
        self.handle.close()

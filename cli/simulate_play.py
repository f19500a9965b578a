"""One game of ``sorry-arena simulate`` with a bot author's bots in it: asked as the service asks them.

Each decision of a file or URL bot's seat gets the service's ``move`` request (:func:`botlink.moves.move_request`:
``game_id`` the game's number in the run, ``tournament_id`` ``None``, ``deadline_ms`` the move timeout,
``last_latency_ms`` its previous answer's), and its answer is judged by the service's rules: an exception, an
answer later than the move timeout or an id that was not offered is a fault. The game is played by the game loop
the tournament workers use (:func:`engine.gameloop.play_out`): a fault is answered by the game's seeded fallback
action, the third fault in a row forfeits the game for the seat (ranked last by :func:`engine.records.final_result`,
its later turns played by the fallback without asking), and a game left with one seat playing ends. A URL bot is
told the game's ``start`` and ``end`` as a worker tells it (their answers do not matter). Engine-level bots in the
same game play as in :func:`engine.simulation.play_game`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import engine
from botlink.calls import BotConnection
from botlink.moves import ask, end_request, move_request, start_request
from cli.simulate_bots import EngineBot, FileBot, Player, UrlBot
from engine.gameloop import Answer, FaultCount, play_out
from engine.records import final_result
from engine.rng import derived_random
from engine.simulation import GameRecord, Move, engine_choice


def notify(connections: dict[int, BotConnection], route: str, request: Callable[[int], dict[str, Any]]) -> None:
    """Send each URL bot its seat's ``request`` (``start`` or ``end``); answers and faults do not matter."""
    for seat, connection in connections.items():
        connection.call(route, request(seat))


class LocalTable:
    """A game of ``simulate`` as the game loop sees it (:class:`engine.gameloop.Table`): each seat's bot asked in
    this process (an engine bot, a file's ``choose``) or over HTTP (a URL bot's connection)."""

    def __init__(
        self,
        state: engine.State,
        players: list[Player],
        connections: dict[int, BotConnection],
        seed: int,
        game_id: int,
        timeout_ms: int,
    ) -> None:
        self.state = state
        self.players = players
        self.connections = connections
        self.game_id = game_id
        self.timeout_ms = timeout_ms
        self.seats = [FaultCount() for _ in players]
        self.rngs = [derived_random(seed, f"bot{seat}") for seat in range(len(players))]
        self.last_latency: list[float | None] = [None] * len(players)
        self.moves: list[Move] = []

    def ask(self, seat: int, kind: str) -> Answer:
        player, state = self.players[seat], self.state
        actions = engine.legal_actions(state, seat)
        if isinstance(player, EngineBot):
            return Answer(engine_choice(player.bot, state, seat, actions, self.rngs[seat]), None, None)
        request = move_request(
            state,
            seat,
            kind,
            actions,
            game_id=self.game_id,
            tournament_id=None,
            ply=len(self.moves),
            deadline_ms=self.timeout_ms,
            last_latency_ms=self.last_latency[seat],
        )
        if isinstance(player, FileBot):
            answer = player.ask(request, actions, self.timeout_ms)
        else:
            answer = ask(self.connections[seat], request, actions)
        self.last_latency[seat] = answer.latency_ms
        if answer.fault is not None and player.first_fault is None:
            player.first_fault = f"{answer.fault} in game {self.game_id} at ply {len(self.moves)}: {answer.detail}"
        return answer

    def moved(self, seat: int, action: str, answer: Answer) -> bool:
        self.moves.append((seat, action, answer.latency_ms, answer.fault))
        return True


def play_game(
    game: str,
    settings: dict[str, Any],
    seed: int,
    names: list[str],
    players: dict[str, Player],
    game_id: int,
    timeout_ms: int,
) -> GameRecord:
    """One complete game; ``names[seat]`` is the ``--bots`` entry of each seat, ``players`` their bots."""
    seated = [players[name] for name in names]
    connections = {
        seat: player.connect(timeout_ms) for seat, player in enumerate(seated) if isinstance(player, UrlBot)
    }
    table = LocalTable(engine.new_game(game, settings, seed), seated, connections, seed, game_id, timeout_ms)
    try:
        notify(
            connections,
            "start",
            lambda seat: start_request(
                game_id,
                seat,
                tournament_id=None,
                game=game,
                settings=settings,
                seats=len(seated),
                players=names,
            ),
        )
        play_out(table)
        forfeited = [seat for seat, count in enumerate(table.seats) if count.forfeited]
        result = final_result(engine.result(table.state), len(seated), forfeited)
        notify(connections, "end", lambda seat: end_request(game_id, seat, result, seat in forfeited))
    finally:
        for connection in connections.values():
            connection.close()
    return GameRecord(
        seed,
        names,
        tuple(result["ranks"]),
        result["reason"],
        table.state.turn,
        len(table.moves),
        table.moves,
        tuple(count.faults for count in table.seats),
        tuple(forfeited),
    )

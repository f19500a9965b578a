"""One game of ``sorry-arena simulate`` with a bot author's bots in it: asked as the service asks them.

Each decision of a file or URL bot's seat gets the service's ``move`` request (:func:`botlink.moves.move_request`:
``game_id`` the game's number in the run, ``tournament_id`` ``None``, ``deadline_ms`` the move timeout,
``last_latency_ms`` its previous answer's), and its answer is judged by the service's rules: an exception, an
answer later than the move timeout or an id that was not offered is a fault, answered by the game's seeded
fallback action (``engine.fallback_action``); the third fault in a row forfeits the game for the seat
(:class:`botlink.moves.FaultCount`): it is ranked last (:func:`engine.records.final_result`), its later turns played by the fallback without asking,
and a game left with one seat playing ends. A URL bot is told the game's ``start`` and ``end`` as a worker tells
it (their answers do not matter). Engine-level bots in the same game play as in :func:`engine.simulation.play_game`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import engine
from botlink.calls import BotConnection
from botlink.moves import FaultCount, ask, end_request, move_request, start_request
from cli.simulate_bots import EngineBot, FileBot, Player, UrlBot
from engine.records import final_result
from engine.rng import derived_random
from engine.simulation import GameRecord, Move, engine_choice


def notify(connections: dict[int, BotConnection], route: str, request: Callable[[int], dict[str, Any]]) -> None:
    """Send each URL bot its seat's ``request`` (``start`` or ``end``); answers and faults do not matter."""
    for seat, connection in connections.items():
        connection.call(route, request(seat))


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
    state = engine.new_game(game, settings, seed)
    seats = [players[name] for name in names]
    counts = [FaultCount() for _ in seats]
    last_latency: list[float | None] = [None] * len(seats)
    rngs = [derived_random(seed, f"bot{seat}") for seat in range(len(seats))]
    connections = {
        seat: player.connect(timeout_ms) for seat, player in enumerate(seats) if isinstance(player, UrlBot)
    }
    moves: list[Move] = []
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
                seats=len(seats),
                players=names,
            ),
        )
        while not engine.is_over(state) and sum(not count.forfeited for count in counts) > 1:
            asked = engine.decision(state)
            assert asked is not None
            seat = asked.seat
            player = seats[seat]
            action: str | None
            latency: float | None = None
            fault: str | None = None
            if counts[seat].forfeited:
                action, fault = None, "forfeit"
            elif isinstance(player, EngineBot):
                action = engine_choice(player.bot, state, seat, engine.legal_actions(state, seat), rngs[seat])
            else:
                actions = engine.legal_actions(state, seat)
                request = move_request(
                    state,
                    seat,
                    asked.kind,
                    actions,
                    game_id=game_id,
                    tournament_id=None,
                    ply=len(moves),
                    deadline_ms=timeout_ms,
                    last_latency_ms=last_latency[seat],
                )
                if isinstance(player, FileBot):
                    answer = player.ask(request, actions, timeout_ms)
                else:
                    answer = ask(connections[seat], request, actions)
                action, latency, fault = answer.action, answer.latency_ms, answer.fault
                last_latency[seat] = latency
                if fault is not None and player.first_fault is None:
                    player.first_fault = f"{fault} in game {game_id} at ply {len(moves)}: {answer.detail}"
            if action is None:
                action = engine.fallback_action(state)
            engine.apply(state, action, seat, events=False)
            counts[seat].count(fault)
            moves.append((seat, action, latency, fault))
        forfeited = [seat for seat, count in enumerate(counts) if count.forfeited]
        result = final_result(engine.result(state), len(seats), forfeited)
        notify(connections, "end", lambda seat: end_request(game_id, seat, result, seat in forfeited))
    finally:
        for connection in connections.values():
            connection.close()
    return GameRecord(
        seed,
        names,
        tuple(result["ranks"]),
        result["reason"],
        state.turn,
        len(moves),
        moves,
        tuple(count.faults for count in counts),
        tuple(forfeited),
    )

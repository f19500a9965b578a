"""How soon the game viewer shows a move: the page that follows its game's event stream against the page that polled
every 2 s before it (``service/web/static/game.js`` at :data:`POLLING_REVISION`), side by side in headless Chromium.

    .venv/bin/python benchmarks/page_reaction.py [--moves 20] [--rounds 2] [--json]

Each round starts the real service, ``sorry-arena serve`` (gunicorn's gevent worker, SQLite in a temporary
directory, no Redis, rate limits off), makes a 2-seat card game between two accounts, and opens its viewer twice in
one headless Chromium (Debian's ``chromium``, driven by Playwright): once as served (the stream), once with the
polling script served in place of ``game.js`` (Playwright's routing; the rest of the page is the same). Both watch
the same moves at the same time, so the machine's load hits both alike; which page is opened first alternates
between rounds. Before each move the benchmark waits a random 0 to 2 s (seeded), so that the polling page's timer
is caught at any phase; then it sends the move (``POST .../actions``) and, for each page, the reaction is the time
from just before the POST to the moment the new step is on the page (a ``MutationObserver`` stamps it with the
wall clock the benchmark reads too). Printed: per page, the median, mean, 95th percentile and largest reaction,
the ratio of the means, and the 1-minute load average at the start and the end of each round.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import requests

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.servers import free_port  # noqa: E402

POLLING_REVISION = "3253dd3d066ff3de3e45c25064824c2779049875"
"""The last revision whose viewer polled a live game's moves every 2 s."""
PAGES = ("stream", "polling")
TIMEOUT_MS = 30_000
STAMP = """
window.__shown = {};
new MutationObserver(function () {
  var step = document.querySelector("#stage .step");
  if (step && !(step.dataset.ply in window.__shown)) window.__shown[step.dataset.ply] = Date.now();
}).observe(document, { subtree: true, childList: true });
"""
"""Stamps each step with the wall clock (ms) when it first shows on the page."""


def load() -> float:
    return os.getloadavg()[0]


def polling_script() -> str:
    found = subprocess.run(
        ["git", "show", f"{POLLING_REVISION}:service/web/static/game.js"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    return found.stdout


@contextmanager
def serve() -> Iterator[str]:
    """``sorry-arena serve`` on a free port with a fresh SQLite database: its base URL."""
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="sorry-arena-reaction-") as folder:
        env = {key: value for key, value in os.environ.items() if key not in ("DATABASE_URL", "REDIS_URL")}
        env.update(
            DATABASE_URL=f"sqlite:///{folder}/arena.db",
            SORRY_ARENA_LIMIT_ACCOUNTS="off",
            SORRY_ARENA_LIMIT_ACCOUNTS_HOURLY="off",
            SORRY_ARENA_LIMIT_MOVES="off",
            SORRY_ARENA_MAINTENANCE_SECONDS="off",
        )
        argv = [sys.executable, "-m", "cli.main", "serve", "--port", str(port)]
        base = f"http://127.0.0.1:{port}"
        with open(Path(folder) / "serve.log", "wb") as log:
            process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
        try:
            deadline = time.monotonic() + 60
            while True:
                try:
                    if requests.get(f"{base}/api/v1/health", timeout=2).status_code == 200:
                        break
                except requests.RequestException:
                    pass
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit(f"the server did not start:\n{(Path(folder) / 'serve.log').read_text()}")
                time.sleep(0.2)
            yield base
        finally:
            process.terminate()
            try:
                process.wait(30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()


def new_game(base: str) -> tuple[int, list[dict[str, str]]]:
    """A started 2-seat card game: its id and its seats' headers."""
    headers = []
    for name in ("ada", "bob"):
        made = requests.post(f"{base}/api/v1/players", json={"name": name}, timeout=30).json()
        headers.append({"Authorization": f"Bearer {made['token']}"})
    game = requests.post(
        f"{base}/api/v1/games", json={"game": "card", "settings": {}, "seats": 2}, headers=headers[0], timeout=30
    ).json()
    for seat in (0, 1):
        taken = requests.post(
            f"{base}/api/v1/games/{game['id']}/seats", json={"seat": seat}, headers=headers[seat], timeout=30
        )
        assert taken.status_code == 201, taken.text
    return int(game["id"]), headers


def move(base: str, game_id: int, headers: list[dict[str, str]], rng: random.Random) -> int | None:
    """The move of the seat asked (a random legal action): the ply it leads to, or ``None`` once the game is over."""
    for seat_headers in headers:
        offered = requests.get(f"{base}/api/v1/games/{game_id}/actions", headers=seat_headers, timeout=30).json()
        if offered["status"] != "active":
            return None
        if offered["your_decision"]:
            action = rng.choice(offered["actions"])["id"]
            body = {"action": action, "expected_ply": offered["ply"]}
            answer = requests.post(
                f"{base}/api/v1/games/{game_id}/actions", json=body, headers=seat_headers, timeout=30
            )
            assert answer.status_code == 200, answer.text
            return int(offered["ply"]) + 1
    raise AssertionError("no seat is asked")


def open_page(browser: Any, base: str, game_id: int, kind: str, polling: str) -> Any:
    page = browser.new_page()
    page.add_init_script(STAMP)
    if kind == "polling":
        page.route("**/assets/game.js", lambda route: route.fulfill(body=polling, content_type="text/javascript"))
    page.goto(f"{base}/games/{game_id}")
    if kind == "stream":
        page.wait_for_selector('#viewer[data-live="stream"]', timeout=TIMEOUT_MS)
    return page


def one_round(browser: Any, moves: int, first: str, polling: str, rng: random.Random) -> dict[str, Any]:
    start_load = load()
    reactions: dict[str, list[float]] = {kind: [] for kind in PAGES}
    with serve() as base:
        game_id, headers = new_game(base)
        order = [first, *(kind for kind in PAGES if kind != first)]
        pages = {kind: open_page(browser, base, game_id, kind, polling) for kind in order}
        for _ in range(moves):
            time.sleep(rng.uniform(0, 2))
            sent = time.time() * 1000
            ply = move(base, game_id, headers, rng)
            if ply is None:
                break
            for kind, page in pages.items():
                page.wait_for_function(f"window.__shown['{ply}'] !== undefined", timeout=TIMEOUT_MS)
                reactions[kind].append(page.evaluate(f"window.__shown['{ply}']") - sent)
        for page in pages.values():
            page.close()
    return {"reactions": reactions, "load_start": start_load, "load_end": load(), "first": first}


def summary(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "moves": len(ordered),
        "p50_ms": statistics.median(ordered),
        "mean_ms": statistics.fmean(ordered),
        "p95_ms": ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))],
        "max_ms": ordered[-1],
    }


def chromium() -> str:
    path = os.environ.get("SORRY_ARENA_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not os.access(path, os.X_OK):
        raise SystemExit(f"no chromium at {path}: run `make browser`")
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--moves", type=int, default=20, help="moves per round (default 20)")
    parser.add_argument("--rounds", type=int, default=2, help="rounds, alternating the page opened first")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    polling = polling_script()
    rng = random.Random(args.seed)
    rounds = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium())
        try:
            for number in range(args.rounds):
                done = one_round(browser, args.moves, PAGES[number % 2], polling, rng)
                rounds.append(done)
                if not args.json:
                    figures = {kind: summary(values) for kind, values in done["reactions"].items()}
                    print(
                        f"round {number + 1} (first opened: {done['first']}; load average "
                        f"{done['load_start']:.2f} -> {done['load_end']:.2f}): "
                        + "; ".join(f"{kind} mean {figures[kind]['mean_ms']:.0f} ms" for kind in PAGES)
                    )
        finally:
            browser.close()
    everything = {kind: summary([value for done in rounds for value in done["reactions"][kind]]) for kind in PAGES}
    ratio = everything["polling"]["mean_ms"] / everything["stream"]["mean_ms"]
    if args.json:
        print(json.dumps({"pages": everything, "polling_over_stream": ratio, "rounds": rounds}, indent=2))
        return 0
    print(f"{'page':<8} {'moves':>5} {'p50 ms':>8} {'mean ms':>8} {'p95 ms':>8} {'max ms':>8}")
    for kind in PAGES:
        row = everything[kind]
        print(
            f"{kind:<8} {row['moves']:>5} {row['p50_ms']:>8.0f} {row['mean_ms']:>8.0f} {row['p95_ms']:>8.0f} "
            f"{row['max_ms']:>8.0f}"
        )
    print(f"polling / stream (means): {ratio:.1f}x; load average now {load():.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

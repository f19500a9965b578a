"""The documentation stays true and whole: docs/architecture.md names every module, the README stays a short user's
page that opens with its two commands, every relative link of the README and docs/ resolves (file and heading),
and every ``GET /path`` they name is a route of the app. That no file points outside the repository is
``tests/test_self_contained.py``'s.

Each check is a function that returns the problems it finds, so that ``test_each_check_finds_a_planted_fault`` can
show it catching what it forbids. Fast: no server, no database (the app is built for its routes, never served); the
files are read as ``git ls-files`` lists them.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path

from werkzeug.exceptions import MethodNotAllowed, NotFound
from werkzeug.routing import RequestRedirect

from runtime.settings import Settings
from service.app import create_app

ROOT = Path(__file__).resolve().parent.parent

PACKAGES = (
    "engine",
    "ratings",
    "envs",
    "store",
    "botlink",
    "clients",
    "runtime",
    "service",
    "tournament",
    "cli",
    "benchmarks",
)
"""The packages whose every module docs/architecture.md names."""
MIGRATIONS = "store/migrations/versions/"
"""Named as a folder: one file per migration."""
README_MAX_LINES = 250

API_BASE = "/api/v1"
"""The base of the API's paths, which the tables of docs/ may leave out (``GET /bots``: ``GET /api/v1/bots``); the
README names every path whole, as a user types it."""
GET_PATH = re.compile(r"\bGET (/[^\s`|)\"'<>,;\\]*)")
"""A ``GET /path`` a page names, up to its end (a query string and a trailing colon or full stop are cut off)."""

FENCE = re.compile(r"^\s*(```|~~~)")
LINK = re.compile(r"\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


# -- the repository's files ------------------------------------------------------------------------------------


def tracked() -> list[str]:
    return subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()


def text_of(name: str) -> str | None:
    """A tracked file's text, or ``None`` for a binary file (or one deleted from the work tree)."""
    path = ROOT / name
    if not path.is_file():
        return None
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return None


def modules() -> list[str]:
    return sorted(name for name in tracked() if name.endswith(".py") and name.split("/")[0] in PACKAGES)


def documentation() -> list[str]:
    return ["README.md", *sorted(name for name in tracked() if re.fullmatch(r"docs/[^/]+\.md", name))]


# -- the checks ------------------------------------------------------------------------------------------------


def expected_mention(module: str) -> str:
    """How docs/architecture.md names a module: its path; a package's ``__init__.py`` by its folder; a migration by
    the migrations' folder."""
    if module.startswith(MIGRATIONS):
        return MIGRATIONS
    if module.endswith("/__init__.py"):
        return module.removesuffix("__init__.py")
    return module


def mentioned(path: str, text: str) -> bool:
    """Whether ``path`` is named as itself: a folder not as the start of a longer path (``tournament/play/`` is not
    named by ``tournament/play/game.py``), a file not as the end of one."""
    return re.search(rf"(?<![\w./-]){re.escape(path)}(?![\w./-]*\w)", text) is not None


def unnamed_modules(names: Iterable[str], architecture: str) -> list[str]:
    return sorted(
        {
            f"{expected_mention(name)} ({name})"
            for name in names
            if not mentioned(expected_mention(name), architecture)
        }
    )


def readme_problems(readme: str) -> list[str]:
    problems = []
    lines = readme.splitlines()
    if len(lines) > README_MAX_LINES:
        problems.append(f"README.md has {len(lines)} lines, more than {README_MAX_LINES}")
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", readme, flags=re.DOTALL | re.MULTILINE)
    if not blocks:
        problems.append("README.md has no fenced code block")
    else:
        for command in ("make demo", "make test"):
            if command not in blocks[0]:
                problems.append(f"README.md's first code block does not hold `{command}`")
    return problems


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, inline code marks and punctuation dropped, spaces as hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(markdown: str) -> set[str]:
    """The anchors of a page's headings (outside code blocks), a repeated one numbered as GitHub numbers it."""
    seen: dict[str, int] = {}
    found = set()
    fenced = False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        heading = HEADING.match(line)
        if fenced or heading is None:
            continue
        base = slug(heading.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


def outside_code(markdown: str) -> str:
    """The page without its fenced code blocks, whose brackets are code, not links."""
    kept, fenced = [], False
    for line in markdown.splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            kept.append(line)
    return "\n".join(kept)


def broken_links(pages: dict[str, str], exists: Iterable[str]) -> list[str]:
    """Every relative link of ``pages`` (name -> text) whose file is not ``exists`` (paths from the root) or whose
    ``#anchor`` is no heading of that page."""
    files = set(exists)
    texts = dict(pages)
    broken = []
    for name, text in pages.items():
        for target in LINK.findall(outside_code(text)):
            if re.match(r"[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            if path:
                resolved = (ROOT / name).parent / path
                try:
                    relative = resolved.resolve().relative_to(ROOT).as_posix()
                except ValueError:
                    broken.append(f"{name}: {target} (outside the repository)")
                    continue
                folder = relative + "/"
                if relative not in files and not any(other.startswith(folder) for other in files):
                    broken.append(f"{name}: {target} (no such file)")
                    continue
            else:
                relative = name
            if anchor and relative.endswith(".md"):
                page = texts.get(relative)
                if page is None:
                    page = texts[relative] = text_of(relative) or ""
                if anchor not in anchors(page):
                    broken.append(f"{name}: {target} (no heading #{anchor} in {relative})")
    return broken


def named_get_paths(markdown: str) -> list[str]:
    """Each path a page names as ``GET /path``, as a request would send it: the query string dropped and each
    ``{placeholder}`` a ``1``."""
    paths = []
    for named in GET_PATH.findall(markdown):
        path = re.split(r"[?#]", named, maxsplit=1)[0].rstrip(":.")
        paths.append(re.sub(r"\{[^}/]*\}", "1", path))
    return paths


def unrouted_paths(pages: dict[str, str], routed: Callable[[str], bool]) -> list[str]:
    """Every ``GET /path`` of ``pages`` (name -> text) that is no route of the app (``routed``): in the README as
    written, in docs/ as written or under :data:`API_BASE`."""
    missing = []
    for name, text in pages.items():
        for path in named_get_paths(text):
            bases = ("",) if name == "README.md" else ("", API_BASE)
            if not any(routed(base + path) for base in bases):
                missing.append(f"{name}: GET {path}")
    return missing


def app_routes() -> Callable[[str], bool]:
    """Whether the app answers ``GET path`` with a route of its own (not a 404 or a 405): the app built, not served
    (no database is opened)."""
    adapter = create_app(Settings(database_url="sqlite://")).url_map.bind("localhost")

    def routed(path: str) -> bool:
        try:
            adapter.match(path, method="GET")
        except (NotFound, MethodNotAllowed):
            return False
        except RequestRedirect:  # a route's path with or without its trailing slash
            return True
        return True

    return routed


# -- the tests -------------------------------------------------------------------------------------------------


def test_architecture_names_every_module() -> None:
    names = modules()
    assert len(names) > 200  # the packages are there: a check over nothing would pass
    missing = unnamed_modules(names, (ROOT / "docs/architecture.md").read_text(encoding="utf-8"))
    assert not missing, "docs/architecture.md does not name:\n" + "\n".join(missing)


def test_readme_is_a_short_page_that_opens_with_its_two_commands() -> None:
    problems = readme_problems((ROOT / "README.md").read_text(encoding="utf-8"))
    assert not problems, problems


def test_every_relative_link_of_the_readme_and_docs_resolves() -> None:
    pages = {name: (ROOT / name).read_text(encoding="utf-8") for name in documentation()}
    assert "docs/architecture.md" in pages
    broken = broken_links(pages, tracked())
    assert not broken, "\n".join(broken)


def test_every_get_path_of_the_readme_and_docs_is_a_route() -> None:
    pages = {name: (ROOT / name).read_text(encoding="utf-8") for name in documentation()}
    assert "GET /api/v1/health" in pages["README.md"]  # the README names paths: a check over none would pass
    routed = app_routes()
    assert routed("/api/v1/health") and not routed("/health")
    missing = unrouted_paths(pages, routed)
    assert not missing, "no such route:\n" + "\n".join(missing)


def test_each_check_finds_a_planted_fault() -> None:
    # (a) a module the page does not name, a package named only through one of its files, a migration
    architecture = "`tournament/play/game.py`, `engine/`, `store/migrations/versions/`"
    assert unnamed_modules(["tournament/play/game.py", "engine/__init__.py"], architecture) == []
    assert unnamed_modules(["tournament/play/runner.py"], architecture) == [
        "tournament/play/runner.py (tournament/play/runner.py)"
    ]
    assert unnamed_modules(["tournament/play/__init__.py"], architecture) == [
        "tournament/play/ (tournament/play/__init__.py)"
    ]
    assert unnamed_modules(["store/migrations/versions/0099_new.py"], architecture) == []
    assert unnamed_modules(["service/errors.py"], "`service/web/errors.py`") == [
        "service/errors.py (service/errors.py)"
    ]
    # (b) too long, or the commands not in the first block
    assert readme_problems("# x\n\n```sh\nmake demo\nmake test\n```\n") == []
    assert readme_problems("x\n" * 251 + "```\nmake demo\nmake test\n```\n") == [
        "README.md has 255 lines, more than 250"
    ]
    assert readme_problems("```sh\npip install .\n```\n```sh\nmake demo\nmake test\n```\n") == [
        "README.md's first code block does not hold `make demo`",
        "README.md's first code block does not hold `make test`",
    ]
    # (c) a missing file, a missing heading, a link out of the repository; code blocks and URLs are not links
    pages = {
        "README.md": "[a](docs/a.md#two-words) [b](docs/gone.md) [c](docs/a.md#nowhere) [d](https://x.org/y)\n"
        "```\n[e](docs/none.md)\n```\n[f](../elsewhere.md) [g](#top)\n# Top\n",
        "docs/a.md": "# Two `words`!\n```\n# not a heading\n```\n[h](a.md#not-a-heading) [i](../README.md#top)\n",
    }
    assert broken_links(pages, ["README.md", "docs/a.md"]) == [
        "README.md: docs/gone.md (no such file)",
        "README.md: docs/a.md#nowhere (no heading #nowhere in docs/a.md)",
        "README.md: ../elsewhere.md (outside the repository)",
        "docs/a.md: a.md#not-a-heading (no heading #not-a-heading in docs/a.md)",
    ]
    assert slug("Matches: is bot A stronger? (`ratings/sprt.py`)") == "matches-is-bot-a-stronger-ratingssprtpy"
    # (d) a GET path that is no route: the README's as written, docs/' also under /api/v1
    routes = {"/api/v1/health", "/api/v1/bots", "/api/v1/bots/1", "/games/1"}
    assert named_get_paths("`GET /api/v1/bots/{id}?page=2`; GET /games/{game_id}: and `GET /x.`") == [
        "/api/v1/bots/1",
        "/games/1",
        "/x",
    ]
    pages = {
        "README.md": "`GET /api/v1/health`, `GET /health`, `GET /bots`",
        "docs/a.md": "| `GET /health` | `GET /bots/{id}` | `GET /games/{id}` | `GET /nowhere?x=1` |",
    }
    assert unrouted_paths(pages, routes.__contains__) == [
        "README.md: GET /health",
        "README.md: GET /bots",
        "docs/a.md: GET /nowhere",
    ]

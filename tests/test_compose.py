"""compose.yaml, the Dockerfile and docs/deploy.md agree with the code (there is no Docker engine here to run them).

Each check is a function from the documents to a list of problems, so that the tests at the end can show that a
broken copy is caught. A service built from our Dockerfile is *launched*: its command goes through the real entry
point (pyproject's ``[project.scripts]``, or ``python -m`` a package of ours) under the service's environment, up
to the step that would start serving, which records what it would have started instead (gunicorn's bind address
and the app it loads, the worker's settings, the migration's URL, the bot's host, port and secret). The checks then
compare those with the ports, health checks, dependencies, networks and variables of compose.yaml, with the
settings that ``runtime.settings.Settings.from_env`` reads, with the Dockerfile, and with docs/deploy.md.
"""

from __future__ import annotations

import contextlib
import copy
import fnmatch
import importlib
import io
import ipaddress
import os
import re
import shlex
import subprocess
import sys
import threading
import tomllib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from unittest import mock
from urllib.parse import urlsplit

import pytest
import yaml
from sqlalchemy.engine import make_url

from botlink.netguard import parse_allowlist
from runtime.settings import Settings
from tests.databases import Templates

ROOT = Path(__file__).resolve().parent.parent
SHELL = {"SORRY_ARENA_SECRET": "compose-test-secret-" + "s" * 24}
"""The shell compose.yaml is read in: only the one required variable, so every other takes its default."""

Doc = dict[str, Any]


class Problem(Exception):
    """Something in the documents that disagrees with the code."""


# -- reading compose.yaml as compose does ---------------------------------------------------------------------

_VARIABLE = re.compile(
    r"\$(?:(?P<escaped>\$)|\{(?P<braced>[A-Za-z_]\w*)(?:(?P<op>:?[-?])(?P<arg>[^}]*))?\}|(?P<bare>[A-Za-z_]\w*))"
)


def interpolate(value: Any, shell: Mapping[str, str], used: set[str]) -> Any:
    """Compose's variable substitution in every string value: ``${V}``, ``${V:-default}``, ``${V-default}``,
    ``${V:?error}``, ``${V?error}`` and ``$$``; ``used`` collects the names read."""
    if isinstance(value, dict):
        return {key: interpolate(item, shell, used) for key, item in value.items()}
    if isinstance(value, list):
        return [interpolate(item, shell, used) for item in value]
    if not isinstance(value, str):
        return value

    def substitute(match: re.Match[str]) -> str:
        if match["escaped"]:
            return "$"
        name = match["braced"] or match["bare"]
        used.add(name)
        value, op = shell.get(name), match["op"]
        if op is None:
            return value or ""
        missing = value is None or (op.startswith(":") and value == "")
        if op.endswith("?"):
            if missing:
                raise Problem(f"required variable {name} is not set: {match['arg']}")
            return value or ""
        return match["arg"] if missing else value or ""

    return _VARIABLE.sub(substitute, value)


def load_compose(shell: Mapping[str, str] = SHELL) -> tuple[Doc, set[str]]:
    """compose.yaml with its variables substituted, and the names of the shell variables it reads."""
    used: set[str] = set()
    doc = interpolate(yaml.safe_load((ROOT / "compose.yaml").read_text()), shell, used)
    return doc, used


def pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def our_packages() -> set[str]:
    """The top-level packages the project installs (pyproject's packages.find include patterns)."""
    patterns = pyproject()["tool"]["setuptools"]["packages"]["find"]["include"]
    return {pattern.rstrip("*").rstrip(".") for pattern in patterns}


def services(doc: Doc) -> dict[str, dict[str, Any]]:
    return dict(doc.get("services") or {})


def built(doc: Doc) -> dict[str, dict[str, Any]]:
    """The services that run our image (built from the Dockerfile)."""
    return {name: service for name, service in services(doc).items() if "build" in service}


def by_image(doc: Doc, prefix: str) -> list[str]:
    return [name for name, service in services(doc).items() if str(service.get("image", "")).startswith(prefix)]


def command(service: dict[str, Any]) -> list[str]:
    value = service.get("command")
    if value is None:
        raise Problem("has no command (the image's default is not what compose should rely on)")
    return shlex.split(value) if isinstance(value, str) else [str(part) for part in value]


def environment(service: dict[str, Any]) -> dict[str, str]:
    value = service.get("environment") or {}
    if isinstance(value, list):
        value = dict(item.partition("=")[::2] for item in value)
    return {
        key: "" if item is None else str(item).lower() if isinstance(item, bool) else str(item)
        for key, item in value.items()
    }


def networks(service: dict[str, Any]) -> set[str]:
    value = service.get("networks")
    return set(value) if value else {"default"}


def depends_on(service: dict[str, Any]) -> dict[str, str]:
    value = service.get("depends_on") or {}
    if isinstance(value, list):
        return dict.fromkeys(value, "service_started")
    return {name: (spec or {}).get("condition", "service_started") for name, spec in value.items()}


def healthcheck_code(service: dict[str, Any]) -> str | None:
    """The Python code of a ``[CMD, python, -c, CODE]`` health check, else None."""
    test = (service.get("healthcheck") or {}).get("test")
    if isinstance(test, list) and len(test) == 4 and test[0] == "CMD" and test[1:3] == ["python", "-c"]:
        return str(test[3])
    return None


def healthcheck_url(service: dict[str, Any]) -> tuple[int, str]:
    """The port and path a python health check calls on its own container."""
    code = healthcheck_code(service)
    if code is None:
        raise Problem("its health check is not `python -c CODE` (slim images have no curl)")
    urls = re.findall(r"https?://(?:127\.0\.0\.1|localhost):(\d+)(/[^\s'\"]*)?", code)
    if len(urls) != 1:
        raise Problem(f"its health check should call one local URL, found {len(urls)}")
    return int(urls[0][0]), urls[0][1] or "/"


def container_ports(service: dict[str, Any]) -> set[int]:
    """The container side of each published port (short syntax ``[IP:][HOST:]CONTAINER[/PROTO]`` or long)."""
    found = set()
    for spec in service.get("ports") or []:
        if isinstance(spec, dict):
            found.add(int(spec["target"]))
        else:
            found.add(int(str(spec).split("/")[0].rsplit(":", 1)[-1]))
    return found


# -- launching a command through its real entry point ----------------------------------------------------------


@dataclass
class Launch:
    kind: str  # "api", "worker", "migrate" or "bot"
    details: dict[str, Any]


class _Started(Exception):
    """Not an error: the command got as far as starting."""

    def __init__(self, kind: str, **details: Any) -> None:
        super().__init__(kind)
        self.launch = Launch(kind, details)


def entry_point(argv: list[str]) -> tuple[Callable[[list[str]], Any], list[str]]:
    """The function a command runs and the arguments it gets: a ``[project.scripts]`` entry point, or the
    ``main`` of ``python -m PACKAGE`` for a package of ours."""
    scripts = pyproject()["project"].get("scripts", {})
    if argv[0] in scripts:
        module, _, function = scripts[argv[0]].partition(":")
        return getattr(importlib.import_module(module), function), argv[1:]
    if argv[0] in ("python", "python3") and len(argv) >= 3 and argv[1] == "-m":
        if argv[2].split(".")[0] not in our_packages():
            raise Problem(f"`python -m {argv[2]}`: not a package of ours ({', '.join(sorted(our_packages()))})")
        try:
            module = importlib.import_module(argv[2] + ".__main__")
        except ModuleNotFoundError:
            module = importlib.import_module(argv[2])
        return module.main, argv[3:]
    raise Problem(f"{argv[0]!r} is neither a [project.scripts] entry point nor `python -m` a package of ours")


@contextlib.contextmanager
def exactly(environ: Mapping[str, str]) -> Iterator[None]:
    """os.environ is the container's environment (not the test machine's) while a command runs."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@contextlib.contextmanager
def recorders() -> Iterator[None]:
    """Replace the steps that would start serving with recorders of what they were given."""
    import cli.server
    import clients.__main__
    import store.migrate
    import tournament.dispatch.context
    import tournament.dispatch.worker

    def serve_api(server: Any) -> None:
        app = server.load()  # what each gunicorn worker loads: the real app, built on the real settings
        raise _Started("api", options=server.options, settings=server.settings, app=app)

    def migrate(url: str, **options: Any) -> str:
        raise _Started("migrate", url=url)

    def work(**options: Any) -> bool:
        settings = Settings.from_env()  # cli/worker.py has exported its URLs: what the worker's jobs read
        tournament.dispatch.context.runner_settings(settings)  # parses the bot allowlist as the worker does
        raise _Started("worker", options=options, settings=settings)

    def serve_bot(choose: Any, **options: Any) -> None:
        raise _Started("bot", **options)

    with (
        mock.patch.object(cli.server.Server, "run", serve_api),
        mock.patch.object(store.migrate, "upgrade", migrate),
        mock.patch.object(tournament.dispatch.worker, "run", work),
        mock.patch.object(clients.__main__, "serve", serve_bot),
    ):
        yield


def launch(argv: list[str], environ: Mapping[str, str]) -> Launch:
    """Run the command in this process up to the step that would start serving. Raises Problem."""
    key = (tuple(argv), tuple(sorted(environ.items())))
    if key not in _launched:  # the same command in the same environment always gets as far (the mutations)
        try:
            _launched[key] = _launch(argv, environ)
        except Problem as problem:
            _launched[key] = problem
    found = _launched[key]
    if isinstance(found, Problem):
        raise found
    return found


_launched: dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], Launch | Problem] = {}


def _launch(argv: list[str], environ: Mapping[str, str]) -> Launch:
    shown = shlex.join(argv)
    main, args = entry_point(argv)
    # Only the commands that the recorders stop are run: any other would really do its work (connect, write).
    if argv[0] == "python" and "--push" not in args:
        raise Problem(f"`{shown}`: the example bots run in push mode (--push)")
    if argv[0] != "python" and args[:1] not in (["serve"], ["worker"]) and args[:2] != ["db", "upgrade"]:
        raise Problem(f"`{shown}`: not a command a service runs (serve, worker or db upgrade)")
    out, err = io.StringIO(), io.StringIO()
    with recorders(), exactly(environ), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(args)
        except _Started as started:
            return started.launch
        except SystemExit as exit:
            raise Problem(f"`{shown}` exits with {exit.code}: {last_line(err.getvalue())}") from None
    raise Problem(f"`{shown}` returned {code} without starting: {last_line(err.getvalue())}")


def last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else "(nothing on stderr)"


def launches(doc: Doc) -> tuple[dict[str, Launch], list[str]]:
    """Each of our services' launch, and the problems of those that do not get that far."""
    found: dict[str, Launch] = {}
    problems = []
    for name, service in built(doc).items():
        try:
            found[name] = launch(command(service), environment(service))
        except Problem as problem:
            problems.append(f"{name}: {problem}")
    return found, problems


def of_kind(found: dict[str, Launch], kind: str) -> dict[str, Launch]:
    return {name: item for name, item in found.items() if item.kind == kind}


def bind_address(launch: Launch) -> tuple[str, int]:
    [bind] = launch.details["options"]["bind"]
    host, _, port = bind.rpartition(":")
    return host.strip("[]"), int(port)


# -- the settings module --------------------------------------------------------------------------------------


class _Recorder(dict[str, str]):
    """An environment that notes every name looked up in it."""

    def __init__(self, values: Mapping[str, str], seen: set[str]) -> None:
        super().__init__(values)
        self.seen = seen

    def get(self, key: str, default: Any = None) -> Any:  # type: ignore[override]
        self.seen.add(key)
        return super().get(key, default)

    def __getitem__(self, key: str) -> str:
        self.seen.add(key)
        return super().__getitem__(key)

    def __contains__(self, key: object) -> bool:
        self.seen.add(str(key))
        return super().__contains__(key)


def settings_variables(environ: Mapping[str, str]) -> set[str]:
    """The names Settings.from_env reads, with no variable set and with ``environ`` (a read that depends on
    another variable shows in one of the two)."""
    seen: set[str] = set()
    for values in ({}, environ):
        with contextlib.suppress(ValueError):
            Settings.from_env(_Recorder(values, seen))
    return seen


# -- the checks -----------------------------------------------------------------------------------------------


def check_commands(doc: Doc) -> list[str]:
    """Each service built from our Dockerfile runs a real entry point whose arguments and environment pass its
    own validation; the API, the migration, the worker and the bots are all there."""
    found, problems = launches(doc)
    kinds = {item.kind for item in found.values()}
    problems += [
        f"no service runs the {kind}" for kind in ("api", "migrate", "worker", "bot") if kind not in kinds
    ]
    return problems


def check_ports(doc: Doc) -> list[str]:
    """The API listens on all interfaces of its container at the port that is published and health-checked, on the
    readiness endpoint of the app it loads (which fails when the database or Redis does); each bot listens on the port it exposes and health-checks."""
    found, _ = launches(doc)  # check_commands reports the commands that do not launch
    problems = []
    for name, api in of_kind(found, "api").items():
        service = services(doc)[name]
        host, port = bind_address(api)
        if host not in ("0.0.0.0", "::"):
            problems.append(f"{name}: listens on {host}, unreachable from outside its container (--host 0.0.0.0)")
        if container_ports(service) != {port}:
            problems.append(f"{name}: listens on port {port} but publishes {sorted(container_ports(service))}")
        try:
            checked, path = healthcheck_url(service)
        except Problem as problem:
            problems.append(f"{name}: {problem}")
            continue
        if checked != port:
            problems.append(f"{name}: listens on port {port} but its health check calls port {checked}")
        rules = {rule.rule for rule in api.details["app"].url_map.iter_rules()}
        if path not in rules or path != "/api/v1/ready":
            problems.append(f"{name}: its health check calls {path}, not the app's readiness endpoint")
    for name, bot in of_kind(found, "bot").items():
        service = services(doc)[name]
        host, port = bot.details["host"], bot.details["port"]
        if host not in ("0.0.0.0", "::"):
            problems.append(f"{name}: listens on {host}, unreachable from the API and workers (--host 0.0.0.0)")
        if port not in {int(str(item)) for item in service.get("expose") or []}:
            problems.append(f"{name}: listens on port {port} but exposes {service.get('expose')}")
        if service.get("ports"):
            problems.append(f"{name}: a bot is for the service's network only, not published on the host")
        try:
            checked, _ = healthcheck_url(service)
        except Problem as problem:
            problems.append(f"{name}: {problem}")
            continue
        if checked != port:
            problems.append(f"{name}: listens on port {port} but its health check calls port {checked}")
    return problems


def check_health(doc: Doc) -> list[str]:
    """PostgreSQL, Redis, the API and the bots have health checks (python ones compile), and every dependency on
    a healthy service names one that has a health check."""
    found, _ = launches(doc)
    problems = []
    needing = by_image(doc, "postgres") + by_image(doc, "redis")
    needing += [name for name, item in found.items() if item.kind in ("api", "bot")]
    for name in needing:
        check = services(doc)[name].get("healthcheck") or {}
        if not check.get("test") or check.get("disable") or check["test"] in (["NONE"], "NONE"):
            problems.append(f"{name}: has no health check")
            continue
        code = healthcheck_code(services(doc)[name])
        if code is not None:
            try:
                compile(code, f"{name} health check", "exec")
            except SyntaxError as error:
                problems.append(f"{name}: its health check is not valid Python: {error}")
    for name, service in services(doc).items():
        for target, condition in depends_on(service).items():
            if condition == "service_healthy" and not (services(doc).get(target) or {}).get("healthcheck"):
                problems.append(f"{name}: waits for {target} to be healthy, which has no health check")
    return problems


def duration_seconds(text: str) -> float:
    """A compose duration (``15s``, ``1m30s``, ``500ms``) in seconds."""
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, "us": 0.000001}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", text)
    if not parts or "".join(number + unit for number, unit in parts) != text:
        raise Problem(f"{text!r} is not a duration")
    return sum(float(number) * units[unit] for number, unit in parts)


def check_stop(doc: Doc) -> list[str]:
    """Compose waits longer for the API to stop than gunicorn gives its requests under way (serve's graceful
    timeout), so that a stop never kills a request that gunicorn would have let finish."""
    found, _ = launches(doc)
    problems = []
    for name, api in of_kind(found, "api").items():
        graceful = float(api.details["options"]["graceful_timeout"])
        grace = services(doc)[name].get("stop_grace_period", "10s")
        try:
            seconds = duration_seconds(str(grace))
        except Problem as problem:
            problems.append(f"{name}: stop_grace_period {problem}")
            continue
        if seconds <= graceful:
            problems.append(
                f"{name}: stop_grace_period {grace} must exceed serve's graceful timeout ({graceful:g} s)"
            )
    return problems


def check_order(doc: Doc) -> list[str]:
    """The migration waits for PostgreSQL, runs once, and completes before the API and the workers start; they
    wait for Redis too; at least two workers."""
    found, _ = launches(doc)
    problems: list[str] = []
    migrations = list(of_kind(found, "migrate"))
    if len(migrations) != 1:
        return [f"expected one migration service, found {migrations}"]
    [migration] = migrations
    postgres = by_image(doc, "postgres")
    redis = by_image(doc, "redis")
    if services(doc)[migration].get("restart", "no") not in ("no", "on-failure"):
        problems.append(f"{migration}: a one-shot service must not restart after it succeeds")
    if any(depends_on(services(doc)[migration]).get(name) != "service_healthy" for name in postgres):
        problems.append(f"{migration}: must wait for {postgres} to be healthy")
    for name, item in found.items():
        if item.kind not in ("api", "worker"):
            continue
        waits = depends_on(services(doc)[name])
        if waits.get(migration) != "service_completed_successfully":
            problems.append(
                f"{name}: must start after {migration} completed successfully, not {waits.get(migration)}"
            )
        if any(waits.get(target) != "service_healthy" for target in redis):
            problems.append(f"{name}: must wait for {redis} to be healthy")
    for name in of_kind(found, "worker"):
        replicas = (services(doc)[name].get("deploy") or {}).get("replicas", 1)
        if int(replicas) < 2:
            problems.append(f"{name}: {replicas} replica(s); run at least 2 workers")
    return problems


def check_environment(doc: Doc) -> list[str]:
    """The API, the workers and the migration share x-environment; it sets every variable Settings.from_env reads
    and nothing else; the URLs point at the postgres and redis services; the bot allowlist covers the bots'
    network, which PostgreSQL and Redis are not on; each bot checks signatures."""
    problems = []
    shared = environment({"environment": doc.get("x-environment")})
    if not shared:
        return ["no x-environment: the API's and workers' settings should be shared"]
    read = settings_variables(shared)
    problems += [f"x-environment: {name} is not read by Settings.from_env" for name in sorted(set(shared) - read)]
    problems += [
        f"x-environment: does not set {name} (Settings.from_env reads it)" for name in sorted(read - set(shared))
    ]
    found, _ = launches(doc)
    for name, item in found.items():
        if item.kind == "bot":
            continue
        env = environment(services(doc)[name])
        if any(env.get(key) != value for key, value in shared.items()):
            problems.append(f"{name}: its environment differs from x-environment")
        problems += [f"{name}: {key} is not read by Settings.from_env" for key in sorted(set(env) - read)]
    try:
        settings = Settings.from_env(shared)
    except ValueError as error:
        return problems + [f"x-environment: {error}"]
    problems += _check_urls(doc, settings)
    try:
        allowed = parse_allowlist(settings.bot_allow)
    except ValueError as error:
        return problems + [f"SORRY_ARENA_BOT_ALLOW: {error}"]
    bots = [name for name, item in found.items() if item.kind == "bot"]
    bot_networks = set().union(*(networks(services(doc)[name]) for name in bots)) if bots else set()
    for network in sorted(bot_networks):
        subnets = [
            entry["subnet"]
            for entry in (((doc.get("networks") or {}).get(network) or {}).get("ipam") or {}).get("config") or []
        ]
        if not subnets:
            problems.append(f"network {network}: the bots' network needs a fixed subnet for SORRY_ARENA_BOT_ALLOW")
        for subnet in subnets:
            addresses = ipaddress.ip_network(subnet)
            if not any(net.version == addresses.version and addresses.subnet_of(net) for net in allowed):
                problems.append(
                    f"network {network}: {subnet} is not covered by SORRY_ARENA_BOT_ALLOW={settings.bot_allow}"
                )
    for name in by_image(doc, "postgres") + by_image(doc, "redis"):
        if networks(services(doc)[name]) & bot_networks:
            problems.append(f"{name}: shares a network with the bots, where bot URLs may point")
    for name, item in found.items():
        if item.kind in ("api", "worker") and bot_networks and not networks(services(doc)[name]) & bot_networks:
            problems.append(f"{name}: cannot reach the bots (no network in common)")
        if item.kind == "bot" and not item.details.get("secret"):
            problems.append(f"{name}: no secret (SORRY_ARENA_SECRET): it would not check request signatures")
    return problems


def _check_urls(doc: Doc, settings: Settings) -> list[str]:
    problems = []
    postgres, redis = by_image(doc, "postgres"), by_image(doc, "redis")
    url = make_url(settings.database_url)
    if len(postgres) != 1 or url.host != postgres[0] or (url.port or 5432) != 5432:
        problems.append(f"DATABASE_URL: host {url.host}:{url.port} is not the postgres service {postgres}")
    else:
        server = environment(services(doc)[postgres[0]])
        expected = (server.get("POSTGRES_USER", "postgres"), server.get("POSTGRES_PASSWORD"))
        if (url.username, url.password) != expected or url.database != server.get("POSTGRES_DB", expected[0]):
            problems.append("DATABASE_URL: user, password or database differ from the postgres service's")
    if not url.drivername.startswith("postgresql"):
        problems.append(f"DATABASE_URL: {url.drivername}, not PostgreSQL")
    parts = urlsplit(settings.redis_url or "")
    if len(redis) != 1 or parts.hostname != redis[0] or (parts.port or 6379) != 6379:
        problems.append(f"REDIS_URL: {settings.redis_url!r} is not the redis service {redis}")
    return problems


def dockerfile_instructions(text: str) -> list[list[tuple[str, str]]]:
    """The Dockerfile's stages, each a list of (INSTRUCTION, arguments), continuation lines joined."""
    stages: list[list[tuple[str, str]]] = []
    for line in re.sub(r"\\\n", " ", text).splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        instruction, _, arguments = line.partition(" ")
        if instruction.upper() == "FROM":
            stages.append([])
        if stages:
            stages[-1].append((instruction.upper(), arguments.strip()))
    return stages


def check_dockerfile(doc: Doc, dockerfile: str, dockerignore: str) -> list[str]:
    """python:3.11-slim; the project installed from its wheel without extras, as a non-root user; every package
    copied in and none of them ignored; what compose runs is installed."""
    problems = []
    stages = dockerfile_instructions(dockerfile)
    if not stages:
        return ["Dockerfile: no FROM"]
    final = stages[-1]
    if final[0][1].split()[0] != "python:3.11-slim":
        problems.append(f"Dockerfile: the image is based on {final[0][1].split()[0]}, not python:3.11-slim")
    users = [arguments for instruction, arguments in final if instruction == "USER"]
    if not users or users[-1].split(":")[0] in ("root", "0"):
        problems.append("Dockerfile: runs as root (no USER in the final stage)")
    copied = set()
    for stage in stages:
        for instruction, arguments in stage:
            parts = arguments.split()
            if instruction in ("COPY", "ADD") and not any(part.startswith("--from") for part in parts):
                copied |= {
                    part.removeprefix("./").rstrip("/") or "." for part in parts[:-1] if not part.startswith("--")
                }
    for needed in sorted(our_packages() | {"pyproject.toml"}):
        if needed not in copied and "." not in copied:
            problems.append(f"Dockerfile: does not copy {needed}")
    installs = [
        arguments for instruction, arguments in final if instruction == "RUN" and "pip install" in arguments
    ]
    if not installs:
        problems.append("Dockerfile: the final stage installs nothing with pip")
    for arguments in installs:
        if "[" in arguments or re.search(r"(^|\s)(-e|--editable)(\s|$)", arguments):
            problems.append(f"Dockerfile: `{arguments}` installs extras or an editable checkout")
    ignored = [line.strip() for line in dockerignore.splitlines() if line.strip() and not line.startswith("#")]
    for path in sorted(copied):
        if any(fnmatch.fnmatch(path, pattern.strip("/")) for pattern in ignored):
            problems.append(f".dockerignore: ignores {path}, which the Dockerfile copies")
    problems += [
        f".dockerignore: does not ignore {path}" for path in (".git", ".venv", ".env") if path not in ignored
    ]
    scripts = pyproject()["project"].get("scripts", {})
    for name, service in built(doc).items():
        context = service["build"] if isinstance(service["build"], str) else service["build"].get("context", ".")
        if not (ROOT / context / "Dockerfile").is_file():
            problems.append(f"{name}: builds {context}, which has no Dockerfile")
        try:
            argv = command(service)
        except Problem as problem:
            problems.append(f"{name}: {problem}")
            continue
        if argv[0] in scripts:
            continue
        if argv[:2] == ["python", "-m"] and len(argv) > 2 and argv[2].split(".")[0] in our_packages() & copied:
            continue
        problems.append(f"{name}: runs {argv[0]!r}, which the image does not install")
    return problems


def check_docs(doc: Doc, shell_variables: set[str], deploy: str, readme: str) -> list[str]:
    """docs/deploy.md names every setting and every variable compose.yaml reads, gives each bot's URL, tells how
    to scale the workers; the README links it."""
    problems = []
    shared = environment({"environment": doc.get("x-environment")})
    for name in sorted(settings_variables(shared) | set(shared) | shell_variables):
        if f"`{name}`" not in deploy:
            problems.append(f"docs/deploy.md: does not document `{name}`")
    found, _ = launches(doc)
    for name, bot in of_kind(found, "bot").items():
        if f"http://{name}:{bot.details['port']}" not in deploy:
            problems.append(
                f"docs/deploy.md: does not give the URL of {name} (http://{name}:{bot.details['port']})"
            )
    workers = list(of_kind(found, "worker"))
    if workers and f"--scale {workers[0]}=" not in deploy:
        problems.append("docs/deploy.md: does not say how to scale the workers")
    if "docs/deploy.md" not in readme:
        problems.append("README.md: no link to docs/deploy.md")
    return problems


# -- the tests ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def compose() -> tuple[Doc, set[str]]:
    return load_compose()


def files() -> dict[str, str]:
    return {
        name: (ROOT / name).read_text() for name in ("Dockerfile", ".dockerignore", "docs/deploy.md", "README.md")
    }


def all_problems(doc: Doc, shell_variables: set[str], texts: dict[str, str] | None = None) -> list[str]:
    texts = texts or files()
    problems = [
        *check_commands(doc),
        *check_ports(doc),
        *check_health(doc),
        *check_order(doc),
        *check_environment(doc),
        *check_stop(doc),
        *check_dockerfile(doc, texts["Dockerfile"], texts[".dockerignore"]),
        *check_docs(doc, shell_variables, texts["docs/deploy.md"], texts["README.md"]),
    ]
    return list(dict.fromkeys(problems))


@pytest.mark.parametrize(
    "check", [check_commands, check_ports, check_health, check_order, check_environment, check_stop]
)
def test_compose_agrees_with_the_code(compose: tuple[Doc, set[str]], check: Callable[[Doc], list[str]]) -> None:
    doc, _ = compose
    assert check(doc) == []


def test_dockerfile_installs_what_compose_runs(compose: tuple[Doc, set[str]]) -> None:
    texts = files()
    assert check_dockerfile(compose[0], texts["Dockerfile"], texts[".dockerignore"]) == []


def test_docs_document_every_variable(compose: tuple[Doc, set[str]]) -> None:
    texts = files()
    assert check_docs(*compose, texts["docs/deploy.md"], texts["README.md"]) == []


def test_the_launches_are_what_compose_means(compose: tuple[Doc, set[str]]) -> None:
    """What the checks rely on: the recorders saw the API on 0.0.0.0:8000 with two workers on PostgreSQL and
    Redis, and three bots with the secret."""
    found, problems = launches(compose[0])
    assert problems == []
    [api] = of_kind(found, "api").values()
    assert bind_address(api) == ("0.0.0.0", 8000)
    assert api.details["options"]["workers"] == 2
    assert api.details["settings"].database_url.startswith("postgresql+psycopg://sorry:")
    assert api.details["settings"].redis_url == "redis://redis:6379/0"
    [worker] = of_kind(found, "worker").values()
    assert worker.details["settings"].bot_allow == "172.30.57.0/24"
    assert worker.details["options"]["with_clock"] is True
    bots = of_kind(found, "bot")
    assert sorted(bots) == ["bot-greedy", "bot-random", "bot-search"]
    assert {bot.details["secret"] for bot in bots.values()} == {SHELL["SORRY_ARENA_SECRET"]}


def test_the_bot_secret_is_required() -> None:
    with pytest.raises(Problem, match="SORRY_ARENA_SECRET"):
        load_compose(shell={})


def test_shell_variables_override_the_defaults() -> None:
    doc, _ = load_compose({**SHELL, "SORRY_ARENA_BOT_SUBNET": "10.99.0.0/24", "POSTGRES_PASSWORD": "pw"})
    assert check_environment(doc) == []
    assert doc["x-environment"]["SORRY_ARENA_BOT_ALLOW"] == "10.99.0.0/24"
    assert make_url(doc["x-environment"]["DATABASE_URL"]).password == "pw"


# -- the checks catch broken copies ---------------------------------------------------------------------------


def set_env(doc: Doc, key: str, value: str | None) -> None:
    """Change (None: remove) a shared setting everywhere x-environment is used."""
    for env in [doc["x-environment"]] + [service["environment"] for service in built(doc).values()]:
        if isinstance(env, dict) and "DATABASE_URL" in env:
            if value is None:
                env.pop(key, None)
            else:
                env[key] = value


def replace_arg(doc: Doc, service: str, old: str, new: str | None) -> None:
    argv = doc["services"][service]["command"]
    at = argv.index(old)
    if new is None:
        del argv[at]
    else:
        argv[at] = new


def without_option(doc: Doc, service: str, option: str) -> None:
    argv = doc["services"][service]["command"]
    at = argv.index(option)
    del argv[at : at + 2]


MUTATIONS: list[tuple[str, Callable[[Doc], None], str]] = [
    (
        "api port",
        lambda doc: replace_arg(doc, "api", "8000", "8080"),
        "api: listens on port 8080 but publishes [8000]",
    ),
    ("api on loopback", lambda doc: without_option(doc, "api", "--host"), "api: listens on 127.0.0.1"),
    (
        "api bad flag",
        lambda doc: replace_arg(doc, "api", "--no-migrate", "--no-migrations"),
        "api: `sorry-arena serve",
    ),
    (
        "api health path",
        lambda doc: doc["services"]["api"]["healthcheck"]["test"].__setitem__(
            3, "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/health')"
        ),
        "not the app's readiness endpoint",
    ),
    (
        "api checks liveness only",
        lambda doc: doc["services"]["api"]["healthcheck"]["test"].__setitem__(
            3, "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/api/v1/health')"
        ),
        "calls /api/v1/health, not the app's readiness endpoint",
    ),
    (
        "api stopped too soon",
        lambda doc: doc["services"]["api"].__setitem__("stop_grace_period", "5s"),
        "api: stop_grace_period 5s must exceed serve's graceful timeout (10 s)",
    ),
    (
        "api health port",
        lambda doc: doc["services"]["api"].__setitem__("ports", ["8000:8001"]),
        "publishes [8001]",
    ),
    ("api no health check", lambda doc: doc["services"]["api"].pop("healthcheck"), "api: has no health check"),
    (
        "no Redis for 2 workers",
        lambda doc: doc["services"]["api"]["environment"].pop("REDIS_URL"),
        "--workers above 1 needs --redis-url",
    ),
    (
        "worker subcommand",
        lambda doc: replace_arg(doc, "worker", "worker", "workers"),
        "worker: `sorry-arena workers`",
    ),
    (
        "not a service's command",
        lambda doc: doc["services"]["worker"].__setitem__("command", ["sorry-arena", "demo"]),
        "worker: `sorry-arena demo`: not a command a service runs",
    ),
    (
        "bot in pull mode",
        lambda doc: replace_arg(doc, "bot-random", "--push", "--pull"),
        "bot-random: `python -m clients --bot random --pull",
    ),
    (
        "one worker",
        lambda doc: doc["services"]["worker"]["deploy"].__setitem__("replicas", 1),
        "run at least 2 workers",
    ),
    (
        "worker before migration",
        lambda doc: doc["services"]["worker"]["depends_on"]["migrate"].__setitem__("condition", "service_started"),
        "worker: must start after migrate",
    ),
    (
        "api without Redis",
        lambda doc: doc["services"]["api"]["depends_on"].pop("redis"),
        "api: must wait for ['redis']",
    ),
    (
        "migration restarts",
        lambda doc: doc["services"]["migrate"].__setitem__("restart", "unless-stopped"),
        "must not restart",
    ),
    (
        "migration is not one",
        lambda doc: replace_arg(doc, "migrate", "upgrade", "current"),
        "expected one migration service",
    ),
    (
        "postgres unchecked",
        lambda doc: doc["services"]["postgres"].pop("healthcheck"),
        "postgres: has no health check",
    ),
    (
        "bot unknown",
        lambda doc: replace_arg(doc, "bot-greedy", "greedy", "greedier"),
        "bot-greedy: `python -m clients",
    ),
    (
        "bot port",
        lambda doc: replace_arg(doc, "bot-random", "8001", "8002"),
        "bot-random: listens on port 8002 but exposes",
    ),
    (
        "bot published",
        lambda doc: doc["services"]["bot-random"].__setitem__("ports", ["8001:8001"]),
        "not published on the host",
    ),
    (
        "bot without secret",
        lambda doc: doc["services"]["bot-random"].__setitem__("environment", {}),
        "bot-random: no secret",
    ),
    (
        "bot not ours",
        lambda doc: doc["services"]["bot-random"].__setitem__("command", ["python", "-m", "http.server"]),
        "not a package of ours",
    ),
    (
        "unknown setting",
        lambda doc: set_env(doc, "SORRY_ARENA_MAX_WIAT", "10"),
        "SORRY_ARENA_MAX_WIAT is not read by Settings.from_env",
    ),
    (
        "missing setting",
        lambda doc: set_env(doc, "SORRY_ARENA_LEASE_SECONDS", None),
        "does not set SORRY_ARENA_LEASE_SECONDS",
    ),
    (
        "bad setting",
        lambda doc: set_env(doc, "SORRY_ARENA_MAX_WAIT", "soon"),
        "SORRY_ARENA_MAX_WAIT must be a number",
    ),
    (
        "api differs",
        lambda doc: doc["services"]["api"]["environment"].__setitem__("SORRY_ARENA_MAX_WAIT", "5"),
        "api: its environment differs",
    ),
    (
        "database host",
        lambda doc: set_env(doc, "DATABASE_URL", "postgresql+psycopg://sorry:sorry@db:5432/sorry_arena"),
        "DATABASE_URL: host db:5432",
    ),
    (
        "database password",
        lambda doc: set_env(doc, "DATABASE_URL", "postgresql+psycopg://sorry:nope@postgres:5432/sorry_arena"),
        "user, password or database differ",
    ),
    ("SQLite", lambda doc: set_env(doc, "DATABASE_URL", "sqlite:///sorry-arena.db"), "not PostgreSQL"),
    (
        "redis host",
        lambda doc: set_env(doc, "REDIS_URL", "redis://cache:6379/0"),
        "REDIS_URL: 'redis://cache:6379/0'",
    ),
    (
        "allowlist",
        lambda doc: set_env(doc, "SORRY_ARENA_BOT_ALLOW", "10.0.0.0/8"),
        "is not covered by SORRY_ARENA_BOT_ALLOW",
    ),
    (
        "bad allowlist",
        lambda doc: set_env(doc, "SORRY_ARENA_BOT_ALLOW", "everything"),
        "SORRY_ARENA_BOT_ALLOW: allowlist entry",
    ),
    (
        "redis among bots",
        lambda doc: doc["services"]["redis"].__setitem__("networks", ["backend", "bots"]),
        "redis: shares a network with the bots",
    ),
    (
        "worker cut off",
        lambda doc: doc["services"]["worker"].__setitem__("networks", ["backend"]),
        "worker: cannot reach the bots",
    ),
    ("no fixed subnet", lambda doc: doc["networks"].__setitem__("bots", {}), "needs a fixed subnet"),
]


@pytest.mark.parametrize(
    ("mutation", "expected"), [(m[1], m[2]) for m in MUTATIONS], ids=[m[0] for m in MUTATIONS]
)
def test_a_broken_compose_file_is_caught(
    compose: tuple[Doc, set[str]], mutation: Callable[[Doc], None], expected: str
) -> None:
    doc = copy.deepcopy(compose[0])
    mutation(doc)
    problems = all_problems(doc, compose[1])
    assert any(expected in problem for problem in problems), problems


FILE_MUTATIONS: list[tuple[str, str, Callable[[str], str], str]] = [
    (
        "base image",
        "Dockerfile",
        lambda text: text.replace("FROM python:3.11-slim\n", "FROM python:3.12-slim\n"),
        "not python:3.11-slim",
    ),
    ("root", "Dockerfile", lambda text: text.replace("USER arena\n", ""), "runs as root"),
    (
        "package left out",
        "Dockerfile",
        lambda text: text.replace("COPY clients/ clients/\n", ""),
        "does not copy clients",
    ),
    (
        "test extra",
        "Dockerfile",
        lambda text: text.replace("pip install /wheels/*.whl", "pip install '/wheels/*.whl[test]'"),
        "installs extras",
    ),
    ("ignored package", ".dockerignore", lambda text: text + "service\n", "ignores service"),
    ("context kept", ".dockerignore", lambda text: text.replace(".venv\n", ""), "does not ignore .venv"),
    (
        "undocumented",
        "docs/deploy.md",
        lambda text: text.replace("`SORRY_ARENA_LEASE_SECONDS`", "the lease"),
        "does not document `SORRY_ARENA_LEASE_SECONDS`",
    ),
    (
        "bot URL",
        "docs/deploy.md",
        lambda text: text.replace("http://bot-greedy:8001", "http://greedy:8001"),
        "the URL of bot-greedy",
    ),
    ("no link", "README.md", lambda text: text.replace("docs/deploy.md", "docs/"), "no link to docs/deploy.md"),
]


@pytest.mark.parametrize(
    ("name", "mutation", "expected"), [m[1:] for m in FILE_MUTATIONS], ids=[m[0] for m in FILE_MUTATIONS]
)
def test_a_broken_file_is_caught(
    compose: tuple[Doc, set[str]], name: str, mutation: Callable[[str], str], expected: str
) -> None:
    texts = files()
    changed = mutation(texts[name])
    assert changed != texts[name], f"the mutation of {name} changed nothing"
    problems = all_problems(*compose, {**texts, name: changed})
    assert any(expected in problem for problem in problems), problems


# -- the health checks' code, run against the real servers -----------------------------------------------------


def run_healthcheck(code: str, port: int, compose_port: int, secret: str | None = None) -> int:
    env = {key: value for key, value in os.environ.items() if key != "SORRY_ARENA_SECRET"}
    if secret is not None:
        env["SORRY_ARENA_SECRET"] = secret
    code = code.replace(f":{compose_port}/", f":{port}/")
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=30).returncode


@pytest.mark.parametrize("migrated", [True, False], ids=["ready", "not migrated"])
def test_the_api_health_check_passes_on_the_app(
    compose: tuple[Doc, set[str]], migrated: bool, templates: Templates, tmp_path: Path
) -> None:
    from werkzeug.serving import make_server

    from service.app import create_app

    service = compose[0]["services"]["api"]
    code, (compose_port, _) = healthcheck_code(service), healthcheck_url(service)
    assert code is not None
    url = templates.sqlite(tmp_path / "api.db") if migrated else "sqlite://"
    server = make_server("127.0.0.1", 0, create_app(Settings(database_url=url)), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert (run_healthcheck(code, server.port, compose_port) == 0) is migrated  # a 503 fails it
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
    assert run_healthcheck(code, server.port, compose_port) != 0  # and fails once the server is gone


def test_the_bot_health_check_passes_on_a_bot_with_the_secret(compose: tuple[Doc, set[str]]) -> None:
    from clients.examples.random_bot import choose
    from clients.push import serve

    service = compose[0]["services"]["bot-random"]
    code, (compose_port, _) = healthcheck_code(service), healthcheck_url(service)
    assert code is not None
    secret = SHELL["SORRY_ARENA_SECRET"]
    with serve(choose, host="127.0.0.1", port=0, secret=secret, name="random", games=["board"]) as server:
        server.start_background()
        port = int(server.url.rsplit(":", 1)[-1])
        assert run_healthcheck(code, port, compose_port, secret) == 0
        assert run_healthcheck(code, port, compose_port, "another-secret-" + "x" * 24) != 0  # the bot refuses it

"""The settings read from the environment (``runtime/settings.py``): every setting is one entry of the table, each
bad value is a one-line ``ValueError`` naming its variable, a misspelled ``SORRY_ARENA_*`` variable is refused with
the closest known name, and ``sources`` says where each value came from."""

from __future__ import annotations

import dataclasses

import pytest

from runtime.settings import OTHER_VARIABLES, SETTINGS, Settings, sources

BAD = [
    ("SORRY_ARENA_MAX_WAIT", "100000", "from 1 to 300 seconds"),
    ("SORRY_ARENA_MAX_WAIT", "0", "from 1 to 300 seconds"),
    ("SORRY_ARENA_MAX_WAIT", "soon", "a number of seconds"),
    ("SORRY_ARENA_MAX_WAIT", "nan", "from 1 to 300 seconds"),
    ("SORRY_ARENA_LEASE_SECONDS", "0.01", "from 2 to 600 seconds"),
    ("SORRY_ARENA_LEASE_SECONDS", "inf", "from 2 to 600 seconds"),
    ("SORRY_ARENA_GAMES_PER_WORKER", "257", "from 1 to 256"),
    ("SORRY_ARENA_GAMES_PER_WORKER", "2.5", "a whole number"),
    ("SORRY_ARENA_MAINTENANCE_SECONDS", "never", "or 'off'"),
    ("SORRY_ARENA_MAX_WAITING_PER_ACCOUNT", "0", "from 1 to 10000"),
    ("SORRY_ARENA_MAX_STREAMS_PER_ADDRESS", "-1", "from 1 to 10000"),
    ("SORRY_ARENA_MAX_ANONYMOUS_STREAMS", "lots", "a whole number"),
    ("SORRY_ARENA_MAX_WAITING_PER_PROCESS", "0", "from 1 to 100000"),
    ("SORRY_ARENA_BOT_ALLOW", "10.0.0.0/8,bots", "allowlist entry 'bots'"),
    ("SORRY_ARENA_LIMIT_ACCOUNTS", "often", "a rate such as"),
    ("SORRY_ARENA_LIMIT_MOVES", "0/second", "at least 1 request"),
    ("SORRY_ARENA_LIMIT_ACCOUNTS_HOURLY", "hourly", "a rate such as"),
    ("SORRY_ARENA_QUOTA_REPEATS", "1", "from 2 to 10000"),
    ("SORRY_ARENA_OPERATOR_TOKEN", "short", "at least 32 printable characters"),
    ("SORRY_ARENA_FEED_WINDOW", "0", "from 1 to 1000"),
    ("SORRY_ARENA_DB_POOL_SIZE", "0", "from 1 to 100"),
    ("SORRY_ARENA_DB_MAX_OVERFLOW", "101", "from 0 to 100"),
    ("SORRY_ARENA_TRUSTED_PROXIES", "proxy", "'proxy' is neither"),
    ("SORRY_ARENA_TRUSTED_PROXIES", "11", "from 0 to 10"),
    ("DATABASE_URL", "mysql://root:hunter2@db/arena", "sqlite:///FILE or postgresql://"),
    ("DATABASE_URL", "not a url", "sqlite:///FILE or postgresql://"),
    ("REDIS_URL", "http://:hunter2@cache:6379", "redis://, rediss:// or unix://"),
]


@pytest.mark.parametrize(("name", "text", "expected"), BAD)
def test_a_bad_value_is_one_line_naming_its_variable(name: str, text: str, expected: str) -> None:
    with pytest.raises(ValueError) as refused:
        Settings.from_env({name: text})
    message = str(refused.value)
    assert name in message and expected in message, message
    assert "\n" not in message
    assert "hunter2" not in message  # a URL may hold a password: never quoted back


def test_a_misspelled_variable_is_refused_with_the_closest_name() -> None:
    with pytest.raises(
        ValueError, match=r"^unknown setting SORRY_ARENA_MAX_WIAT \(did you mean SORRY_ARENA_MAX_WAIT\?\)$"
    ):
        Settings.from_env({"SORRY_ARENA_MAX_WIAT": "10"})
    with pytest.raises(ValueError, match=r"did you mean SORRY_ARENA_DB_POOL_SIZE\?"):
        Settings.from_env({"SORRY_ARENA_DB_POOLSIZE": "3"})
    with pytest.raises(
        ValueError, match=r"^unknown setting SORRY_ARENA_COLOUR \(docs/deploy.md lists the settings\)$"
    ):
        Settings.from_env({"SORRY_ARENA_COLOUR": "blue"})


def test_other_parts_variables_and_other_prefixes_pass() -> None:
    env = {name: "x" for name in OTHER_VARIABLES} | {"PATH": "/bin", "SORRY_ARENAX": "1"}
    assert Settings.from_env(env) == Settings.from_env({})


def test_values_in_range_are_read() -> None:
    settings = Settings.from_env(
        {
            "SORRY_ARENA_MAX_WAIT": "300",
            "SORRY_ARENA_LEASE_SECONDS": "2",
            "SORRY_ARENA_MAINTENANCE_SECONDS": "off",
            "SORRY_ARENA_DB_POOL_SIZE": "3",
            "SORRY_ARENA_DB_MAX_OVERFLOW": "0",
            "SORRY_ARENA_TRUSTED_PROXIES": "10.0.0.0/8, fd00::/8",
            "SORRY_ARENA_BOT_ALLOW": "loopback",
            "DATABASE_URL": "postgres://u:p@db/arena",
            "SORRY_ARENA_QUOTA_GAMES": "",  # empty: the default
        }
    )
    assert (settings.max_wait, settings.lease_seconds, settings.maintenance_seconds) == (300, 2, None)
    assert (settings.db_pool_size, settings.db_max_overflow) == (3, 0)
    assert settings.trusted_proxies == "10.0.0.0/8, fd00::/8"
    assert settings.database_url == "postgresql+psycopg://u:p@db/arena"
    assert settings.quota_games == 1000


def test_every_field_is_one_setting_and_the_table_defaults_are_the_dataclass_s() -> None:
    fields = {field.name for field in dataclasses.fields(Settings)} - {"extra"}
    assert sorted(setting.field for setting in SETTINGS) == sorted(fields)
    assert len({setting.name for setting in SETTINGS}) == len(SETTINGS)
    made_in_code = Settings()
    for setting in SETTINGS:
        if setting.field != "maintenance_seconds":  # code's default: none; the environment's: 1 s
            assert getattr(made_in_code, setting.field) == setting.default, setting.name
        assert setting.doc and setting.name.isupper()


def test_sources_say_where_each_value_came_from() -> None:
    found = {setting.name: (value, origin) for setting, value, origin in sources({"SORRY_ARENA_MAX_WAIT": "12"})}
    assert found["SORRY_ARENA_MAX_WAIT"] == (12.0, "environment")
    assert found["SORRY_ARENA_LEASE_SECONDS"] == (10.0, "default")
    assert list(found) == [setting.name for setting in SETTINGS]

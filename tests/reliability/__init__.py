"""Reliability tests: real tournaments (RQ workers, bot processes, a private PostgreSQL and Redis) under faults."""

import pytest

pytest.register_assert_rewrite("tests.reliability.harness")  # its checks explain their failures

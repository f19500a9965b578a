"""A usage error of ``sorry-arena`` checked in-process (``cli.main.main``, no interpreter to start): exit status 2,
the usage line and the message on standard error, never a traceback."""

from __future__ import annotations

import pytest

from cli.main import main


def usage_error(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    """What ``sorry-arena ARGV`` prints (standard error, then standard output), asserted to be a usage error."""
    capsys.readouterr()  # what the test printed before: not this command's
    with pytest.raises(SystemExit) as exited:
        main(list(argv))
    out, err = capsys.readouterr()
    assert exited.value.code == 2, (exited.value.code, out, err)
    assert err.startswith("usage: sorry-arena") and "error: " in err, err
    assert "Traceback" not in err, err
    return err + out

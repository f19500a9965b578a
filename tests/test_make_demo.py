"""``make demo``'s install is quiet: what pip prints around an install (the packages it finds, its warnings, its
notice of a newer pip) is not shown when it succeeds, so that the demo's own lines and progress bar are what a
newcomer sees; when it fails, pip's output is shown and the demo does not run.

The Makefile runs against a stand-in interpreter (``PYTHON``) and a fresh ``VENV``: the stand-in's ``-m venv`` makes
a venv whose ``python -m pip`` prints what pip prints (on stdout and stderr) and notes its arguments, and whose
``sorry-arena`` says that it ran. What is tested is the Makefile's handling of pip's output and flags, with no index
and no download (a real install of the dependencies takes minutes and the network).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PATIENCE_S = 60.0
"""The longest wait for make: reached only when something is wrong."""
PIP_SAYS = (
    "Requirement already satisfied: flask in ./lib/python3.11/site-packages (3.1.0)",
    "WARNING: Running pip as the 'root' user can result in broken permissions",
    "[notice] A new release of pip is available: 24.0 -> 25.1",
)
STAND_IN = f"""#!/bin/sh
# the stand-in interpreter: `python -m venv DIR` only
[ "$1 $2" = "-m venv" ] || exit 64
mkdir -p "$3/bin"
cat > "$3/bin/python" <<'END'
#!/bin/sh
echo "$*" >> "$(dirname "$0")/../pip-calls"
echo "{PIP_SAYS[0]}"
echo "{PIP_SAYS[1]}" >&2
echo "{PIP_SAYS[2]}" >&2
exit "${{STAND_IN_PIP_EXIT:-0}}"
END
cat > "$3/bin/sorry-arena" <<'END'
#!/bin/sh
echo "the demo ran: $*"
END
chmod +x "$3/bin/python" "$3/bin/sorry-arena"
"""

pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def make_demo(tmp_path: Path, pip_exit: int) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    """``make demo`` with the stand-in interpreter and a fresh venv in ``tmp_path``: make's result, pip's calls."""
    python = tmp_path / "python3"
    python.write_text(STAND_IN)
    python.chmod(0o755)
    venv = tmp_path / "venv"
    done = subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), "demo", f"VENV={venv}", f"PYTHON={python}"],
        env={**os.environ, "STAND_IN_PIP_EXIT": str(pip_exit)},
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
    )
    calls = venv / "pip-calls"
    return done, calls.read_text().splitlines() if calls.exists() else []


def test_make_demo_shows_no_pip_output_and_runs_the_demo(tmp_path: Path) -> None:
    done, calls = make_demo(tmp_path, 0)
    assert done.returncode == 0, (done.stdout, done.stderr)
    assert "the demo ran: demo" in done.stdout
    lines = (done.stdout + done.stderr).replace(str(tmp_path), "TMP").splitlines()  # (the test's name says pip)
    assert [line for line in lines if "pip" in line.lower() or line in PIP_SAYS] == [], lines
    assert len(calls) == 2 and all(call.startswith("-m pip install") for call in calls), calls
    assert all("--quiet" in call.split() and "--disable-pip-version-check" in call.split() for call in calls)


def test_a_failed_install_shows_pips_output_and_stops(tmp_path: Path) -> None:
    done, calls = make_demo(tmp_path, 1)
    assert done.returncode != 0
    assert all(said in done.stderr for said in PIP_SAYS), done.stderr
    assert "the demo ran" not in done.stdout
    assert len(calls) == 1, "the install stops at the first failure"

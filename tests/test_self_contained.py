"""The repository stands alone: no file points outside it (a reader has the clone and nothing else), and code and
docs speak of what the code does, not of tracker issues. That every relative link of the documentation resolves is
``tests/test_docs.py``'s."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTSIDE = re.compile(
    r"\.\./shared|\b(?:RULES|STYLE|MEASURED)\.md\b|\bseeds/|\b\d{3}_[0-9a-f]{16}\.txt\b"
    + r"|(?<![\w.~])/"
    + "work/|/tmp/"  # spelled in pieces, so that this file itself points nowhere
    + "studio|"
    + re.escape(str(ROOT))
)
"""The notes and rule sheets kept beside the repository by its maintainers, which a clone does not have, and this
machine's directories (the checkout's own path among them)."""
ISSUE_NUMBER = re.compile(r"(?i)\bissues? #?\d+\b")


def tracked_text_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    files = []
    for name in listed:
        path = ROOT / name
        if path.is_file() and path.stat().st_size < 2_000_000:
            try:
                path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            files.append(Path(name))
    return files


def offending_lines(pattern: re.Pattern[str], files: list[Path]) -> list[str]:
    return [
        f"{name}:{number}: {line.strip()[:100]}"
        for name in files
        for number, line in enumerate((ROOT / name).read_text(encoding="utf-8").splitlines(), start=1)
        if pattern.search(line)
    ]


def test_no_file_points_outside_the_repository() -> None:
    files = tracked_text_files()
    assert len(files) > 150
    assert not offending_lines(OUTSIDE, files), "\n".join(offending_lines(OUTSIDE, files))


def test_code_and_docs_name_no_issue_numbers() -> None:
    files = [name for name in tracked_text_files() if name.suffix in {".py", ".md", ".html", ".js", ".toml"}]
    assert not offending_lines(ISSUE_NUMBER, files), "\n".join(offending_lines(ISSUE_NUMBER, files))


def test_the_checks_see_what_they_forbid() -> None:
    outside = "../" + "shared"  # spelled in pieces, so that this file itself points nowhere
    samples = [
        f"see {outside}/RULES" + ".md B2",
        "(MEASURED" + ".md: 1.2x)",
        "STYLE" + ".md layers",
        "rule sheet " + "seeds" + "/002",
        "002_b829db99c8d234a3" + ".txt",
    ]
    assert all(OUTSIDE.search(sample) for sample in samples)
    assert all(
        OUTSIDE.search(sample) for sample in ["ROOT = '/" + "work/main'", "cd /tmp/" + "studio/x", f"{ROOT}/x"]
    )
    assert not OUTSIDE.search("docs/rules.md B2, docs/architecture.md, WORKDIR /home/arena, http://host/work/page")
    assert ISSUE_NUMBER.search("built for issue " + "13") and not ISSUE_NUMBER.search("the issue is the lease")

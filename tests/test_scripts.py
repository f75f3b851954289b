"""``scripts/test``, the README's second command: it says what it is doing, phase by phase
(it was silent for ~98 s while apt-get and pip worked), how long each phase took, and the
slowest tests and folders at the end. Run here with the tools it calls replaced by
stand-ins on PATH, so no package is installed."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]

# python3 -m venv DIR makes DIR/bin/{pip,ruff,mypy,pytest} that print their arguments and
# exit with $FAKE_<TOOL>_EXIT (0 unless a test says otherwise).
FAKE_PYTHON = """#!/bin/sh
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  mkdir -p "$3/bin"
  for tool in pip ruff mypy pytest; do
    code=$(echo "$tool" | tr a-z A-Z)
    printf '#!/bin/sh\\necho "%s $*"\\nexit ${FAKE_%s_EXIT:-0}\\n' "$tool" "$code" > "$3/bin/$tool"
    /bin/chmod +x "$3/bin/$tool"
  done
fi
"""

PHASES = ["system packages", "python", "lint", "types", "tests"]
PYTEST = f"pytest -n {min(len(os.sched_getaffinity(0)) + 1, 4)} --dist worksteal --durations=15 -q"


def run_script(tmp_path: Path, **exits: int) -> subprocess.CompletedProcess[str]:
    """``bash scripts/test -q`` in a copy of the project, each tool exiting as ``exits``
    says (``pytest=5``)."""
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "test", tmp_path / "scripts" / "test")
    tools = tmp_path / "tools"
    tools.mkdir()
    (tools / "python3").write_text(FAKE_PYTHON)
    (tools / "python3").chmod(0o755)
    # Whatever system packages the machine lacks, a stand-in apt-get "installs" them (and
    # nothing touches /usr/sbin/policy-rc.d).
    for name in ("apt-get", "sudo", "tee", "chmod"):
        stub = tools / name
        stub.write_text("#!/bin/sh\nexit 0\n")
        stub.chmod(0o755)
    env = {**os.environ, "PATH": f"{tools}:{os.environ['PATH']}"}
    env.update({f"FAKE_{tool.upper()}_EXIT": str(code) for tool, code in exits.items()})
    script = str(tmp_path / "scripts" / "test")
    return subprocess.run(["bash", script, "-q"], env=env, capture_output=True, text=True, timeout=120)


def said(output: str) -> list[str]:
    return [line for line in output.splitlines() if line.startswith("scripts/test: ")]


def test_scripts_test_prints_a_line_per_phase_and_its_time(tmp_path: Path) -> None:
    done = run_script(tmp_path)
    assert done.returncode == 0, done.stderr
    lines = said(done.stdout)
    # Each phase: a line as it starts, then one with its time; then the summary.
    starts, ends, summary = lines[:-1:2], lines[1:-1:2], lines[-1]
    assert [line.split(":")[1].strip() for line in starts] == PHASES
    assert starts[-1] == f"scripts/test: tests: {PYTEST}"
    for phase, end in zip(PHASES, ends, strict=True):
        outcome = "exit 0" if phase == "tests" else "done"
        assert re.fullmatch(rf"scripts/test: {phase}: {outcome} in \d+ s", end), end
    timed = ", ".join(rf"{phase} \d+ s" for phase in PHASES)
    assert re.fullmatch(rf"scripts/test: passed in \d+ s \({timed}\)", summary), summary
    # pytest was given the flags the tests line names, the slowest tests among them.
    assert f"{PYTEST}\n" in done.stdout


def test_a_failing_phase_says_which_and_stops(tmp_path: Path) -> None:
    done = run_script(tmp_path, ruff=1)
    assert done.returncode == 1
    assert re.search(r"^scripts/test: lint: failed after \d+ s$", done.stderr, re.M), done.stderr
    assert [line.split(":")[1].strip() for line in said(done.stdout)][-1] == "lint"  # mypy never ran


def test_failing_tests_fail_the_script(tmp_path: Path) -> None:
    done = run_script(tmp_path, pytest=1)
    assert done.returncode == 1
    assert "scripts/test: tests: exit 1 in " in done.stdout
    assert said(done.stdout)[-1].startswith("scripts/test: failed in ")


def test_no_tests_run_is_a_failure(tmp_path: Path) -> None:
    # pytest's exit code 5: nothing was collected (a wrong path, a -k that matches nothing).
    done = run_script(tmp_path, pytest=5)
    assert done.returncode == 1
    assert "scripts/test: tests: no tests ran in " in done.stdout
    assert said(done.stdout)[-1].startswith("scripts/test: failed in ")


def test_pre_commit_runs_the_projects_own_tools_from_the_venv() -> None:
    # Local hooks only: nothing is downloaded when a hook runs, and the tools, versions and
    # settings are those scripts/test uses.
    config = yaml.safe_load((ROOT / ".pre-commit-config.yaml").read_text(encoding="utf-8"))
    assert [repo["repo"] for repo in config["repos"]] == ["local"]
    hooks = {hook["id"]: hook for hook in config["repos"][0]["hooks"]}
    assert list(hooks) == ["ruff", "ruff-format", "mypy"]
    for hook in hooks.values():
        assert hook["language"] == "system" and hook["entry"].startswith(".venv/bin/"), hook
    assert hooks["ruff-format"]["entry"].split()[:2] == [".venv/bin/ruff", "format"]
    script = (ROOT / "scripts" / "test").read_text(encoding="utf-8")
    mypy = re.search(r"^\.venv/bin/(mypy .*)$", script, re.M)
    assert mypy is not None and hooks["mypy"]["entry"] == f".venv/bin/{mypy[1]}"

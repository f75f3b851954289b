"""``scripts/test``, the README's second command: it says what it is doing, phase by phase
(it was silent for ~98 s while apt-get and pip worked). Run here with the tools it calls
replaced by stand-ins on PATH, so no package is installed."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# python3 -m venv DIR makes DIR/bin/{pip,ruff,mypy,pytest} that succeed and do nothing.
FAKE_PYTHON = """#!/bin/sh
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  mkdir -p "$3/bin"
  for tool in pip ruff mypy pytest; do
    printf '#!/bin/sh\\nexit 0\\n' > "$3/bin/$tool"; /bin/chmod +x "$3/bin/$tool"
  done
fi
"""


def test_scripts_test_prints_a_line_per_phase(tmp_path: Path) -> None:
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
    script = str(tmp_path / "scripts" / "test")
    done = subprocess.run(["bash", script, "-q"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    phases = [line for line in done.stdout.splitlines() if line.startswith("scripts/test: ")]
    names = [p.split(":")[1].strip() for p in phases]
    assert names == ["system packages", "python", "lint", "types", "tests"]
    assert phases[-1] == "scripts/test: tests: pytest -n auto --maxprocesses 4 --dist loadfile -q"

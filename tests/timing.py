"""Where the suite's time goes, folder by folder: a pytest plugin (registered by
tests/conftest.py) that adds up each test's setup, call and teardown by the folder its
file is in, prints the table after the run and writes it to build/test-durations.txt.

Under pytest-xdist it runs in the controlling process, which receives every worker's
reports, so the table covers the whole run. The seconds are the tests' own (summed over
the workers), not the wall clock: with two workers they add up to about twice the run.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

#: Where the last run's table is kept (build/ is ignored by git).
RECORD = Path("build") / "test-durations.txt"


@dataclass
class Folder:
    seconds: float = 0.0
    tests: set[str] = field(default_factory=set)
    slowest: tuple[float, str] = (0.0, "")


def folder_of(nodeid: str) -> str:
    """``tests/speech/test_sphinx.py::test_x[1]`` -> ``tests/speech``."""
    path = nodeid.split("::", 1)[0]
    return path.rpartition("/")[0] or "."


class FolderTimes:
    """Adds up test durations by folder; see the module notes."""

    def __init__(self, root: Path) -> None:
        self.record = root / RECORD
        self.folders: dict[str, Folder] = {}
        self.test_seconds: dict[str, float] = {}
        self.started = time.monotonic()

    @pytest.hookimpl
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        folder = self.folders.setdefault(folder_of(report.nodeid), Folder())
        folder.seconds += report.duration
        folder.tests.add(report.nodeid)
        spent = self.test_seconds.get(report.nodeid, 0.0) + report.duration
        self.test_seconds[report.nodeid] = spent
        folder.slowest = max(folder.slowest, (spent, report.nodeid))

    def table(self) -> list[str]:
        """One line per folder, the most time first, and the total."""
        rows = sorted(self.folders.items(), key=lambda item: -item[1].seconds)
        width = max([len("folder"), *(len(name) for name, _ in rows)])
        lines = [f"{'folder':<{width}}  {'tests':>5}  {'seconds':>8}  slowest test (s)"]
        for name, folder in rows:
            seconds, nodeid = folder.slowest
            test = nodeid.removeprefix(f"{name}/")
            count = len(folder.tests)
            lines.append(f"{name:<{width}}  {count:>5}  {folder.seconds:>8.1f}  {test} ({seconds:.1f})")
        total = sum(f.seconds for f in self.folders.values())
        count = sum(len(f.tests) for f in self.folders.values())
        wall = time.monotonic() - self.started
        lines.append(f"{'total':<{width}}  {count:>5}  {total:>8.1f}  (wall clock {wall:.1f} s)")
        return lines

    @pytest.hookimpl
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.folders:
            return
        lines = self.table()
        if len(self.folders) > 1:  # one test or one folder: its own duration line says it
            terminalreporter.write_sep("=", "seconds by folder (setup + call + teardown)")
            for line in lines:
                terminalreporter.write_line(line)
        try:
            self.record.parent.mkdir(exist_ok=True)
            self.record.write_text("\n".join(lines) + "\n", encoding="utf-8")
        except OSError as exc:  # a read-only checkout: the terminal has the table
            terminalreporter.write_line(f"could not write {self.record}: {exc}")
        else:
            if len(self.folders) > 1:
                terminalreporter.write_line(f"(also in {RECORD})")


def register(config: pytest.Config) -> None:
    """Add the plugin to the controlling process (not to xdist's workers)."""
    if not hasattr(config, "workerinput"):
        config.pluginmanager.register(FolderTimes(config.rootpath), "gamehost-folder-times")

"""pytest-timeout's limits, stretched on a busy machine: a plugin registered by
tests/conftest.py.

A limit (``timeout`` in pyproject.toml, or a test's ``pytest.mark.timeout``) is set for a
quiet machine, where it catches a hang long before CI's own limit. On a machine running
more than a process per core (other test runs, other work) every test is slower by about
the load per core, and a test that is only slow must not be failed as hung: as each test
starts, its limit is multiplied by the last minute's load average per core, when that is
above 1. A limit given on the command line (``--timeout``) or in ``PYTEST_TIMEOUT`` is
kept as given.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


def stretch() -> float:
    """The last minute's load average per core, at least 1."""
    try:
        load = os.getloadavg()[0]
    except OSError:  # no load average on this system
        return 1.0
    return max(1.0, load / (os.cpu_count() or 1))


def limit_of(item: pytest.Item, default: float) -> float:
    """The test's own timeout (its closest marker), else ``default``."""
    marker = item.get_closest_marker("timeout")
    if marker is None:
        return default
    given = marker.kwargs.get("timeout", marker.args[0] if marker.args else None)
    return float(given) if given is not None else default


class LoadScaledTimeout:
    """See the module notes."""

    def __init__(self, default: float) -> None:
        self.default = default

    def pytest_report_header(self) -> str:
        return f"timeouts: times the load per core as each test starts (now {stretch():.1f})"

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)  # before pytest-timeout reads the limit
    def pytest_runtest_protocol(self, item: pytest.Item) -> Iterator[None]:
        limit, factor = limit_of(item, self.default), stretch()
        if limit > 0 and factor > 1:
            item.add_marker(pytest.mark.timeout(round(limit * factor)), append=False)
        yield


def register(config: pytest.Config) -> None:
    """Stretch the limits unless they were given for this run."""
    if not config.pluginmanager.hasplugin("timeout"):
        return
    if config.getoption("timeout", None) is not None or os.environ.get("PYTEST_TIMEOUT"):
        return
    default = float(config.getini("timeout") or 0)
    config.pluginmanager.register(LoadScaledTimeout(default), "gamehost-load-scaled-timeout")

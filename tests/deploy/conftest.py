"""The deploy tests' marker: ``docker`` tests need a running Docker engine (skipped without)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "docker: needs a running Docker engine (skipped when none answers)")

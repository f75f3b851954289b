"""Settings for every test folder (tests/ and each game's tests/).

Hypothesis times each example against a wall-clock deadline (200 ms by default) and flags
slow data generation: on a busy 2-core machine both fail tests whose code is right. Speed
is measured by the benchmarks in tests/bench/, so no test fails for being slow."""

from hypothesis import HealthCheck, settings

settings.register_profile("gamehost", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("gamehost")

"""Hypothesis's profiles for this suite, and how many examples a test draws
under each. Not a test module: conftest.py loads the profile, and tests that
set their own count import ``examples`` (pytest puts tests/ on sys.path).

"ci" (the default) draws the same examples on every run, so that CI and a local
run see the same cases, and few of them: every kernel runs through Triton's
interpreter, and each example costs seconds. "thorough" draws ten times as many,
new ones each time, to explore before a release (HYPOTHESIS_PROFILE=thorough).
tests/README.md records the faults the ci profile was shown to catch.
"""

import os

from hypothesis import HealthCheck, Phase, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.function_scoped_fixture]
# Each profile's share of a test's nominal count (the count the suite drew before
# these profiles: 60 where a test names none): ci a third, thorough ten thirds,
# full all of it (to compare with the old hour-long suite), gpu (real kernels,
# few compiles) two fifteenths.
SHARE = {"ci": 1 / 3, "thorough": 10 / 3, "gpu": 2 / 15, "full": 1.0}
NOMINAL = 60

PROFILE = os.environ.get("HYPOTHESIS_PROFILE", "ci")


def examples(nominal: int) -> int:
    """The examples a test whose nominal count is ``nominal`` draws under this run's profile."""
    return max(3, round(nominal * SHARE.get(PROFILE, 1.0)))


def register() -> None:
    # HSR_NO_SHRINK=1 (tests/plant_faults.py): report a failing example as drawn; shrinking
    # it can take minutes in the interpreter and finds no failure the drawing did not
    no_shrink = dict(phases=[Phase.explicit, Phase.reuse, Phase.generate]) \
        if os.environ.get("HSR_NO_SHRINK") == "1" else {}
    settings.register_profile("ci", max_examples=examples(NOMINAL), deadline=None, derandomize=True,
                              suppress_health_check=_QUIET, **no_shrink)
    settings.register_profile("thorough", max_examples=round(NOMINAL * SHARE["thorough"]), deadline=None,
                              suppress_health_check=_QUIET)
    settings.register_profile("full", max_examples=NOMINAL, deadline=None, derandomize=True,
                              suppress_health_check=_QUIET, **no_shrink)
    settings.register_profile("gpu", max_examples=8, deadline=None, suppress_health_check=_QUIET)
    settings.load_profile(PROFILE)

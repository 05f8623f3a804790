"""Fixtures shared by several test modules, and the hypothesis profile of the tier."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from tests.budgets import PROFILE, examples
from tests.loopback import LoopbackStreams

# Loaded before any test module is imported, so that each test's own @settings falls back on it.
# Neither profile has a deadline or a too_slow health check: how long an example takes on a
# loaded machine is no property of the code. print_blob: a failure prints how to reproduce it.
settings.register_profile(
    "fixed-seed",  # make test, make test-fast: the same examples every run (no example database)
    derandomize=True,
    max_examples=examples(100),  # for the tests that give no budget: a tenth of the default
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "exhaustive",  # make test-exhaustive: fresh random examples, remembered in .hypothesis/
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(PROFILE)


@pytest.fixture
def loopback_stream() -> Iterator[LoopbackStreams]:
    """``url = loopback_stream(body, content_type)``: a server on 127.0.0.1 streaming ``body``
    chunked; ``loopback_stream.stop()`` stops every server it started."""
    streams = LoopbackStreams()
    yield streams
    streams.stop()

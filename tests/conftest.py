"""Fixtures shared by several test modules."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.loopback import LoopbackStreams


@pytest.fixture
def loopback_stream() -> Iterator[LoopbackStreams]:
    """``url = loopback_stream(body, content_type)``: a server on 127.0.0.1 streaming ``body``
    chunked; ``loopback_stream.stop()`` stops every server it started."""
    streams = LoopbackStreams()
    yield streams
    streams.stop()

"""An offline HTTP client for the SDKs: every request it sends is answered with one body, as a
server-sent event stream. The SDKs read through httpx, or httpx2 in recent releases (the openai
SDK from 3.0 on), and take only a client of their own flavour: the transport is built from the
module the client class comes from."""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


def flavour(client_class: type) -> ModuleType:
    """``httpx`` or ``httpx2``: the one ``client_class`` (an SDK's ``DefaultHttpxClient`` or
    ``DefaultAsyncHttpxClient``, or httpx's own ``Client``, ``AsyncClient``) is built on."""
    base = next(c for c in client_class.__mro__ if c.__module__.startswith("httpx"))
    return importlib.import_module(base.__module__.partition(".")[0])


def transport(client_class: type, data: str | bytes) -> Any:
    """A mock transport, for ``client_class``, that answers every request with ``data``."""
    httpx = flavour(client_class)
    content = data.encode() if isinstance(data, str) else data
    return httpx.MockTransport(
        lambda request: httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=content
        )
    )


def http_client(client_class: type, data: str | bytes) -> Any:
    """A ``client_class`` whose every request is answered with ``data``."""
    return client_class(transport=transport(client_class, data))

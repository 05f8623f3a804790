"""Driver adapters around widely used consumer libraries' own stream accumulation code.

Each module imports its library inside the factory, so the core install never needs them
(``pip install "streamharness[libs]"`` brings the pinned versions). Pass one as
``--adapter harness.adapters.libs.MODULE:make_adapter``. The glue is kept to what a user of the
library writes: each adapter reports what the library hands its user, at the point it hands it.
"""

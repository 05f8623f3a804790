"""Make Switchyard's dialect known to streamharness before any scenario is loaded."""

from harness import register_codec

from switchyard_testing import SwitchyardCodec

register_codec(SwitchyardCodec())

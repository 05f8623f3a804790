"""The anthropic SDK's MessageStream, without the harness: tool-use input that holds a complete
JSON object and then more comes out as the first object, with nothing marking it corrupt.

    python docs/reproductions/anthropic/trailing-input-dropped.py

prints, with anthropic 2.12.0:

    '{"ticket_id": 42}}' -> {'ticket_id': 42}
    '{"city": "Paris"}{"city": "Paris"}' -> {'city': 'Paris'}
"""

from _wire import tool_input

if __name__ == "__main__":
    for fragments, first in (
        (['{"ticket_id": 42', "}", "}"], {"ticket_id": 42}),
        (['{"city": "Paris"}'] * 2, {"city": "Paris"}),
    ):
        got = tool_input(fragments)
        print(repr("".join(fragments)), "->", got)
        assert got == first, "the SDK no longer keeps only the first object"

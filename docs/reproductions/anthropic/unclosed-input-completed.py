"""The anthropic SDK's MessageStream, without the harness: tool-use input that stops before its
closing brace is handed over at content_block_stop as a complete-looking input, with nothing
marking it incomplete.

    python docs/reproductions/anthropic/unclosed-input-completed.py

prints, with anthropic 2.12.0:

    '{"ticket_id": 42, "fields": ["title", "status"]' -> {'ticket_id': 42, 'fields': ['title', 'status']}
"""

from _wire import tool_input

if __name__ == "__main__":
    fragments = ['{"ticket_id": 42, ', '"fields": ["title", "status"]']
    got = tool_input(fragments)
    print(repr("".join(fragments)), "->", got)
    assert got == {"ticket_id": 42, "fields": ["title", "status"]}, (
        "the SDK no longer completes an unclosed input"
    )

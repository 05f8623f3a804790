"""The openai SDK's chat.completions.stream, without the harness: a first call at index 1 (as
Bedrock Claude through LiteLLM and DeepSeek send it) is inserted at position 0 of the empty list
of calls and then looked up at position 1: the stream raises IndexError.

    python docs/reproductions/openai-chat/crash-on-first-index-one.py

prints, with openai 3.54.0:

    first index 1: the stream raised IndexError: list index out of range
"""

from _wire import ROLE, body, call, raised

BODY = body(
    ROLE,
    {"content": "Let me look that up."},
    call(1, "tooluse_1", "jira_get_worklog", '{"id": 1}'),
    {},
)

if __name__ == "__main__":
    error = raised(BODY)
    print("first index 1: the stream raised", error and f"{error[0].__name__}: {error[1]}")
    assert error and error[0] is IndexError, "the SDK now takes a first call at index 1"

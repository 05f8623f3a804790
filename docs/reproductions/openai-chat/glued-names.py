"""The openai SDK's chat.completions.stream, without the harness: a tool name repeated on every
delta (as llama.cpp's server and bifrost send it) is concatenated, both in the
tool_calls.function.arguments.done event and in get_final_completion().

    python docs/reproductions/openai-chat/glued-names.py

prints, with openai 3.54.0:

    events:                 [('call_fr', 'final_resultfinal_result', '{"a": 1}')]
    get_final_completion(): [('call_fr', 'final_resultfinal_result', '{"a": 1}')]
"""

from _wire import ROLE, body, call, handed_over

BODY = body(
    ROLE,
    call(0, "call_fr", "final_result", '{"a": '),
    call(0, None, "final_result", "1}"),
    {},
)

if __name__ == "__main__":
    done, final = handed_over(BODY)
    print("events:                ", done)
    print("get_final_completion():", final)
    glued = [("call_fr", "final_resultfinal_result", '{"a": 1}')]
    assert done == final == glued, "the SDK no longer glues a repeated name"

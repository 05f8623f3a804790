"""The openai SDK's chat.completions.stream, without the harness: a body that ends mid-stream,
with neither a finish_reason nor [DONE], right after a call's header, raises nothing, and
get_final_completion() returns the message as it stood: the call with empty arguments, its
finish_reason None the only sign that the model never finished it.

    python docs/reproductions/openai-chat-final/cut-stream-completed.py

prints, with openai 3.54.0:

    get_final_completion(): [('toolu_01Cut', 'write_file', '')], finish_reason None
"""

from _wire import body, call, chat_stream

# the connection closes after the call's header: no finish_reason, no [DONE]
BODY = body(
    {"role": "assistant", "content": ""},
    {"content": ""},
    call(0, "toolu_01Cut", "write_file", ""),
    finish=None,
    done=False,
)

if __name__ == "__main__":
    with chat_stream(BODY) as stream:
        choice = stream.get_final_completion().choices[0]
    calls = [(c.id, c.function.name, c.function.arguments) for c in choice.message.tool_calls or ()]
    print(f"get_final_completion(): {calls}, finish_reason {choice.finish_reason}")
    assert calls == [("toolu_01Cut", "write_file", "")], "the cut message is no longer returned"

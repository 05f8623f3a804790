"""The openai SDK's chat.completions.stream, without the harness: parallel calls sent at one
index, each with its own id (as Groq and Ollama through LiteLLM send them), are glued into one
call whose id, name and arguments are the two calls' back to back.

    python docs/reproductions/openai-chat/glued-calls-at-one-index.py

prints, with openai 3.54.0:

    events:                 [('call_1call_2', 'write_filewrite_file', '{"path": "a.rs"}{"path": "b.rs"}')]
    get_final_completion(): [('call_1call_2', 'write_filewrite_file', '{"path": "a.rs"}{"path": "b.rs"}')]
"""

from _wire import ROLE, body, call, handed_over

BODY = body(
    ROLE,
    call(0, "call_1", "write_file", '{"path": "a.rs"}'),
    call(0, "call_2", "write_file", '{"path": "b.rs"}'),
    {},
)

if __name__ == "__main__":
    done, final = handed_over(BODY)
    print("events:                ", done)
    print("get_final_completion():", final)
    glued = [("call_1call_2", "write_filewrite_file", '{"path": "a.rs"}{"path": "b.rs"}')]
    assert done == final == glued, "the SDK no longer glues calls sent at one index"

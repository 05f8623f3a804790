"""The openai SDK's chat.completions.stream, without the harness: a call whose first delta
arrives in the chunk that carries finish_reason never gets its
tool_calls.function.arguments.done event, so a user who acts on those events never sees it,
though get_final_completion() holds it. Shown with each call whole in one chunk, the finish on
the last (OpenRouter relaying Gemini, Dynamo), and with a call without arguments whose only
delta carries the finish (vLLM's finish on the last delta).

    python docs/reproductions/openai-chat/calls-never-handed-over.py

prints, with openai 3.54.0:

    whole calls, the finish on the last: events name ['call_1'], get_final_completion() ['call_1', 'call_2']
    a call without arguments, with the finish: events name [], get_final_completion() ['call_list']
"""

from _wire import ROLE, body, call, handed_over

CASES = {
    "whole calls, the finish on the last": body(
        ROLE,
        call(0, "call_1", "write_file", '{"path": "a.rs"}'),
        call(1, "call_2", "write_file", '{"path": "b.rs"}'),
    ),
    "a call without arguments, with the finish": body(
        ROLE,
        {"content": "Listing the open incidents."},
        call(0, "call_list", "list_incidents", ""),
    ),
}

if __name__ == "__main__":
    for what, data in CASES.items():
        done, final = handed_over(data)
        named, held = [c[0] for c in done], [c[0] for c in final]
        print(f"{what}: events name {named}, get_final_completion() {held}")
        assert named == held[:-1], "the SDK now hands the last call over at its done event"

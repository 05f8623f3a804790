"""The anthropic SDK's MessageStream, without the harness: a content_block_stop sent twice for one
tool_use block (as a LiteLLM proxy did, BerriAI/litellm#37273) is passed on twice, each time
with the finished block, so a user who runs tools at content_block_stop runs the tool twice.

    python docs/reproductions/anthropic/block-stop-passed-twice.py

prints, with anthropic 2.12.0:

    content_block_stop toolu_1 git_branch {'name': 'fix/login-timeout'}
    content_block_stop toolu_1 git_branch {'name': 'fix/login-timeout'}
"""

from _wire import START, end, fragment, handed_over, sse, stop, tool_start

BODY = sse(
    START,
    tool_start(0, "toolu_1", "git_branch"),
    fragment(0, '{"name": "fix/login-timeout"}'),
    stop(0),
    stop(0),  # the same block's stop, again
    *end("tool_use"),
)

if __name__ == "__main__":
    stops = []
    for item in handed_over(BODY):
        if item.type == "content_block_stop" and item.content_block.type == "tool_use":
            block = item.content_block
            print("content_block_stop", block.id, block.name, block.input)
            stops.append(block.id)
    assert stops == ["toolu_1", "toolu_1"], "the SDK no longer hands the block over twice"

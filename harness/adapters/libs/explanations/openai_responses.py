"""What the openai SDK's Responses stream (``client.responses.stream``) gets wrong."""

from harness.adapters.libs.explanations import explain

explain(
    "openai-responses",
    "cut-after-arguments-done",
    """The body is cut after a call's response.function_call_arguments.done and before its
    response.output_item.done. The SDK raises nothing on the cut body, and neither the item's
    end nor response.completed comes, so a user who takes each call at its output_item.done
    (the event that carries its call_id, as this adapter does) never gets the call, although
    its arguments were whole, and sees a stream that simply stopped. The rule counts the call
    complete at function_call_arguments.done, whose arguments are final; a user acting there
    gets them, but must find the call's id and name in the earlier output_item.added. No
    upstream report found.""",
    scenarios={"cut-mid-arguments"},
    rules={"emit-once-early"},
)

"""AutoGen's OpenAIChatCompletionClient.create_stream, without the harness: Azure's trailing
content-filter chunk (a choice without a delta) after a finished answer raises AttributeError.

    python docs/reproductions/autogen/content-filter-chunk-crash.py

prints, with autogen-ext 0.7.5:

    AttributeError: 'NoneType' object has no attribute 'model_extra'
"""

import json

from _wire import ROLE, body, stream

# Azure's annotation of the answer: a choice with no delta, after the finish_reason
FILTER = {
    "id": "",
    "object": "",
    "created": 0,
    "model": "",
    "choices": [
        {
            "index": 0,
            "finish_reason": None,
            "content_filter_results": {"hate": {"filtered": False, "severity": "safe"}},
        }
    ],
}
data = body(ROLE, {"content": "Hello."}, finish="stop", done=False)
data += f"data: {json.dumps(FILTER)}\n\ndata: [DONE]\n\n"
try:
    stream(data)
except AttributeError as exc:
    print(f"AttributeError: {exc}")
    assert "model_extra" in str(exc)
else:
    raise AssertionError("create_stream read the content-filter chunk")

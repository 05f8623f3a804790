"""openai-chat-final's crash-on-first-index-one: the accumulator is openai-chat's, and its script shows both what a
user of the stream's events gets and what get_final_completion() (this library's view) holds.

    python docs/reproductions/openai-chat-final/crash-on-first-index-one.py

runs docs/reproductions/openai-chat/crash-on-first-index-one.py, and prints and asserts what it does.
"""

import runpy
from pathlib import Path

here = Path(__file__)
runpy.run_path(str(here.parents[1] / "openai-chat" / here.name), run_name="__main__")

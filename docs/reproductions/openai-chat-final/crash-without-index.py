"""openai-chat-final's crash-without-index: the accumulator is openai-chat's, and its script shows both what a
user of the stream's events gets and what get_final_completion() (this library's view) holds.

    python docs/reproductions/openai-chat-final/crash-without-index.py

runs docs/reproductions/openai-chat/crash-without-index.py, and prints and asserts what it does.
"""

from _wire import run_openai_chat_script

run_openai_chat_script(__file__)

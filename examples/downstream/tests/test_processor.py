from chatui import EventStreamProcessor


def feed(processor, *events, session_id="main"):
    for event in events:
        processor.process_event({"session_id": session_id, **event})


def test_subsession_call_with_same_id_does_not_touch_parent_notification():
    processor = EventStreamProcessor()
    call = {"id": "toolu_01", "name": "act_oneshot", "input": "{}"}
    feed(processor, {"type": "tool_call", "active": True, "tool_calls": [call]})
    sub_call = {"id": "toolu_01", "name": "workspace_read", "input": "{}"}
    feed(
        processor,
        {"type": "tool_select_delta", "tool_calls": [sub_call]},
        {"type": "tool_call", "active": False, "tool_calls": [sub_call], "tool_results": []},
        {"type": "interaction", "started": False, "id": "sub-i1"},
        session_id="sub-1",
    )

    shown = [
        (n.session_id, n.id, n.tool_name, n.status) for n in processor.tool_calls.notifications()
    ]
    assert shown == [("main", "toolu_01", "act_oneshot", "executing")]


def test_tool_first_calls_are_held_then_attached_to_next_message():
    processor = EventStreamProcessor()
    updates = []
    processor.on("message-updated", updates.append)
    call = {"id": "toolu_02", "name": "workspace_grep", "input": '{"pattern": "MAX_RETRIES"}'}
    result = {"tool_use_id": "toolu_02", "content": "client.py:14"}
    feed(
        processor,
        {"type": "user_message", "message_id": "u1", "content": "Where is the retry limit?"},
        {"type": "interaction", "started": True, "id": "i1"},
        {"type": "tool_call", "active": False, "tool_calls": [call], "tool_results": [result]},
        {"type": "tool_call", "active": False, "tool_calls": [call], "tool_results": [result]},
        {"type": "text_delta", "message_id": "m1", "content": "It's in client.py."},
        {"type": "completion", "running": False},
    )

    user, answer = processor.session("main").messages
    assert user.tool_calls == []
    assert [c.id for c in answer.tool_calls] == ["toolu_02"]
    assert answer.tool_results["toolu_02"].content == "client.py:14"
    assert answer.streaming is False
    assert updates == []  # nothing earlier was changed


def test_history_rebuilds_tool_calls_on_their_message():
    processor = EventStreamProcessor()
    feed(
        processor,
        {
            "type": "history",
            "messages": [
                {"role": "user", "content": "Run the tests."},
                {
                    "role": "assistant",
                    "content": [
                        {"type": "thinking", "thinking": "pytest, quietly."},
                        {
                            "type": "tool_use",
                            "id": "toolu_03",
                            "name": "bash",
                            "input": {"cmd": "pytest -q"},
                        },
                        {
                            "type": "tool_use",
                            "id": "toolu_04",
                            "name": "bash",
                            "input": {"cmd": "ruff ."},
                        },
                    ],
                },
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": "toolu_03", "content": "3 passed"}
                    ],
                },
            ],
        },
    )

    user, thought = processor.session("main").messages
    assert (user.role, user.content) == ("user", "Run the tests.")
    assert thought.is_thought and thought.content == "pytest, quietly."
    # toolu_04 has no stored result: it never completed, so it is not shown
    assert [(c.id, c.input) for c in thought.tool_calls] == [("toolu_03", {"cmd": "pytest -q"})]
    assert thought.tool_results["toolu_03"].content == "3 passed"

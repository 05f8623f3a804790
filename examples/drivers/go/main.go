// A driver for OpenAI Chat Completions streamed chunks, spoken to over the harness's JSON-lines
// protocol 2 (driver layer). It assembles delta.tool_calls fragments by index, as interlude's
// session does, and emits each call once it is complete: when the next call starts, when the
// model moves on to text, or when the choice finishes. A stream that fails (an error object
// mid-stream, or a body that ends with neither a finish_reason nor [DONE]) ends in an error
// output, not a turn end.
//
//	--bug=emits-partial-calls  emit every fragment as a call of its own (the bug before the fix)
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
)

// finishReasons maps a Chat Completions finish_reason to the canonical stop reason.
var finishReasons = map[string]string{
	"tool_calls":    "tool_use",
	"function_call": "tool_use",
	"stop":          "end_turn",
	"length":        "max_tokens",
}

type conn struct {
	in  *bufio.Reader
	out *bufio.Writer
}

func (c *conn) send(v any) {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	c.out.Write(data)
	c.out.WriteByte('\n')
	c.out.Flush()
}

// receive reads one JSON object; ok is false once stdin is closed.
func (c *conn) receive() (map[string]any, bool) {
	for {
		line, err := c.in.ReadString('\n')
		if strings.TrimSpace(line) != "" {
			var msg map[string]any
			if jerr := json.Unmarshal([]byte(line), &msg); jerr != nil {
				fmt.Fprintf(os.Stderr, "not a JSON object: %q\n", line)
				os.Exit(2)
			}
			return msg, true
		}
		if err != nil {
			return nil, false
		}
	}
}

type call struct {
	id, name string
	parts    []string
	emitted  bool
}

// turn is one drive: the conversation from the first read to done.
type turn struct {
	c        *conn
	partial  bool
	byIndex  map[string]*call
	current  *call
	finish   string
	emitted  int
	finished bool   // the stream is over ([DONE], an error or end): no more reads
	done     bool   // the stream said [DONE]
	failure  string // the error the server sent mid-stream, if it did
}

func (t *turn) emit(output map[string]any) {
	t.c.send(map[string]any{"op": "emit", "output": output})
}

func (t *turn) emitCall(id, name, arguments string) {
	t.emitted++
	t.emit(map[string]any{
		"type": "tool_call", "id": id, "name": name,
		"arguments": arguments, "valid": validArguments(arguments),
	})
}

// complete emits the call in progress, once.
func (t *turn) complete() {
	k := t.current
	t.current = nil
	if k == nil || k.emitted {
		return
	}
	k.emitted = true
	if t.partial {
		return // already emitted fragment by fragment
	}
	t.emitCall(k.id, k.name, strings.Join(k.parts, ""))
}

func (t *turn) callDelta(delta map[string]any) {
	function, _ := delta["function"].(map[string]any)
	id, _ := delta["id"].(string)
	name, _ := function["name"].(string)
	arguments, _ := function["arguments"].(string)
	var known *call
	key := ""
	if index, ok := delta["index"]; ok && index != nil {
		key = fmt.Sprint(index)
		known = t.byIndex[key]
	} else {
		known = t.current
	}
	begins := delta["type"] == "function" && id != "" && name != ""
	if known == nil || (begins && known.id != "" && known.id != id) {
		t.complete()
		known = &call{id: id, name: name}
		t.byIndex[key] = known
		t.current = known
	} else if id != "" && known.id == "" {
		known.id = id
	}
	if arguments != "" {
		known.parts = append(known.parts, arguments)
		if t.partial {
			t.emitCall(known.id, known.name, arguments)
		}
	}
}

// data handles the payload of one server-sent event.
func (t *turn) data(payload string) {
	if strings.TrimSpace(payload) == "[DONE]" {
		t.finished, t.done = true, true
		return
	}
	var chunk map[string]any
	if json.Unmarshal([]byte(payload), &chunk) != nil {
		return
	}
	if failure, ok := chunk["error"]; ok { // an error object mid-stream: the stream ends with it
		t.failure = fmt.Sprint(failure)
		if m, ok := failure.(map[string]any); ok {
			t.failure = fmt.Sprintf("%v: %v", m["type"], m["message"])
		}
		t.finished = true
		return
	}
	choices, _ := chunk["choices"].([]any) // a usage chunk has none
	for _, item := range choices {
		choice, _ := item.(map[string]any)
		if choice == nil {
			continue
		}
		if index, ok := choice["index"].(float64); ok && index != 0 {
			continue
		}
		delta, _ := choice["delta"].(map[string]any)
		if content, _ := delta["content"].(string); content != "" {
			t.complete() // the model moved on to text: the call is done
			t.emit(map[string]any{"type": "text", "text": content})
		}
		calls, _ := delta["tool_calls"].([]any)
		for _, c := range calls {
			if m, ok := c.(map[string]any); ok {
				t.callDelta(m)
			}
		}
		if reason, _ := choice["finish_reason"].(string); reason != "" {
			t.finish = reason
			t.complete()
		}
	}
}

// chunk splits one chunk into server-sent events (each chunk is whole events) and handles them.
func (t *turn) chunk(text string) {
	text = strings.TrimPrefix(text, "\ufeff")
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\r", "\n")
	var lines []string
	flush := func() {
		if len(lines) > 0 && !t.finished {
			t.data(strings.Join(lines, "\n"))
		}
		lines = nil
	}
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			flush()
			continue
		}
		if strings.HasPrefix(line, ":") {
			continue
		}
		name, value, colon := strings.Cut(line, ":")
		if colon {
			value = strings.TrimPrefix(value, " ")
		}
		if name == "data" {
			lines = append(lines, value)
		}
	}
	flush()
}

// drive runs one turn; the stream is released (close) whichever way the turn ends.
func (t *turn) drive() {
	for !t.finished {
		t.c.send(map[string]any{"op": "read"})
		answer, ok := t.c.receive()
		if !ok {
			os.Exit(0)
		}
		switch {
		case answer["cancelled"] == true:
			t.c.send(map[string]any{"op": "close"})
			t.c.send(map[string]any{"op": "done", "cancelled": true})
			return
		case answer["end"] == true:
			t.finished = true
		default:
			text, ok := answer["chunk"].(string)
			if !ok {
				t.c.send(map[string]any{"op": "close"})
				t.c.send(map[string]any{"op": "done", "error": fmt.Sprintf("unexpected answer to read: %v", answer)})
				return
			}
			t.chunk(text)
		}
	}
	if t.failure == "" && t.finish == "" && !t.done {
		t.failure = "the stream ended before the turn did" // the body was cut
	}
	if t.failure != "" { // no turn end, and the call in progress never finished
		t.emit(map[string]any{"type": "error", "message": t.failure})
		t.c.send(map[string]any{"op": "close"})
		t.c.send(map[string]any{"op": "done"})
		return
	}
	t.complete()
	reason := finishReasons[t.finish]
	if reason == "" {
		reason = "end_turn"
	}
	if reason == "end_turn" && t.emitted > 0 {
		reason = "tool_use" // finish_reason 'stop' although the model called tools
	}
	t.emit(map[string]any{"type": "turn_end", "stop_reason": reason})
	t.c.send(map[string]any{"op": "close"})
	t.c.send(map[string]any{"op": "done"})
}

// validArguments: a JSON object, or no text at all (a call without arguments).
func validArguments(arguments string) bool {
	if arguments == "" {
		return true
	}
	var object map[string]any
	return json.Unmarshal([]byte(arguments), &object) == nil && object != nil
}

func main() {
	bug := flag.String("bug", "", "put back a known bug: emits-partial-calls")
	flag.Parse()
	if *bug != "" && *bug != "emits-partial-calls" {
		fmt.Fprintf(os.Stderr, "unknown --bug %q\n", *bug)
		os.Exit(2)
	}
	c := &conn{in: bufio.NewReaderSize(os.Stdin, 1<<20), out: bufio.NewWriter(os.Stdout)}
	name := "go-openai-chat-driver"
	if *bug != "" {
		name += " --bug=" + *bug
	}
	for {
		msg, ok := c.receive()
		if !ok {
			return
		}
		switch msg["op"] {
		case "hello":
			c.send(map[string]any{
				"ok": true, "protocol": 2, "layers": []string{"driver"}, "name": name,
				"dialect": "openai-chat", "emits_calls": "per-call", "reads": "chunks",
			})
		case "drive":
			t := &turn{c: c, partial: *bug != "", byIndex: map[string]*call{}}
			t.drive()
		case "shutdown":
			return
		default:
			c.send(map[string]any{"ok": false, "error": fmt.Sprintf("unknown op %v", msg["op"])})
		}
	}
}

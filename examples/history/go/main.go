// A session store in the shape of docker-agent's persistence, spoken to over the harness's
// JSON-lines protocol 2 (history layer). It persists each session from the events it is fed,
// sub-sessions apart, closes tool calls a turn left open with an error result, and answers
// history (as stored), request (what its converter would send) and rebuild (the transcript a
// restarted client shows).
//
//	--bug=subagent-into-parent  persist a sub-agent's events into its parent session
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
)

const interrupted = "The tool call was interrupted before it returned a result."

// block is one content block of a stored message.
type block struct {
	Type      string // text, thinking, tool_use, tool_result
	Text      string // text and thinking; tool_result content
	ID        string // tool_use id; tool_result tool_use_id
	Name      string
	Arguments string // tool_use raw JSON arguments
	IsError   bool
	Signature string // thinking: the provider's signature, sent back unchanged
}

type message struct {
	Role   string
	Blocks []*block
}

// store is one session's persisted history.
type store struct {
	messages []*message
	textAt   map[string]*block // message id -> its text or thinking block
	useAt    map[string]int    // tool call id -> index of the message holding its tool_use
	order    []string          // tool call ids in the order they were stored
	answered map[string]bool
}

func newStore() *store {
	return &store{textAt: map[string]*block{}, useAt: map[string]int{}, answered: map[string]bool{}}
}

// assistant is the message new assistant blocks go into: a new one after tool results.
func (s *store) assistant() *message {
	if n := len(s.messages); n == 0 || s.messages[n-1].Role != "assistant" {
		s.messages = append(s.messages, &message{Role: "assistant"})
	}
	return s.messages[len(s.messages)-1]
}

func (s *store) addUse(id, name, arguments string) {
	if _, ok := s.useAt[id]; ok {
		return
	}
	if arguments == "" {
		arguments = "{}"
	}
	m := s.assistant()
	m.Blocks = append(m.Blocks, &block{Type: "tool_use", ID: id, Name: name, Arguments: arguments})
	s.useAt[id] = len(s.messages) - 1
	s.order = append(s.order, id)
}

// addResult puts a result into the user message right after its tool_use's message. A real
// result late after the 'interrupted' one takes its place; any other repeat changes nothing.
func (s *store) addResult(id, content string, isError bool) {
	at := s.useAt[id] + 1
	if at >= len(s.messages) || s.messages[at].Role != "user" {
		s.messages = append(s.messages[:at], append([]*message{{Role: "user"}}, s.messages[at:]...)...)
		for key, index := range s.useAt {
			if index >= at {
				s.useAt[key] = index + 1
			}
		}
	}
	m := s.messages[at]
	results := 0
	for _, b := range m.Blocks {
		if b.Type != "tool_result" {
			continue
		}
		results++
		if b.ID == id {
			if b.Text == interrupted && b.IsError {
				b.Text, b.IsError = content, isError
			}
			return
		}
	}
	result := &block{Type: "tool_result", ID: id, Text: content, IsError: isError}
	m.Blocks = append(m.Blocks[:results], append([]*block{result}, m.Blocks[results:]...)...)
	s.answered[id] = true
}

func (s *store) closeInterrupted() {
	for _, id := range s.order {
		if !s.answered[id] {
			s.addResult(id, interrupted, true)
		}
	}
}

func (s *store) userText(text string) {
	s.closeInterrupted()
	if n := len(s.messages); n > 0 && s.messages[n-1].Role == "user" {
		s.messages[n-1].Blocks = append(s.messages[n-1].Blocks, &block{Type: "text", Text: text})
		return
	}
	s.messages = append(s.messages, &message{Role: "user", Blocks: []*block{{Type: "text", Text: text}}})
}

// stored is the history without empty messages.
func (s *store) stored() []*message {
	out := []*message{}
	for _, m := range s.messages {
		if len(m.Blocks) > 0 {
			out = append(out, m)
		}
	}
	return out
}

// -- events -----------------------------------------------------------------------------------

type toolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type toolResult struct {
	ToolCallID string `json:"tool_call_id"`
	Content    string `json:"content"`
	IsError    bool   `json:"is_error"`
}

type wireBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type event struct {
	Type            string        `json:"type"`
	SessionID       string        `json:"session_id"`
	ParentSessionID *string       `json:"parent_session_id"`
	MessageID       string        `json:"message_id"`
	Role            string        `json:"role"`
	Text            string        `json:"text"`
	Calls           []toolCall    `json:"calls"`
	Results         []toolResult  `json:"results"`
	History         []wireMessage `json:"history"`
}

type stores struct {
	byID   map[string]*store
	open   []string          // sub-sessions open now, innermost last
	parent map[string]string // sub-session -> its parent
	bug    bool
}

// sessionOf is where an event is persisted: its own session (or the open sub-session, for
// events that arrive without one); with the bug, the top-level session above it.
func (ss *stores) sessionOf(e *event) string {
	id := e.SessionID
	if id == "" && len(ss.open) > 0 {
		id = ss.open[len(ss.open)-1]
	}
	if ss.bug {
		for seen := 0; seen < 100; seen++ {
			p, ok := ss.parent[id]
			if !ok || p == "" {
				break
			}
			id = p
		}
	}
	return id
}

func (ss *stores) storeFor(e *event) *store {
	id := ss.sessionOf(e)
	s := ss.byID[id]
	if s == nil {
		s = newStore()
		ss.byID[id] = s
	}
	return s
}

func (ss *stores) feed(e *event) error {
	if e.ParentSessionID != nil && *e.ParentSessionID != "" && e.SessionID != "" {
		ss.parent[e.SessionID] = *e.ParentSessionID
	}
	switch e.Type {
	case "subsession_start":
		ss.open = append(ss.open, e.SessionID)
	case "subsession_end":
		for i, id := range ss.open {
			if id == e.SessionID {
				ss.open = append(ss.open[:i], ss.open[i+1:]...)
				break
			}
		}
	case "user_turn_start":
		for _, s := range ss.byID {
			s.closeInterrupted()
		}
	case "user_message":
		ss.storeFor(e).userText(e.Text)
	case "message_start":
		s := ss.storeFor(e)
		kind := "text"
		if e.Role == "thought" {
			kind = "thinking"
		}
		b := &block{Type: kind}
		m := s.assistant()
		m.Blocks = append(m.Blocks, b)
		s.textAt[e.MessageID] = b
	case "message_delta":
		if b := ss.storeFor(e).textAt[e.MessageID]; b != nil {
			b.Text += e.Text
		}
	case "tool_executing":
		s := ss.storeFor(e)
		for _, c := range e.Calls {
			s.addUse(c.ID, c.Name, c.Arguments)
		}
	case "tool_completed":
		s := ss.storeFor(e)
		for _, c := range e.Calls {
			s.addUse(c.ID, c.Name, c.Arguments)
			content, isError := "", false
			for _, r := range e.Results {
				if r.ToolCallID == c.ID {
					content, isError = r.Content, r.IsError
					break
				}
			}
			s.addResult(c.ID, content, isError)
		}
	case "interaction_end":
		ss.storeFor(e).closeInterrupted()
	case "resume":
		fresh, err := restore(e.History)
		if err != nil {
			return err
		}
		ss.byID[ss.sessionOf(e)] = fresh
	}
	return nil
}

// restore reads a delivered history (Anthropic shape) back into a store, as it was.
func restore(history []wireMessage) (*store, error) {
	s := newStore()
	for _, wm := range history {
		m := &message{Role: wm.Role}
		var text string
		var blocks []wireBlock
		if json.Unmarshal(wm.Content, &text) == nil {
			blocks = []wireBlock{{Type: "text", Text: text}}
		} else if err := json.Unmarshal(wm.Content, &blocks); err != nil {
			return nil, fmt.Errorf("resume: unreadable message content: %v", err)
		}
		s.messages = append(s.messages, m)
		for _, wb := range blocks {
			switch wb.Type {
			case "text":
				m.Blocks = append(m.Blocks, &block{Type: "text", Text: wb.Text})
			case "thinking":
				m.Blocks = append(m.Blocks, &block{Type: "thinking", Text: wb.Thinking, Signature: wb.Signature})
			case "tool_use":
				arguments := "{}"
				if len(wb.Input) > 0 && string(wb.Input) != "null" {
					arguments = string(wb.Input)
				}
				m.Blocks = append(m.Blocks, &block{Type: "tool_use", ID: wb.ID, Name: wb.Name, Arguments: arguments})
				s.useAt[wb.ID] = len(s.messages) - 1
				s.order = append(s.order, wb.ID)
			case "tool_result":
				var content string
				if json.Unmarshal(wb.Content, &content) != nil {
					content = string(wb.Content)
				}
				m.Blocks = append(m.Blocks, &block{Type: "tool_result", ID: wb.ToolUseID, Text: content, IsError: wb.IsError})
				s.answered[wb.ToolUseID] = true
			}
		}
	}
	return s, nil
}

// -- answers ----------------------------------------------------------------------------------

func input(arguments string) json.RawMessage {
	if json.Valid([]byte(arguments)) {
		return json.RawMessage(arguments)
	}
	quoted, _ := json.Marshal(arguments)
	return quoted
}

func blockJSON(b *block) map[string]any {
	switch b.Type {
	case "thinking":
		if b.Signature != "" {
			return map[string]any{"type": "thinking", "thinking": b.Text, "signature": b.Signature}
		}
		return map[string]any{"type": "thinking", "thinking": b.Text}
	case "tool_use":
		return map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": input(b.Arguments)}
	case "tool_result":
		return map[string]any{"type": "tool_result", "tool_use_id": b.ID, "content": b.Text, "is_error": b.IsError}
	}
	return map[string]any{"type": "text", "text": b.Text}
}

func toJSON(messages []*message) []map[string]any {
	out := []map[string]any{}
	for _, m := range messages {
		content := []map[string]any{}
		for _, b := range m.Blocks {
			content = append(content, blockJSON(b))
		}
		out = append(out, map[string]any{"role": m.Role, "content": content})
	}
	return out
}

// request is what the converter sends: the stored history with its pairing repaired, as
// docker-agent's converter does before calling the provider. A tool_result that its assistant
// message before it did not call is dropped, or moved to the nearest earlier call of that id
// still without a result; a repeated result is dropped; a call still without a result gets an
// 'interrupted' error result. Results come first in a user message; an emptied one goes.
func request(stored []*message) []*message {
	uses := func(m *message) []*block {
		var out []*block
		if m.Role == "assistant" {
			for _, b := range m.Blocks {
				if b.Type == "tool_use" {
					out = append(out, b)
				}
			}
		}
		return out
	}
	type place struct{ k, p int }
	drop := map[place]bool{}
	fill := map[int]map[string]*block{} // assistant message -> results it gets
	unanswered := map[string][]int{}    // tool id -> assistant messages still without its result
	for k, m := range stored {
		if m.Role != "assistant" {
			continue
		}
		answered := map[string]bool{}
		if k+1 < len(stored) && stored[k+1].Role == "user" {
			for _, b := range stored[k+1].Blocks {
				if b.Type == "tool_result" {
					answered[b.ID] = true
				}
			}
		}
		fill[k] = map[string]*block{}
		for _, u := range uses(m) {
			if !answered[u.ID] {
				unanswered[u.ID] = append(unanswered[u.ID], k)
			}
		}
	}
	for k, m := range stored {
		if m.Role != "user" {
			continue
		}
		called := map[string]bool{}
		if k > 0 {
			for _, u := range uses(stored[k-1]) {
				called[u.ID] = true
			}
		}
		seen := map[string]bool{}
		for p, b := range m.Blocks {
			if b.Type != "tool_result" {
				continue
			}
			orphan, repeated := !called[b.ID], seen[b.ID]
			seen[b.ID] = true
			if !orphan && !repeated {
				continue
			}
			drop[place{k, p}] = true
			if orphan {
				waiting := unanswered[b.ID]
				nearest := 0
				for nearest < len(waiting) && waiting[nearest] < k {
					nearest++
				}
				if nearest > 0 {
					a := waiting[nearest-1]
					unanswered[b.ID] = append(append([]int{}, waiting[:nearest-1]...), waiting[nearest:]...)
					fill[a][b.ID] = b
				}
			}
		}
	}
	for id, waiting := range unanswered {
		for _, a := range waiting {
			if fill[a][id] == nil {
				fill[a][id] = &block{Type: "tool_result", ID: id, Text: interrupted, IsError: true}
			}
		}
	}
	inCallOrder := func(k int) []*block {
		var out []*block
		for _, u := range uses(stored[k]) {
			if r := fill[k][u.ID]; r != nil {
				out = append(out, r)
			}
		}
		return out
	}

	type turn struct {
		*message
		edited bool
	}
	var out []turn
	appendUser := func(t turn) {
		if n := len(out); n > 0 && out[n-1].Role == "user" && (out[n-1].edited || t.edited) && onlyResults(out[n-1].Blocks) {
			merged := append(append([]*block{}, out[n-1].Blocks...), t.Blocks...)
			out[n-1] = turn{&message{Role: "user", Blocks: merged}, true}
			return
		}
		out = append(out, t)
	}
	for k, m := range stored {
		if m.Role != "user" {
			out = append(out, turn{m, false})
			if added := inCallOrder(k); len(added) > 0 && (k+1 == len(stored) || stored[k+1].Role != "user") {
				out = append(out, turn{&message{Role: "user", Blocks: added}, true})
			}
			continue
		}
		var added []*block
		if k > 0 && stored[k-1].Role == "assistant" {
			added = inCallOrder(k - 1)
		}
		var results, others []*block
		disordered := false
		for p, b := range m.Blocks {
			if drop[place{k, p}] {
				continue
			}
			if b.Type == "tool_result" {
				results = append(results, b)
				disordered = disordered || len(others) > 0
			} else {
				others = append(others, b)
			}
		}
		if len(added) == 0 && len(results)+len(others) == len(m.Blocks) && !disordered {
			appendUser(turn{m, false})
			continue
		}
		kept := append(append(results, added...), others...)
		if len(kept) > 0 {
			appendUser(turn{&message{Role: "user", Blocks: kept}, true})
		}
	}
	messages := make([]*message, len(out))
	for i, t := range out {
		messages[i] = t.message
	}
	return messages
}

func onlyResults(blocks []*block) bool {
	for _, b := range blocks {
		if b.Type != "tool_result" {
			return false
		}
	}
	return len(blocks) > 0
}

type shownCall struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Input   json.RawMessage `json:"input"`
	Result  string          `json:"result"`
	IsError bool            `json:"is_error"`
}

type shown struct {
	MessageID string       `json:"message_id"`
	Role      string       `json:"role"`
	Text      string       `json:"text"`
	ToolCalls []*shownCall `json:"tool_calls"`
}

// rebuild is the transcript a restarted client shows from the stored history: one message per
// user text and per assistant text or thinking block; completed calls attach to the message
// before them, or, with none since the user spoke, to the next one.
func rebuild(stored []*message) []*shown {
	results := map[string]*block{}
	for _, m := range stored {
		if m.Role == "user" {
			for _, b := range m.Blocks {
				if b.Type == "tool_result" {
					results[b.ID] = b
				}
			}
		}
	}
	out := []*shown{}
	var host *shown
	var held []*shownCall
	seen := map[string]bool{}
	add := func(role, text string) {
		host = &shown{MessageID: fmt.Sprintf("resumed-%d", len(out)+1), Role: role, Text: text, ToolCalls: []*shownCall{}}
		out = append(out, host)
	}
	for _, m := range stored {
		if m.Role == "user" {
			for _, b := range m.Blocks {
				if b.Type == "text" {
					add("user", b.Text)
					host, held = nil, nil // a new interaction: calls held so far are not shown
				}
			}
			continue
		}
		for _, b := range m.Blocks {
			if b.Type == "tool_use" {
				r := results[b.ID]
				if r == nil || seen[b.ID] {
					continue
				}
				seen[b.ID] = true
				c := &shownCall{ID: b.ID, Name: b.Name, Input: input(b.Arguments), Result: r.Text, IsError: r.IsError}
				if host != nil {
					host.ToolCalls = append(host.ToolCalls, c)
				} else {
					held = append(held, c)
				}
				continue
			}
			role := "assistant"
			if b.Type == "thinking" {
				role = "thought"
			}
			add(role, b.Text)
			host.ToolCalls = append(host.ToolCalls, held...)
			held = nil
		}
	}
	return out
}

// -- the protocol -----------------------------------------------------------------------------

func main() {
	bug := flag.String("bug", "", "put back a known bug: subagent-into-parent")
	flag.Parse()
	if *bug != "" && *bug != "subagent-into-parent" {
		fmt.Fprintf(os.Stderr, "unknown --bug %q\n", *bug)
		os.Exit(2)
	}
	name := "go-session-store"
	if *bug != "" {
		name += " --bug=" + *bug
	}
	ss := &stores{byID: map[string]*store{}, parent: map[string]string{}, bug: *bug != ""}
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		data, err := json.Marshal(v)
		if err != nil {
			data, _ = json.Marshal(map[string]any{"ok": false, "error": err.Error()})
		}
		out.Write(data)
		out.WriteByte('\n')
		out.Flush()
	}
	for {
		line, err := in.ReadString('\n')
		if strings.TrimSpace(line) == "" {
			if err != nil {
				return
			}
			continue
		}
		var msg struct {
			Op        string `json:"op"`
			SessionID string `json:"session_id"`
			Event     *event `json:"event"`
		}
		if jerr := json.Unmarshal([]byte(line), &msg); jerr != nil {
			send(map[string]any{"ok": false, "error": "not a JSON object: " + jerr.Error()})
			continue
		}
		var s *store
		if msg.SessionID != "" || msg.Op == "history" || msg.Op == "request" || msg.Op == "rebuild" {
			s = ss.byID[msg.SessionID]
			if s == nil {
				s = newStore()
			}
		}
		switch msg.Op {
		case "hello":
			send(map[string]any{"ok": true, "protocol": 2, "layers": []string{"history"}, "name": name})
		case "feed":
			if msg.Event == nil {
				send(map[string]any{"ok": false, "error": "feed without an event"})
			} else if ferr := ss.feed(msg.Event); ferr != nil {
				send(map[string]any{"ok": false, "error": ferr.Error()})
			} else {
				send(map[string]any{"ok": true})
			}
		case "history":
			send(map[string]any{"ok": true, "messages": toJSON(s.stored())})
		case "request":
			send(map[string]any{"ok": true, "messages": toJSON(request(s.stored()))})
		case "rebuild":
			send(map[string]any{"ok": true, "messages": rebuild(s.stored())})
		case "shutdown":
			return
		default:
			send(map[string]any{"ok": false, "error": fmt.Sprintf("unknown op %q", msg.Op)})
		}
	}
}

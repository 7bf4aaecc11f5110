package hostsettings

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// hookCommand is `agentx-hook hook EVENT [--agent NAME] [extra]`.
func hookCommand(event, agent, extra string) string {
	cmd := "agentx-hook hook " + event
	if agent != "" {
		cmd += " --agent " + agent
	}
	if extra != "" {
		cmd += " " + extra
	}
	return cmd
}

// group is a Claude Code / Codex matcher group holding one command hook.
func group(matcher, event, extra string, timeout int) func(string) *jsonObject {
	return func(agent string) *jsonObject {
		h := newJSONObject()
		h.set("type", "command")
		h.set("command", hookCommand(event, agent, extra))
		if timeout > 0 {
			h.set("timeout", json.Number(strconv.Itoa(timeout)))
		}
		g := newJSONObject()
		if matcher != "" {
			g.set("matcher", matcher)
		}
		g.set("hooks", []any{h})
		return g
	}
}

// isOurs reports whether a hook entry (a matcher group, or a Copilot
// entry) runs agentx-hook: setup updates that entry in place instead of
// adding another, and remove takes it out.
func isOurs(v any) bool {
	obj, ok := v.(*jsonObject)
	if !ok {
		return false
	}
	for _, key := range []string{"command", "bash", "powershell"} {
		if s, ok := obj.vals[key].(string); ok && strings.Contains(s, "agentx-hook hook ") {
			return true
		}
	}
	if hooks, ok := obj.vals["hooks"].([]any); ok {
		for _, h := range hooks {
			if isOurs(h) {
				return true
			}
		}
	}
	return false
}

// agentsOf lists the --agent names in an entry's commands.
func agentsOf(v any) []string {
	obj, ok := v.(*jsonObject)
	if !ok {
		return nil
	}
	var out []string
	for _, key := range []string{"command", "bash"} {
		if s, ok := obj.vals[key].(string); ok {
			if _, rest, found := strings.Cut(s, "agentx-hook hook "); found {
				f := strings.Fields(rest)
				for i := 0; i+1 < len(f); i++ {
					if f[i] == "--agent" {
						out = append(out, f[i+1])
						break
					}
				}
			}
		}
	}
	if hooks, ok := obj.vals["hooks"].([]any); ok {
		for _, h := range hooks {
			out = append(out, agentsOf(h)...)
		}
	}
	return out
}

// decodeRoot decodes a settings file's top-level object; an absent or
// blank file is a new, empty one.
func decodeRoot(old []byte, exists bool) (*jsonObject, error) {
	if !exists || len(bytes.TrimSpace(old)) == 0 {
		return newJSONObject(), nil
	}
	if err := checkSize(old); err != nil {
		return nil, err
	}
	v, err := decodeOrdered(old)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON: %w", err)
	}
	obj, ok := v.(*jsonObject)
	if !ok {
		return nil, errNotObject
	}
	return obj, nil
}

// hooksObject is the file's "hooks" object (nil when there is none).
func hooksObject(old []byte, exists bool) (*jsonObject, error) {
	root, err := decodeRoot(old, exists)
	if err != nil {
		return nil, err
	}
	hv, ok := root.get("hooks")
	if !ok {
		return nil, nil
	}
	hooks, ok := hv.(*jsonObject)
	if !ok {
		return nil, errors.New(`"hooks" is not a JSON object`)
	}
	return hooks, nil
}

// mergeHostHooks puts h's entries into a host's settings file, keeping
// every other key and hook. The result is old itself when nothing needs to
// change, so a re-run leaves the file byte for byte as it was.
func mergeHostHooks(old []byte, exists bool, h Host, agent string) ([]byte, error) {
	root, err := decodeRoot(old, exists)
	if err != nil {
		return nil, err
	}
	changed := !exists
	if h.top != nil {
		n := len(root.keys)
		h.top(root)
		changed = changed || len(root.keys) != n
	}
	hv, ok := root.get("hooks")
	if !ok {
		hv = newJSONObject()
		root.set("hooks", hv)
		changed = true
	}
	hooks, ok := hv.(*jsonObject)
	if !ok {
		return nil, errors.New(`"hooks" is not a JSON object`)
	}
	for _, ev := range h.events {
		want := ev.entry(agent)
		list, err := eventList(hooks, ev.event)
		if err != nil {
			return nil, err
		}
		i := 0
		for i < len(list) && !isOurs(list[i]) {
			i++
		}
		switch {
		case i == len(list):
			list = append(list, want)
		case equalJSON(list[i], want):
			continue
		default:
			list[i] = want
		}
		hooks.set(ev.event, list)
		changed = true
	}
	if !changed {
		return old, nil
	}
	return encodeOrdered(root), nil
}

// eventList is hooks[event] ([] when absent).
func eventList(hooks *jsonObject, event string) ([]any, error) {
	v, ok := hooks.get(event)
	if !ok {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf(`"hooks.%s" is not a JSON array`, event)
	}
	return list, nil
}

// removeHostHooks takes h's entries out of a host's settings file: every
// entry running agentx-hook under h's events, then an event left empty,
// then "hooks" left empty. empty reports a file left with nothing but
// what setup writes (no key, or Copilot's version alone): it can go. The
// result is old itself when nothing of ours was there.
func removeHostHooks(old []byte, exists bool, h Host) (out []byte, empty bool, err error) {
	if !exists {
		return nil, false, nil
	}
	root, err := decodeRoot(old, exists)
	if err != nil {
		return nil, false, err
	}
	changed := false
	if hv, ok := root.get("hooks"); ok {
		hooks, ok := hv.(*jsonObject)
		if !ok {
			return nil, false, errors.New(`"hooks" is not a JSON object`)
		}
		for _, ev := range h.events {
			list, err := eventList(hooks, ev.event)
			if err != nil {
				return nil, false, err
			}
			kept := make([]any, 0, len(list))
			for _, e := range list {
				if !isOurs(e) {
					kept = append(kept, e)
				}
			}
			if len(kept) == len(list) {
				continue
			}
			changed = true
			if len(kept) == 0 {
				hooks.del(ev.event)
			} else {
				hooks.set(ev.event, kept)
			}
		}
		if changed && len(hooks.keys) == 0 {
			root.del("hooks")
		}
	}
	if onlyOurs(root, h) {
		return nil, true, nil
	}
	if !changed {
		return old, false, nil
	}
	return encodeOrdered(root), false, nil
}

// onlyOurs reports whether root holds nothing setup would not write on its
// own: no key, or only the keys h's top sets, with its values.
func onlyOurs(root *jsonObject, h Host) bool {
	if len(root.keys) == 0 {
		return true
	}
	if h.top == nil {
		return false
	}
	want := newJSONObject()
	h.top(want)
	return equalJSON(root, want)
}

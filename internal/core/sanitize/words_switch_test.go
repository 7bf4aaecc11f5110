package sanitize

import "testing"

// TestWordSwitches holds reservedExact and typeWord (switches since issue
// 35: a map literal is built at every process start) to the words the
// maps held.
func TestWordSwitches(t *testing.T) {
	reserved := []string{"system", "system-reminder", "system-instruction", "system-instructions",
		"system-prompt", "system-message", "instructions", "instruction", "user", "assistant", "human",
		"developer", "tool", "user-prompt-submit-hook", "command-name", "command-message", "command-args",
		"local-command-stdout", "local-command-stderr", "function-calls", "function-results", "invoke",
		"parameter", "thinking", "tool-use", "tool-result", "environment-context", "user-instructions",
		"user-message", "turn-aborted"}
	types := []string{"string", "str", "int", "bool", "boolean", "number", "bytes", "byte", "[]byte", "any",
		"unknown", "none", "null", "nil", "undefined", "true", "false", "object", "optional", "required",
		"text", "char", "varchar", "secretstr", "string[]", "str,", "void", "redacted", "hidden"}
	for _, w := range reserved {
		if !reservedExact(w) {
			t.Errorf("reservedExact(%q) = false", w)
		}
	}
	for _, w := range types {
		if !typeWord(w) {
			t.Errorf("typeWord(%q) = false", w)
		}
	}
	for _, w := range []string{"", "System", "systems", "hunter2", "password", "string2"} {
		if reservedExact(w) || typeWord(w) {
			t.Errorf("%q taken for a reserved tag or a type word", w)
		}
	}
}

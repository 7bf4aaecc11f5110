package capture

import "testing"

// TestToolNameSwitches holds editTool and shellTool (switches since issue
// 35: a map literal is built at every process start) to the names the
// maps held, and to nothing else.
func TestToolNameSwitches(t *testing.T) {
	edit := []string{"edit", "multiedit", "write", "notebookedit", "create", "str_replace_editor", "str_replace",
		"insert", "apply_patch", "write_file", "edit_file", "create_file", "replace"}
	shell := []string{"bash", "shell", "shell_command", "exec_command", "local_shell", "run_shell_command",
		"powershell", "run_in_terminal"}
	for _, n := range edit {
		if !editTool(n) || shellTool(n) {
			t.Errorf("%q: editTool %v, shellTool %v; want an edit tool only", n, editTool(n), shellTool(n))
		}
	}
	for _, n := range shell {
		if !shellTool(n) || editTool(n) {
			t.Errorf("%q: shellTool %v, editTool %v; want a shell tool only", n, shellTool(n), editTool(n))
		}
	}
	for _, n := range []string{"", "Edit", "read", "grep", "view", "bash2"} {
		if editTool(n) || shellTool(n) {
			t.Errorf("%q taken for a tool that edits or runs commands", n)
		}
	}
}

package intake

import (
	"errors"
	"strings"
	"testing"

	"github.com/agentx-dev/agentx/internal/core/errcode"
)

func TestReadInput(t *testing.T) {
	readFile := func(what, path string) ([]byte, error) {
		if path == "missing" {
			return nil, errors.New("no such file")
		}
		return []byte(what + ":" + path), nil
	}
	for _, tc := range []struct {
		name, file, want string
		code             errcode.Code
	}{
		{"stdin", "", "from stdin", ""},
		{"dash is stdin", "-", "from stdin", ""},
		{"file", "f.json", "memory capture --file:f.json", ""},
		{"unreadable", "missing", "", errcode.InvalidInput},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := ReadInput(tc.file, strings.NewReader("from stdin"), readFile)
			if string(data) != tc.want || errcode.CodeOf(err) != tc.code {
				t.Errorf("ReadInput = %q %v", data, err)
			}
		})
	}
}

func TestFromInputNamesTheFile(t *testing.T) {
	for _, tc := range []struct{ file, prefix string }{
		{"", "hook payload: not valid JSON"},
		{"-", "hook payload: not valid JSON"},
		{"notes.md", "memory capture --file: notes.md: hook payload: not valid JSON"},
	} {
		_, err := FromInput("engineer", 1, []byte("{not json"), "", tc.file)
		if !errcode.Is(err, errcode.InvalidInput) || !strings.HasPrefix(err.Error(), tc.prefix) {
			t.Errorf("file %q: %v", tc.file, err)
		}
	}
}

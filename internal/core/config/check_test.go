package config

import (
	"reflect"
	"testing"
)

func TestWarnings(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, data string
		want       []string
	}{
		{name: "clean", data: "mode = \"local\"\n[responders.architect]\ncommand = [\"x\"]\n"},
		{name: "misspelt section", data: "mode = \"local\"\n\n[responder.architect]\ncommand = [\"x\"]\ntimeout = \"1m\"\n",
			want: []string{`a.toml:3: unknown section "responder" is ignored`}},
		{name: "unknown key in a known section", data: "[memory]\nenabled = true\nmax_token = 5\n",
			want: []string{`a.toml:3: unknown key "memory.max_token" is ignored`}},
		{name: "unknown top-level key", data: "\nmodes = \"github\"\n",
			want: []string{`a.toml:2: unknown key "modes" is ignored`}},
		{name: "unknown mode", data: "# c\nmode = \"remote\"\n",
			want: []string{`a.toml:2: mode "remote" is neither local nor github; local is used`}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseConfig("a.toml", []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(c.Warnings, tt.want) {
				t.Errorf("warnings = %q, want %q", c.Warnings, tt.want)
			}
		})
	}
}

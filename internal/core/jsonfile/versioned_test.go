package jsonfile

import (
	"encoding/json"
	"testing"
)

func TestVersionedAndList(t *testing.T) {
	type doc struct {
		A []int `json:"a"`
		Versioned
		Z string `json:"z"`
	}
	for _, tc := range []struct {
		name string
		in   []int
		want string
	}{
		{"nil list", nil, `{"a":[],"schemaVersion":2,"z":""}`},
		{"list", []int{1}, `{"a":[1],"schemaVersion":2,"z":""}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := doc{A: List(tc.in)}
			d.SetSchemaVersion(2)
			got, err := json.Marshal(d)
			if err != nil || string(got) != tc.want {
				t.Errorf("got %s %v, want %s", got, err, tc.want)
			}
		})
	}
}

package events

import "testing"

func TestDocText(t *testing.T) {
	for _, tc := range []struct {
		name string
		evs  []Event
		want string
	}{
		{"none", nil, "No events.\n"},
		{"one", []Event{{}}, Event{}.Line() + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewDoc(tc.evs)
			if got := d.Text(); got != tc.want || d.Events == nil {
				t.Errorf("Text = %q, want %q", got, tc.want)
			}
		})
	}
}

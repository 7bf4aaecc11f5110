package hookcmd

import (
	"flag"
	"fmt"
)

// onceValue is a value flag that refuses a second, different value: Go's
// flag package keeps the last silently, so `--issue 7 ... --issue 8` (a
// line put together by a script, a pasted flag) acted on issue 8 with no
// word. The same value twice is taken; switches (--json) are not wrapped.
type onceValue struct {
	flag.Value
	name  string
	first *string
}

func (o *onceValue) Set(v string) error {
	if o.first != nil && *o.first != v {
		return fmt.Errorf("%s given twice (%q, then %q): give it once", dashed(o.name), *o.first, v)
	}
	o.first = &v
	return o.Value.Set(v)
}

// Get is the wrapped value's, so valueError still names its kind.
func (o *onceValue) Get() any {
	if g, ok := o.Value.(flag.Getter); ok {
		return g.Get()
	}
	return o.String()
}

// onlyOnce wraps every value flag of flags in onceValue (once per set).
func onlyOnce(flags *flag.FlagSet) {
	flags.VisitAll(func(f *flag.Flag) {
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			return
		}
		if _, done := f.Value.(*onceValue); !done {
			f.Value = &onceValue{Value: f.Value, name: f.Name}
		}
	})
}

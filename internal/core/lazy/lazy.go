// Package lazy is a value built on its first use, declared without any
// work at process start.
//
// Every agentx process pays for every package-level value its binary
// links, whatever the command: `var re = regexp.MustCompile(...)`, a map
// literal, even `var re = sync.OnceValue(...)` (two allocations) run in
// the package's initialiser, before main, and an initialiser's first call
// also faults in its code page. A Value declared as a composite literal
// with a function literal is laid out by the compiler as static data, so
// a package whose package-level values are all such needs no initialiser
// at all (`GODEBUG=inittrace=1` lists it no more).
package lazy

import "sync"

// Value is a T built by New on the first Get, once, whichever goroutine
// asks first; every Get returns that T. Declare it at package level as
//
//	var re = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`...`) }}
//
// New must not call Get on the same Value. A Value must not be copied
// after first use.
type Value[T any] struct {
	New  func() T
	once sync.Once
	v    T
}

// Get returns the value, building it on the first call.
func (l *Value[T]) Get() T {
	l.once.Do(l.build)
	return l.v
}

func (l *Value[T]) build() { l.v = l.New() }

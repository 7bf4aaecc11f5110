package ledger

import "sync"

// tornWaits counts LoadFile's pauses for a held lock, by ledger path, for
// every test of the package (set before any test runs, so parallel tests
// read it safely); listeners are told of each pause as it happens.
var tornWaits struct {
	mu        sync.Mutex
	n         map[string]int
	listeners map[string]func()
}

func init() {
	tornWaits.n = map[string]int{}
	tornWaits.listeners = map[string]func(){}
	onTornWait = func(path string) {
		tornWaits.mu.Lock()
		tornWaits.n[path]++
		f := tornWaits.listeners[path]
		tornWaits.mu.Unlock()
		if f != nil {
			f()
		}
	}
}

// tornWaitsAt returns how many times LoadFile paused for path's lock.
func tornWaitsAt(path string) int {
	tornWaits.mu.Lock()
	defer tornWaits.mu.Unlock()
	return tornWaits.n[path]
}

// onTornWaitAt calls f at each of LoadFile's pauses for path's lock.
func onTornWaitAt(path string, f func()) {
	tornWaits.mu.Lock()
	defer tornWaits.mu.Unlock()
	tornWaits.listeners[path] = f
}

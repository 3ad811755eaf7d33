// Package cleanup keeps the list of what a niro process must undo however
// it ends: temporary files and directories to remove and tool process
// groups to kill. Code that makes one registers it and releases the entry
// once it has undone it itself; on a signal the command line calls [Run],
// which undoes whatever is still registered.
package cleanup

import (
	"os"
	"sync"
)

var (
	mu     sync.Mutex
	next   int
	paths  = map[int]string{}
	groups = map[int]int{}
)

// Path registers a temporary file or directory that niro created. The
// returned release removes it (os.RemoveAll) and drops the entry; it may
// be called more than once.
func Path(p string) (release func()) {
	mu.Lock()
	next++
	id := next
	paths[id] = p
	mu.Unlock()
	return func() {
		mu.Lock()
		_, ok := paths[id]
		delete(paths, id)
		mu.Unlock()
		if ok {
			os.RemoveAll(p)
		}
	}
}

// Forget drops a path registered with Path without removing it: the file
// now belongs to the user (a temporary output renamed into place, a
// directory kept with --keep-temps).
func Forget(p string) {
	mu.Lock()
	defer mu.Unlock()
	for id, q := range paths {
		if q == p {
			delete(paths, id)
		}
	}
}

// Group registers a running tool's process group. The returned release
// drops the entry without killing anything.
func Group(pgid int) (release func()) {
	mu.Lock()
	next++
	id := next
	groups[id] = pgid
	mu.Unlock()
	return func() {
		mu.Lock()
		delete(groups, id)
		mu.Unlock()
	}
}

// Run kills every registered process group (SIGKILL) and removes every
// registered path. It is for the exit path after a signal.
func Run() {
	mu.Lock()
	gs, ps := groups, paths
	groups, paths = map[int]int{}, map[int]string{}
	mu.Unlock()
	for _, g := range gs {
		killGroup(g)
	}
	for _, p := range ps {
		os.RemoveAll(p)
	}
}

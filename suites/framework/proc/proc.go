// Package proc tells whether a process the harness started still runs, from
// /proc. An exited process keeps its entry as a zombie until its parent reaps
// it, which for a detached component may be late or never; it counts as gone.
package proc

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

// Alive says whether pid exists and is not a zombie.
func Alive(pid int) bool {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// "pid (comm) state ...": comm may hold spaces and parentheses.
	i := bytes.LastIndexByte(stat, ')')
	return i > 0 && len(stat) > i+2 && stat[i+2] != 'Z'
}

// Runs says whether pid is alive and executing binary, so that a PID the
// kernel has given to another program since does not count.
func Runs(pid int, binary string) bool {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return err == nil && Alive(pid) && strings.TrimSuffix(exe, " (deleted)") == binary
}

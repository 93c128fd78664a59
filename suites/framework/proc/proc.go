// Package proc tells whether a process the harness started still runs, from
// /proc. An exited process keeps its entry as a zombie until its parent reaps
// it, which for a detached component may be late or never; it counts as gone.
package proc

import (
	"fmt"
	"os"
	"strings"
)

// StatFields returns the fields of /proc/<pid>/stat after the command name
// (state first, then ppid, pgrp, ...: proc(5) numbers them from 3). The
// name is in parentheses and may hold spaces and parentheses itself.
func StatFields(pid int) ([]string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return nil, err
	}
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return nil, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	return strings.Fields(s[i+1:]), nil
}

// Alive says whether pid exists and is not a zombie.
func Alive(pid int) bool {
	f, err := StatFields(pid)
	return err == nil && len(f) > 0 && f[0] != "Z"
}

// Runs says whether pid is alive and executing binary, so that a PID the
// kernel has given to another program since does not count.
func Runs(pid int, binary string) bool {
	exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return err == nil && Alive(pid) && strings.TrimSuffix(exe, " (deleted)") == binary
}

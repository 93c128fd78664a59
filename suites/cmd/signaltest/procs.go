package main

import (
	"bytes"
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/gangconf/gangconf/suites/framework/proc"
)

// procID names one process for its whole life: a PID the kernel hands to
// another process later comes with another start time.
type procID struct {
	pid   int
	start uint64
}

// procInfo is what the tracker knows of a process.
type procInfo struct {
	id         procID
	ppid, pgid int
	comm       string
	cmdline    string
}

func (p procInfo) String() string {
	cmd := p.cmdline
	if len(cmd) > 160 {
		cmd = cmd[:160] + "..."
	}
	if cmd == "" {
		cmd = "[" + p.comm + "]"
	}
	return fmt.Sprintf("PID %d (%s)", p.id.pid, cmd)
}

// readProc reads one process's identity and place in the process tree.
func readProc(pid int) (procInfo, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return procInfo{}, false
	}
	s := string(data)
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return procInfo{}, false
	}
	// After the name: state, ppid, pgrp, session, ..., starttime (field 22
	// of proc(5), index 19 here).
	f := strings.Fields(s[end+1:])
	if len(f) < 20 {
		return procInfo{}, false
	}
	ppid, _ := strconv.Atoi(f[1])
	pgid, _ := strconv.Atoi(f[2])
	start, _ := strconv.ParseUint(f[19], 10, 64)
	info := procInfo{id: procID{pid, start}, ppid: ppid, pgid: pgid, comm: s[open+1 : end]}
	if cmd, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
		info.cmdline = strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '})))
	}
	return info, true
}

// stillRuns says whether the process is alive (a zombie is gone) and is the
// same process, not a later one with its PID.
func stillRuns(id procID) bool {
	p, ok := readProc(id.pid)
	return ok && p.id == id && proc.Alive(id.pid)
}

// tracker finds every process of one run while it runs, and the TCP ports
// they listen on, so that what outlives the run can be named afterwards:
// a process is the run's when it is in the run's process group, descends
// from a process of the run, or mentions the run's directory.
type tracker struct {
	mark string
	pgid int
	self int
	// members is every process of the run seen; decided every process
	// seen, member or not, so each is looked at once.
	members map[procID]procInfo
	decided map[procID]bool
	// ports the run's processes were seen listening on.
	ports map[int]bool
}

func newTracker(mark string, pgid int) *tracker {
	return &tracker{mark: mark, pgid: pgid, self: os.Getpid(),
		members: map[procID]procInfo{}, decided: map[procID]bool{}, ports: map[int]bool{}}
}

// poll looks at every process once.
func (t *tracker) poll() {
	var fresh []procInfo
	for _, pid := range proc.PIDs() {
		if pid == t.self {
			continue
		}
		p, ok := readProc(pid)
		if !ok || t.decided[p.id] {
			continue
		}
		fresh = append(fresh, p)
	}
	// A parent is usually older, so sorting by start time decides it first.
	slices.SortFunc(fresh, func(a, b procInfo) int { return cmp.Compare(a.id.start, b.id.start) })
	byPID := map[int]procID{}
	for id := range t.members {
		byPID[id.pid] = id
	}
	for _, p := range fresh {
		_, parentIn := byPID[p.ppid]
		if p.pgid == t.pgid || parentIn || proc.Mentions(p.id.pid, t.mark) {
			t.members[p.id] = p
			byPID[p.id.pid] = p.id
		}
		t.decided[p.id] = true
	}
}

// alive returns the run's processes that still run.
func (t *tracker) alive() []procInfo {
	var out []procInfo
	for id, p := range t.members {
		if stillRuns(id) {
			out = append(out, p)
		}
	}
	slices.SortFunc(out, func(a, b procInfo) int { return a.id.pid - b.id.pid })
	return out
}

// pollPorts records the TCP ports the run's live processes listen on.
func (t *tracker) pollPorts() {
	listening := listeningPorts()
	if len(listening) == 0 {
		return
	}
	for _, p := range t.alive() {
		for inode := range socketInodes(p.id.pid) {
			if port, ok := listening[inode]; ok {
				t.ports[port] = true
			}
		}
	}
}

// listeningPorts maps the socket inode of every listening TCP socket (IPv4
// and IPv6) to its port.
func listeningPorts() map[uint64]int {
	out := map[uint64]int{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n")[1:] {
			inode, port, ok := parseListen(line)
			if ok {
				out[inode] = port
			}
		}
	}
	return out
}

// tcpListen is the state of a listening socket in /proc/net/tcp.
const tcpListen = "0A"

// parseListen reads one line of /proc/net/tcp: "sl local rem st ... inode".
func parseListen(line string) (inode uint64, port int, ok bool) {
	f := strings.Fields(line)
	if len(f) < 10 || f[3] != tcpListen {
		return 0, 0, false
	}
	_, hexPort, found := strings.Cut(f[1], ":")
	p, err := strconv.ParseUint(hexPort, 16, 16)
	if !found || err != nil {
		return 0, 0, false
	}
	inode, err = strconv.ParseUint(f[9], 10, 64)
	return inode, int(p), err == nil && inode != 0
}

// socketInodes returns the inodes of the sockets a process holds open.
func socketInodes(pid int) map[uint64]bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	out := map[uint64]bool{}
	for _, e := range entries {
		link, err := os.Readlink(filepath.Join(dir, e.Name()))
		if err != nil {
			continue
		}
		if rest, ok := strings.CutPrefix(link, "socket:["); ok {
			if inode, err := strconv.ParseUint(strings.TrimSuffix(rest, "]"), 10, 64); err == nil {
				out[inode] = true
			}
		}
	}
	return out
}

// openPorts returns which of the run's ports something still listens on,
// with who, when that can be found.
func (t *tracker) openPorts() []string {
	listening := listeningPorts()
	var out []string
	for inode, port := range listening {
		if !t.ports[port] {
			continue
		}
		owner := "owner not found"
		for _, pid := range proc.PIDs() {
			if socketInodes(pid)[inode] {
				if p, ok := readProc(pid); ok {
					owner = p.String()
				}
				break
			}
		}
		out = append(out, fmt.Sprintf("port %d still listening (%s)", port, owner))
	}
	slices.Sort(out)
	return out
}

// kill ends a leftover process of the run with SIGKILL, by PID, only if that
// PID is still the same process.
func kill(p procInfo) error {
	if !stillRuns(p.id) {
		return nil
	}
	return syscall.Kill(p.id.pid, syscall.SIGKILL)
}

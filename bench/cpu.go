package main

import (
	"bufio"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTicks is USER_HZ, the unit of /proc/PID/stat's CPU times: 100 on
// every Linux architecture Go supports.
const clockTicks = 100

// processCPU returns the user+system CPU time pid has used so far, from
// /proc/PID/stat.
func processCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; fields count from its ")".
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: too few fields", pid)
	}
	// f[0] is field 3 (state); utime is field 14, stime field 15.
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad CPU times", pid)
	}
	return time.Duration(ut+st) * time.Second / clockTicks, nil
}

// selfCPU returns the CPU time this process (the load generator) has used.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuMeter measures the CPU time of the server (if its PID is known) and of
// the generator over an interval.
type cpuMeter struct {
	pid            int
	server0, self0 time.Duration
	serverErr      error
	server, self   time.Duration
}

func startCPU(pid int) *cpuMeter {
	m := &cpuMeter{pid: pid, self0: selfCPU()}
	if pid > 0 {
		m.server0, m.serverErr = processCPU(pid)
	}
	return m
}

// stop ends the interval; server is -1 when it could not be measured.
func (m *cpuMeter) stop() (server, self time.Duration) {
	m.self = selfCPU() - m.self0
	m.server = -1
	if m.pid > 0 && m.serverErr == nil {
		if now, err := processCPU(m.pid); err == nil {
			m.server = now - m.server0
		}
	}
	return m.server, m.self
}

// serverPID finds the process listening on rawURL's port on this machine:
// the listening socket's inode from /proc/net/tcp{,6}, then the process
// holding a descriptor for it. It returns 0 when the URL is not local or no
// such process is visible (another user's process, a container).
func serverPID(rawURL string) int { return serverPIDs([]string{rawURL})[0] }

// urlPort is rawURL's port when its host is this machine's, else 0.
func urlPort(rawURL string) int {
	u, err := url.Parse(rawURL)
	if err != nil {
		return 0
	}
	host := u.Hostname()
	if host != "localhost" && host != "127.0.0.1" && host != "::1" && host != "0.0.0.0" {
		return 0
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		if u.Scheme == "https" {
			port = 443
		} else {
			port = 80
		}
	}
	return port
}

// listeningInodes adds the inodes of sockets listening on port from one
// /proc/net table.
func listeningInodes(table string, port int, into map[string]bool) {
	f, err := os.Open(table)
	if err != nil {
		return
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	want := fmt.Sprintf(":%04X", port)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		// sl local_address rem_address st ... inode is field 10
		if len(fs) < 10 || fs[3] != "0A" || !strings.HasSuffix(fs[1], want) {
			continue
		}
		into[fs[9]] = true
	}
}

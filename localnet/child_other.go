//go:build !linux

package localnet

import "syscall"

// childAttr: without a parent-death signal outside Linux, the children
// share the supervisor's process group (a Ctrl-C reaches them all; a
// SIGKILL of the supervisor alone leaves them running).
func childAttr() *syscall.SysProcAttr { return nil }

// detachAttr: a detached supervisor needs no special attributes here.
func detachAttr() *syscall.SysProcAttr { return nil }

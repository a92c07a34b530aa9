package localnet

import "syscall"

// childAttr makes a child die with its parent, even when the parent is
// killed with SIGKILL and cannot stop it (Linux's parent-death signal),
// and keeps it out of the terminal's process group, so that Ctrl-C
// reaches the supervisor only, which stops the children in order.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
}

// detachAttr starts a detached supervisor in a session of its own: it
// outlives the command that started it and the terminal.
func detachAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setsid: true} }

package txjournal

import (
	"os"
	"syscall"
)

// syncData makes f's data durable. fdatasync skips the timestamp-only
// metadata fsync also writes; the file's size, which appends change, is
// still made durable, as replay needs it.
func syncData(f *os.File) error {
	for {
		err := syscall.Fdatasync(int(f.Fd()))
		if err != syscall.EINTR {
			return err
		}
	}
}

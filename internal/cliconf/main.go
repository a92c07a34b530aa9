package cliconf

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// Main is the main function of each of Basalt's programs: it runs the
// program's command with a context that SIGINT or SIGTERM cancels (the
// command then shuts down in order) and exits with the code it returns.
func Main(run func(ctx context.Context) int) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx)
	stop()
	os.Exit(code)
}

package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/basaltchain/basalt/rpc/auth"
)

// newPasswordCommand is `basalt password hash --password=<pw>`, which prints
// a bcrypt hash (cost 10, "$2a$", a fresh salt) for the password key of a
// JSON-RPC credentials file, without a trailing newline, as Besu does.
func newPasswordCommand() *cobra.Command {
	var password string
	hash := &cobra.Command{
		Use:   "hash",
		Short: "Print the bcrypt hash of --password for a credentials file",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("password") {
				// picocli's wording, as Besu prints it.
				return usageError{errors.New("Missing required option '--password=<password>'")}
			}
			h, err := auth.HashPassword(password)
			if err != nil {
				return fmt.Errorf("--password: %w", err)
			}
			_, err = fmt.Fprint(cmd.OutOrStdout(), h)
			return err
		},
	}
	hash.Flags().StringVar(&password, "password", "", "The password to hash")
	return commandGroup("password", "Hash passwords for the JSON-RPC credentials file", hash)
}

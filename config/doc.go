// Package config turns the command line, BASALT_* environment variables and
// a TOML config file into one validated Config for the basalt program, and
// parses genesis files (Besu's format, go-ethereum's spellings accepted) and
// the named dev network into a Genesis.
//
// # Options
//
// Every option has one name used three ways: the flag --rpc-http-port, the
// environment variable BASALT_RPC_HTTP_PORT (EnvName; Besu's
// BESU_RPC_HTTP_PORT too, after it) and the config-file key rpc-http-port.
// Precedence, as in Besu: command line, then environment, then config file,
// then default.
//
// Every option of Besu's command-line reference is an option here, so a
// Besu configuration starts Basalt unchanged: those Basalt acts on are in
// flags.go, the others in besu.go, each checked as Besu checks it and, when
// given, named in a start-up Notice saying what Basalt does instead
// (Config.LogNotices); a value that would weaken the node if ignored is an
// error. Besu's rules between options are in rules.go. docs/reference/configuration.md's
// table of every option is generated from these tables. AddFlags registers the flags on the root
// command (the options subcommands share as persistent flags); Load(cmd)
// resolves and validates them for the root command or any subcommand and
// loads the selected genesis. Errors are one line naming the flag and, for
// values from the environment or the file, where the value came from. The
// config file, like Besu's, must not contain unknown keys. The sources are
// read by internal/cliconf, the loader basalt-signer and basalt-privacy use
// too; this package holds basalt's option table (flags.go) and its checks.
// Each option is a cliconf.Option, with its default, beside how it sets
// Config; Defaults is the configuration those defaults make, the values
// the node hands its constructors.
//
// # Genesis
//
// ParseGenesis keeps Besu's meaning where it differs from go-ethereum's:
//
//   - Keys are case-insensitive and unknown keys are ignored.
//   - Besu milestones include every earlier one: an unset block fork that
//     precedes a set one takes the next later set value (londonBlock 33 alone
//     puts Homestead..Berlin at 33), and likewise Shanghai..Osaka timestamps.
//     Timestamp forks active at genesis without londonBlock put London at 0.
//   - constantinopleFixBlock is petersburgBlock; daoForkBlock 0 means no DAO
//     fork and a set daoForkBlock means DAO support.
//   - Blob forks without a blobSchedule entry get go-ethereum's defaults.
//   - Strings for nonce, difficulty, excessBlobGas, blobGasUsed and account
//     nonces are hexadecimal even without 0x (Besu's parser); other numeric
//     strings are decimal unless they start with 0x; JSON numbers are decimal.
//   - Besu-only options go-ethereum has no place for (ethash
//     fixeddifficulty, contractSizeLimit, evmStackSize, zeroBaseFee, clique,
//     ibft2, qbft) are fields of Genesis.
//
// The result always passes params.ChainConfig.CheckConfigForkOrder, and
// Genesis.Core.ToBlock() builds the same genesis block as Besu.
package config

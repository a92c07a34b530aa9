package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/spf13/cobra"

	"github.com/basaltchain/basalt/consensus/ibft2"
	"github.com/basaltchain/basalt/consensus/qbft"
)

// The --type values of `rlp encode|decode` (Besu's RLPType): the genesis
// extraData of IBFT 2.0 and of QBFT.
const (
	rlpTypeIBFTExtraData = "IBFT_EXTRA_DATA"
	rlpTypeQBFTExtraData = "QBFT_EXTRA_DATA"
)

var rlpTypes = []string{rlpTypeIBFTExtraData, rlpTypeQBFTExtraData}

// Besu's messages for unreadable or ill-shaped JSON input
// (RLPSubCommand).
const (
	errReadJSON = "An error occurred while trying to read the JSON data."
	errMapJSON  = "Unable to map the JSON data with selected type. Please check JSON input format."
)

// validatorAddress is the pattern of one validator of the input array
// (node-api.md). Besu's Address.fromHexString also accepts a 0x prefix and
// upper-case digits, so those are accepted and normalised first.
var validatorAddress = regexp.MustCompile(`^([0-9a-f]{40})$`)

// newRLPCommand is `basalt rlp encode|decode`.
func newRLPCommand() *cobra.Command {
	return commandGroup("rlp", "Encode or decode RLP data",
		rlpSubcommand("encode", "Encode a typed JSON value into an RLP hexadecimal string", encodeBFTExtraData),
		rlpSubcommand("decode", "Decode an RLP hexadecimal string into a typed JSON value", decodeBFTExtraData))
}

func rlpSubcommand(use, short string, convert func(typ, in string) (string, error)) *cobra.Command {
	var from, to, typ string
	cmd := &cobra.Command{
		Use:   use,
		Short: short,
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !slices.Contains(rlpTypes, typ) {
				return fmt.Errorf("invalid value for option '--type': expected one of [%s] (case-sensitive) but was '%s'",
					strings.Join(rlpTypes, ", "), typ)
			}
			var (
				data []byte
				err  error
			)
			if from == "" {
				data, err = io.ReadAll(cmd.InOrStdin())
			} else {
				data, err = os.ReadFile(from)
			}
			if err != nil {
				return fmt.Errorf("%s %v", errReadJSON, err)
			}
			out, err := convert(typ, strings.Join(strings.Fields(string(data)), ""))
			if err != nil {
				return err
			}
			if to == "" {
				_, err = fmt.Fprintln(cmd.OutOrStdout(), out)
				return err
			}
			if err := os.WriteFile(to, []byte(out), 0o644); err != nil {
				return fmt.Errorf("write %s: %w", to, err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "File containing the data to convert (standard input when omitted)")
	cmd.Flags().StringVar(&to, "to", "", "File to write the result to (standard output when omitted)")
	cmd.Flags().StringVar(&typ, "type", rlpTypeIBFTExtraData, "Type of the data: "+strings.Join(rlpTypes, ", "))
	return cmd
}

// encodeBFTExtraData turns a JSON array of validator addresses into the
// genesis extraData of the type's layout.
func encodeBFTExtraData(typ, in string) (string, error) {
	if in == "" {
		return "", errors.New(errReadJSON)
	}
	var list []string
	if err := json.Unmarshal([]byte(in), &list); err != nil {
		return "", fmt.Errorf("%s %v", errMapJSON, err)
	}
	addrs := make([]common.Address, len(list))
	for i, s := range list {
		a := strings.ToLower(strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X"))
		if !validatorAddress.MatchString(a) {
			return "", fmt.Errorf("%s invalid validator address %q: expected 40 hexadecimal digits", errMapJSON, s)
		}
		addrs[i] = common.HexToAddress(a)
	}
	if typ == rlpTypeQBFTExtraData {
		return hexutil.Encode(qbft.EncodeValidators(addrs)), nil
	}
	return hexutil.Encode(ibft2.EncodeValidators(addrs)), nil
}

// decodeBFTExtraData is the reverse: an extraData in hex, of the type's
// layout, to a JSON object of its items.
func decodeBFTExtraData(typ, in string) (string, error) {
	if in == "" {
		return "", errors.New(errReadJSON)
	}
	b, err := hexutil.Decode(strings.Trim(in, `"`))
	if err != nil {
		if b, err = hexutil.Decode("0x" + strings.Trim(in, `"`)); err != nil {
			return "", fmt.Errorf("%s %v", errMapJSON, err)
		}
	}
	extra, err := decodeExtra(typ, b)
	if err != nil {
		return "", fmt.Errorf("%s %v", errMapJSON, err)
	}
	type vote struct {
		Recipient common.Address `json:"recipient"`
		Add       bool           `json:"add"`
	}
	out := struct {
		Vanity     hexutil.Bytes    `json:"vanityData"`
		Validators []common.Address `json:"validators"`
		Vote       *vote            `json:"vote"`
		Round      uint32           `json:"round"`
		Seals      []hexutil.Bytes  `json:"seals"`
	}{Vanity: extra.Vanity[:], Validators: extra.Validators, Round: extra.Round, Seals: []hexutil.Bytes{}}
	if out.Validators == nil {
		out.Validators = []common.Address{}
	}
	if extra.Vote != nil {
		out.Vote = &vote{Recipient: extra.Vote.Recipient, Add: extra.Vote.Add}
	}
	for _, s := range extra.Seals {
		out.Seals = append(out.Seals, s)
	}
	j, err := json.Marshal(out)
	return string(j), err
}

// decodeExtra reads an extraData of type typ into IBFT 2.0's struct: the
// two layouts hold the same items.
func decodeExtra(typ string, b []byte) (*ibft2.ExtraData, error) {
	if typ != rlpTypeQBFTExtraData {
		return ibft2.DecodeExtraData(b)
	}
	q, err := qbft.DecodeExtraData(b)
	return (*ibft2.ExtraData)(q), err
}

package txpool

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/params"
	"github.com/holiman/uint256"
)

func setCodeTx(t testing.TB, a account256, nonce uint64, auths []types.SetCodeAuthorization) *types.Transaction {
	return sign(t, a.key, &types.SetCodeTx{
		ChainID: uint256.MustFromBig(testChainID), Nonce: nonce,
		GasTipCap: uint256.NewInt(1000), GasFeeCap: uint256.NewInt(2000),
		Gas: 100_000, To: testTo, Value: uint256.NewInt(0), AuthList: auths,
	})
}

func signedAuth(t testing.TB, a account256) types.SetCodeAuthorization {
	t.Helper()
	auth, err := types.SignSetCode(a.key, types.SetCodeAuthorization{ChainID: *uint256.MustFromBig(testChainID), Address: testTo})
	if err != nil {
		t.Fatal(err)
	}
	return auth
}

// TestRejections covers every refusal reason but replacement and a full pool
// (see their own tests).
func TestRejections(t *testing.T) {
	pre155 := istanbulConfig()
	pre155.EIP155Block = big.NewInt(100)
	noChainID := istanbulConfig()
	noChainID.ChainID = nil

	cases := []struct {
		name  string
		chain *params.ChainConfig // nil: devConfig
		head  *types.Header       // nil: block 1, 30M gas, base fee 100
		cfg   func(*Config)
		setup func(t *testing.T, env *testEnv, a account256)
		tx    func(t *testing.T, a account256) *types.Transaction
		local bool
		want  Reason
	}{
		{
			name: "already known",
			setup: func(t *testing.T, env *testEnv, a account256) {
				mustAdd(t, env.pool, legacy(t, a, 0, 1000), false)
			},
			tx:   func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1000) },
			want: TransactionAlreadyKnown,
		},
		{
			name: "oversized",
			tx: func(t *testing.T, a account256) *types.Transaction {
				return sign(t, a.key, &types.LegacyTx{GasPrice: big.NewInt(1000), Gas: 10_000_000, To: &testTo, Data: make([]byte, MaxTxSize+1)})
			},
			want: OversizedData,
		},
		{
			name:  "local fee cap",
			cfg:   func(c *Config) { c.TxFeeCap = big.NewInt(5000) },
			tx:    func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 5001) },
			local: true,
			want:  TxFeecapExceeded,
		},
		{
			name: "gas price below minimum, remote",
			tx:   func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 999) },
			want: GasPriceTooLow,
		},
		{
			name:  "gas price below minimum, local",
			tx:    func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 999) },
			local: true,
			want:  GasPriceTooLow,
		},
		{
			name: "max fee below minimum",
			tx:   func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 1, 999) },
			want: GasPriceTooLow,
		},
		{
			name: "wrong chain id",
			tx: func(t *testing.T, a account256) *types.Transaction {
				tx, err := types.SignNewTx(a.key, types.NewEIP155Signer(big.NewInt(1)), &types.LegacyTx{GasPrice: big.NewInt(1000), Gas: 21000, To: &testTo})
				if err != nil {
					t.Fatal(err)
				}
				return tx
			},
			want: WrongChainID,
		},
		{
			name:  "EIP-155 signature before EIP-155",
			chain: pre155,
			tx:    func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1000) },
			want:  ReplayProtectedSignaturesNotSupported,
		},
		{
			name:  "EIP-155 signature on a chain without chain id",
			chain: noChainID,
			tx:    func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1000) },
			want:  ReplayProtectedSignaturesNotSupported,
		},
		{
			name:  "access list tx before Berlin",
			chain: istanbulConfig(),
			head:  testHead(1, testGasLimit, -1),
			tx: func(t *testing.T, a account256) *types.Transaction {
				return sign(t, a.key, &types.AccessListTx{ChainID: testChainID, GasPrice: big.NewInt(1000), Gas: 21000, To: &testTo})
			},
			want: InvalidTransactionFormat,
		},
		{
			name:  "EIP-1559 tx before London",
			chain: berlinConfig(),
			head:  testHead(1, testGasLimit, -1),
			tx:    func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 1000, 2000) },
			want:  InvalidTransactionFormat,
		},
		{
			name: "blob tx",
			tx: func(t *testing.T, a account256) *types.Transaction {
				return sign(t, a.key, &types.BlobTx{
					ChainID: uint256.MustFromBig(testChainID), GasTipCap: uint256.NewInt(1000), GasFeeCap: uint256.NewInt(2000),
					Gas: 21000, To: testTo, Value: uint256.NewInt(0), BlobFeeCap: uint256.NewInt(1), BlobHashes: []common.Hash{{1}},
				})
			},
			want: InvalidTransactionFormat,
		},
		{
			name:  "set code tx before Prague",
			chain: londonConfig(),
			tx: func(t *testing.T, a account256) *types.Transaction {
				return setCodeTx(t, a, 0, []types.SetCodeAuthorization{signedAuth(t, a)})
			},
			want: InvalidTransactionFormat,
		},
		{
			name: "set code tx without authorizations",
			tx:   func(t *testing.T, a account256) *types.Transaction { return setCodeTx(t, a, 0, nil) },
			want: EmptyCodeDelegation,
		},
		{
			name: "nonce 2^64-1",
			tx:   func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, math.MaxUint64, 1000) },
			want: NonceOverflow,
		},
		{
			name: "gas above EIP-7825 cap",
			tx: func(t *testing.T, a account256) *types.Transaction {
				return sign(t, a.key, &types.LegacyTx{GasPrice: big.NewInt(1000), Gas: params.MaxTxGas + 1, To: &testTo})
			},
			want: ExceedsTransactionGasLimit,
		},
		{
			name: "initcode too large",
			tx: func(t *testing.T, a account256) *types.Transaction {
				return sign(t, a.key, &types.LegacyTx{GasPrice: big.NewInt(1000), Gas: 10_000_000, Data: make([]byte, params.MaxInitCodeSize+1)})
			},
			want: InitcodeTooLarge,
		},
		{
			name: "tip above fee cap",
			tx:   func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 2001, 2000) },
			want: MaxPriorityFeePerGasExceedsMaxFeePerGas,
		},
		{
			name: "invalid signature",
			tx: func(t *testing.T, a account256) *types.Transaction {
				v := new(big.Int).Add(new(big.Int).Mul(testChainID, big.NewInt(2)), big.NewInt(35))
				return types.NewTx(&types.LegacyTx{GasPrice: big.NewInt(1000), Gas: 21000, To: &testTo, V: v, R: big.NewInt(0), S: big.NewInt(1)})
			},
			want: InvalidSignature,
		},
		{
			name: "intrinsic gas",
			tx: func(t *testing.T, a account256) *types.Transaction {
				return sign(t, a.key, &types.LegacyTx{GasPrice: big.NewInt(1000), Gas: 20999, To: &testTo})
			},
			want: IntrinsicGasExceedsGasLimit,
		},
		{
			name: "calldata floor (EIP-7623)",
			tx: func(t *testing.T, a account256) *types.Transaction {
				// 1000 non-zero bytes: intrinsic 21000+16000=37000, floor 21000+40000=61000.
				data := make([]byte, 1000)
				for i := range data {
					data[i] = 1
				}
				return sign(t, a.key, &types.LegacyTx{GasPrice: big.NewInt(1000), Gas: 50_000, To: &testTo, Data: data})
			},
			want: IntrinsicGasExceedsGasLimit,
		},
		{
			name: "upfront cost above 2^256",
			tx: func(t *testing.T, a account256) *types.Transaction {
				return sign(t, a.key, &types.LegacyTx{GasPrice: new(big.Int).Lsh(big.NewInt(1), 250), Gas: 21000, To: &testTo})
			},
			want: UpfrontCostExceedsUint256,
		},
		{
			name: "gas above block gas limit",
			head: testHead(1, 10_000_000, testBaseFee),
			tx: func(t *testing.T, a account256) *types.Transaction {
				return sign(t, a.key, &types.LegacyTx{GasPrice: big.NewInt(1000), Gas: 10_000_001, To: &testTo})
			},
			want: ExceedsBlockGasLimit,
		},
		{
			name: "sender not on allowlist",
			setup: func(t *testing.T, env *testEnv, a account256) {
				env.pool.SetSenderFilter(func(addr common.Address) bool { return addr != a.addr })
			},
			tx:   func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1000) },
			want: TxSenderNotAuthorized,
		},
		{
			name: "balance below upfront cost",
			setup: func(t *testing.T, env *testEnv, a account256) {
				env.state.set(a.addr, 0, uint256.NewInt(21000*1000)) // 1 wei short: value is 1
			},
			tx:   func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1000) },
			want: UpfrontCostExceedsBalance,
		},
		{
			name:  "nonce too low",
			setup: func(t *testing.T, env *testEnv, a account256) { env.state.set(a.addr, 34, nil) },
			tx:    func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 2, 1000) },
			want:  NonceTooLow,
		},
		{
			name:  "nonce too far ahead",
			setup: func(t *testing.T, env *testEnv, a account256) { env.state.set(a.addr, 10, nil) },
			tx:    func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 210, 1000) },
			want:  NonceTooFarInFutureForSender,
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := DefaultConfig()
			if tc.cfg != nil {
				tc.cfg(&cfg)
			}
			chain, head := tc.chain, tc.head
			if chain == nil {
				chain = devConfig()
			}
			if head == nil {
				head = testHead(1, testGasLimit, testBaseFee)
			}
			env := newTestEnv(t, cfg, chain, head)
			a := newAccount(t)
			if tc.setup != nil {
				tc.setup(t, env, a)
			}
			before := env.pool.Len()
			tx := tc.tx(t, a)
			var err error
			if tc.local {
				err = env.pool.AddLocal(tx)
			} else {
				err = env.pool.AddRemotes([]*types.Transaction{tx})[0]
			}
			wantReason(t, err, tc.want)
			t.Log(err)
			if e := (*Error)(nil); !errors.As(err, &e) || e.Detail == "" {
				t.Errorf("error %v has no detail", err)
			}
			if env.pool.Len() != before {
				t.Errorf("pool size changed from %d to %d on a refusal", before, env.pool.Len())
			}
		})
	}
}

// TestAccepted covers the accepted counterparts of the refusals: each
// transaction type at the fork that enables it, unprotected signatures, the
// limits' edges.
func TestAccepted(t *testing.T) {
	cases := []struct {
		name  string
		chain *params.ChainConfig
		head  *types.Header
		tx    func(t *testing.T, a account256) *types.Transaction
		local bool
	}{
		{name: "legacy EIP-155", tx: func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1000) }},
		{
			name: "legacy without EIP-155 (unprotected)",
			tx: func(t *testing.T, a account256) *types.Transaction {
				tx, err := types.SignNewTx(a.key, types.HomesteadSigner{}, &types.LegacyTx{GasPrice: big.NewInt(1000), Gas: 21000, To: &testTo})
				if err != nil {
					t.Fatal(err)
				}
				if tx.Protected() {
					t.Fatal("test tx is protected")
				}
				return tx
			},
		},
		{
			name:  "legacy before EIP-155 on a chain without chain id",
			chain: func() *params.ChainConfig { c := istanbulConfig(); c.ChainID = nil; c.EIP155Block = nil; return c }(),
			head:  testHead(1, testGasLimit, -1),
			tx: func(t *testing.T, a account256) *types.Transaction {
				tx, _ := types.SignNewTx(a.key, types.HomesteadSigner{}, &types.LegacyTx{GasPrice: big.NewInt(1000), Gas: 21000, To: &testTo})
				return tx
			},
		},
		{
			name:  "access list at Berlin",
			chain: berlinConfig(),
			head:  testHead(1, testGasLimit, -1),
			tx: func(t *testing.T, a account256) *types.Transaction {
				return sign(t, a.key, &types.AccessListTx{ChainID: testChainID, GasPrice: big.NewInt(1000), Gas: 21000, To: &testTo})
			},
		},
		{name: "EIP-1559 at London", chain: londonConfig(), tx: func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 1000, 2000) }},
		{
			name: "EIP-1559 on the London fork block (head is pre-London)",
			chain: func() *params.ChainConfig {
				c := londonConfig()
				c.LondonBlock = big.NewInt(2)
				return c
			}(),
			head: testHead(1, testGasLimit, -1),
			tx:   func(t *testing.T, a account256) *types.Transaction { return dynamic(t, a, 0, 1000, 2_000_000_000) },
		},
		{
			name: "set code at Prague",
			tx: func(t *testing.T, a account256) *types.Transaction {
				return setCodeTx(t, a, 0, []types.SetCodeAuthorization{signedAuth(t, a)})
			},
		},
		{name: "min gas price exactly", tx: func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 0, 1000) }, local: true},
		{name: "nonce at the future limit", tx: func(t *testing.T, a account256) *types.Transaction { return legacy(t, a, 199, 1000) }},
		{
			name: "gas at EIP-7825 cap",
			tx: func(t *testing.T, a account256) *types.Transaction {
				return sign(t, a.key, &types.LegacyTx{GasPrice: big.NewInt(1000), Gas: params.MaxTxGas, To: &testTo})
			},
		},
		{
			name: "fee cap applies to local only",
			tx: func(t *testing.T, a account256) *types.Transaction {
				return legacy(t, a, 0, 2_000_000_000_000_000_000) // 2 ether per gas, above the 1 ether cap
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			chain, head := tc.chain, tc.head
			if chain == nil {
				chain = devConfig()
			}
			if head == nil {
				head = testHead(1, testGasLimit, testBaseFee)
			}
			env := newTestEnv(t, DefaultConfig(), chain, head)
			env.state.def = uint256.MustFromDecimal("100000000000000000000000000") // 1e26 wei
			a := newAccount(t)
			mustAdd(t, env.pool, tc.tx(t, a), tc.local)
			if env.pool.Len() != 1 {
				t.Fatalf("pool has %d txs, want 1", env.pool.Len())
			}
		})
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	bad := DefaultConfig()
	bad.MaxSize = 0
	bad.PriceBump = 101
	bad.MaxFutureNonceGap = 0
	bad.MinGasPrice = big.NewInt(-1)
	err := bad.Validate()
	for _, flag := range []string{"--tx-pool-max-size", "--tx-pool-price-bump", "--tx-pool-max-future-by-sender", "--min-gas-price"} {
		if err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("Validate() = %v, want a message naming %s", err, flag)
		}
	}
	if _, err := New(bad, devConfig(), testHead(0, testGasLimit, testBaseFee), newTestState()); err == nil {
		t.Error("New accepted an invalid config")
	}
}

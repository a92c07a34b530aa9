package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/rlp"

	"github.com/basaltchain/basalt/testsupport/chaingen"
)

// generateChain writes a dev-network chain of n blocks of txsPerBlock
// transfers (ethash with difficulty 1, so sealing costs nothing) to dir and
// returns its genesis and chain files. Only Basalt imports it: go-ethereum
// no longer verifies ethash chains.
func generateChain(ctx context.Context, dir string, n, txsPerBlock int) (genesis, chainFile string, err error) {
	g := chaingen.Genesis(1)
	enc, err := chaingen.GenesisJSON(g)
	if err != nil {
		return "", "", err
	}
	genesis, chainFile = filepath.Join(dir, "genesis.json"), filepath.Join(dir, "chain.rlp")
	if err := os.WriteFile(genesis, enc, 0o644); err != nil {
		return "", "", err
	}
	c, db, err := chaingen.OpenMemory(g)
	if err != nil {
		return "", "", err
	}
	defer db.Close()
	defer c.Close()
	blocks, err := chaingen.New(c, chaingen.Options{TxsPerBlock: txsPerBlock}).ExtendHead(ctx, n)
	if err != nil {
		return "", "", fmt.Errorf("generate chain: %w", err)
	}
	f, err := os.Create(chainFile)
	if err != nil {
		return "", "", err
	}
	w := bufio.NewWriter(f)
	for _, b := range blocks {
		if err := rlp.Encode(w, b); err != nil {
			f.Close()
			return "", "", err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return "", "", err
	}
	return genesis, chainFile, f.Close()
}

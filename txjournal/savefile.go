package txjournal

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/ethereum/go-ethereum/core/types"
)

// Saved is a pooled transaction in the save file.
type Saved struct {
	Tx    *types.Transaction
	Local bool
}

// Save writes txs to path in Besu's save-file format (one line per
// transaction: "l" or "r", then the base64 of its binary encoding),
// through a temporary file renamed into place, so a crash while saving
// leaves the previous file or none, never half of one.
func Save(path string, txs []Saved) error {
	var b bytes.Buffer
	for _, s := range txs {
		enc, err := s.Tx.MarshalBinary()
		if err != nil {
			return err
		}
		if s.Local {
			b.WriteByte('l')
		} else {
			b.WriteByte('r')
		}
		b.WriteString(base64.StdEncoding.EncodeToString(enc))
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	f, err := writeSynced(tmp, b.Bytes())
	if err != nil {
		return fmt.Errorf("save transaction pool: %w", err)
	}
	f.Close()
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("save transaction pool: %w", err)
	}
	return syncDir(filepath.Dir(path))
}

// Restore reads the save file at path and deletes it, as Besu does, so a
// later start does not add the same transactions again. A missing file is
// no transactions. Lines that do not decode are skipped and counted.
func Restore(path string) (txs []Saved, skipped int, err error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("restore transaction pool: %w", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 1<<16), 4<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		local := line[0] == 'l'
		if !local && line[0] != 'r' {
			skipped++
			continue
		}
		enc, err := base64.StdEncoding.DecodeString(string(line[1:]))
		tx := new(types.Transaction)
		if err != nil || tx.UnmarshalBinary(enc) != nil {
			skipped++
			continue
		}
		txs = append(txs, Saved{Tx: tx, Local: local})
	}
	if err := sc.Err(); err != nil {
		return nil, 0, fmt.Errorf("restore transaction pool %s: %w", path, err)
	}
	if err := os.Remove(path); err != nil {
		return nil, 0, fmt.Errorf("restore transaction pool: %w", err)
	}
	return txs, skipped, nil
}

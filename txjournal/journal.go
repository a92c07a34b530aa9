package txjournal

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/core/types"
)

// headerSize is a record's length and checksum.
const headerSize = 8

// maxRecord bounds a record's payload when reading: larger lengths are a
// torn or corrupt header, not a transaction (the pool refuses anything
// above 128 KiB).
const maxRecord = 1 << 20

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrClosed is returned by Append after Close.
var ErrClosed = errors.New("transaction journal closed")

// Options tune a journal.
type Options struct {
	// SyncEvery chooses what Wait waits for. Zero: the record is written
	// and fsynced, so it survives a power cut. Above zero: the record is
	// written to the operating system, so it survives the process dying
	// (SIGKILL, a panic, the OOM killer) but not the machine; records are
	// fsynced in the background at most SyncEvery after they are written,
	// and on Close.
	SyncEvery time.Duration
}

// Journal is an append-only log of transactions. It is safe for concurrent
// use.
type Journal struct {
	path      string
	syncEvery time.Duration

	mu       sync.Mutex
	cond     *sync.Cond
	f        *os.File
	buf      []byte // records appended, not yet written
	appended uint64 // records appended since Open (sequence numbers)
	written  uint64 // records written to the file
	durable  uint64 // records written and fsynced
	flushing bool   // a leader is writing (and syncing) outside mu
	syncing  bool   // the background syncer is fsyncing outside mu
	records  int    // records in the file (after the pending buffer is written)
	// end is where the next record goes (the end of the good records);
	// allocated is the file's size: zeros past end, written ahead so that
	// an append neither grows the file nor allocates blocks, and its
	// fdatasync flushes data only instead of waiting for a file-system
	// journal commit. Replay stops at the zeros (a zero length is no record).
	end, allocated int64
	err            error // sticky write error: the journal can no longer promise durability
	closed         bool

	syncs  uint64 // fsyncs of records done (for tests and metrics)
	writes uint64 // writes of pending records done

	stop, stopped chan struct{} // the background syncer's (SyncEvery > 0)
	stopOnce      sync.Once
}

// Open opens (or creates) the journal at path and returns the transactions
// of its complete records in file order. A torn or corrupt tail — what a
// crash in the middle of an append leaves — is truncated away; records
// that do not decode as transactions are skipped.
func Open(path string, opts Options) (*Journal, []*types.Transaction, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("open transaction journal: %w", err)
	}
	txs, good, records, err := readRecords(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("read transaction journal %s: %w", path, err)
	}
	if st, err := f.Stat(); err == nil && st.Size() != good {
		if err := f.Truncate(good); err != nil {
			f.Close()
			return nil, nil, fmt.Errorf("truncate torn transaction journal %s: %w", path, err)
		}
		if err := f.Sync(); err != nil {
			f.Close()
			return nil, nil, err
		}
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, nil, err
	}
	j := &Journal{path: path, syncEvery: opts.SyncEvery, f: f, records: records, end: good, allocated: good}
	j.cond = sync.NewCond(&j.mu)
	if j.syncEvery > 0 {
		j.stop, j.stopped = make(chan struct{}), make(chan struct{})
		go j.syncLoop()
	}
	return j, txs, nil
}

// readRecords reads records from the start of f up to the first torn or
// corrupt one and returns the transactions, the length of the good prefix
// and the number of records in it.
func readRecords(f *os.File) (txs []*types.Transaction, good int64, records int, err error) {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, 0, 0, err
	}
	r := bufio.NewReaderSize(f, 1<<16)
	var hdr [headerSize]byte
	for {
		if _, err := io.ReadFull(r, hdr[:]); err != nil {
			return txs, good, records, nil // EOF or a short header: the tail is torn
		}
		n := binary.BigEndian.Uint32(hdr[:4])
		if n == 0 || n > maxRecord {
			return txs, good, records, nil
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return txs, good, records, nil
		}
		if crc32.Checksum(payload, castagnoli) != binary.BigEndian.Uint32(hdr[4:]) {
			return txs, good, records, nil
		}
		good += int64(headerSize + n)
		records++
		tx := new(types.Transaction)
		if tx.UnmarshalBinary(payload) == nil {
			txs = append(txs, tx)
		}
	}
}

// appendRecord appends tx's record to b.
func appendRecord(b []byte, tx *types.Transaction) ([]byte, error) {
	payload, err := tx.MarshalBinary()
	if err != nil {
		return b, err
	}
	b = binary.BigEndian.AppendUint32(b, uint32(len(payload)))
	b = binary.BigEndian.AppendUint32(b, crc32.Checksum(payload, castagnoli))
	return append(b, payload...), nil
}

// Append writes tx to the journal and returns once it is written (and,
// without Options.SyncEvery, fsynced). Callers that append while another
// caller's write runs are written (and synced) together by the next one.
func (j *Journal) Append(tx *types.Transaction) error {
	seq, err := j.Enqueue(tx)
	if err != nil {
		return err
	}
	return j.Wait(seq)
}

// Enqueue adds tx's record to the journal's pending records and returns its
// sequence number for Wait; the record is in the file only once Wait(seq)
// returns nil. Enqueuing many records before waiting for the last writes
// them with one write (and fsync).
func (j *Journal) Enqueue(tx *types.Transaction) (uint64, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return 0, ErrClosed
	}
	if j.err != nil {
		return 0, j.err
	}
	var err error
	if j.buf, err = appendRecord(j.buf, tx); err != nil {
		return 0, err
	}
	j.appended++
	return j.appended, nil
}

// Wait returns once the record Enqueue numbered seq (and every record
// before it) is written — and without Options.SyncEvery fsynced — writing
// the pending records itself unless another caller is doing so.
func (j *Journal) Wait(seq uint64) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	for j.acknowledged() < seq && j.err == nil {
		if j.closed {
			return ErrClosed
		}
		if j.flushing {
			j.cond.Wait()
			continue
		}
		j.flushLocked()
	}
	return j.err
}

// acknowledged is how many records Wait may answer for.
func (j *Journal) acknowledged() uint64 {
	if j.syncEvery > 0 {
		return j.written
	}
	return j.durable
}

// flushLocked writes the pending records, and syncs them unless the
// background syncer does, releasing mu while the disk works so that more
// appends can queue for the next flush.
func (j *Journal) flushLocked() {
	buf, upto, n := j.buf, j.appended, j.pendingRecords()
	j.buf = nil
	j.flushing = true
	f, end, allocated := j.f, j.end, j.allocated
	j.mu.Unlock()
	var err error
	if need := end + int64(len(buf)); need > allocated {
		allocated, err = preallocate(f, allocated, need)
	}
	if err == nil {
		_, err = f.WriteAt(buf, end)
	}
	sync := j.syncEvery == 0
	if err == nil && sync {
		err = syncData(f)
	}
	j.mu.Lock()
	j.flushing = false
	j.writes++
	if sync {
		j.syncs++
	}
	if err != nil {
		j.err = fmt.Errorf("transaction journal %s: %w", j.path, err)
	} else {
		j.written = upto
		if sync {
			j.durable = upto
		}
		j.records += n
		j.end, j.allocated = end+int64(len(buf)), allocated
	}
	j.cond.Broadcast()
}

// preallocSize is how far ahead of the records the journal writes zeros:
// some 25,000 transfers.
const preallocSize = 4 << 20

// zeros is a block of zero bytes for preallocate.
var zeros = make([]byte, 64<<10)

// preallocate writes zeros to f from allocated past need, syncs them with
// the new size, and returns the new size.
func preallocate(f *os.File, allocated, need int64) (int64, error) {
	size := need + preallocSize
	for off := allocated; off < size; off += int64(len(zeros)) {
		if _, err := f.WriteAt(zeros[:min(int64(len(zeros)), size-off)], off); err != nil {
			return allocated, err
		}
	}
	if err := f.Sync(); err != nil {
		return allocated, err
	}
	return size, nil
}

// pendingRecords is the number of records in j.buf.
func (j *Journal) pendingRecords() int { return int(j.appended - j.written) }

// syncLoop fsyncs written records every syncEvery until Close.
func (j *Journal) syncLoop() {
	defer close(j.stopped)
	t := time.NewTicker(j.syncEvery)
	defer t.Stop()
	for {
		select {
		case <-j.stop:
			return
		case <-t.C:
		}
		j.mu.Lock()
		if !j.closed {
			j.syncLocked()
		}
		j.mu.Unlock()
	}
}

// syncLocked fsyncs the records written so far unless they are synced,
// releasing mu while the disk works; a failure is sticky, as for writes.
func (j *Journal) syncLocked() {
	for j.syncing {
		j.cond.Wait()
	}
	if j.written <= j.durable || j.err != nil {
		return
	}
	upto, f := j.written, j.f
	j.syncing = true
	j.mu.Unlock()
	err := syncData(f)
	j.mu.Lock()
	j.syncing = false
	j.syncs++
	if err != nil {
		j.err = fmt.Errorf("transaction journal %s: %w", j.path, err)
	} else {
		j.durable = max(j.durable, upto)
	}
	j.cond.Broadcast()
}

// lockIdle takes the lock once no flush or sync is in flight (they run
// with the lock released), so the file is the caller's alone.
func (j *Journal) lockIdle() {
	j.mu.Lock()
	for j.flushing || j.syncing {
		j.cond.Wait()
	}
}

// Rewrite replaces the journal's content with live(): the transactions
// that still need it (the pool's local ones). live is called with appends
// held off, so a transaction appended before the call — and so, if it is
// still pooled, returned by live — is not lost, and one appended after it
// lands in the new file. Callers add a transaction to the pool before
// appending it, which makes this hold.
func (j *Journal) Rewrite(live func() []*types.Transaction) error {
	j.lockIdle()
	defer j.mu.Unlock()
	if j.closed {
		return ErrClosed
	}
	txs := live()
	tmp := j.path + ".new"
	var buf []byte
	for _, tx := range txs {
		var err error
		if buf, err = appendRecord(buf, tx); err != nil {
			return err
		}
	}
	nf, err := writeSynced(tmp, buf)
	if err != nil {
		return fmt.Errorf("compact transaction journal: %w", err)
	}
	if err := os.Rename(tmp, j.path); err != nil {
		nf.Close()
		os.Remove(tmp)
		return fmt.Errorf("compact transaction journal: %w", err)
	}
	if err := syncDir(filepath.Dir(j.path)); err != nil {
		nf.Close()
		return fmt.Errorf("compact transaction journal: %w", err)
	}
	j.f.Close()
	j.f = nf
	j.end, j.allocated = int64(len(buf)), int64(len(buf))
	// The pending records' transactions were pooled before they were
	// appended, so live() held them if they still matter: they are durable.
	j.buf = nil
	j.written, j.durable = j.appended, j.appended
	j.records = len(txs)
	j.err = nil
	j.cond.Broadcast()
	return nil
}

// writeSynced creates path with b, fsynced, and returns it open for
// appending at its end.
func writeSynced(path string, b []byte) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return nil, err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Records is the number of records in the journal, pending ones included.
func (j *Journal) Records() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.records + j.pendingRecords()
}

// Syncs is the number of fsyncs of records done so far.
func (j *Journal) Syncs() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.syncs
}

// Writes is the number of writes of pending records done so far: one per
// group of concurrent appends.
func (j *Journal) Writes() uint64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.writes
}

// Close waits for a running flush, fsyncs what is written but not synced,
// and closes the file. Appends after Close fail with ErrClosed.
func (j *Journal) Close() error {
	if j.stop != nil {
		j.stopOnce.Do(func() {
			close(j.stop)
			<-j.stopped
		})
	}
	j.lockIdle()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	j.syncLocked()
	j.closed = true
	j.cond.Broadcast()
	// A journal at rest ends at its last record; the preallocated zeros
	// are only for appends.
	if j.err == nil && j.allocated > j.end {
		if err := j.f.Truncate(j.end); err != nil {
			j.f.Close()
			return err
		}
	}
	return j.f.Close()
}

// Package txjournal keeps the transactions a node acknowledged to its
// JSON-RPC clients on disk, so that none is lost when the process dies
// before a block includes it, and saves and restores the whole pool across
// a clean restart (Besu's --tx-pool-enable-save-restore).
//
// The journal (journal.go) is an append-only file of records, each a
// 4-byte big-endian payload length, a 4-byte CRC-32C of the payload, and
// the payload: the transaction's binary encoding. Its invariants:
//
//   - Append returns only after the record is written to the file, so a
//     transaction whose submission was answered survives the process dying
//     (SIGKILL, a panic): a finished write is the kernel's, not the
//     process's. Without Options.SyncEvery it also waits for the fsync and
//     survives a power cut; with it a background loop fsyncs what was
//     written at that interval, and Close fsyncs the rest.
//   - Appends that arrive while a write (and fsync) runs are written
//     together by the next one (group commit): concurrent submitters share
//     writes and fsyncs, so the cost per transaction falls as load rises.
//   - Records are written into zeros the journal writes ahead of them
//     (4 MiB at a time), so an append's fdatasync flushes data only: the
//     file's size and blocks do not change, and no file-system journal
//     commit is waited for. A zero length ends the records; a clean Close
//     trims the zeros.
//   - A crash can tear only the last record (a short or corrupt tail);
//     Open keeps every complete record before it and truncates the rest.
//   - Rewrite (compaction) writes the live transactions to a new file,
//     fsyncs it, renames it over the journal and fsyncs the directory;
//     a crash before the rename leaves the old journal, after it the new
//     one, never neither.
//
// The save file (savefile.go) is Besu's format: one line per pooled
// transaction, "l" (local) or "r" (remote) then the base64 of its binary
// encoding; it is written on a clean shutdown, read and deleted at
// start-up.
package txjournal

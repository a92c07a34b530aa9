package chain

import "time"

// InsertStats describes one block InsertBlock stored, for observers such as
// the node's metrics.
type InsertStats struct {
	Number  uint64
	GasUsed uint64
	Txs     int
	// NewHead says the block became the canonical head.
	NewHead bool
	// Executed says InsertBlock ran the block's transactions (not when the
	// caller passed InsertOptions.Executed, as the miner does).
	Executed bool
	// Total is the whole insert: verification, execution and writes.
	Total time.Duration
	// Execution is the time spent running the transactions (zero when not
	// Executed).
	Execution time.Duration
}

// SetInsertObserver makes f hear of every block InsertBlock stores, on the
// inserting goroutine after the block is written; f must be quick. nil
// removes the observer.
func (c *Chain) SetInsertObserver(f func(InsertStats)) {
	if f == nil {
		c.insertObserver.Store(nil)
		return
	}
	c.insertObserver.Store(&f)
}

// observeInsert tells the observer, if any, about an insert that started at
// start.
func (c *Chain) observeInsert(st InsertStats, start time.Time) {
	if f := c.insertObserver.Load(); f != nil {
		st.Total = time.Since(start)
		(*f)(st)
	}
}

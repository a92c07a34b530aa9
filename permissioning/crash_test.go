package permissioning

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// crashCalls is how many persisting calls the crash test makes in all.
const crashCalls = 200

// crashAccount is the i-th account the crash test adds (1-based).
func crashAccount(i int) string { return fmt.Sprintf("0x%040x", i) }

// TestPersistCrash kills (SIGKILL) a process that persists allowlist
// changes in a loop, at random points, until 200 persisting calls are
// done: after every kill the file must parse and hold either the list
// before the call in progress or the one after it.
func TestPersistCrash(t *testing.T) {
	if testing.Short() {
		t.Skip("starts processes")
	}
	p := writeFile(t, "accounts-allowlist=[]\n")
	done := 0
	kills := 0
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 0))
	for done < crashCalls {
		cmd := exec.Command(os.Args[0], "-test.run=^TestPersistChild$")
		cmd.Env = append(os.Environ(), "PERM_CRASH_FILE="+p, "PERM_CRASH_CALLS="+strconv.Itoa(crashCalls))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		// Kill after a random number of completed calls (0-9) plus a
		// random delay into the next one.
		lines := make(chan string)
		go func() {
			defer close(lines)
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				lines <- sc.Text()
			}
		}()
		target := rng.IntN(10)
		lastDone, begun := done, done
		seen := 0
		killed := false
		for l := range lines {
			f := strings.Fields(l)
			if len(f) != 2 {
				continue
			}
			n, _ := strconv.Atoi(f[1])
			switch f[0] {
			case "begin":
				begun = n
				if seen >= target && !killed {
					time.Sleep(time.Duration(rng.IntN(2000)) * time.Microsecond)
					cmd.Process.Signal(syscall.SIGKILL)
					killed = true
				}
			case "done":
				lastDone = n
				seen++
			}
		}
		cmd.Wait()
		if killed {
			kills++
		}
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		d, err := decodeFile(p, data)
		if err != nil {
			t.Fatalf("after kill %d the file does not parse: %v\n%s", kills, err, data)
		}
		l, _, err := d.accounts()
		if err != nil {
			t.Fatalf("after kill %d: %v", kills, err)
		}
		k := len(l.entries)
		if k != lastDone && k != begun {
			t.Fatalf("after kill %d the file holds %d accounts; want %d (done) or %d (in progress)", kills, k, lastDone, begun)
		}
		want := make([]string, k)
		for i := range want {
			want[i] = crashAccount(i + 1)
		}
		if !slices.Equal(l.entries, want) {
			t.Fatalf("after kill %d the file holds %v", kills, l.entries)
		}
		done = k
	}
	if kills == 0 {
		t.Fatal("no process was killed")
	}
	t.Logf("%d persisting calls, %d kills", crashCalls, kills)
}

// TestPersistChild is the process TestPersistCrash kills: it adds
// accounts one call at a time, from what the file holds, announcing each
// call before and after.
func TestPersistChild(t *testing.T) {
	p := os.Getenv("PERM_CRASH_FILE")
	if p == "" {
		t.Skip("run by TestPersistCrash")
	}
	total, _ := strconv.Atoi(os.Getenv("PERM_CRASH_CALLS"))
	a, err := Load(Config{AccountsEnabled: true, AccountsFile: p})
	if err != nil {
		t.Fatal(err)
	}
	l, _ := a.Accounts()
	for i := len(l) + 1; i <= total; i++ {
		fmt.Printf("begin %d\n", i)
		if err := a.AddAccounts([]string{crashAccount(i)}); err != nil {
			t.Fatal(err)
		}
		fmt.Printf("done %d\n", i)
	}
}

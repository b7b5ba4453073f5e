// Package memberdatatest is what tests of memberdata's Exporters and
// Forgetters share: an Archive kept in memory, and a scan of tables for
// anything that still names a member.
package memberdatatest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// Archive is a memberdata.Archive kept in memory: each file's bytes by
// name.
type Archive struct {
	mu    sync.Mutex
	Files map[string][]byte
}

// JSON keeps v, indented, as the file name.
func (a *Archive) JSON(name string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	a.put(name, b)
	return nil
}

// File keeps r's bytes as the file name.
func (a *Archive) File(name string, r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	a.put(name, b)
	return nil
}

func (a *Archive) put(name string, b []byte) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.Files == nil {
		a.Files = map[string][]byte{}
	}
	a.Files[name] = b
}

// Names are the archive's files, sorted.
func (a *Archive) Names() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	names := make([]string, 0, len(a.Files))
	for n := range a.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Text is every file's content, one after another, for a test to search.
func (a *Archive) Text() string {
	var b strings.Builder
	for _, n := range a.Names() {
		b.WriteString(n + "\n" + string(a.Files[n]) + "\n")
	}
	return b.String()
}

var _ memberdata.Archive = (*Archive)(nil)

// Traces are the rows of tables that still hold m's memberKey, userKey
// or email in a key or any string property, each as "table PK RK": what
// must be empty after a full forget.
func Traces(t testing.TB, store *storage.Store, m memberdata.Member, tables ...string) []string {
	t.Helper()
	var needles []string
	for _, s := range []string{m.Key, m.UserKey, m.Email} {
		if s != "" {
			needles = append(needles, s, storage.EscapeKey(s))
		}
	}
	holds := func(s string) bool {
		for _, n := range needles {
			if strings.Contains(s, n) {
				return true
			}
		}
		return false
	}
	var out []string
	eachRow(t, store, tables, func(table string, e storage.Entity) {
		found := holds(e.PartitionKey) || holds(e.RowKey)
		for _, s := range texts(e) {
			found = found || holds(s)
		}
		if found {
			out = append(out, fmt.Sprintf("%s %s %s", table, e.PartitionKey, e.RowKey))
		}
	})
	return out
}

// NameTraces are the rows of tables that still keep name, a forgotten
// member's display name, as a name: a property named like one
// ("senderName", "displayName", "nameA") that holds it, or any property
// that holds it as a whole JSON string (a name inside a JSON record).
// Words others wrote that merely mention it are not traces.
func NameTraces(t testing.TB, store *storage.Store, name string, tables ...string) []string {
	t.Helper()
	quoted, err := json.Marshal(name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	eachRow(t, store, tables, func(table string, e storage.Entity) {
		for k, s := range texts(e) {
			if strings.Contains(strings.ToLower(k), "name") && strings.TrimSpace(s) == name || strings.Contains(s, string(quoted)) {
				out = append(out, fmt.Sprintf("%s %s %s %s", table, e.PartitionKey, e.RowKey, k))
			}
		}
	})
	return out
}

// eachRow calls f with every row of tables (a scan of each).
func eachRow(t testing.TB, store *storage.Store, tables []string, f func(table string, e storage.Entity)) {
	t.Helper()
	for _, table := range tables {
		err := store.Table(table).QueryAll(t.Context(), storage.Query{Scan: true}, func(e storage.Entity) error {
			f(table, e)
			return nil
		})
		if err != nil {
			t.Fatalf("scanning %s: %v", table, err)
		}
	}
}

// texts are e's string and binary properties, as text, by name.
func texts(e storage.Entity) map[string]string {
	out := map[string]string{}
	for k, v := range e.Props {
		switch v := v.(type) {
		case string:
			out[k] = v
		case []byte:
			out[k] = string(v)
		}
	}
	return out
}

// English is t's context in English: where memberdata.Name reads
// "Deleted member".
func English(t testing.TB) context.Context {
	t.Helper()
	cat, err := i18n.New()
	if err != nil {
		t.Fatal(err)
	}
	return i18n.WithLocalizer(t.Context(), cat.For(i18n.EN))
}

// Snapshot is every row of tables with its ETag, one a line: what a
// forget that has nothing left to do leaves as it was.
func Snapshot(t testing.TB, store *storage.Store, tables ...string) string {
	t.Helper()
	var b strings.Builder
	eachRow(t, store, tables, func(table string, e storage.Entity) {
		fmt.Fprintf(&b, "%s %s %s %s\n", table, e.PartitionKey, e.RowKey, e.ETag)
	})
	return b.String()
}

// Member is the member with memberKey key who signed in with email, as
// the account module hands them to the modules.
func Member(key, email string) memberdata.Member {
	return memberdata.Member{Key: key, Email: email, UserKey: auth.UserKey(email)}
}

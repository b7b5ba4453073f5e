package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harmony/harmony/internal/mail"
	"github.com/harmony/harmony/internal/memberdata/memberdatatest"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/tasks"
)

// "web forget" erases a closed account at once and drops its task (the
// repair after the task died), mailing its owner through the queue; it
// refuses an account nobody asked to delete, and one that is gone.
func TestForgetCommandErasesAClosedAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dataDir := filepath.Join(t.TempDir(), "data")
	env := envOf(map[string]string{"DATA_DIR": dataDir})
	var out, errOut bytes.Buffer
	if code := run([]string{"seed", "demo"}, env, &out, &errOut); code != 0 {
		t.Fatalf("seed: exit %d: %s", code, errOut.String())
	}
	const email = "tom@demo.example"
	a, closeStore, err := openCommandApp(ctx, nil, env, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	key, err := a.Built.Core.Auth.MemberByEmail(ctx, email)
	if err == nil {
		err = a.Built.Core.Accounts.CloseAccount(ctx, key, email, mail.Message{Subject: "x", Text: "x"})
	}
	closeStore()
	if err != nil {
		t.Fatal(err)
	}

	for _, tc := range []struct {
		who  string
		code int
		says string
	}{
		{"anna@demo.example", 1, "not closed"},
		{email, 0, "forgot " + key},
		{key, 1, "no such account"},
		{"", 2, "forget whom"},
	} {
		out.Reset()
		errOut.Reset()
		args := []string{"forget"}
		if tc.who != "" {
			args = append(args, tc.who)
		}
		if code := run(args, env, &out, &errOut); code != tc.code || !strings.Contains(out.String()+errOut.String(), tc.says) {
			t.Errorf("forget %q: exit %d, %q %q; want %d, %q", tc.who, code, out.String(), errOut.String(), tc.code, tc.says)
		}
	}

	a, closeStore, err = openCommandApp(ctx, nil, env, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	defer closeStore()
	var tables []string
	for _, name := range a.Tables {
		if name != tasks.Table {
			tables = append(tables, name)
		}
	}
	if left := memberdatatest.Traces(t, a.Built.Core.Store, memberdatatest.Member(key, email), tables...); len(left) > 0 {
		t.Errorf("rows left: %v", left)
	}
	// In the queue, only the mail that tells them.
	err = a.Built.Core.Store.Table(tasks.Table).QueryAll(ctx, storage.Query{PartitionKey: "q", RowKeyPrefix: "t|"}, func(e storage.Entity) error {
		if p, _ := e.Props["payload"].([]byte); bytes.Contains(p, []byte(email)) || bytes.Contains(p, []byte(key)) {
			if e.Props["kind"] != mail.QueueKind {
				t.Errorf("a %s task still names the member", e.Props["kind"])
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

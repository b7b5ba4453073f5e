package storage

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func testCursors(t testing.TB) *Cursors {
	c, err := NewCursors(bytes.Repeat([]byte("k"), 32))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCursorRoundTrip(t *testing.T) {
	c := testCursors(t)
	for _, cur := range []Cursor{
		{},
		{Bucket: "202611"},
		{Bucket: "0042", Next: &Continuation{NextPartitionKey: "pub|liked|0042", NextRowKey: "x'y|ж"}},
	} {
		tok := c.Encode("prompts/newest", cur)
		got, err := c.Decode("prompts/newest", tok)
		if err != nil {
			t.Fatalf("Decode: %v", err)
		}
		if got.Bucket != cur.Bucket || (got.Next == nil) != (cur.Next == nil) || (got.Next != nil && *got.Next != *cur.Next) {
			t.Errorf("round trip %+v → %+v", cur, got)
		}
	}
}

func TestCursorRejectsTamperingAndForeignQueries(t *testing.T) {
	c := testCursors(t)
	tok := c.Encode("prompts/newest?tags=go", Cursor{Bucket: "202611", Next: &Continuation{NextPartitionKey: "a", NextRowKey: "b"}})
	raw, _ := base64.RawURLEncoding.DecodeString(tok)
	flipped := append([]byte(nil), raw...)
	flipped[len(flipped)/2] ^= 1
	other, _ := NewCursors(bytes.Repeat([]byte("z"), 32))
	cases := map[string]struct{ query, token string }{
		"flipped bit":   {"prompts/newest?tags=go", base64.RawURLEncoding.EncodeToString(flipped)},
		"other query":   {"prompts/newest?tags=ai", tok},
		"other key":     {"prompts/newest?tags=go", other.Encode("prompts/newest?tags=go", Cursor{})},
		"not base64":    {"prompts/newest?tags=go", "!!!"},
		"empty":         {"prompts/newest?tags=go", ""},
		"truncated":     {"prompts/newest?tags=go", tok[:len(tok)-3]},
		"huge":          {"prompts/newest?tags=go", string(bytes.Repeat([]byte("A"), 5000))},
		"padded base64": {"prompts/newest?tags=go", tok + "=="},
	}
	for name, tc := range cases {
		if _, err := c.Decode(tc.query, tc.token); !errors.Is(err, ErrBadCursor) {
			t.Errorf("%s: err = %v, want ErrBadCursor", name, err)
		}
	}
}

func TestCursorKeyRotation(t *testing.T) {
	oldKey, newKey := bytes.Repeat([]byte("o"), 32), bytes.Repeat([]byte("n"), 32)
	before, _ := NewCursors(oldKey)
	after, _ := NewCursors(newKey, oldKey)
	tok := before.Encode("q", Cursor{Bucket: "b"})
	if cur, err := after.Decode("q", tok); err != nil || cur.Bucket != "b" {
		t.Fatalf("a token signed with a retired key stopped working: %v", err)
	}
	dropped, _ := NewCursors(newKey)
	if _, err := dropped.Decode("q", tok); !errors.Is(err, ErrBadCursor) {
		t.Fatalf("a token signed with a dropped key still works: %v", err)
	}
}

func TestNewCursorsNeedsALongKey(t *testing.T) {
	if _, err := NewCursors([]byte("short")); err == nil {
		t.Fatal("a short key was accepted")
	}
}

func FuzzCursorDecode(f *testing.F) {
	c := testCursors(f)
	f.Add(c.Encode("q", Cursor{Bucket: "202601", Next: &Continuation{NextPartitionKey: "p", NextRowKey: "r"}}))
	f.Add(c.Encode("q", Cursor{}))
	f.Add("")
	f.Add("AAAA")
	f.Fuzz(func(t *testing.T, token string) {
		cur, err := c.Decode("q", token)
		if err != nil {
			if !errors.Is(err, ErrBadCursor) {
				t.Fatalf("error %v is not ErrBadCursor", err)
			}
			return
		}
		// Anything that decodes must re-encode to a token that decodes the same.
		again, err := c.Decode("q", c.Encode("q", cur))
		if err != nil || again.Bucket != cur.Bucket || (again.Next == nil) != (cur.Next == nil) {
			t.Fatalf("re-encode mismatch: %+v vs %+v (%v)", cur, again, err)
		}
	})
}

// A token reveals nothing of the keys inside it: a roster cursor once
// carried members' email hashes in the clear.
func TestCursorHidesItsKeys(t *testing.T) {
	c := testCursors(t)
	secret := "f7d54c22dda5b1780276601cd005909b70543fc4a6ba72d735b4cb9bbb611f01"
	token := c.Encode("groups/roster|G1", Cursor{Bucket: "b-" + secret, Next: &Continuation{NextPartitionKey: "G1", NextRowKey: secret}})
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(token, secret[:16]) || bytes.Contains(raw, []byte(secret[:16])) || bytes.Contains(raw, []byte("G1")) {
		t.Fatalf("token %s shows its keys", token)
	}
	if again := c.Encode("groups/roster|G1", Cursor{Bucket: "b-" + secret, Next: &Continuation{NextPartitionKey: "G1", NextRowKey: secret}}); again != token {
		t.Error("the same position gave two tokens")
	}
	sealed := c.Seal("member|G1", secret)
	if strings.Contains(sealed, secret[:16]) {
		t.Fatal("Seal shows its value")
	}
	if got, err := c.Open("member|G1", sealed); err != nil || got != secret {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if _, err := c.Open("member|G2", sealed); !errors.Is(err, ErrBadCursor) {
		t.Fatalf("a token sealed for one group opens for another: %v", err)
	}
}

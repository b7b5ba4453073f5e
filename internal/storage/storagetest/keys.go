package storagetest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

// disallowedKeyRunes are every character Azure rejects in a key: / \ # ? and
// the control characters U+0000–U+001F and U+007F–U+009F, and '%', which
// the real service decodes twice (Azurite does not, so only the front's
// check keeps both backends honest).
func disallowedKeyRunes() []rune {
	rs := []rune{'/', '\\', '#', '?', '%'}
	for r := rune(0x00); r <= 0x1F; r++ {
		rs = append(rs, r)
	}
	for r := rune(0x7F); r <= 0x9F; r++ {
		rs = append(rs, r)
	}
	return rs
}

type entityOp struct {
	name string
	call func(ctx context.Context, tbl *storage.Table, e storage.Entity) error
}

// writeOps are the calls that write an entity; each must reject an invalid
// one before the backend sees it.
var writeOps = []entityOp{
	{"Insert", func(ctx context.Context, tbl *storage.Table, e storage.Entity) error {
		_, err := tbl.Insert(ctx, e)
		return err
	}},
	{"UpsertMerge", func(ctx context.Context, tbl *storage.Table, e storage.Entity) error {
		_, err := tbl.Upsert(ctx, e, storage.Merge)
		return err
	}},
	{"UpsertReplace", func(ctx context.Context, tbl *storage.Table, e storage.Entity) error {
		_, err := tbl.Upsert(ctx, e, storage.Replace)
		return err
	}},
	{"Update", func(ctx context.Context, tbl *storage.Table, e storage.Entity) error {
		_, err := tbl.Update(ctx, e, storage.Merge, storage.AnyETag)
		return err
	}},
	{"Transaction", func(ctx context.Context, tbl *storage.Table, e storage.Entity) error {
		return tbl.Transact(ctx, []storage.TxOp{{Kind: storage.TxUpsert, Entity: e}})
	}},
}

// keyOps are writeOps and the calls that take only keys.
var keyOps = append(slices.Clone(writeOps),
	entityOp{"Get", func(ctx context.Context, tbl *storage.Table, e storage.Entity) error {
		_, err := tbl.Get(ctx, e.PartitionKey, e.RowKey)
		return err
	}},
	entityOp{"Delete", func(ctx context.Context, tbl *storage.Table, e storage.Entity) error {
		return tbl.Delete(ctx, e.PartitionKey, e.RowKey, storage.AnyETag)
	}},
)

// reject checks that every op fails with target.
func reject(t *testing.T, tbl *storage.Table, ops []entityOp, e storage.Entity, target error, what string) {
	t.Helper()
	for _, op := range ops {
		wantErr(t, op.call(t.Context(), tbl, e), target, fmt.Sprintf("%s %s", op.name, what))
	}
}

// rejectKey checks that every keyed call fails with ErrInvalidKey when bad is
// the PartitionKey, and when it is the RowKey.
func rejectKey(t *testing.T, tbl *storage.Table, bad string) {
	t.Helper()
	reject(t, tbl, keyOps, ent(bad, "r", nil), storage.ErrInvalidKey, "with the key as PartitionKey")
	reject(t, tbl, keyOps, ent("p", bad, nil), storage.ErrInvalidKey, "with the key as RowKey")
}

// acceptKey checks that a key works as PartitionKey and as RowKey through
// insert, get, update, query, delete and a transaction.
func acceptKey(t *testing.T, tbl *storage.Table, good string) {
	t.Helper()
	ctx := t.Context()
	for _, pos := range []struct{ name, pk, rk string }{{"PartitionKey", good, "r"}, {"RowKey", "accept", good}} {
		props := map[string]any{"Pos": pos.name}
		etag := insert(t, tbl, ent(pos.pk, pos.rk, props))
		checkProps(t, get(t, tbl, pos.pk, pos.rk).Props, props, pos.name)
		_, err := tbl.Update(ctx, ent(pos.pk, pos.rk, props), storage.Replace, etag)
		must(t, err, "update as "+pos.name)
		found, _ := queryAll(t, tbl, storage.Query{PartitionKey: pos.pk, RowKeyFrom: pos.rk, RowKeyTo: pos.rk + " "})
		sameKeys(t, keysOf(found), []key{{pos.pk, pos.rk}}, "query as "+pos.name)
		must(t, tbl.Delete(ctx, pos.pk, pos.rk, storage.AnyETag), "delete as "+pos.name)
		wantMissing(t, tbl, pos.pk, pos.rk)
		must(t, tbl.Transact(ctx, []storage.TxOp{{Kind: storage.TxInsert, Entity: ent(pos.pk, pos.rk, nil)}}), "transaction as "+pos.name)
		must(t, tbl.Delete(ctx, pos.pk, pos.rk, storage.AnyETag), "delete as "+pos.name)
	}
}

func testKeys(t *testing.T, s *suite) {
	tbl := s.table(t)
	t.Run("DisallowedChar", func(t *testing.T) {
		for _, r := range disallowedKeyRunes() {
			t.Run(fmt.Sprintf("U+%04X", r), func(t *testing.T) {
				t.Parallel()
				rejectKey(t, tbl, "a"+string(r)+"b")
				rejectKey(t, tbl, string(r))
			})
		}
	})
	// The characters just outside each disallowed range, and other
	// punctuation that needs escaping in URLs or OData, are fine.
	t.Run("AllowedNeighbours", func(t *testing.T) {
		for _, k := range []string{" ", "~", "\u00A0", "'", "\"", "+", "&", "|", "=", "é", "😀", "\uFFFF"} {
			t.Run(fmt.Sprintf("U+%04X", []rune(k)[0]), func(t *testing.T) {
				t.Parallel()
				acceptKey(t, tbl, "x"+k+"y")
			})
		}
	})
	long := []struct{ name, key string }{
		// 1024 UTF-16 bytes each: ASCII, Cyrillic, surrogate pairs.
		{"ASCII", longString('a', 512)},
		{"Cyrillic", longString('ж', 512)},
		{"Emoji", longString('😀', 256)},
		{"Mixed", longString('😀', 255) + "ab"},
	}
	t.Run("Length1024BytesAccepted", func(t *testing.T) {
		for _, c := range long {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				acceptKey(t, tbl, c.key)
			})
		}
	})
	t.Run("LengthOver1024BytesRejected", func(t *testing.T) {
		for _, c := range long {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				rejectKey(t, tbl, c.key+"c") // 1026 bytes
			})
		}
		t.Run("Emoji1028", func(t *testing.T) {
			t.Parallel()
			rejectKey(t, tbl, longString('😀', 257))
		})
	})
	// An empty key is legal in Azure but in practice a missing value, so the
	// contract refuses it in every call, as PartitionKey and as RowKey.
	t.Run("EmptyKeyRejected", func(t *testing.T) {
		t.Parallel()
		rejectKey(t, tbl, "")
		reject(t, tbl, keyOps, ent("", "", nil), storage.ErrInvalidKey, "with both keys empty")
	})
	t.Run("InvalidUTF8Rejected", func(t *testing.T) {
		t.Parallel()
		rejectKey(t, tbl, "a\xffb")
	})
}

package embedded

import (
	"context"
	"errors"
	"maps"
	"testing"

	"github.com/harmony/harmony/internal/storage"
)

func TestWritesFollowAzureRules(t *testing.T) {
	ctx := context.Background()
	stored := map[string]any{"A": "a", "B": int32(1)}
	tests := []struct {
		name      string
		write     func(b *Backend, etag string) (string, error)
		wantErr   error
		wantProps map[string]any // after the write; nil when the entity is gone
	}{
		{"insert existing", func(b *Backend, _ string) (string, error) {
			return b.Insert(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "r"})
		}, storage.ErrExists, stored},
		{"update missing", func(b *Backend, _ string) (string, error) {
			return b.Update(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "other"}, storage.Merge, storage.AnyETag)
		}, storage.ErrNotFound, stored},
		{"update stale etag", func(b *Backend, _ string) (string, error) {
			return b.Update(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "r"}, storage.Merge, `W/"999"`)
		}, storage.ErrPrecondition, stored},
		{"merge with etag", func(b *Backend, etag string) (string, error) {
			return b.Update(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "r", Props: map[string]any{"B": int32(2), "C": true}}, storage.Merge, etag)
		}, nil, map[string]any{"A": "a", "B": int32(2), "C": true}},
		{"replace with star", func(b *Backend, _ string) (string, error) {
			return b.Update(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "r", Props: map[string]any{"C": true}}, storage.Replace, storage.AnyETag)
		}, nil, map[string]any{"C": true}},
		{"upsert merge", func(b *Backend, _ string) (string, error) {
			return b.Upsert(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "r", Props: map[string]any{"C": true}}, storage.Merge)
		}, nil, map[string]any{"A": "a", "B": int32(1), "C": true}},
		{"upsert replace", func(b *Backend, _ string) (string, error) {
			return b.Upsert(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "r", Props: map[string]any{"C": true}}, storage.Replace)
		}, nil, map[string]any{"C": true}},
		{"delete stale etag", func(b *Backend, _ string) (string, error) {
			return "", b.Delete(ctx, "Items", "p", "r", `W/"999"`)
		}, storage.ErrPrecondition, stored},
		{"delete with etag", func(b *Backend, etag string) (string, error) {
			return "", b.Delete(ctx, "Items", "p", "r", etag)
		}, nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := openEmbeddedForTest(t, Options{})
			etag, err := b.Insert(ctx, "Items", storage.Entity{PartitionKey: "p", RowKey: "r", Props: stored})
			if err != nil {
				t.Fatal(err)
			}
			newETag, err := tt.write(b, etag)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			e, getErr := b.Get(ctx, "Items", "p", "r")
			if tt.wantProps == nil {
				if !errors.Is(getErr, storage.ErrNotFound) {
					t.Errorf("entity still there: %v", getErr)
				}
				return
			}
			if getErr != nil {
				t.Fatal(getErr)
			}
			if !maps.Equal(e.Props, tt.wantProps) {
				t.Errorf("props = %v, want %v", e.Props, tt.wantProps)
			}
			if err == nil && (newETag == etag || newETag != e.ETag) {
				t.Errorf("write returned ETag %q; old %q, stored %q", newETag, etag, e.ETag)
			}
			if err != nil && e.ETag != etag {
				t.Errorf("failed write changed the ETag from %q to %q", etag, e.ETag)
			}
		})
	}
}

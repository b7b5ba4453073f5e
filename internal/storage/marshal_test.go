package storage

import (
	"errors"
	"math"
	"testing"
	"time"
)

type sampleRow struct {
	PartitionKey string     `table:"PartitionKey"`
	RowKey       string     `table:"RowKey"`
	ETag         string     `table:"ETag"`
	Timestamp    time.Time  `table:"Timestamp"`
	Title        string     `table:"Title"`
	Likes        int64      `table:"Likes"`
	Small        int32      `table:"Small"`
	Plain        int        `table:"Plain"`
	Score        float64    `table:"Score"`
	Public       bool       `table:"Public"`
	ID           GUID       `table:"Id"`
	Blob         []byte     `table:"Blob"`
	DeletedAt    *time.Time `table:"DeletedAt"`
	Skipped      string     `table:"-"`
	Untagged     string
}

func TestMarshalRoundTrip(t *testing.T) {
	del := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	in := sampleRow{PartitionKey: "u|1", RowKey: "p1", ETag: "e", Title: "Привет", Likes: 1 << 60, Small: -5, Plain: 7,
		Score: 2, Public: true, ID: GUID{1, 2}, Blob: []byte{0, 1}, DeletedAt: &del, Skipped: "x", Untagged: "u"}
	e, err := Marshal(&in)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.Props["Skipped"]; ok {
		t.Error("skipped field was stored")
	}
	if e.Props["Plain"] != int64(7) || e.Props["Small"] != int32(-5) || e.Props["Untagged"] != "u" {
		t.Errorf("props = %#v", e.Props)
	}
	var out sampleRow
	if err := Unmarshal(e, &out); err != nil {
		t.Fatal(err)
	}
	out.Skipped = "x"
	if out.Title != in.Title || out.Likes != in.Likes || out.Small != in.Small || out.Plain != in.Plain ||
		out.Score != in.Score || !out.Public || out.ID != in.ID || string(out.Blob) != string(in.Blob) ||
		out.DeletedAt == nil || !out.DeletedAt.Equal(del) || out.PartitionKey != "u|1" || out.ETag != "e" {
		t.Errorf("round trip lost data: %+v", out)
	}

	in.DeletedAt = nil
	e, _ = Marshal(in)
	if _, ok := e.Props["DeletedAt"]; ok {
		t.Error("nil pointer was stored")
	}
}

func TestUnmarshalTypeMismatch(t *testing.T) {
	var out sampleRow
	err := Unmarshal(Entity{Props: map[string]any{"Title": int64(3)}}, &out)
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
	if err := Unmarshal(Entity{Props: map[string]any{"Likes": int32(3)}}, &out); err != nil || out.Likes != 3 {
		t.Fatalf("int32 into int64: %v %d", err, out.Likes)
	}
	if err := Unmarshal(Entity{Props: map[string]any{"Small": int64(1) << 40}}, &out); !errors.Is(err, ErrInvalid) {
		t.Fatalf("overflow not caught: %v", err)
	}
	if err := Unmarshal(Entity{}, out); !errors.Is(err, ErrInvalid) {
		t.Fatalf("non-pointer accepted: %v", err)
	}
}

// Rows written by other tools: numbers decode losslessly across Int32,
// Int64 and Double, a bool takes "true" and "false", and anything else is
// ErrBadRow, which Decode skips.
func TestUnmarshalAcceptsCompatibleTypes(t *testing.T) {
	type row struct {
		N int64   `table:"N"`
		I int32   `table:"I"`
		F float64 `table:"F"`
		B bool    `table:"B"`
		P *int64  `table:"P"`
	}
	good := []map[string]any{
		{"N": int32(7), "I": int64(7), "F": int32(7), "B": "true", "P": 7.0},
		{"N": 7.0, "I": 7.0, "F": int64(7), "B": "FALSE", "P": int32(7)},
	}
	for _, props := range good {
		var r row
		if err := Unmarshal(Entity{PartitionKey: "p", RowKey: "r", Props: props}, &r); err != nil || r.N != 7 || r.I != 7 || r.F != 7 || r.P == nil || *r.P != 7 {
			t.Errorf("%v: %+v, %v", props, r, err)
		}
	}
	for _, props := range []map[string]any{
		{"N": 7.5}, {"N": "7"}, {"I": int64(1 << 40)}, {"I": 1e12}, {"F": int64(1<<53 + 1)}, {"B": "maybe"}, {"B": int32(1)}, {"N": math.Inf(1)},
	} {
		var r row
		if err := Unmarshal(Entity{PartitionKey: "p", RowKey: "r", Props: props}, &r); !errors.Is(err, ErrBadRow) {
			t.Errorf("%v: err %v, want ErrBadRow", props, err)
		}
	}
}

// keys and card are embedded the way index rows share columns: one
// exported, one not, neither tagged.
type keys struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	ETag         string `table:"ETag"`
}

type card struct {
	Title string    `table:"title"`
	At    time.Time `table:"at"`
	Likes int64     `table:"likes"`
}

type embeddingRow struct {
	keys
	card
	Score int64 `table:"score"`
}

// An embedded struct's columns are the row's own, keys included, and
// they come back into it.
func TestMarshalEmbedded(t *testing.T) {
	at := time.Date(2026, 11, 26, 9, 0, 0, 0, time.UTC)
	in := embeddingRow{keys{"p", "r", "e"}, card{"Hello", at, 3}, 7}
	e, err := Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if e.PartitionKey != "p" || e.RowKey != "r" || e.ETag != "e" || len(e.Props) != 4 ||
		e.Props["title"] != "Hello" || e.Props["likes"] != int64(3) || e.Props["score"] != int64(7) {
		t.Fatalf("entity = %+v", e)
	}
	var out embeddingRow
	if err := Unmarshal(e, &out); err != nil {
		t.Fatal(err)
	}
	if out != in {
		t.Fatalf("round trip: %+v, want %+v", out, in)
	}
}

// Two columns of one name, one of them embedded, are refused.
func TestMarshalEmbeddedNameClash(t *testing.T) {
	type clash struct {
		card
		Title string `table:"title"`
	}
	if _, err := Marshal(clash{}); !errors.Is(err, ErrInvalid) {
		t.Fatalf("Marshal = %v, want ErrInvalid", err)
	}
}

package embedded

import (
	"bytes"
	"math"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

func TestRecordRoundTripKeepsEveryType(t *testing.T) {
	props := map[string]any{
		"Str":       "héllo ' \"quoted\" \U0001f600",
		"Empty":     "",
		"I32":       int32(math.MinInt32),
		"I32Max":    int32(math.MaxInt32),
		"I64":       int64(1<<53 + 1), // a double would round this
		"I64Min":    int64(math.MinInt64),
		"Whole":     float64(3), // stays a double, not an integer
		"NegZero":   math.Copysign(0, -1),
		"Tiny":      math.SmallestNonzeroFloat64,
		"True":      true,
		"False":     false,
		"When":      time.Date(2024, 2, 29, 23, 59, 59, 123456700, time.UTC),
		"Earliest":  time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC),
		"Latest":    time.Date(9999, 12, 31, 23, 59, 59, 999999900, time.UTC),
		"ID":        storage.GUID{0xde, 0xad, 0xbe, 0xef, 15: 0x01},
		"Bin":       []byte{0, 1, 2, 0xff},
		"EmptyBin":  []byte{},
		"WithNul":   "a\x00b",
		"Surrogate": "\uffff\U0010ffff",
	}
	stamp := time.Date(2025, 1, 2, 3, 4, 5, 600, time.UTC)
	rec, err := encodeRecord(nil, 42, stamp, props)
	if err != nil {
		t.Fatal(err)
	}
	r, err := parseRecord(rec)
	if err != nil {
		t.Fatal(err)
	}
	e, err := decodeEntity(rowKey("p\ue000", "r\U0001f600"), r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if e.PartitionKey != "p\ue000" || e.RowKey != "r\U0001f600" {
		t.Errorf("keys = (%q, %q)", e.PartitionKey, e.RowKey)
	}
	if e.ETag != `W/"42"` || !e.Timestamp.Equal(stamp) || e.Timestamp.Location() != time.UTC {
		t.Errorf("ETag %q, Timestamp %v", e.ETag, e.Timestamp)
	}
	if len(e.Props) != len(props) {
		t.Errorf("got %d properties, want %d", len(e.Props), len(props))
	}
	for name, want := range props {
		if !sameValue(e.Props[name], want) {
			t.Errorf("%s = %#v (%T), want %#v (%T)", name, e.Props[name], e.Props[name], want, want)
		}
	}
}

// sameValue is exact equality that keeps the Go type (so the EDM type).
func sameValue(got, want any) bool {
	switch w := want.(type) {
	case []byte:
		g, ok := got.([]byte)
		return ok && bytes.Equal(g, w)
	case time.Time:
		g, ok := got.(time.Time)
		return ok && g.Equal(w) && g.Location() == time.UTC
	case float64:
		g, ok := got.(float64)
		return ok && math.Float64bits(g) == math.Float64bits(w)
	}
	return got == want
}

func TestDecodeSelectKeepsOnlyNamedProperties(t *testing.T) {
	rec, err := encodeRecord(nil, 1, time.Now(), map[string]any{"A": "a", "B": int32(2), "C": true})
	if err != nil {
		t.Fatal(err)
	}
	r, _ := parseRecord(rec)
	e, err := decodeEntity(rowKey("p", "r"), r, map[string]bool{"B": true, "Missing": true})
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Props) != 1 || e.Props["B"] != int32(2) {
		t.Errorf("props = %v, want only B", e.Props)
	}
}

// FuzzParseRecord checks that damaged records fail with an error, never a
// panic.
func FuzzParseRecord(f *testing.F) {
	rec, _ := encodeRecord(nil, 7, time.Now(), map[string]any{"S": "x", "B": []byte{1}, "G": storage.GUID{}, "T": time.Now()})
	f.Add(rec)
	f.Add([]byte{recordVersion})
	f.Fuzz(func(t *testing.T, v []byte) {
		r, err := parseRecord(v)
		if err != nil {
			return
		}
		decodeEntity(rowKey("p", "r"), r, nil)
	})
}

package azure

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

func TestMarshalEntity(t *testing.T) {
	e := storage.Entity{PartitionKey: "p'1", RowKey: "ж", Props: map[string]any{
		"S":   "123",
		"I32": int32(-7),
		"I64": int64(9007199254740993),
		"D":   2.0,
		"B":   true,
		"T":   time.Date(2024, 2, 29, 1, 2, 3, 400, time.UTC),
		"G":   storage.GUID{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
		"X":   []byte{1, 2, 3},
	}}
	got, err := marshalEntity(e)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"PartitionKey":"p'1","RowKey":"ж",` +
		`"B":true,` +
		`"D@odata.type":"Edm.Double","D":2,` +
		`"G@odata.type":"Edm.Guid","G":"deadbeef-0102-0304-0506-0708090a0b0c",` +
		`"I32":-7,` +
		`"I64@odata.type":"Edm.Int64","I64":"9007199254740993",` +
		`"S":"123",` +
		`"T@odata.type":"Edm.DateTime","T":"2024-02-29T01:02:03.0000004Z",` +
		`"X@odata.type":"Edm.Binary","X":"AQID"}`
	if string(got) != want {
		t.Errorf("marshalEntity:\n got %s\nwant %s", got, want)
	}
	if !json.Valid(got) {
		t.Error("output is not valid JSON")
	}
}

func TestParseEntity(t *testing.T) {
	ts := time.Date(2024, 2, 29, 1, 2, 3, 123456700, time.UTC)
	cases := []struct {
		name string
		json string
		want map[string]any
	}{
		{"full metadata, Azure style",
			`{"odata.metadata":"x","odata.type":"a.t","odata.id":"x","odata.etag":"W/\"1\"","odata.editLink":"x",` +
				`"PartitionKey":"p","RowKey":"r","Timestamp@odata.type":"Edm.DateTime","Timestamp":"2024-02-29T01:02:03.1234567Z",` +
				`"D@odata.type":"Edm.Double","D":2,"I@odata.type":"Edm.Int32","I":5,"L@odata.type":"Edm.Int64","L":"-9223372036854775808",` +
				`"S":"42","B":false}`,
			map[string]any{"D": 2.0, "I": int32(5), "L": int64(math.MinInt64), "S": "42", "B": false}},
		{"minimal metadata, Azurite style",
			`{"PartitionKey":"p","RowKey":"r","Timestamp":"2024-02-29T01:02:03.1234567Z","D":2.0,"E":1e+300,"I":5,"F":-0.5}`,
			map[string]any{"D": 2.0, "E": 1e300, "I": int32(5), "F": -0.5}},
		{"doubles as strings",
			`{"PartitionKey":"p","RowKey":"r","N@odata.type":"Edm.Double","N":"NaN","P@odata.type":"Edm.Double","P":"Infinity"}`,
			map[string]any{"N": math.NaN(), "P": math.Inf(1)}},
		{"typed strings",
			`{"PartitionKey":"p","RowKey":"r","T@odata.type":"Edm.DateTime","T":"2024-02-29T01:02:03.1234567Z",` +
				`"G@odata.type":"Edm.Guid","G":"DEADBEEF-0102-0304-0506-0708090A0B0C","X@odata.type":"Edm.Binary","X":"",` +
				`"Y@odata.type":"Edm.Binary","Y":"AQID"}`,
			map[string]any{"T": ts, "G": storage.GUID{0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
				"X": []byte{}, "Y": []byte{1, 2, 3}}},
		{"a selected property the entity lacks is null",
			`{"PartitionKey":"p","RowKey":"r","Missing":null,"S":"x"}`,
			map[string]any{"S": "x"}},
		{"an unannotated integer beyond Int32",
			`{"PartitionKey":"p","RowKey":"r","L":3000000000}`,
			map[string]any{"L": int64(3000000000)}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var raw rawEntity
			if err := json.Unmarshal([]byte(c.json), &raw); err != nil {
				t.Fatal(err)
			}
			e, err := parseEntity(raw)
			if err != nil {
				t.Fatal(err)
			}
			if e.PartitionKey != "p" || e.RowKey != "r" {
				t.Errorf("keys = %q/%q", e.PartitionKey, e.RowKey)
			}
			if !sameProps(e.Props, c.want) {
				t.Errorf("props = %#v\nwant    %#v", e.Props, c.want)
			}
		})
	}
}

func TestParseEntityMetadata(t *testing.T) {
	var raw rawEntity
	body := `{"odata.etag":"W/\"datetime'2024-02-29T01%3A02%3A03.1234567Z'\"","PartitionKey":"p","RowKey":"r",` +
		`"Timestamp@odata.type":"Edm.DateTime","Timestamp":"2024-02-29T01:02:03.1234567Z"}`
	if err := json.Unmarshal([]byte(body), &raw); err != nil {
		t.Fatal(err)
	}
	e, err := parseEntity(raw)
	if err != nil {
		t.Fatal(err)
	}
	if want := `W/"datetime'2024-02-29T01%3A02%3A03.1234567Z'"`; e.ETag != want {
		t.Errorf("ETag = %s, want %s", e.ETag, want)
	}
	if want := time.Date(2024, 2, 29, 1, 2, 3, 123456700, time.UTC); !e.Timestamp.Equal(want) {
		t.Errorf("Timestamp = %v, want %v", e.Timestamp, want)
	}
	if len(e.Props) != 0 {
		t.Errorf("Props = %v, want none", e.Props)
	}
}

func TestParseEntityRejectsBadValues(t *testing.T) {
	for _, body := range []string{
		`{"PartitionKey":"p","RowKey":"r","G@odata.type":"Edm.Guid","G":"not-a-guid"}`,
		`{"PartitionKey":"p","RowKey":"r","L@odata.type":"Edm.Int64","L":"1.5"}`,
		`{"PartitionKey":"p","RowKey":"r","T@odata.type":"Edm.DateTime","T":"yesterday"}`,
		`{"PartitionKey":"p","RowKey":"r","X@odata.type":"Edm.Binary","X":"***"}`,
		`{"PartitionKey":"p","RowKey":"r","Q@odata.type":"Edm.Decimal","Q":"1"}`,
	} {
		var raw rawEntity
		if err := json.Unmarshal([]byte(body), &raw); err != nil {
			t.Fatal(err)
		}
		if _, err := parseEntity(raw); err == nil {
			t.Errorf("parseEntity(%s) succeeded", body)
		}
	}
}

func TestASCIIJSON(t *testing.T) {
	in := `{"S":"Ёж 😀 a","K":"plain"}`
	got := string(asciiJSON([]byte(in)))
	want := `{"S":"\u0401\u0436 \ud83d\ude00 a","K":"plain"}`
	if got != want {
		t.Errorf("asciiJSON = %s, want %s", got, want)
	}
	var a, b map[string]string
	if err := json.Unmarshal([]byte(in), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(got), &b); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("escaped JSON means %v, want %v", b, a)
	}
	if plain := `{"a":1}`; string(asciiJSON([]byte(plain))) != plain {
		t.Error("ASCII input changed")
	}
}

// sameProps compares property maps by type and value: times by instant,
// NaN equal to NaN.
func sameProps(got, want map[string]any) bool {
	if len(got) != len(want) {
		return false
	}
	for k, w := range want {
		g, ok := got[k]
		if !ok || reflect.TypeOf(g) != reflect.TypeOf(w) {
			return false
		}
		switch wv := w.(type) {
		case time.Time:
			if !g.(time.Time).Equal(wv) {
				return false
			}
		case float64:
			gv := g.(float64)
			if !(gv == wv && math.Signbit(gv) == math.Signbit(wv) || math.IsNaN(gv) && math.IsNaN(wv)) {
				return false
			}
		default:
			if !reflect.DeepEqual(g, w) {
				return false
			}
		}
	}
	return true
}

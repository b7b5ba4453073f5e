package azure

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// EDM type names as they appear in @odata.type annotations.
const (
	edmString   = "Edm.String"
	edmInt32    = "Edm.Int32"
	edmInt64    = "Edm.Int64"
	edmDouble   = "Edm.Double"
	edmBoolean  = "Edm.Boolean"
	edmDateTime = "Edm.DateTime"
	edmGUID     = "Edm.Guid"
	edmBinary   = "Edm.Binary"
)

// dateTimeLayout is Azure's Edm.DateTime form: UTC with all seven digits of
// its 100 ns precision.
const dateTimeLayout = "2006-01-02T15:04:05.0000000Z"

func formatDateTime(t time.Time) string { return t.UTC().Format(dateTimeLayout) }

func parseDateTime(s string) (time.Time, error) {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, err
	}
	return t.UTC(), nil
}

func formatGUID(g storage.GUID) string {
	h := hex.EncodeToString(g[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func parseGUID(s string) (storage.GUID, error) {
	var g storage.GUID
	h := strings.ReplaceAll(s, "-", "")
	if len(s) != 36 || len(h) != 32 {
		return g, fmt.Errorf("bad guid %q", s)
	}
	if _, err := hex.Decode(g[:], []byte(h)); err != nil {
		return g, fmt.Errorf("bad guid %q", s)
	}
	return g, nil
}

// marshalEntity renders an entity as the JSON body of an insert or update.
// Every property whose type JSON cannot carry unambiguously gets an
// @odata.type annotation: a whole double like 2.0 would otherwise read back
// as Int32, and int64 travels as a string so values above 2^53 stay exact.
// Properties are written in name order, so the output is deterministic.
func marshalEntity(e storage.Entity) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(`{"PartitionKey":`)
	writeJSONString(&b, e.PartitionKey)
	b.WriteString(`,"RowKey":`)
	writeJSONString(&b, e.RowKey)
	names := make([]string, 0, len(e.Props))
	for k := range e.Props {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, name := range names {
		edm, val, err := encodeValue(e.Props[name])
		if err != nil {
			return nil, fmt.Errorf("%w: property %s: %v", storage.ErrInvalid, name, err)
		}
		if edm != "" {
			b.WriteByte(',')
			writeJSONString(&b, name+"@odata.type")
			b.WriteByte(':')
			writeJSONString(&b, edm)
		}
		b.WriteByte(',')
		writeJSONString(&b, name)
		b.WriteByte(':')
		b.WriteString(val)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// encodeValue returns a value's annotation ("" when JSON's own type is
// exact) and its JSON text.
func encodeValue(v any) (edm, val string, err error) {
	switch x := v.(type) {
	case string:
		return "", jsonString(x), nil
	case int32:
		return "", strconv.FormatInt(int64(x), 10), nil
	case int:
		return edmInt64, jsonString(strconv.Itoa(x)), nil
	case int64:
		return edmInt64, jsonString(strconv.FormatInt(x, 10)), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", "", fmt.Errorf("not a finite number")
		}
		return edmDouble, strconv.FormatFloat(x, 'g', -1, 64), nil
	case bool:
		return "", strconv.FormatBool(x), nil
	case time.Time:
		return edmDateTime, jsonString(formatDateTime(x)), nil
	case storage.GUID:
		return edmGUID, jsonString(formatGUID(x)), nil
	case []byte:
		return edmBinary, jsonString(base64.StdEncoding.EncodeToString(x)), nil
	default:
		return "", "", fmt.Errorf("unsupported type %T", v)
	}
}

func jsonString(s string) string {
	var b bytes.Buffer
	writeJSONString(&b, s)
	return b.String()
}

func writeJSONString(b *bytes.Buffer, s string) {
	enc, _ := json.Marshal(s) // a string always marshals
	b.Write(enc)
}

// rawEntity is one entity as the service sent it, values still as JSON text
// so that 2.0 and 2 stay distinguishable.
type rawEntity map[string]json.RawMessage

// parseEntity turns a service entity (full or minimal metadata) into a
// storage.Entity. An @odata.type annotation decides a property's type; without
// one, the JSON token does: string, boolean, a number with a fraction or
// exponent is a double, an integer is Int32.
func parseEntity(raw rawEntity) (storage.Entity, error) {
	var e storage.Entity
	e.Props = make(map[string]any, len(raw))
	for name, val := range raw {
		if strings.HasPrefix(name, "odata.") || strings.Contains(name, "@") {
			continue
		}
		switch name {
		case "PartitionKey":
			if err := json.Unmarshal(val, &e.PartitionKey); err != nil {
				return e, fmt.Errorf("azure: PartitionKey: %w", err)
			}
			continue
		case "RowKey":
			if err := json.Unmarshal(val, &e.RowKey); err != nil {
				return e, fmt.Errorf("azure: RowKey: %w", err)
			}
			continue
		case "Timestamp":
			var s string
			if err := json.Unmarshal(val, &s); err != nil {
				return e, fmt.Errorf("azure: Timestamp: %w", err)
			}
			t, err := parseDateTime(s)
			if err != nil {
				return e, fmt.Errorf("azure: Timestamp: %w", err)
			}
			e.Timestamp = t
			continue
		}
		if string(val) == "null" { // a $select of a property this entity lacks
			continue
		}
		var edm string
		if ann, ok := raw[name+"@odata.type"]; ok {
			if err := json.Unmarshal(ann, &edm); err != nil {
				return e, fmt.Errorf("azure: %s@odata.type: %w", name, err)
			}
		}
		v, err := decodeValue(edm, val)
		if err != nil {
			return e, fmt.Errorf("azure: property %s: %w", name, err)
		}
		e.Props[name] = v
	}
	if tag, ok := raw["odata.etag"]; ok {
		if err := json.Unmarshal(tag, &e.ETag); err != nil {
			return e, fmt.Errorf("azure: odata.etag: %w", err)
		}
	}
	return e, nil
}

func decodeValue(edm string, val json.RawMessage) (any, error) {
	if edm == "" {
		edm = inferEDM(val)
	}
	switch edm {
	case edmString:
		var s string
		err := json.Unmarshal(val, &s)
		return s, err
	case edmBoolean:
		var b bool
		err := json.Unmarshal(val, &b)
		return b, err
	case edmInt32:
		n, err := strconv.ParseInt(unquote(val), 10, 32)
		return int32(n), err
	case edmInt64:
		return strconv.ParseInt(unquote(val), 10, 64)
	case edmDouble:
		// Double may arrive as a number or, for NaN and infinities, a string.
		return strconv.ParseFloat(unquote(val), 64)
	case edmDateTime:
		return parseDateTime(unquote(val))
	case edmGUID:
		return parseGUID(unquote(val))
	case edmBinary:
		var s string
		if err := json.Unmarshal(val, &s); err != nil {
			return nil, err
		}
		b, err := base64.StdEncoding.DecodeString(s)
		if b == nil && err == nil {
			b = []byte{}
		}
		return b, err
	default:
		return nil, fmt.Errorf("unsupported type %q", edm)
	}
}

// inferEDM is the type of an unannotated JSON value.
func inferEDM(val json.RawMessage) string {
	if len(val) == 0 {
		return ""
	}
	switch c := val[0]; {
	case c == '"':
		return edmString
	case c == 't' || c == 'f':
		return edmBoolean
	case bytes.ContainsAny(val, ".eE"):
		return edmDouble
	default:
		// An integer outside Int32's range can only be an unannotated Int64.
		if _, err := strconv.ParseInt(string(val), 10, 32); err != nil {
			return edmInt64
		}
		return edmInt32
	}
}

// unquote returns the text of a JSON string, or a JSON number as is.
func unquote(val json.RawMessage) string {
	if len(val) > 0 && val[0] == '"' {
		var s string
		if json.Unmarshal(val, &s) == nil {
			return s
		}
	}
	return string(val)
}

package storage

import (
	"fmt"
	"math"
	"regexp"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"
)

// Azure Table Storage limits, enforced here so both backends fail alike.
const (
	MaxKeyBytes      = 1024     // UTF-16 bytes in a PartitionKey or RowKey
	MaxProperties    = 252      // custom properties per entity
	MaxValueBytes    = 64 << 10 // a string (UTF-16 bytes) or binary value
	MaxEntityBytes   = 1 << 20  // an entity, by Azure's size formula
	MaxPropNameChars = 255
	// MaxTxBytes bounds a transaction's entities by the same size formula;
	// Azure rejects a batch request over 4 MiB.
	MaxTxBytes = 4 << 20
)

var (
	tableNameRE = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9]{2,62}$`)
	propNameRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// Azure's earliest and latest DateTime values.
	minTime = time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(9999, 12, 31, 23, 59, 59, 999999900, time.UTC)
)

// reservedProps are system properties that may not appear in Entity.Props.
var reservedProps = map[string]bool{"PartitionKey": true, "RowKey": true, "Timestamp": true, "ETag": true}

// ValidateTableName checks Azure's table-name rules.
func ValidateTableName(name string) error {
	if !tableNameRE.MatchString(name) || strings.EqualFold(name, "tables") {
		return fmt.Errorf("%w: table name %q must be 3-63 letters and digits, starting with a letter", ErrInvalid, name)
	}
	return nil
}

// ValidateContainerName checks Azure's container-name rules: 3-63 characters
// of lower-case letters, digits and single dashes, starting and ending with a
// letter or digit.
func ValidateContainerName(name string) error {
	bad := len(name) < 3 || len(name) > 63 || strings.Contains(name, "--") ||
		name[0] == '-' || name[len(name)-1] == '-'
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			bad = true
		}
	}
	if bad {
		return fmt.Errorf("%w: container name %q", ErrInvalid, name)
	}
	return nil
}

// ValidateBlobName accepts 1-1024 characters (Azure counts characters, not bytes) of slash-separated segments,
// none empty, "." or "..", with no backslash or control character, so a name
// is safe as a file path in the embedded backend too.
func ValidateBlobName(name string) error {
	if name == "" || utf8.RuneCountInString(name) > 1024 || !utf8.ValidString(name) || strings.ContainsRune(name, '\\') {
		return fmt.Errorf("%w: blob name %q", ErrInvalid, name)
	}
	for _, seg := range strings.Split(name, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("%w: blob name %q", ErrInvalid, name)
		}
	}
	for _, r := range name {
		if isControl(r) {
			return fmt.Errorf("%w: blob name has a control character", ErrInvalid)
		}
	}
	return nil
}

func isControl(r rune) bool { return r <= 0x1F || (r >= 0x7F && r <= 0x9F) }

// ValidateKey checks one PartitionKey or RowKey value: not empty, valid
// UTF-8, at most MaxKeyBytes as UTF-16, and none of / \ # ? % or control
// characters.
//
// Empty keys are legal in Azure but refused here: no Harmony table needs
// one (a singleton row takes a named key such as "meta"), and an empty key
// is in practice a missing value — an account without a verified email once
// wrote group rows under an empty userKey. '%' is refused because the Table
// service decodes the entity path twice, so a key holding '%' makes point
// operations fail or address another key (Azure Storage team, "PartitionKey
// or RowKey containing the percent '%' character causes some Windows Azure
// Tables APIs to fail"); EscapeKey never produces one.
func ValidateKey(k string) error {
	if k == "" {
		return fmt.Errorf("%w: key is empty", ErrInvalidKey)
	}
	if !utf8.ValidString(k) {
		return fmt.Errorf("%w: key is not valid UTF-8", ErrInvalidKey)
	}
	if utf16Bytes(k) > MaxKeyBytes {
		return fmt.Errorf("%w: key longer than %d bytes", ErrInvalidKey, MaxKeyBytes)
	}
	for _, r := range k {
		if forbiddenKeyRune(r) {
			return fmt.Errorf("%w: key contains %q", ErrInvalidKey, r)
		}
	}
	return nil
}

// forbiddenKeyRune reports the characters no key may hold.
func forbiddenKeyRune(r rune) bool {
	return r == '/' || r == '\\' || r == '#' || r == '?' || r == '%' || isControl(r)
}

func validateKeys(pk, rk string) error {
	if err := ValidateKey(pk); err != nil {
		return fmt.Errorf("PartitionKey: %w", err)
	}
	if err := ValidateKey(rk); err != nil {
		return fmt.Errorf("RowKey: %w", err)
	}
	return nil
}

func utf16Bytes(s string) int {
	n := 0
	for _, r := range s {
		n += 2 * utf16.RuneLen(r)
	}
	return n
}

// normalizeValue checks one property value and returns its stored form:
// int becomes int64, times become UTC at 100 ns.
func normalizeValue(name string, v any) (any, error) {
	switch x := v.(type) {
	case string:
		if !utf8.ValidString(x) {
			return nil, fmt.Errorf("%w: property %s is not valid UTF-8", ErrInvalid, name)
		}
		if utf16Bytes(x) > MaxValueBytes {
			return nil, fmt.Errorf("%w: property %s is over 64 KiB", ErrTooLarge, name)
		}
		return x, nil
	case []byte:
		if len(x) > MaxValueBytes {
			return nil, fmt.Errorf("%w: property %s is over 64 KiB", ErrTooLarge, name)
		}
		return x, nil
	case int:
		return int64(x), nil
	case int32, int64, bool, GUID:
		return x, nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%w: property %s is not a finite number", ErrInvalid, name)
		}
		return x, nil
	case time.Time:
		t := x.UTC().Truncate(100 * time.Nanosecond)
		if t.Before(minTime) || t.After(maxTime) {
			return nil, fmt.Errorf("%w: property %s is outside Azure's DateTime range", ErrInvalid, name)
		}
		return t, nil
	default:
		return nil, fmt.Errorf("%w: property %s has unsupported type %T", ErrInvalid, name, v)
	}
}

// valueSize is a value's size by Azure's entity-size formula.
func valueSize(v any) int {
	switch x := v.(type) {
	case string:
		return utf16Bytes(x) + 4
	case []byte:
		return len(x) + 4
	case int32:
		return 4
	case bool:
		return 1
	case GUID:
		return 16
	default: // int64, float64, time.Time
		return 8
	}
}

// EntitySize is an entity's size by Azure's formula:
// 4 + 2·len(PK) + 2·len(RK) + Σ(8 + 2·len(name) + size(value)).
func EntitySize(e Entity) int {
	n := 4 + utf16Bytes(e.PartitionKey) + utf16Bytes(e.RowKey)
	for k, v := range e.Props {
		n += 8 + utf16Bytes(k) + valueSize(v)
	}
	return n
}

// Normalize validates e as a write would and returns it in the form a
// read returns it (int as int64, times in UTC at 100 ns).
func Normalize(e Entity) (Entity, error) { return normalizeEntity(e) }

// normalizeEntity validates an entity for a write and returns a copy with
// normalized values; the caller's map is not changed.
func normalizeEntity(e Entity) (Entity, error) {
	if err := validateKeys(e.PartitionKey, e.RowKey); err != nil {
		return Entity{}, err
	}
	if len(e.Props) > MaxProperties {
		return Entity{}, fmt.Errorf("%w: %d properties, at most %d", ErrTooLarge, len(e.Props), MaxProperties)
	}
	props := make(map[string]any, len(e.Props))
	for k, v := range e.Props {
		if err := validatePropName(k); err != nil {
			return Entity{}, err
		}
		nv, err := normalizeValue(k, v)
		if err != nil {
			return Entity{}, err
		}
		props[k] = nv
	}
	e.Props = props
	if EntitySize(e) > MaxEntityBytes {
		return Entity{}, fmt.Errorf("%w: entity over 1 MiB", ErrTooLarge)
	}
	return e, nil
}

func validatePropName(k string) error {
	if reservedProps[k] {
		return fmt.Errorf("%w: property name %s is reserved", ErrInvalid, k)
	}
	if len(k) > MaxPropNameChars || !propNameRE.MatchString(k) {
		return fmt.Errorf("%w: property name %q", ErrInvalid, k)
	}
	return nil
}

// normalizeQuery validates a query and fills in the page size.
func normalizeQuery(q Query) (Query, error) {
	if q.Limit < 0 {
		return Query{}, fmt.Errorf("%w: negative limit", ErrInvalid)
	}
	if q.Limit == 0 || q.Limit > MaxPageSize {
		q.Limit = MaxPageSize
	}
	switch {
	case q.Scan && q.PartitionKey != "":
		return Query{}, fmt.Errorf("%w: a scan reads the whole table; it takes no PartitionKey", ErrInvalid)
	case !q.Scan && q.PartitionKey == "":
		return Query{}, fmt.Errorf("%w: query without a PartitionKey (set Scan to read the whole table)", ErrInvalidKey)
	case !q.Scan:
		if err := ValidateKey(q.PartitionKey); err != nil {
			return Query{}, fmt.Errorf("PartitionKey: %w", err)
		}
	}
	for _, k := range []string{q.RowKeyFrom, q.RowKeyTo, q.RowKeyPrefix} {
		if !utf8.ValidString(k) {
			return Query{}, fmt.Errorf("%w: query key is not valid UTF-8", ErrInvalidKey)
		}
	}
	if q.RowKeyIn != nil {
		switch {
		case q.Scan:
			return Query{}, fmt.Errorf("%w: RowKeyIn reads one partition; it takes no Scan", ErrInvalid)
		case len(q.RowKeyIn) == 0 || len(q.RowKeyIn) > MaxRowKeysIn:
			return Query{}, fmt.Errorf("%w: RowKeyIn takes 1 to %d keys, not %d", ErrInvalid, MaxRowKeysIn, len(q.RowKeyIn))
		}
		for _, k := range q.RowKeyIn {
			if err := ValidateKey(k); err != nil {
				return Query{}, fmt.Errorf("RowKeyIn: %w", err)
			}
		}
		q.RowKeyIn = append([]string(nil), q.RowKeyIn...)
	}
	q.Filters = append([]Filter(nil), q.Filters...) // the caller's slice stays as it was
	for i, f := range q.Filters {
		if f.Op < Eq || f.Op > Ge {
			return Query{}, fmt.Errorf("%w: filter on %s has an unknown operator", ErrInvalid, f.Name)
		}
		switch f.Name {
		case "PartitionKey", "RowKey":
			if _, ok := f.Value.(string); !ok {
				return Query{}, fmt.Errorf("%w: %s filter needs a string", ErrInvalid, f.Name)
			}
		case "Timestamp":
			if _, ok := f.Value.(time.Time); !ok {
				return Query{}, fmt.Errorf("%w: Timestamp filter needs a time", ErrInvalid)
			}
		default:
			if err := validatePropName(f.Name); err != nil {
				return Query{}, err
			}
		}
		v, err := normalizeValue(f.Name, f.Value)
		if err != nil {
			return Query{}, err
		}
		q.Filters[i].Value = v
	}
	for _, s := range q.Select {
		if !reservedProps[s] {
			if err := validatePropName(s); err != nil {
				return Query{}, err
			}
		}
	}
	return q, nil
}

// normalizeTx validates a transaction: 1..MaxTxOps operations on one
// partition key, each row key once, each entity valid.
func normalizeTx(ops []TxOp) ([]TxOp, error) {
	if len(ops) == 0 {
		return nil, fmt.Errorf("%w: empty transaction", ErrInvalidTransaction)
	}
	if len(ops) > MaxTxOps {
		return nil, fmt.Errorf("%w: %d operations, at most %d", ErrInvalidTransaction, len(ops), MaxTxOps)
	}
	out := make([]TxOp, len(ops))
	seen := make(map[string]bool, len(ops))
	total := 0
	pk := ops[0].Entity.PartitionKey
	for i, op := range ops {
		if op.Entity.PartitionKey != pk {
			return nil, fmt.Errorf("%w: operations span partition keys", ErrInvalidTransaction)
		}
		if seen[op.Entity.RowKey] {
			return nil, fmt.Errorf("%w: row key %q appears twice", ErrInvalidTransaction, op.Entity.RowKey)
		}
		seen[op.Entity.RowKey] = true
		switch op.Kind {
		case TxDelete:
			if err := validateKeys(op.Entity.PartitionKey, op.Entity.RowKey); err != nil {
				return nil, err
			}
			if op.IfMatch == "" {
				return nil, fmt.Errorf("%w: delete needs an ETag or AnyETag", ErrInvalidTransaction)
			}
		case TxInsert, TxUpsert, TxUpdate:
			e, err := normalizeEntity(op.Entity)
			if err != nil {
				return nil, err
			}
			op.Entity = e
			total += EntitySize(e)
			if op.Kind == TxUpdate && op.IfMatch == "" {
				return nil, fmt.Errorf("%w: update needs an ETag or AnyETag", ErrInvalidTransaction)
			}
		default:
			return nil, fmt.Errorf("%w: unknown operation kind", ErrInvalidTransaction)
		}
		out[i] = op
	}
	if total > MaxTxBytes {
		return nil, fmt.Errorf("%w: transaction carries %d bytes, at most %d", ErrTooLarge, total, MaxTxBytes)
	}
	return out, nil
}

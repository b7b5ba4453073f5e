package azure

import (
	"encoding/hex"
	"fmt"
	"math"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// This file is the only place in Harmony that builds OData text: $filter and
// $select for queries, and entity addresses for batches. Callers describe
// queries with storage.Query; every value is rendered here as a typed
// literal, strings quoted with ' doubled, so no input can change a filter's
// structure.

var filterNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

var opText = map[storage.Op]string{
	storage.Eq: "eq", storage.Ne: "ne",
	storage.Lt: "lt", storage.Le: "le",
	storage.Gt: "gt", storage.Ge: "ge",
}

// renderFilter renders a query's conditions as an OData $filter, ANDed. An
// empty result means no filter: the whole table.
func renderFilter(q storage.Query) (string, error) {
	var keys, in []storage.Filter
	key := func(name string, op storage.Op, v string) {
		if v != "" {
			keys = append(keys, storage.Filter{Name: name, Op: op, Value: v})
		}
	}
	key("PartitionKey", storage.Eq, q.PartitionKey)
	key("RowKey", storage.Ge, q.RowKeyFrom)
	key("RowKey", storage.Lt, q.RowKeyTo)
	key("RowKey", storage.Ge, q.RowKeyPrefix)
	key("RowKey", storage.Lt, storage.PrefixEnd(q.RowKeyPrefix))
	for _, k := range q.RowKeyIn {
		in = append(in, storage.Filter{Name: "RowKey", Op: storage.Eq, Value: k})
	}
	var parts []string
	for _, group := range []struct {
		conds      []storage.Filter
		join, wrap string
	}{{keys, " and ", "%s"}, {in, " or ", "(%s)"}, {q.Filters, " and ", "%s"}} {
		if len(group.conds) == 0 {
			continue
		}
		clauses := make([]string, 0, len(group.conds))
		for _, f := range group.conds {
			c, err := renderComparison(f.Name, f.Op, f.Value)
			if err != nil {
				return "", err
			}
			clauses = append(clauses, c)
		}
		parts = append(parts, fmt.Sprintf(group.wrap, strings.Join(clauses, group.join)))
	}
	return strings.Join(parts, " and "), nil
}

func renderComparison(name string, op storage.Op, v any) (string, error) {
	if !filterNameRE.MatchString(name) {
		return "", fmt.Errorf("%w: filter property name %q", storage.ErrInvalid, name)
	}
	o, ok := opText[op]
	if !ok {
		return "", fmt.Errorf("%w: filter on %s has an unknown operator", storage.ErrInvalid, name)
	}
	lit, err := renderLiteral(v)
	if err != nil {
		return "", fmt.Errorf("%w: filter on %s: %v", storage.ErrInvalid, name, err)
	}
	return name + " " + o + " " + lit, nil
}

// renderLiteral renders a typed value as an OData v3 literal.
func renderLiteral(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return quote(x), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int:
		return strconv.FormatInt(int64(x), 10) + "L", nil
	case int64:
		return strconv.FormatInt(x, 10) + "L", nil
	case float64:
		return renderDouble(x)
	case bool:
		return strconv.FormatBool(x), nil
	case time.Time:
		return "datetime'" + formatDateTime(x) + "'", nil
	case storage.GUID:
		return "guid'" + formatGUID(x) + "'", nil
	case []byte:
		return "X'" + hex.EncodeToString(x) + "'", nil
	default:
		return "", fmt.Errorf("unsupported value type %T", v)
	}
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// renderDouble writes a double in plain decimal with a decimal point, so the
// service reads a double and not an Int32 (2 → 2.0). It never uses an
// exponent: Azurite misreads 1.0E+10 (Azure does not), and the shortest
// round-trip digits in plain form are still exact, if long for 1e300.
func renderDouble(f float64) (string, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "", fmt.Errorf("not a finite number")
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s, nil
}

// renderSelect lists the properties to return. The keys and Timestamp are
// always included: the contract promises them on every entity.
func renderSelect(names []string) (string, error) {
	if len(names) == 0 {
		return "", nil
	}
	out := []string{"PartitionKey", "RowKey", "Timestamp"}
	seen := map[string]bool{"PartitionKey": true, "RowKey": true, "Timestamp": true, "ETag": true}
	for _, n := range names {
		if !filterNameRE.MatchString(n) {
			return "", fmt.Errorf("%w: select property name %q", storage.ErrInvalid, n)
		}
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return strings.Join(out, ","), nil
}

// pointFilter selects one entity by its keys, for point reads the URL form
// cannot express (an empty PartitionKey).
func pointFilter(pk, rk string) (string, error) {
	p, err := renderComparison("PartitionKey", storage.Eq, pk)
	if err != nil {
		return "", err
	}
	r, err := renderComparison("RowKey", storage.Eq, rk)
	if err != nil {
		return "", err
	}
	return p + " and " + r, nil
}

// entityPath is an entity's address relative to the service URL, as in
// mytable(PartitionKey='a%27%27b',RowKey='c'): quotes doubled, then every
// byte but letters, digits and -._~ percent-encoded. aztables leaves , = ( )
// and the like bare, which Azure accepts but Azurite's batch parser splits
// on; Azure decodes both forms alike.
func entityPath(table, pk, rk string) string {
	return url.PathEscape(table) + "(PartitionKey='" + escapeKeyValue(pk) + "',RowKey='" + escapeKeyValue(rk) + "')"
}

func escapeKeyValue(k string) string {
	k = strings.ReplaceAll(k, "'", "''")
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

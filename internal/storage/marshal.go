package storage

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"
	"time"
)

// Row structs map to entities through `table` tags, so a module declares each
// table's columns once, next to its key functions:
//
//	type PromptRow struct {
//		PartitionKey string    `table:"PartitionKey"`
//		RowKey       string    `table:"RowKey"`
//		ETag         string    `table:"ETag"`
//		Title        string    `table:"Title"`
//		Likes        int64     `table:"Likes"`
//		DeletedAt    *time.Time `table:"DeletedAt"`
//	}
//
// Field types: string, bool, int32, int64, int (stored as Int64), float64,
// time.Time, GUID and []byte, or a pointer to one of them (nil is not
// stored). `table:"-"` skips a field; untagged fields use their Go name. The
// special names PartitionKey, RowKey, ETag and Timestamp bind the entity's
// system fields. An embedded struct without a tag adds its columns to the
// row's, as if they were declared there.
type fieldPlan struct {
	index []int
	name  string
	ptr   bool
}

type rowPlan struct {
	fields                  []fieldPlan
	pk, rk, etag, timestamp []int
}

var plans sync.Map // reflect.Type → *rowPlan

var (
	timeType = reflect.TypeFor[time.Time]()
	guidType = reflect.TypeFor[GUID]()
	byteType = reflect.TypeFor[[]byte]()
)

func planFor(t reflect.Type) (*rowPlan, error) {
	if p, ok := plans.Load(t); ok {
		return p.(*rowPlan), nil
	}
	p := &rowPlan{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if _, tagged := f.Tag.Lookup("table"); f.Anonymous && !tagged && f.Type.Kind() == reflect.Struct && f.Type != timeType {
			if err := p.embed(f); err != nil {
				return nil, fmt.Errorf("%s: %w", t, err)
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		name := f.Name
		if tag, ok := f.Tag.Lookup("table"); ok {
			name, _, _ = strings.Cut(tag, ",")
		}
		switch name {
		case "-":
			continue
		case "PartitionKey", "RowKey", "ETag":
			if f.Type.Kind() != reflect.String {
				return nil, fmt.Errorf("%w: %s.%s must be a string", ErrInvalid, t, f.Name)
			}
			switch name {
			case "PartitionKey":
				p.pk = f.Index
			case "RowKey":
				p.rk = f.Index
			default:
				p.etag = f.Index
			}
			continue
		case "Timestamp":
			if f.Type != timeType {
				return nil, fmt.Errorf("%w: %s.Timestamp must be a time.Time", ErrInvalid, t)
			}
			p.timestamp = f.Index
			continue
		}
		ft, ptr := f.Type, false
		if ft.Kind() == reflect.Pointer {
			ft, ptr = ft.Elem(), true
		}
		if !supportedField(ft) {
			return nil, fmt.Errorf("%w: %s.%s has unsupported type %s", ErrInvalid, t, f.Name, f.Type)
		}
		p.fields = append(p.fields, fieldPlan{index: f.Index, name: name, ptr: ptr})
	}
	seen := map[string]bool{}
	for _, f := range p.fields {
		if seen[f.name] {
			return nil, fmt.Errorf("%w: %s has two columns named %s", ErrInvalid, t, f.name)
		}
		seen[f.name] = true
	}
	plans.Store(t, p)
	return p, nil
}

// embed adds the columns of an embedded struct (untagged), as if its
// fields were the row's own: rows that share a set of columns, such as
// the listing indexes' copy of what a card shows, declare it once.
func (p *rowPlan) embed(f reflect.StructField) error {
	sub, err := planFor(f.Type)
	if err != nil {
		return err
	}
	at := func(index []int) []int {
		if index == nil {
			return nil
		}
		return append(append([]int(nil), f.Index...), index...)
	}
	for _, sys := range []struct{ from, to *[]int }{{&sub.pk, &p.pk}, {&sub.rk, &p.rk}, {&sub.etag, &p.etag}, {&sub.timestamp, &p.timestamp}} {
		if *sys.from != nil {
			*sys.to = at(*sys.from)
		}
	}
	for _, fp := range sub.fields {
		fp.index = at(fp.index)
		p.fields = append(p.fields, fp)
	}
	return nil
}

func supportedField(t reflect.Type) bool {
	switch t {
	case timeType, guidType, byteType:
		return true
	}
	switch t.Kind() {
	case reflect.String, reflect.Bool, reflect.Int32, reflect.Int64, reflect.Int, reflect.Float64:
		return true
	}
	return false
}

func structValue(v any) (reflect.Value, error) {
	rv := reflect.ValueOf(v)
	for rv.Kind() == reflect.Pointer && !rv.IsNil() {
		rv = rv.Elem()
	}
	if rv.Kind() != reflect.Struct {
		return reflect.Value{}, fmt.Errorf("%w: %T is not a struct", ErrInvalid, v)
	}
	return rv, nil
}

// Marshal turns a tagged row struct (or a pointer to one) into an Entity.
func Marshal(v any) (Entity, error) {
	rv, err := structValue(v)
	if err != nil {
		return Entity{}, err
	}
	p, err := planFor(rv.Type())
	if err != nil {
		return Entity{}, err
	}
	e := Entity{Props: make(map[string]any, len(p.fields))}
	if p.pk != nil {
		e.PartitionKey = rv.FieldByIndex(p.pk).String()
	}
	if p.rk != nil {
		e.RowKey = rv.FieldByIndex(p.rk).String()
	}
	if p.etag != nil {
		e.ETag = rv.FieldByIndex(p.etag).String()
	}
	for _, f := range p.fields {
		fv := rv.FieldByIndex(f.index)
		if f.ptr {
			if fv.IsNil() {
				continue
			}
			fv = fv.Elem()
		}
		e.Props[f.name] = goValue(fv)
	}
	return e, nil
}

func goValue(fv reflect.Value) any {
	switch fv.Kind() {
	case reflect.Int:
		return fv.Int()
	case reflect.Int32:
		return int32(fv.Int())
	case reflect.Int64:
		return fv.Int()
	case reflect.String:
		return fv.String()
	case reflect.Bool:
		return fv.Bool()
	case reflect.Float64:
		return fv.Float()
	}
	return fv.Interface() // time.Time, GUID, []byte
}

// ErrBadRow is a stored value that does not fit its field even leniently
// (a word where a bool belongs, a fraction where an integer does). Rows
// written by other tools may hold one; Decode skips such rows.
var ErrBadRow = fmt.Errorf("%w: row does not fit its type", ErrInvalid)

// Unmarshal fills a tagged row struct from an Entity. Missing properties
// leave their fields zero (nil for pointers). Rows written by other tools
// may use another compatible EDM type, and numbers decode losslessly
// across them: an integer field takes Int32, Int64 and a Double holding a
// whole number in range; a float64 field takes integers it holds exactly; a
// bool field takes the strings "true" and "false". Anything else is
// ErrBadRow.
func Unmarshal(e Entity, v any) error {
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Pointer || rv.IsNil() || rv.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("%w: Unmarshal needs a pointer to a struct, got %T", ErrInvalid, v)
	}
	rv = rv.Elem()
	p, err := planFor(rv.Type())
	if err != nil {
		return err
	}
	if p.pk != nil {
		rv.FieldByIndex(p.pk).SetString(e.PartitionKey)
	}
	if p.rk != nil {
		rv.FieldByIndex(p.rk).SetString(e.RowKey)
	}
	if p.etag != nil {
		rv.FieldByIndex(p.etag).SetString(e.ETag)
	}
	if p.timestamp != nil {
		rv.FieldByIndex(p.timestamp).Set(reflect.ValueOf(e.Timestamp))
	}
	for _, f := range p.fields {
		fv := rv.FieldByIndex(f.index)
		val, ok := e.Props[f.name]
		if !ok || val == nil {
			fv.SetZero()
			continue
		}
		if f.ptr {
			nv := reflect.New(fv.Type().Elem())
			if err := setField(nv.Elem(), val, f.name); err != nil {
				return err
			}
			fv.Set(nv)
			continue
		}
		if err := setField(fv, val, f.name); err != nil {
			return err
		}
	}
	return nil
}

// maxExactFloat is 2^53: every integer up to it is exact as a float64.
const maxExactFloat = 1 << 53

func setField(fv reflect.Value, val any, name string) error {
	switch fv.Kind() {
	case reflect.Int, reflect.Int32, reflect.Int64:
		var n int64
		switch x := val.(type) {
		case int32:
			n = int64(x)
		case int64:
			n = x
		case int:
			n = int64(x)
		case float64:
			if x != math.Trunc(x) || math.IsInf(x, 0) || x < math.MinInt64 || x >= math.MaxInt64 {
				return typeMismatch(name, fv, val)
			}
			n = int64(x)
		default:
			return typeMismatch(name, fv, val)
		}
		if fv.OverflowInt(n) {
			return fmt.Errorf("%w: property %s value %d overflows %s", ErrBadRow, name, n, fv.Type())
		}
		fv.SetInt(n)
		return nil
	case reflect.Float64:
		switch x := val.(type) {
		case int32:
			fv.SetFloat(float64(x))
			return nil
		case int64:
			if x > maxExactFloat || x < -maxExactFloat {
				return typeMismatch(name, fv, val)
			}
			fv.SetFloat(float64(x))
			return nil
		}
	case reflect.Bool:
		if s, ok := val.(string); ok {
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "true":
				fv.SetBool(true)
				return nil
			case "false":
				fv.SetBool(false)
				return nil
			}
			return typeMismatch(name, fv, val)
		}
	}
	rval := reflect.ValueOf(val)
	if rval.Type() != fv.Type() {
		return typeMismatch(name, fv, val)
	}
	fv.Set(rval)
	return nil
}

func typeMismatch(name string, fv reflect.Value, val any) error {
	return fmt.Errorf("%w: property %s holds %T, field is %s", ErrBadRow, name, val, fv.Type())
}

package embedded

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/harmony/harmony/internal/storage"
)

// scanBudget is how many rows one query page may examine. Like Azure, which
// ends a page after a time budget, a selective filter over a big range then
// returns a short or empty page with a continuation instead of scanning the
// whole table in one call; callers loop on Page.Next anyway.
const scanBudget = 10_000

// Query implements storage.Backend.
//
// Filters compare like Azure: a filter on a property the entity lacks, or
// holds with a different EDM type than the filter value, does not match (Ne
// included). Types are never coerced, so an int32 property only matches an
// int32 value. Strings order by UTF-16 code units, binary and GUIDs by their
// bytes, and false sorts before true.
func (b *Backend) Query(ctx context.Context, table string, q storage.Query) (storage.Page, error) {
	if err := ctx.Err(); err != nil {
		return storage.Page{}, err
	}
	p, err := compile(q)
	if err != nil {
		return storage.Page{}, err
	}
	take, budget := b.pageShape(q.Limit)
	var page storage.Page
	err = b.db.View(func(tx *bolt.Tx) error {
		tb, err := tableBucket(tx, table)
		if err != nil {
			return err
		}
		if p.empty {
			return nil
		}
		page, err = p.scan(ctx, tb.Cursor(), take, budget)
		return err
	})
	return page, err
}

// pageShape returns how many entities a page may hold and how many rows it may
// examine. In ShortPages mode it picks, at random, an empty page, a short page
// or a page cut short by a small scan budget, so continuations land both on
// matching and non-matching rows.
func (b *Backend) pageShape(limit int) (take, budget int) {
	if limit <= 0 || limit > storage.MaxPageSize {
		limit = storage.MaxPageSize
	}
	if b.short == nil {
		return limit, scanBudget
	}
	b.shortMu.Lock()
	defer b.shortMu.Unlock()
	switch b.short.IntN(4) {
	case 0:
		return 0, scanBudget
	case 1:
		return 1 + b.short.IntN(limit), scanBudget
	case 2:
		return limit, 1 + b.short.IntN(2*limit)
	}
	return limit, scanBudget
}

// plan is a compiled query. All bounds are in the encoded key space (see
// keys.go), where byte order is Azure's order.
type plan struct {
	empty bool   // the bounds admit no row
	start []byte // first bbolt key to visit
	hi    []byte // bbolt keys at or above hi are out of range; nil: unbounded

	// Row-key window applied in every partition: [rkLo, rkHi) and rkPrefix.
	rkLo, rkHi, rkPrefix []byte
	// rkIn, when not nil, are the only row keys wanted (encoded, sorted):
	// the scan seeks from one to the next.
	rkIn [][]byte

	filters []filter
	keep    map[string]bool // Select; nil keeps every property
}

func compile(q storage.Query) (*plan, error) {
	p := &plan{start: []byte{}}
	if q.PartitionKey != "" {
		p.start, p.hi = partitionStart(q.PartitionKey), partitionEnd(q.PartitionKey)
	}
	p.rkLo = appendKey(nil, q.RowKeyFrom)
	if q.RowKeyTo != "" {
		p.rkHi = appendKey(nil, q.RowKeyTo)
	}
	if q.RowKeyPrefix != "" {
		p.rkPrefix = appendKey(nil, q.RowKeyPrefix)
		p.rkLo = maxBytes(p.rkLo, p.rkPrefix)
	}
	if q.RowKeyIn != nil {
		for _, k := range q.RowKeyIn {
			p.rkIn = append(p.rkIn, appendKey(nil, k))
		}
		slices.SortFunc(p.rkIn, bytes.Compare)
	}
	for _, f := range q.Filters {
		cf, err := compileFilter(f)
		if err != nil {
			return nil, err
		}
		p.filters = append(p.filters, cf)
		p.narrow(cf)
	}
	if q.Continuation != nil {
		p.start = maxBytes(p.start, rowKey(q.Continuation.NextPartitionKey, q.Continuation.NextRowKey))
	}
	p.empty = p.hi != nil && bytes.Compare(p.start, p.hi) >= 0 ||
		p.rkHi != nil && bytes.Compare(p.rkLo, p.rkHi) >= 0
	if len(q.Select) > 0 {
		p.keep = make(map[string]bool, len(q.Select))
		for _, name := range q.Select {
			p.keep[name] = true
		}
	}
	return p, nil
}

// narrow tightens the scan bounds with a key filter, so a PartitionKey or
// RowKey comparison seeks instead of scanning. The filter is still evaluated
// on every row, so narrowing only has to be conservative.
//
// Appending keySep (0x00) to an encoded key gives the smallest key above it,
// and keySep+1 the smallest above every composite key of that partition.
func (p *plan) narrow(f filter) {
	switch f.target {
	case targetPartitionKey:
		if bytes.IndexByte(f.bin, keySep) >= 0 {
			// No stored key holds U+0000, but such a value would confuse the
			// composite-key bounds; leave it to the filter.
			return
		}
		switch f.op {
		case storage.Eq:
			p.start = maxBytes(p.start, append(bytes.Clone(f.bin), keySep))
			p.hi = minBytes(p.hi, append(bytes.Clone(f.bin), keySep+1))
		case storage.Gt:
			p.start = maxBytes(p.start, append(bytes.Clone(f.bin), keySep+1))
		case storage.Ge:
			p.start = maxBytes(p.start, append(bytes.Clone(f.bin), keySep))
		case storage.Lt:
			p.hi = minBytes(p.hi, append(bytes.Clone(f.bin), keySep))
		case storage.Le:
			p.hi = minBytes(p.hi, append(bytes.Clone(f.bin), keySep+1))
		}
	case targetRowKey:
		switch f.op {
		case storage.Eq:
			p.rkLo = maxBytes(p.rkLo, f.bin)
			p.rkHi = minBytes(p.rkHi, append(bytes.Clone(f.bin), keySep))
		case storage.Gt:
			p.rkLo = maxBytes(p.rkLo, append(bytes.Clone(f.bin), keySep))
		case storage.Ge:
			p.rkLo = maxBytes(p.rkLo, f.bin)
		case storage.Lt:
			p.rkHi = minBytes(p.rkHi, f.bin)
		case storage.Le:
			p.rkHi = minBytes(p.rkHi, append(bytes.Clone(f.bin), keySep))
		}
	}
}

// scan collects up to take matching entities from the cursor. It then keeps
// looking for one more match, so Next is nil exactly when the query is done
// (unless the scan budget runs out first, when Next is where it stopped).
func (p *plan) scan(ctx context.Context, c *bolt.Cursor, take, budget int) (storage.Page, error) {
	var page storage.Page
	steps := 0
	k, v := c.Seek(p.start)
	for k != nil && (p.hi == nil || bytes.Compare(k, p.hi) < 0) {
		// steps > 0 guarantees that every page moves past its start.
		if steps >= budget && steps > 0 {
			page.Next = continuation(k)
			return page, nil
		}
		steps++
		if steps%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return storage.Page{}, err
			}
		}
		pk, rk := splitKey(k)
		if target := p.skipTo(pk, rk); target != nil {
			k, v = c.Seek(target)
			continue
		}
		r, err := parseRecord(v)
		if err != nil {
			return storage.Page{}, err
		}
		if p.match(pk, rk, r) {
			if len(page.Entities) == take {
				page.Next = continuation(k)
				return page, nil
			}
			e, err := decodeEntity(k, r, p.keep)
			if err != nil {
				return storage.Page{}, err
			}
			page.Entities = append(page.Entities, e)
		}
		k, v = c.Next()
	}
	return page, nil
}

// skipTo returns the key to seek to when the row key lies outside the
// row-key window, or nil when the row is a candidate. The target is always
// past the current key.
func (p *plan) skipTo(pk, rk []byte) []byte {
	if bytes.Compare(rk, p.rkLo) < 0 {
		return append(append(append(make([]byte, 0, len(pk)+1+len(p.rkLo)), pk...), keySep), p.rkLo...)
	}
	// rk >= rkLo >= rkPrefix here, so a row key without the prefix is past
	// every row key with it.
	if p.rkPrefix != nil && !bytes.HasPrefix(rk, p.rkPrefix) ||
		p.rkHi != nil && bytes.Compare(rk, p.rkHi) >= 0 {
		return append(bytes.Clone(pk), keySep+1)
	}
	if p.rkIn != nil {
		// The first wanted key at or after rk; past the last, the
		// partition is done.
		i, found := slices.BinarySearchFunc(p.rkIn, rk, bytes.Compare)
		switch {
		case found:
			return nil
		case i == len(p.rkIn):
			return append(bytes.Clone(pk), keySep+1)
		}
		return append(append(append(make([]byte, 0, len(pk)+1+len(p.rkIn[i])), pk...), keySep), p.rkIn[i]...)
	}
	return nil
}

func continuation(k []byte) *storage.Continuation {
	pk, rk := splitKey(k)
	return &storage.Continuation{NextPartitionKey: decodeKey(pk), NextRowKey: decodeKey(rk)}
}

func (p *plan) match(pk, rk []byte, r record) bool {
	for i := range p.filters {
		if !p.filters[i].match(pk, rk, r) {
			return false
		}
	}
	return true
}

type filterTarget int

const (
	targetProperty filterTarget = iota
	targetPartitionKey
	targetRowKey
	targetTimestamp
)

// filter is a compiled storage.Filter: the value is pre-encoded so a row is
// tested against its raw record without decoding it.
type filter struct {
	target filterTarget
	name   string
	op     storage.Op
	tag    byte    // the property type that can match
	str    string  // tagString
	bin    []byte  // tagBinary, tagGUID; encoded key for PartitionKey/RowKey
	num    int64   // tagInt32, tagInt64, tagBool (0/1), tagTime and Timestamp (ticks)
	dbl    float64 // tagDouble
}

func compileFilter(f storage.Filter) (filter, error) {
	cf := filter{name: f.Name, op: f.Op}
	if f.Op < storage.Eq || f.Op > storage.Ge {
		return cf, fmt.Errorf("%w: filter on %s has an unknown operator", storage.ErrInvalid, f.Name)
	}
	switch f.Name {
	case "PartitionKey", "RowKey":
		s, ok := f.Value.(string)
		if !ok {
			return cf, fmt.Errorf("%w: %s filter needs a string", storage.ErrInvalid, f.Name)
		}
		cf.target, cf.bin = targetRowKey, appendKey(nil, s)
		if f.Name == "PartitionKey" {
			cf.target = targetPartitionKey
		}
		return cf, nil
	case "Timestamp":
		cf.target = targetTimestamp
	}
	switch x := f.Value.(type) {
	case string:
		cf.tag, cf.str = tagString, x
	case []byte:
		cf.tag, cf.bin = tagBinary, x
	case storage.GUID:
		cf.tag, cf.bin = tagGUID, x[:]
	case int32:
		cf.tag, cf.num = tagInt32, int64(x)
	case int64:
		cf.tag, cf.num = tagInt64, x
	case int:
		cf.tag, cf.num = tagInt64, int64(x)
	case float64:
		cf.tag, cf.dbl = tagDouble, x
	case bool:
		cf.tag = tagBool
		if x {
			cf.num = 1
		}
	case time.Time:
		cf.tag, cf.num = tagTime, timeToTicks(x)
	default:
		return cf, fmt.Errorf("%w: filter on %s has unsupported type %T", storage.ErrInvalid, f.Name, f.Value)
	}
	if cf.target == targetTimestamp && cf.tag != tagTime {
		return cf, fmt.Errorf("%w: Timestamp filter needs a time", storage.ErrInvalid)
	}
	return cf, nil
}

func (f *filter) match(pk, rk []byte, r record) bool {
	switch f.target {
	case targetPartitionKey:
		return f.op.Holds(bytes.Compare(pk, f.bin))
	case targetRowKey:
		return f.op.Holds(bytes.Compare(rk, f.bin))
	case targetTimestamp:
		return f.op.Holds(cmpInt(r.stamp, f.num))
	}
	it := r.iter()
	for {
		name, tag, val, ok := it.next()
		if !ok {
			return false // missing property: no match, as on Azure
		}
		if string(name) != f.name {
			continue
		}
		if tag != f.tag {
			return false
		}
		return f.op.Holds(f.compare(val))
	}
}

// compare orders a raw value of f's type against f's value.
func (f *filter) compare(val []byte) int {
	switch f.tag {
	case tagString:
		return compareText(val, f.str)
	case tagBinary, tagGUID:
		return bytes.Compare(val, f.bin)
	case tagInt32:
		return cmpInt(int64(int32(binary.LittleEndian.Uint32(val))), f.num)
	case tagInt64, tagTime:
		return cmpInt(int64(binary.LittleEndian.Uint64(val)), f.num)
	case tagBool:
		return cmpInt(int64(val[0]), f.num)
	case tagDouble:
		x := math.Float64frombits(binary.LittleEndian.Uint64(val))
		switch {
		case x < f.dbl:
			return -1
		case x > f.dbl:
			return 1
		}
		return 0
	}
	return 0
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func maxBytes(a, b []byte) []byte {
	if bytes.Compare(a, b) >= 0 {
		return a
	}
	return b
}

// minBytes treats nil as unbounded (+infinity).
func minBytes(a, b []byte) []byte {
	if a == nil {
		return b
	}
	if b == nil || bytes.Compare(a, b) <= 0 {
		return a
	}
	return b
}

package embedded

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// An entity record is a hand-written tagged binary encoding, so a point read
// costs one pass over a byte slice and no reflection:
//
//	version  byte (recordVersion)
//	etag     uvarint   per-table write sequence, rendered as the ETag
//	stamp    8 bytes   Timestamp as .NET ticks, little endian
//	count    uvarint   number of properties
//	count × { name: uvarint length + bytes, tag: byte, value }
//
// Values by tag: string and binary are a uvarint length and the bytes; int32
// is 4 bytes, int64, float64 (IEEE bits) and datetime (ticks) 8, bool 1 and
// guid 16, all little endian. The keys live in the bbolt key, not here.
const recordVersion = 1

const (
	tagString byte = iota + 1
	tagInt32
	tagInt64
	tagDouble
	tagBool
	tagTime
	tagGUID
	tagBinary
)

var errCorrupt = errors.New("embedded: corrupt entity record")

// unixEpochSeconds is 1970-01-01 in seconds since 0001-01-01 (.NET ticks'
// epoch); ticks span Azure's whole DateTime range in an int64.
const unixEpochSeconds = 62135596800

func timeToTicks(t time.Time) int64 {
	return (t.Unix()+unixEpochSeconds)*10_000_000 + int64(t.Nanosecond()/100)
}

func ticksToTime(v int64) time.Time {
	return time.Unix(v/10_000_000-unixEpochSeconds, (v%10_000_000)*100).UTC()
}

// formatETag renders a write sequence number as an opaque weak ETag.
func formatETag(seq uint64) string {
	b := make([]byte, 0, 24)
	b = append(b, `W/"`...)
	b = strconv.AppendUint(b, seq, 10)
	return string(append(b, '"'))
}

// encodeRecord appends an entity record to dst.
func encodeRecord(dst []byte, seq uint64, stamp time.Time, props map[string]any) ([]byte, error) {
	dst = append(dst, recordVersion)
	dst = binary.AppendUvarint(dst, seq)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(timeToTicks(stamp)))
	dst = binary.AppendUvarint(dst, uint64(len(props)))
	for name, v := range props {
		dst = binary.AppendUvarint(dst, uint64(len(name)))
		dst = append(dst, name...)
		var err error
		if dst, err = appendValue(dst, v); err != nil {
			return nil, fmt.Errorf("property %s: %w", name, err)
		}
	}
	return dst, nil
}

func appendValue(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case string:
		dst = append(dst, tagString)
		dst = binary.AppendUvarint(dst, uint64(len(x)))
		return append(dst, x...), nil
	case []byte:
		dst = append(dst, tagBinary)
		dst = binary.AppendUvarint(dst, uint64(len(x)))
		return append(dst, x...), nil
	case int32:
		return binary.LittleEndian.AppendUint32(append(dst, tagInt32), uint32(x)), nil
	case int64:
		return binary.LittleEndian.AppendUint64(append(dst, tagInt64), uint64(x)), nil
	case int: // the front turns int into int64; accept it for direct callers
		return binary.LittleEndian.AppendUint64(append(dst, tagInt64), uint64(x)), nil
	case float64:
		return binary.LittleEndian.AppendUint64(append(dst, tagDouble), math.Float64bits(x)), nil
	case bool:
		b := byte(0)
		if x {
			b = 1
		}
		return append(dst, tagBool, b), nil
	case time.Time:
		return binary.LittleEndian.AppendUint64(append(dst, tagTime), uint64(timeToTicks(x))), nil
	case storage.GUID:
		return append(append(dst, tagGUID), x[:]...), nil
	default:
		return nil, fmt.Errorf("%w: unsupported property type %T", storage.ErrInvalid, v)
	}
}

// record is a parsed view of an entity record. It aliases the bbolt value, so
// it is only valid inside the transaction that read it.
type record struct {
	seq   uint64
	stamp int64 // ticks
	count int
	props []byte // count encoded properties
}

func parseRecord(v []byte) (record, error) {
	if len(v) < 1 || v[0] != recordVersion {
		return record{}, errCorrupt
	}
	v = v[1:]
	seq, n := binary.Uvarint(v)
	if n <= 0 || len(v) < n+8 {
		return record{}, errCorrupt
	}
	v = v[n:]
	stamp := int64(binary.LittleEndian.Uint64(v))
	v = v[8:]
	count, n := binary.Uvarint(v)
	if n <= 0 || count > uint64(len(v)) {
		return record{}, errCorrupt
	}
	return record{seq: seq, stamp: stamp, count: int(count), props: v[n:]}, nil
}

// propIter walks the properties of a record without allocating.
type propIter struct {
	rest []byte
	left int
	err  error
}

func (r record) iter() propIter { return propIter{rest: r.props, left: r.count} }

// next returns the next property's name, tag and value bytes (as encoded,
// without the length prefix for strings and binary).
func (it *propIter) next() (name []byte, tag byte, val []byte, ok bool) {
	if it.left == 0 || it.err != nil {
		return nil, 0, nil, false
	}
	it.left--
	b := it.rest
	l, n := binary.Uvarint(b)
	if n <= 0 || uint64(len(b)-n) < l+1 {
		it.err = errCorrupt
		return nil, 0, nil, false
	}
	name, b = b[n:n+int(l)], b[n+int(l):]
	tag, b = b[0], b[1:]
	size := 0
	switch tag {
	case tagString, tagBinary:
		l, n := binary.Uvarint(b)
		if n <= 0 || uint64(len(b)-n) < l {
			it.err = errCorrupt
			return nil, 0, nil, false
		}
		b = b[n:]
		size = int(l)
	case tagInt32:
		size = 4
	case tagInt64, tagDouble, tagTime:
		size = 8
	case tagBool:
		size = 1
	case tagGUID:
		size = 16
	default:
		it.err = errCorrupt
		return nil, 0, nil, false
	}
	if len(b) < size {
		it.err = errCorrupt
		return nil, 0, nil, false
	}
	val, it.rest = b[:size], b[size:]
	return name, tag, val, true
}

// decodeValue turns an encoded value into its Go form, copying anything that
// aliases bbolt memory.
func decodeValue(tag byte, val []byte) any {
	switch tag {
	case tagString:
		return string(val)
	case tagBinary:
		return append([]byte{}, val...)
	case tagInt32:
		return int32(binary.LittleEndian.Uint32(val))
	case tagInt64:
		return int64(binary.LittleEndian.Uint64(val))
	case tagDouble:
		return math.Float64frombits(binary.LittleEndian.Uint64(val))
	case tagBool:
		return val[0] != 0
	case tagTime:
		return ticksToTime(int64(binary.LittleEndian.Uint64(val)))
	case tagGUID:
		return storage.GUID(val)
	}
	return nil
}

// decodeEntity builds an Entity from a bbolt key and record. When keep is not
// nil only the properties it names are decoded (a query's Select).
func decodeEntity(k []byte, r record, keep map[string]bool) (storage.Entity, error) {
	pk, rk := splitKey(k)
	size := r.count
	if keep != nil {
		size = min(size, len(keep))
	}
	e := storage.Entity{
		PartitionKey: decodeKey(pk),
		RowKey:       decodeKey(rk),
		ETag:         formatETag(r.seq),
		Timestamp:    ticksToTime(r.stamp),
		Props:        make(map[string]any, size),
	}
	it := r.iter()
	for {
		name, tag, val, ok := it.next()
		if !ok {
			break
		}
		if keep != nil && !keep[string(name)] {
			continue
		}
		e.Props[string(name)] = decodeValue(tag, val)
	}
	return e, it.err
}

// decodeProps returns every property of a record, for read-modify-write.
func decodeProps(r record) (map[string]any, error) {
	props := make(map[string]any, r.count)
	it := r.iter()
	for {
		name, tag, val, ok := it.next()
		if !ok {
			return props, it.err
		}
		props[string(name)] = decodeValue(tag, val)
	}
}

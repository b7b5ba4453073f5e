package embedded

import "bytes"

// Azure orders keys by UTF-16 code units; bbolt orders bytes. UTF-8 byte order
// is code-point order, which agrees with UTF-16 order except that U+E000–U+FFFF
// (lead bytes 0xEE and 0xEF) sort below supplementary characters (0xF0–0xF4)
// in UTF-8 but above them (they follow the surrogates) in UTF-16. Remapping
// those two lead bytes to 0xF5 and 0xF6, which never occur in UTF-8, fixes the
// order. The remap is a plain byte substitution because 0xEE and 0xEF only
// ever appear as lead bytes, and ASCII keys are left as they are.
const (
	lead3E = 0xEE // U+E000–U+EFFF
	lead3F = 0xEF // U+F000–U+FFFF
	mapE   = 0xF5
	mapF   = 0xF6
)

// keySep joins the encoded PartitionKey and RowKey. Keys cannot hold U+0000,
// so 0x00 sorts below any character that can follow a partition key and the
// composite key orders by PartitionKey first. keySep+1 is therefore the
// smallest byte string above every row of a partition.
const keySep = 0x00

// appendKey appends the order-preserving encoding of a key to dst.
func appendKey(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		dst = append(dst, encodeByte(s[i]))
	}
	return dst
}

func encodeByte(c byte) byte {
	switch c {
	case lead3E:
		return mapE
	case lead3F:
		return mapF
	}
	return c
}

// decodeKey reverses appendKey.
func decodeKey(b []byte) string {
	if bytes.IndexByte(b, mapE) < 0 && bytes.IndexByte(b, mapF) < 0 {
		return string(b)
	}
	out := make([]byte, len(b))
	for i, c := range b {
		switch c {
		case mapE:
			c = lead3E
		case mapF:
			c = lead3F
		}
		out[i] = c
	}
	return string(out)
}

// rowKey is the bbolt key of an entity: enc(pk) 0x00 enc(rk).
func rowKey(pk, rk string) []byte {
	k := make([]byte, 0, len(pk)+len(rk)+1)
	k = appendKey(k, pk)
	k = append(k, keySep)
	return appendKey(k, rk)
}

// partitionStart is the first possible bbolt key of partition pk, and
// partitionEnd the first key past it.
func partitionStart(pk string) []byte { return append(appendKey(nil, pk), keySep) }
func partitionEnd(pk string) []byte   { return append(appendKey(nil, pk), keySep+1) }

// splitKey splits a bbolt key into its encoded PartitionKey and RowKey.
func splitKey(k []byte) (pk, rk []byte) {
	i := bytes.IndexByte(k, keySep)
	if i < 0 { // not written by this package; treat it as a bare partition
		return k, nil
	}
	return k[:i], k[i+1:]
}

// compareText orders two UTF-8 strings as UTF-16 code units, like
// storage.CompareKeys, without allocating. It serves string property filters,
// whose values may hold any character (U+0000 included).
func compareText(a []byte, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := encodeByte(a[i]), encodeByte(b[i])
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

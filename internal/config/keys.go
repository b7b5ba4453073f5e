package config

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// MinKeyLen is the shortest secret key accepted, in bytes.
const MinKeyLen = 32

// parseKeys reads a comma-separated list of hex or base64 keys. A string that
// is valid hex is read as hex, so "openssl rand -hex 32" output works as is.
// Errors name the key's position, never its value.
func parseKeys(s string) ([][]byte, error) {
	var keys [][]byte
	for i, part := range splitList(s) {
		key, err := decodeKey(part)
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i+1, err)
		}
		keys = append(keys, key)
	}
	return keys, nil
}

func decodeKey(s string) ([]byte, error) {
	key, err := hex.DecodeString(s)
	if err != nil {
		key, err = decodeBase64(s)
	}
	if err != nil {
		return nil, errors.New("neither hex nor base64 (generate one with: openssl rand -hex 32)")
	}
	if len(key) < MinKeyLen {
		return nil, fmt.Errorf("decodes to %d bytes; need at least %d", len(key), MinKeyLen)
	}
	return key, nil
}

func decodeBase64(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if key, err := enc.DecodeString(s); err == nil {
			return key, nil
		}
	}
	return nil, errors.New("not base64")
}

func sharesKey(a, b [][]byte) bool {
	for _, x := range a {
		for _, y := range b {
			if bytes.Equal(x, y) {
				return true
			}
		}
	}
	return false
}

// Dev secret files in DATA_DIR.
const (
	sessionKeyFile = "session.key"
	cursorKeyFile  = "cursor.key"
)

// EnsureDevSecrets gives a development configuration the keys it lacks,
// reading them from DATA_DIR or generating them there on first start (mode
// 0600), so restarts keep sessions and cursors valid. It returns the names of
// the files it created. Production never gets here without keys: Load
// refuses it.
func (c *Config) EnsureDevSecrets() (created []string, err error) {
	if c.IsProduction() {
		return nil, nil
	}
	for _, want := range []struct {
		file string
		keys *[][]byte
	}{
		{sessionKeyFile, &c.SessionKeys},
		{cursorKeyFile, &c.CursorKeys},
	} {
		if len(*want.keys) > 0 {
			continue
		}
		key, fresh, err := loadOrCreateKey(filepath.Join(c.DataDir, want.file))
		if err != nil {
			return created, err
		}
		if fresh {
			created = append(created, want.file)
		}
		*want.keys = [][]byte{key}
	}
	return created, nil
}

// loadOrCreateKey reads the hex key in path, or writes a new one. The new
// file appears atomically and only once (hard link of a finished temp file),
// so two processes starting together end up with the same key.
func loadOrCreateKey(path string) (key []byte, created bool, err error) {
	if key, err := readKeyFile(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return key, false, err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, false, fmt.Errorf("create %s: %w", dir, err)
	}
	key = make([]byte, MinKeyLen)
	if _, err := rand.Read(key); err != nil {
		return nil, false, err
	}
	tmp, err := os.CreateTemp(dir, ".key-*")
	if err != nil {
		return nil, false, fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return nil, false, err
	}
	if _, err := tmp.WriteString(hex.EncodeToString(key) + "\n"); err != nil {
		tmp.Close()
		return nil, false, err
	}
	if err := tmp.Close(); err != nil {
		return nil, false, err
	}
	if err := os.Link(tmp.Name(), path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			key, err := readKeyFile(path)
			return key, false, err
		}
		return nil, false, fmt.Errorf("write %s: %w", path, err)
	}
	return key, true, nil
}

func readKeyFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	key, err := decodeKey(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return key, nil
}

package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/config"
)

func envOf(m map[string]string) config.LookupEnv {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestHelpListsCommandsAndSettings(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"-h"}, {"serve", "-help"}, {"help"}} {
		var out, errOut bytes.Buffer
		if code := run(args, envOf(nil), &out, &errOut); code != 0 {
			t.Fatalf("%v: exit %d, stderr %s", args, code, errOut.String())
		}
		for _, want := range []string{"serve", "ADDR, -addr", "SESSION_KEYS, -session-keys", "AZURE_TABLES_CONNECTION_STRING", `(default "127.0.0.1:8080")`} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("%v: usage lacks %q", args, want)
			}
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	if code := run([]string{"frobnicate"}, envOf(nil), &out, &errOut); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(errOut.String(), `unknown command "frobnicate"`) {
		t.Errorf("stderr %q", errOut.String())
	}
}

func TestProductionRefusesToStartWithoutSecrets(t *testing.T) {
	t.Parallel()
	var out, errOut bytes.Buffer
	env := envOf(map[string]string{"ENV": "production", "DATA_DIR": t.TempDir()})
	if code := run(nil, env, &out, &errOut); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	for _, want := range []string{"SESSION_KEYS: required in production", "CURSOR_KEY: required in production", "BASE_URL: required in production"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q: %s", want, errOut.String())
		}
	}
}

// syncBuffer is written by the server goroutine and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var listenPattern = regexp.MustCompile(`listen=(\S+)`)

// startServe runs serve on a free port and returns its base URL and a
// function that stops it and returns serve's result.
func startServe(t *testing.T, dataDir string) (string, *syncBuffer, func() error) {
	t.Helper()
	logs := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	env := envOf(map[string]string{"DATA_DIR": dataDir, "ADDR": "127.0.0.1:0"})
	go func() { done <- serve(ctx, nil, env, io.Discard, logs) }()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if m := listenPattern.FindStringSubmatch(logs.String()); m != nil {
			return "http://" + m[1], logs, func() error {
				cancel()
				select {
				case err := <-done:
					return err
				case <-time.After(30 * time.Second):
					t.Fatal("serve did not stop")
					return nil
				}
			}
		}
		select {
		case err := <-done:
			t.Fatalf("serve exited early: %v\n%s", err, logs.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	t.Fatalf("server did not start:\n%s", logs.String())
	return "", nil, nil
}

func TestServeStartsStopsAndRestartsOnTheSameData(t *testing.T) {
	t.Parallel()
	dataDir := filepath.Join(t.TempDir(), "data")
	base, logs, stop := startServe(t, dataDir)
	for _, path := range []string{"/api/health", "/"} {
		res, err := http.Get(base + path)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d", path, res.StatusCode)
		}
	}
	if err := stop(); err != nil {
		t.Fatalf("serve returned %v", err)
	}
	out := logs.String()
	// Without BASE_URL, development links follow the port really bound.
	for _, want := range []string{"url=" + base + " ", "backend=embedded", "generated development secrets", "stopped"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	key, err := os.ReadFile(filepath.Join(dataDir, "session.key"))
	if err != nil {
		t.Fatal(err)
	}

	// A second start opens the same store (so the first closed it) and
	// reuses the generated keys.
	base, logs, stop = startServe(t, dataDir)
	res, err := http.Get(base + "/api/health")
	if err != nil {
		t.Fatalf("second start: %v", err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("second start: health %d", res.StatusCode)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(logs.String(), "generated development secrets") {
		t.Error("second start generated new secrets")
	}
	again, _ := os.ReadFile(filepath.Join(dataDir, "session.key"))
	if !bytes.Equal(key, again) {
		t.Error("session key changed across restarts")
	}
}

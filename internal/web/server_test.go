package web_test

import (
	"bytes"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/web"
	"github.com/harmony/harmony/internal/web/webtest"
)

var (
	testSessionKey = strings.Repeat("11", 32)
	testCursorKey  = strings.Repeat("22", 32)
	fixedNow       = time.Date(2030, 5, 17, 9, 30, 0, 0, time.UTC)
)

// logBuffer collects log output from server goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type testServer struct {
	*web.Server
	logs   *logBuffer
	client *webtest.Client
}

// newServer builds a server from settings (on top of test keys) the way
// cmd/web does, with JSON logs captured. edit may adjust the dependencies.
func newServer(t *testing.T, env map[string]string, edit ...func(*web.Deps)) *testServer {
	t.Helper()
	settings := map[string]string{
		"SESSION_KEYS": testSessionKey,
		"CURSOR_KEY":   testCursorKey,
		"DATA_DIR":     t.TempDir(),
	}
	for k, v := range env {
		settings[k] = v
	}
	cfg, err := config.Load(nil, func(name string) (string, bool) {
		v, ok := settings[name]
		return v, ok
	})
	if err != nil {
		t.Fatal(err)
	}
	logs := &logBuffer{}
	deps := web.Deps{
		Config:  cfg,
		Logger:  slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Version: "v9.9.9-test",
		Now:     func() time.Time { return fixedNow },
	}
	for _, f := range edit {
		f(&deps)
	}
	srv, err := web.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	return &testServer{Server: srv, logs: logs, client: webtest.NewClient(t, srv.Handler())}
}

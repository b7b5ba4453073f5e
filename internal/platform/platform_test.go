package platform_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/jobs"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/embedded"
	"github.com/harmony/harmony/internal/web"
)

// sampleModule declares a table, a container, a job and first-start
// content.
type sampleModule struct {
	seeded bool
}

func (*sampleModule) Slug() string { return "sample" }
func (*sampleModule) Routes(e *echo.Echo) {
	e.GET("/sample", func(c echo.Context) error { return c.String(200, "ok") })
}
func (*sampleModule) Tables() []string             { return []string{"SampleRows"} }
func (*sampleModule) Containers() []string         { return []string{"sample-files"} }
func (m *sampleModule) Seed(context.Context) error { m.seeded = true; return nil }
func (*sampleModule) Jobs() []jobs.Job {
	return []jobs.Job{{Name: "sample-job", Every: time.Hour, Run: func(context.Context) error { return nil }}}
}

// Adding a module is one factory: its table and container are provisioned,
// its job is on the runner, its seeder ran, and its routes are served.
func TestBuildWiresWhatAModuleDeclares(t *testing.T) {
	ctx := context.Background()
	settings := map[string]string{"SESSION_KEYS": strings.Repeat("11", 32), "CURSOR_KEY": strings.Repeat("22", 32), "DATA_DIR": t.TempDir()}
	cfg, err := config.Load(nil, func(k string) (string, bool) { v, ok := settings[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	b, err := embedded.Open(cfg.DataDir, embedded.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	store := storage.New(b, storage.Options{})
	t.Cleanup(func() { store.Close() })
	m := &sampleModule{}
	app, err := platform.Build(ctx, cfg, store, slog.New(slog.NewTextHandler(io.Discard, nil)), platform.Options{},
		func(*platform.Core) (web.Module, error) { return m, nil })
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Table("SampleRows").Insert(ctx, storage.Entity{PartitionKey: "p", RowKey: "r"}); err != nil {
		t.Errorf("the module's table was not provisioned: %v", err)
	}
	if _, err := store.Container("sample-files").Put(ctx, "a.txt", []byte("x"), "text/plain"); err != nil {
		t.Errorf("the module's container was not provisioned: %v", err)
	}
	if err := app.Core.Jobs.RunOnce(ctx, "sample-job"); err != nil {
		t.Errorf("the module's job is not on the runner: %v", err)
	}
	if !m.seeded {
		t.Error("the module's seeder did not run")
	}
	found := false
	for _, r := range app.Echo().Routes() {
		found = found || r.Path == "/sample"
	}
	if !found || !strings.Contains(strings.Join(app.Tables, ","), "SampleRows") {
		t.Errorf("routes or tables lack the module: %v", app.Tables)
	}
}

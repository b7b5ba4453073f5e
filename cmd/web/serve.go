package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/logctx"
	"github.com/harmony/harmony/internal/platform"
	"github.com/harmony/harmony/static"
)

// shutdownGrace is how long in-flight requests get to finish on Ctrl-C or
// SIGTERM; container runtimes usually wait 30 s before killing.
const shutdownGrace = 20 * time.Second

// serve runs the web server until ctx is cancelled, then drains in-flight
// requests and closes the store.
func serve(ctx context.Context, args []string, env config.LookupEnv, _, stderr io.Writer) error {
	cfg, err := config.Load(args, env)
	if err != nil {
		return err
	}
	log := newLogger(cfg, stderr)
	slog.SetDefault(log) // the storage front's warnings about unreadable rows
	created, err := cfg.EnsureDevSecrets()
	if err != nil {
		return err
	}
	if len(created) > 0 {
		log.Info("generated development secrets", "dir", cfg.DataDir, "files", created)
	}
	static.Embedded() // hash the assets now rather than on the first request

	store, err := openStore(ctx, cfg)
	if err != nil {
		return fmt.Errorf("open %s storage: %w", cfg.Backend(), err)
	}
	defer func() {
		if err := store.Close(); err != nil {
			log.Error("closing storage failed", "err", err)
		}
	}()

	// Listen before building the app: a development BASE_URL follows the
	// port really bound (ADDR may say :0), and every link the app makes
	// (mail, join links, QR codes, .ics) must reach this server.
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	if cfg.BaseURLFromAddr {
		cfg.BaseURL = config.BaseURLForAddr(ln.Addr().String())
	}
	srv, err := newServer(ctx, cfg, log, store, nil)
	if err != nil {
		return err
	}
	if cfg.Demo {
		// DEMO=1 (development only): an empty store gets demo content.
		summary, err := srv.seedDemo(ctx)
		switch {
		case errors.Is(err, platform.ErrNotEmpty):
			log.Info("DEMO=1: the store has accounts already; no demo content added")
		case err != nil:
			return fmt.Errorf("demo content: %w", err)
		default:
			log.Info(summary)
		}
	}
	// Jobs stop before the store closes (defers run last first), whether
	// serving ends by a signal or by an error.
	srv.Jobs.Start(ctx)
	defer srv.Jobs.Stop()
	httpServer := &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: 10 * time.Second,
		// No WriteTimeout: chat streams (SSE) stay open for minutes.
		IdleTimeout: 2 * time.Minute,
		ErrorLog:    slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
	// Chat streams end when shutdown starts, instead of holding it up.
	httpServer.RegisterOnShutdown(srv.Built.Drain)
	mode := config.Development
	if cfg.IsProduction() {
		mode = config.Production
	}
	log.Info("Harmony is running",
		"url", cfg.BaseURL.String(),
		"listen", ln.Addr().String(),
		"backend", store.BackendName(),
		"env", mode,
		"version", config.Version)

	served := make(chan error, 1)
	go func() { served <- httpServer.Serve(ln) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}

	log.Info("shutting down: finishing in-flight requests", "grace", shutdownGrace)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := httpServer.Shutdown(shutdownCtx); err != nil {
		log.Warn("requests still running at the deadline were cut off", "err", err)
	}
	if err := <-served; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	log.Info("stopping background jobs")
	srv.Jobs.Stop()
	log.Info("stopped")
	return nil
}

// newLogger logs text for people in development and JSON for machines in
// production. Every line logged with a request's context carries its
// request_id and, once known, the member (logctx).
func newLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel}
	if cfg.IsProduction() {
		return slog.New(logctx.NewHandler(slog.NewJSONHandler(w, opts)))
	}
	return slog.New(logctx.NewHandler(slog.NewTextHandler(w, opts)))
}

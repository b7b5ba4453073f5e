// Package logctx carries a request's log fields (its request id, and the
// member it acts for once known) in its context, and a slog handler that
// adds them to every line logged with that context: handlers, services
// and storage alike, without passing ids around.
package logctx

import (
	"context"
	"log/slog"
)

type fieldsKey struct{}

// fields are the attributes a context carries; each With adds to a copy.
type fields []slog.Attr

// WithRequestID returns ctx carrying the request id.
func WithRequestID(ctx context.Context, id string) context.Context {
	return with(ctx, slog.String("request_id", id))
}

// WithMember returns ctx carrying the memberKey the request acts for.
func WithMember(ctx context.Context, memberKey string) context.Context {
	return with(ctx, slog.String("member", memberKey))
}

func with(ctx context.Context, a slog.Attr) context.Context {
	old, _ := ctx.Value(fieldsKey{}).(fields)
	next := make(fields, 0, len(old)+1)
	for _, f := range old {
		if f.Key != a.Key {
			next = append(next, f)
		}
	}
	return context.WithValue(ctx, fieldsKey{}, append(next, a))
}

// Handler adds the context's fields to each record, then hands it on.
type Handler struct{ slog.Handler }

// NewHandler wraps h.
func NewHandler(h slog.Handler) *Handler { return &Handler{h} }

// Handle adds the fields of ctx, unless the record has them already.
func (h *Handler) Handle(ctx context.Context, r slog.Record) error {
	if fs, _ := ctx.Value(fieldsKey{}).(fields); len(fs) > 0 {
		// Every request's access line comes through here: a scan of the
		// record's few attributes, no allocation.
		for _, f := range fs {
			has := false
			r.Attrs(func(a slog.Attr) bool { has = a.Key == f.Key; return !has })
			if !has {
				r.AddAttrs(f)
			}
		}
	}
	return h.Handler.Handle(ctx, r)
}

// WithAttrs keeps the wrapper on derived loggers.
func (h *Handler) WithAttrs(as []slog.Attr) slog.Handler {
	return &Handler{h.Handler.WithAttrs(as)}
}

// WithGroup keeps the wrapper on derived loggers.
func (h *Handler) WithGroup(name string) slog.Handler {
	return &Handler{h.Handler.WithGroup(name)}
}

package logctx

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"testing"
)

func TestHandlerAddsTheContextsFields(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(NewHandler(slog.NewJSONHandler(&buf, nil))).With("svc", "test")
	ctx := WithMember(WithRequestID(context.Background(), "r1"), "auth:ann")
	ctx = WithRequestID(ctx, "r2") // a later value wins
	log.InfoContext(ctx, "hello", "request_id", "explicit")
	log.InfoContext(ctx, "again")
	log.Info("no context")
	dec := json.NewDecoder(&buf)
	var lines []map[string]any
	for dec.More() {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, m)
	}
	if len(lines) != 3 {
		t.Fatalf("%d lines", len(lines))
	}
	if lines[0]["request_id"] != "explicit" || lines[0]["member"] != "auth:ann" || lines[0]["svc"] != "test" {
		t.Errorf("first line %v", lines[0])
	}
	if lines[1]["request_id"] != "r2" || lines[1]["member"] != "auth:ann" {
		t.Errorf("second line %v", lines[1])
	}
	if _, ok := lines[2]["request_id"]; ok {
		t.Errorf("a line without context got a request id: %v", lines[2])
	}
}

package ai

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/harmony/harmony/internal/app/admin"
	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/storetest"
)

const (
	testKey   = "sk-test-123"
	testModel = "acme/vision-1" // a '/' must be escaped in keys
	userKey   = "b1946ac92492d2347c6235b4d2611184b1946ac92492d2347c6235b4d2611184"
)

var (
	bg         = context.Background()
	today      = time.Date(2030, 5, 17, 9, 0, 0, 0, time.UTC)
	jpeg       = append([]byte{0xFF, 0xD8, 0xFF, 0xE0}, []byte("not really a picture")...)
	goodAnswer = `{"title":"Dentist, Dr. Meyer","start":"2030-05-20T14:30","end":"2030-05-20T15:00","location":"Hauptstr. 5, Berlin","notes":"Bring insurance card"}`
)

// fakeAPI is an OpenAI-compatible chat completions endpoint. reply picks
// the status and message content per request; every request is kept.
type fakeAPI struct {
	*httptest.Server
	mu       sync.Mutex
	requests []seen
	calls    atomic.Int64
}

type seen struct {
	path, auth string
	body       map[string]any
}

func newFakeAPI(t *testing.T, reply func(body map[string]any) (status int, content string)) *fakeAPI {
	t.Helper()
	f := &fakeAPI{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.calls.Add(1)
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		f.mu.Lock()
		f.requests = append(f.requests, seen{path: r.Method + " " + r.URL.Path, auth: r.Header.Get("Authorization"), body: body})
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		status, content := reply(body)
		w.WriteHeader(status)
		if status != http.StatusOK {
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": content, "type": "server_error"}})
			return
		}
		json.NewEncoder(w).Encode(map[string]any{
			"id": "chatcmpl-1", "object": "chat.completion", "created": today.Unix(), "model": testModel,
			"choices": []any{map[string]any{
				"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content},
			}},
			"usage": map[string]any{"prompt_tokens": 1200, "completion_tokens": 45, "total_tokens": 1245},
		})
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeAPI) last(t *testing.T) seen {
	t.Helper()
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		t.Fatal("no request reached the API")
	}
	return f.requests[len(f.requests)-1]
}

func ok(content string) func(map[string]any) (int, string) {
	return func(map[string]any) (int, string) { return http.StatusOK, content }
}

// setup builds an extractor on the fake API, counting into a fresh
// embedded store.
func setup(t *testing.T, reply func(map[string]any) (int, string)) (*Extractor, *fakeAPI, *storage.Store) {
	t.Helper()
	store := storetest.Open(t, admin.UsageTables...)
	api := newFakeAPI(t, reply)
	now := func() time.Time { return today }
	cfg := config.OpenAI{BaseURL: api.URL + "/v1", APIKey: testKey, Model: testModel}
	return newExtractor(cfg, admin.NewUsage(store, now), nil, now, 0), api, store
}

// counts are one usage row's counters, whatever the table names them.
type counts struct{ calls, in, out, errors int64 }

// rows reads today's row of each usage table, by the keys TABLES.md gives.
func rows(t *testing.T, store *storage.Store) map[string]counts {
	t.Helper()
	get := func(table, pk, rk, prefix string) counts {
		e, err := store.Table(table).Get(bg, pk, rk)
		if err != nil {
			t.Fatalf("%s %q %q: %v", table, pk, rk, err)
		}
		n := func(col string) int64 { v, _ := e.Props[col].(int64); return v }
		if _, ok := e.Props["updatedAt"].(time.Time); !ok {
			t.Errorf("%s has no updatedAt", table)
		}
		if prefix == "openai" {
			return counts{n("openaiCalls"), n("openaiTokensIn"), n("openaiTokensOut"), n("openaiErrors")}
		}
		return counts{n("calls"), n("tokensIn"), n("tokensOut"), n("errors")}
	}
	return map[string]counts{
		"UserDailyUsage":        get("UserDailyUsage", userKey, "2030-05-17", "openai"),
		"UserDailyUsageByModel": get("UserDailyUsageByModel", userKey+"|2030-05-17", "acme~2Fvision-1", ""),
		"DailyUsageByModel":     get("DailyUsageByModel", "2030-05", "2030-05-17|acme~2Fvision-1", ""),
	}
}

func wantRows(t *testing.T, store *storage.Store, want counts) {
	t.Helper()
	for table, got := range rows(t, store) {
		if got != want {
			t.Errorf("%s: %+v, want %+v", table, got, want)
		}
	}
}

func TestExtractReadsTheAppointmentAndCountsTheCall(t *testing.T) {
	x, api, store := setup(t, ok(goodAnswer))
	d, err := x.ExtractAppointment(bg, userKey, jpeg)
	if err != nil {
		t.Fatal(err)
	}
	want := Draft{
		Title:    "Dentist, Dr. Meyer",
		Location: "Hauptstr. 5, Berlin",
		Notes:    "Bring insurance card",
		Start:    time.Date(2030, 5, 20, 14, 30, 0, 0, time.UTC),
		End:      time.Date(2030, 5, 20, 15, 0, 0, 0, time.UTC),
	}
	if d != want {
		t.Errorf("draft %+v, want %+v", d, want)
	}
	wantRows(t, store, counts{calls: 1, in: 1200, out: 45})

	req := api.last(t)
	if req.path != "POST /v1/chat/completions" || req.auth != "Bearer "+testKey {
		t.Errorf("request %s with Authorization %q", req.path, req.auth)
	}
	if req.body["model"] != testModel {
		t.Errorf("model %v", req.body["model"])
	}
	if rf, _ := req.body["response_format"].(map[string]any); rf["type"] != "json_object" {
		t.Errorf("response_format %v", req.body["response_format"])
	}
	if url := imageURL(req.body); url != "data:image/jpeg;base64,"+base64.StdEncoding.EncodeToString(jpeg) {
		t.Errorf("image_url %.60q…", url)
	}
}

// imageURL digs the image_url part out of the user message.
func imageURL(body map[string]any) string {
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		parts, _ := m.(map[string]any)["content"].([]any)
		for _, p := range parts {
			part, _ := p.(map[string]any)
			if part["type"] == "image_url" {
				img, _ := part["image_url"].(map[string]any)
				s, _ := img["url"].(string)
				return s
			}
		}
	}
	return ""
}

func TestExtractFailuresAreCountedAsErrors(t *testing.T) {
	tests := []struct {
		name  string
		reply func(map[string]any) (int, string)
		err   error
		want  counts
	}{
		{"server error", func(map[string]any) (int, string) { return http.StatusInternalServerError, "boom" }, ErrUnavailable, counts{calls: 1, errors: 1}},
		{"malformed content", ok(`{"title": "Dentist", "start": `), ErrUnreadable, counts{calls: 1, in: 1200, out: 45, errors: 1}},
		{"prose, no JSON", ok("I cannot read this image, sorry."), ErrUnreadable, counts{calls: 1, in: 1200, out: 45, errors: 1}},
		{"empty object", ok(`{"title": "", "start": null}`), ErrUnreadable, counts{calls: 1, in: 1200, out: 45, errors: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x, _, store := setup(t, tt.reply)
			d, err := x.ExtractAppointment(bg, userKey, jpeg)
			if !errors.Is(err, tt.err) {
				t.Fatalf("err %v, want %v", err, tt.err)
			}
			if d != (Draft{}) {
				t.Errorf("draft %+v on failure", d)
			}
			wantRows(t, store, tt.want)
		})
	}
}

func TestParallelCallsAddUpExactly(t *testing.T) {
	failing := append(append([]byte{}, jpeg[:4]...), "fail"...)
	x, api, store := setup(t, func(body map[string]any) (int, string) {
		// Every fifth call fails: errors are counted under contention too.
		if strings.HasSuffix(imageURL(body), base64.StdEncoding.EncodeToString(failing)) {
			return http.StatusInternalServerError, "boom"
		}
		return http.StatusOK, goodAnswer
	})
	var wg sync.WaitGroup
	for i := range 50 {
		img := jpeg
		if i%5 == 0 {
			img = failing
		}
		wg.Go(func() { x.ExtractAppointment(bg, userKey, img) })
	}
	wg.Wait()
	if n := api.calls.Load(); n != 50 {
		t.Fatalf("%d API calls, want 50", n)
	}
	wantRows(t, store, counts{calls: 50, in: 40 * 1200, out: 40 * 45, errors: 10})
}

// A server that refuses response_format is asked again without it, and
// not asked with it any more.
func TestFallsBackWithoutJSONMode(t *testing.T) {
	x, api, store := setup(t, func(body map[string]any) (int, string) {
		if _, ok := body["response_format"]; ok {
			return http.StatusBadRequest, "response_format is not supported"
		}
		return http.StatusOK, "```json\n" + goodAnswer + "\n```"
	})
	for range 2 {
		if d, err := x.ExtractAppointment(bg, userKey, jpeg); err != nil || d.Title != "Dentist, Dr. Meyer" {
			t.Fatalf("draft %+v, err %v", d, err)
		}
	}
	if n := api.calls.Load(); n != 3 {
		t.Errorf("%d API calls, want 3", n)
	}
	wantRows(t, store, counts{calls: 3, in: 2 * 1200, out: 2 * 45, errors: 1})
}

// Another 400 is just a failed call: JSON mode stays on.
func TestOtherBadRequestsKeepJSONMode(t *testing.T) {
	x, api, _ := setup(t, func(map[string]any) (int, string) { return http.StatusBadRequest, "image too small" })
	if _, err := x.ExtractAppointment(bg, userKey, jpeg); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err %v", err)
	}
	if n := api.calls.Load(); n != 1 || x.noJSONMode.Load() {
		t.Errorf("%d API calls, JSON mode off: %v", n, x.noJSONMode.Load())
	}
}

func TestNoAIWithoutConfiguration(t *testing.T) {
	for _, cfg := range []config.OpenAI{
		{},
		{BaseURL: "https://api.example.com/v1", Model: "m"},
		{APIKey: "k", Model: "m"},
	} {
		if x := New(cfg, nil, nil, nil); x != nil {
			t.Errorf("%+v built an extractor", cfg)
		}
	}
	var x *Extractor
	if _, err := x.ExtractAppointment(bg, userKey, jpeg); !errors.Is(err, ErrNotConfigured) {
		t.Errorf("nil extractor: %v", err)
	}
	if x := New(config.OpenAI{BaseURL: "http://localhost:1/v1", APIKey: "k"}, nil, nil, nil); x.Model() != DefaultModel {
		t.Errorf("model %q, want the default", x.Model())
	}
}

// Refused images never reach the API, so they are not counted.
func TestRefusedImagesAreNotSent(t *testing.T) {
	x, api, _ := setup(t, ok(goodAnswer))
	for img, want := range map[string]error{"": ErrNoImage, strings.Repeat("x", MaxImageBytes+1): ErrImageTooLarge} {
		if _, err := x.ExtractAppointment(bg, userKey, []byte(img)); !errors.Is(err, want) {
			t.Errorf("%d bytes: %v, want %v", len(img), err, want)
		}
	}
	if api.calls.Load() != 0 {
		t.Error("a refused image reached the API")
	}
}

// Package ai owns Harmony's calls to an OpenAI-compatible API: reading an
// appointment from a scanned card or letter (Extractor). Every call is
// counted in the admin module's AI usage tables. With no API configured
// there is no Extractor, and the pages offer no AI button.
package ai

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go"
	"github.com/openai/openai-go/option"
	"github.com/openai/openai-go/shared"

	"github.com/harmony/harmony/internal/config"
	"github.com/harmony/harmony/internal/metrics"
)

// DefaultModel is used when OPENAI_MODEL is empty: it reads images.
const DefaultModel = "gpt-4o-mini"

// MaxImageBytes is the largest scan sent to the API.
const MaxImageBytes = 10 << 20

const (
	// callTimeout bounds one extraction, retries included.
	callTimeout = 90 * time.Second
	// attemptTimeout bounds one HTTP attempt.
	attemptTimeout = 60 * time.Second
	// recordTimeout bounds counting a call, which runs even when the
	// request that asked for it was cancelled.
	recordTimeout = 10 * time.Second
)

// Errors a caller can act on.
var (
	// ErrNotConfigured is returned by a nil Extractor.
	ErrNotConfigured = errors.New("ai: no AI API configured")
	// ErrNoImage refuses an empty scan; ErrImageTooLarge one over
	// MaxImageBytes. Neither calls the API.
	ErrNoImage       = errors.New("ai: no image")
	ErrImageTooLarge = errors.New("ai: image too large")
	// ErrUnavailable means the API failed or could not be reached.
	ErrUnavailable = errors.New("ai: the AI service did not answer")
	// ErrUnreadable means the API answered, but not with an appointment
	// Harmony could read.
	ErrUnreadable = errors.New("ai: no appointment could be read from the scan")
)

// UsageRecorder counts each call (the admin module's Usage).
type UsageRecorder interface {
	Record(ctx context.Context, ev metrics.UsageEvent) error
}

// Extractor reads appointments from scans with an OpenAI-compatible chat
// completions API.
type Extractor struct {
	client openai.Client
	model  string
	usage  UsageRecorder
	log    *slog.Logger
	now    func() time.Time
	// noJSONMode is set once the server refused response_format.
	noJSONMode atomic.Bool
}

// New builds the extractor from cfg, or returns nil when OPENAI_BASE_URL or
// OPENAI_API_KEY is empty: callers then offer no AI at all. now is the
// clock.
func New(cfg config.OpenAI, usage UsageRecorder, log *slog.Logger, now func() time.Time) *Extractor {
	return newExtractor(cfg, usage, log, now, 1)
}

// newExtractor is New with the number of retries of a 429 or 5xx answer
// (the tests use none).
func newExtractor(cfg config.OpenAI, usage UsageRecorder, log *slog.Logger, now func() time.Time, retries int) *Extractor {
	if cfg.BaseURL == "" || cfg.APIKey == "" {
		return nil
	}
	if log == nil {
		log = slog.Default()
	}
	model := orDefault(cfg.Model, DefaultModel)
	return &Extractor{
		client: openai.NewClient(
			option.WithBaseURL(cfg.BaseURL),
			option.WithAPIKey(cfg.APIKey),
			option.WithHTTPClient(&http.Client{Timeout: attemptTimeout}),
			option.WithMaxRetries(retries),
		),
		model: model,
		usage: usage,
		log:   log,
		now:   now,
	}
}

func orDefault(s, fallback string) string {
	if s = strings.TrimSpace(s); s != "" {
		return s
	}
	return fallback
}

// Model is the model the extractor asks.
func (e *Extractor) Model() string { return e.model }

// Draft is what the AI read from a scan, to pre-fill the appointment form
// (never to be trusted as markup: it is plain text, length-capped).
// The groups module uses it as its Draft.
type Draft struct {
	Title string
	// Start and End are the wall-clock times printed on the document, in
	// time.UTC as a placeholder zone (the document rarely states one);
	// zero when unknown.
	Start    time.Time
	End      time.Time
	Location string
	Notes    string
}

const systemPrompt = `You read photos of appointment cards, letters and notes.
Reply with one JSON object and nothing else:
{"title": string, "start": string, "end": string, "location": string, "notes": string}
- title: a short name for the appointment (who or what, e.g. "Dentist, Dr. Meyer").
- start, end: ISO 8601 local date and time as printed, without a time zone, e.g. "2030-05-17T14:30". Use "" when not shown. A date without a time is "2030-05-17".
- location: the address or place, "" when not shown.
- notes: anything else the person must remember (what to bring, phone number), "" when nothing.
Use the language of the document. Never invent details.`

// ExtractAppointment sends the scan (a JPEG, or PNG or WebP: the type is
// sniffed) to the model and reads the appointment in its answer. Each call
// that reaches the API is counted for userKey (calls, tokens, errors), even
// when it fails. Errors: ErrNoImage, ErrImageTooLarge, ErrUnavailable,
// ErrUnreadable.
func (e *Extractor) ExtractAppointment(ctx context.Context, userKey string, jpeg []byte) (Draft, error) {
	if e == nil {
		return Draft{}, ErrNotConfigured
	}
	switch {
	case len(jpeg) == 0:
		return Draft{}, ErrNoImage
	case len(jpeg) > MaxImageBytes:
		return Draft{}, ErrImageTooLarge
	}
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	res, err := e.complete(ctx, jpeg, !e.noJSONMode.Load())
	if refusedJSONMode(err) && !e.noJSONMode.Load() {
		// Some OpenAI-compatible servers refuse response_format. The
		// prompt asks for JSON anyway: stop sending it, and ask again.
		e.record(ctx, metrics.UsageEvent{UserKey: userKey, Model: e.model, At: e.now(), Failed: true})
		e.noJSONMode.Store(true)
		e.log.Warn("ai: the server refused JSON mode; asking without it", "model", e.model, "err", err)
		res, err = e.complete(ctx, jpeg, false)
	}
	ev := metrics.UsageEvent{UserKey: userKey, Model: e.model, At: e.now()}
	if err != nil {
		ev.Failed = true
		e.record(ctx, ev)
		return Draft{}, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	ev.TokensIn, ev.TokensOut = res.Usage.PromptTokens, res.Usage.CompletionTokens
	var content string
	if len(res.Choices) > 0 {
		content = res.Choices[0].Message.Content
	}
	d, err := parseDraft(content)
	ev.Failed = err != nil
	e.record(ctx, ev)
	return d, err
}

// complete asks the model once, in JSON mode when jsonMode.
func (e *Extractor) complete(ctx context.Context, img []byte, jsonMode bool) (*openai.ChatCompletion, error) {
	params := openai.ChatCompletionNewParams{
		Model: e.model,
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage(systemPrompt + "\nToday is " + e.now().UTC().Format(time.DateOnly) + "."),
			openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
				openai.TextContentPart("Read the appointment from this image."),
				openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(img)}),
			}),
		},
	}
	if jsonMode {
		params.ResponseFormat = openai.ChatCompletionNewParamsResponseFormatUnion{
			OfJSONObject: &shared.ResponseFormatJSONObjectParam{},
		}
	}
	return e.client.Chat.Completions.New(ctx, params)
}

// refusedJSONMode reports whether err is a 400 about response_format.
func refusedJSONMode(err error) bool {
	var apiErr *openai.Error
	return errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest &&
		(apiErr.Param == "response_format" || strings.Contains(apiErr.Message, "response_format"))
}

// record counts a call. A failed count is logged, never returned: the
// person asked for an appointment, not for bookkeeping.
func (e *Extractor) record(ctx context.Context, ev metrics.UsageEvent) {
	if e.usage == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	if err := e.usage.Record(ctx, ev); err != nil {
		e.log.Error("ai: usage not recorded", "model", ev.Model, "err", err)
	}
}

// dataURL inlines an image as the API's image_url expects it.
func dataURL(img []byte) string {
	mime := http.DetectContentType(img)
	switch mime {
	case "image/jpeg", "image/png", "image/webp", "image/gif":
	default:
		mime = "image/jpeg"
	}
	return "data:" + mime + ";base64," + base64.StdEncoding.EncodeToString(img)
}

// Package taxonomy is a module's list of categories that admins manage:
// the events' categories, the store's departments. Some are built in,
// named by i18n keys; admins add more with an English and a Russian name
// on the module's admin page, rename them and retire them. A retired
// one leaves the forms and the chips; what is filed under it keeps it,
// and its listing still opens. Each instance reads the list once per
// cacheTTL, so a page that labels things by category costs nothing
// most of the time.
//
//	{module's table}  PK {the list's partition}  RK {slug}
package taxonomy

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
)

// Limits of a term.
const (
	MaxSlug  = 32
	MaxName  = 40
	cacheTTL = 30 * time.Second
)

var (
	englishRule = formrule.Text{Max: MaxName, Required: true}
	russianRule = formrule.Text{Max: MaxName}
)

// Row is a term admins added.
type Row struct {
	PartitionKey string    `table:"PartitionKey"` // the list's
	RowKey       string    `table:"RowKey"`       // slug
	ETag         string    `table:"ETag"`
	English      string    `table:"english"`
	Russian      string    `table:"russian"` // "": the English name
	Active       bool      `table:"active"`
	CreatedAt    time.Time `table:"createdAt"`
}

// Term is a category as pages show it.
type Term struct {
	Slug    string
	BuiltIn bool
	Active  bool
	English string
	Russian string
	// labels is the i18n key prefix a built-in term's name is under.
	labels string
}

// Label is the term's name in ctx's language.
func (t Term) Label(ctx context.Context) string {
	if t.BuiltIn {
		return i18n.T(ctx, t.labels+t.Slug)
	}
	return i18n.Pick(ctx, t.English, t.Russian)
}

// List is a module's list of terms.
type List struct {
	Table *storage.Table
	// Part is the list's partition of Table.
	Part string
	// BuiltIn are the built-in terms' slugs, in the order they show;
	// Labels the i18n key prefix of their names (Labels+slug).
	BuiltIn []string
	Labels  string
	// SlugMessage and NameMessage are the i18n keys of a slug and of a
	// name refused.
	SlugMessage, NameMessage string
	// Exists is the module's error for a term added twice, Missing for
	// one nobody made.
	Exists, Missing error
	Now             func() time.Time

	mu    sync.Mutex
	rows  []Row
	until time.Time
}

// All are the built-in terms, then the added ones by English name,
// retired ones included (the admin page; labels).
func (l *List) All(ctx context.Context) ([]Term, error) {
	rows, err := l.added(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Term, 0, len(l.BuiltIn)+len(rows))
	for _, slug := range l.BuiltIn {
		out = append(out, Term{Slug: slug, BuiltIn: true, Active: true, labels: l.Labels})
	}
	for _, r := range rows {
		out = append(out, Term{Slug: r.RowKey, Active: r.Active, English: r.English, Russian: r.Russian})
	}
	return out, nil
}

// Active are the terms forms and chips offer.
func (l *List) Active(ctx context.Context) ([]Term, error) {
	all, err := l.All(ctx)
	return slices.DeleteFunc(all, func(t Term) bool { return !t.Active }), err
}

// Find finds slug among all terms.
func (l *List) Find(ctx context.Context, slug string) (Term, bool, error) {
	all, err := l.All(ctx)
	if err != nil {
		return Term{}, false, err
	}
	i := slices.IndexFunc(all, func(t Term) bool { return t.Slug == slug })
	if i < 0 {
		return Term{}, false, nil
	}
	return all[i], true, nil
}

// Labeler names slugs in ctx's language from all terms, read once: a
// slug no term has is named as it is.
func (l *List) Labeler(ctx context.Context) (func(slug string) string, error) {
	all, err := l.All(ctx)
	if err != nil {
		return nil, err
	}
	return func(slug string) string {
		if i := slices.IndexFunc(all, func(t Term) bool { return t.Slug == slug }); i >= 0 {
			return all[i].Label(ctx)
		}
		return slug
	}, nil
}

// added reads the added terms, or the copy read in the last cacheTTL.
func (l *List) added(ctx context.Context) ([]Row, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.Now().Before(l.until) {
		return l.rows, nil
	}
	rows, err := storage.All[Row](ctx, l.Table, storage.Query{PartitionKey: l.Part})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(rows, func(a, b Row) int {
		return strings.Compare(strings.ToLower(a.English), strings.ToLower(b.English))
	})
	l.rows, l.until = rows, l.Now().Add(cacheTTL)
	return rows, nil
}

// forget drops the instance's copy after a change.
func (l *List) forget() {
	l.mu.Lock()
	l.until = time.Time{}
	l.mu.Unlock()
}

// names cleans a term's names, noting problems in errs.
func (l *List) names(errs formrule.FieldErrors, english, russian string) (string, string) {
	return errs.Check("english", englishRule, english, l.NameMessage), errs.Check("russian", russianRule, russian, l.NameMessage)
}

// Add adds an active term. slug is lower-case letters and digits joined
// by hyphens; the English name is required, the Russian one falls back
// to it. Bad input is formrule.FieldErrors, a slug taken (a built-in
// one's too) Exists; neither writes anything.
func (l *List) Add(ctx context.Context, slug, english, russian string) error {
	errs := formrule.FieldErrors{}
	slug = errs.CheckSlug("slug", slug, MaxSlug, l.SlugMessage)
	if english, russian = l.names(errs, english, russian); len(errs) > 0 {
		return errs
	}
	if slices.Contains(l.BuiltIn, slug) {
		return l.Exists
	}
	_, err := storage.Insert(ctx, l.Table, Row{PartitionKey: l.Part, RowKey: slug, English: english, Russian: russian, Active: true, CreatedAt: l.Now().UTC()})
	if errors.Is(err, storage.ErrExists) {
		return l.Exists
	}
	l.forget()
	return err
}

// Update renames an added term and sets whether it is offered (Missing
// for a built-in one, or none).
func (l *List) Update(ctx context.Context, slug, english, russian string, active bool) error {
	errs := formrule.FieldErrors{}
	if english, russian = l.names(errs, english, russian); len(errs) > 0 {
		return errs
	}
	if !formrule.IsSlug(slug, 0) {
		return l.Missing
	}
	_, err := storage.Change(ctx, l.Table, l.Part, slug, l.Missing, func(r *Row) error {
		r.English, r.Russian, r.Active = english, russian, active
		return nil
	})
	l.forget()
	return err
}

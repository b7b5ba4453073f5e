package events

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
)

// Categories: the five built-in ones (Categories, named by i18n keys)
// and the ones admins add on /admin/event-categories, with an English
// and a Russian name, which they can rename and retire. A retired
// category leaves the form and the chips; its events keep it and stay in
// the listing of all categories. The list is read once per
// categoryCacheTTL per instance, so a listing page stays one query.

// CategoriesTable holds the admin-managed categories.
const CategoriesTable = "EventCategories"

const (
	categoriesPart   = "category"
	categoryCacheTTL = 30 * time.Second
	maxCategorySlug  = 32
	maxCategoryName  = 40
)

// CategoryRow is an admin-managed category.
type CategoryRow struct {
	PartitionKey string    `table:"PartitionKey"` // "category"
	RowKey       string    `table:"RowKey"`       // slug
	ETag         string    `table:"ETag"`
	English      string    `table:"english"`
	Russian      string    `table:"russian"` // "": the English name
	Active       bool      `table:"active"`
	CreatedAt    time.Time `table:"createdAt"`
}

// Category is a category as pages show it.
type Category struct {
	Slug    string
	BuiltIn bool
	Active  bool
	English string
	Russian string
}

// Label is the category's name in ctx's language.
func (c Category) Label(ctx context.Context) string {
	if c.BuiltIn {
		return i18n.T(ctx, "events.category."+c.Slug)
	}
	return i18n.Pick(ctx, c.English, c.Russian)
}

var (
	englishCategoryRule = formrule.Text{Max: maxCategoryName, Required: true}
	russianCategoryRule = formrule.Text{Max: maxCategoryName}
)

// categoryCache is the instance's copy of the managed categories.
type categoryCache struct {
	mu    sync.Mutex
	rows  []CategoryRow
	until time.Time
}

// AllCategories are the built-in categories, then the managed ones by
// English name, retired ones included (the admin page; labels).
func (c *Catalog) AllCategories(ctx context.Context) ([]Category, error) {
	rows, err := c.managedCategories(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Category, 0, len(Categories)+len(rows))
	for _, slug := range Categories {
		out = append(out, Category{Slug: slug, BuiltIn: true, Active: true})
	}
	for _, r := range rows {
		out = append(out, Category{Slug: r.RowKey, Active: r.Active, English: r.English, Russian: r.Russian})
	}
	return out, nil
}

// ActiveCategories are the categories the form and the chips offer.
func (c *Catalog) ActiveCategories(ctx context.Context) ([]Category, error) {
	all, err := c.AllCategories(ctx)
	return slices.DeleteFunc(all, func(c Category) bool { return !c.Active }), err
}

// category finds slug among all categories.
func (c *Catalog) category(ctx context.Context, slug string) (Category, bool, error) {
	all, err := c.AllCategories(ctx)
	if err != nil {
		return Category{}, false, err
	}
	i := slices.IndexFunc(all, func(c Category) bool { return c.Slug == slug })
	if i < 0 {
		return Category{}, false, nil
	}
	return all[i], true, nil
}

// managedCategories reads the managed categories, or the copy read in
// the last categoryCacheTTL.
func (c *Catalog) managedCategories(ctx context.Context) ([]CategoryRow, error) {
	c.cats.mu.Lock()
	defer c.cats.mu.Unlock()
	if c.now().Before(c.cats.until) {
		return c.cats.rows, nil
	}
	rows, err := storage.All[CategoryRow](ctx, c.categories, storage.Query{PartitionKey: categoriesPart})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(rows, func(a, b CategoryRow) int {
		return strings.Compare(strings.ToLower(a.English), strings.ToLower(b.English))
	})
	c.cats.rows, c.cats.until = rows, c.now().Add(categoryCacheTTL)
	return rows, nil
}

// forgetCategories drops the instance's copy after a change.
func (c *Catalog) forgetCategories() {
	c.cats.mu.Lock()
	c.cats.until = time.Time{}
	c.cats.mu.Unlock()
}

// ErrCategoryExists is an added category that is there already (a
// built-in one included).
var ErrCategoryExists = fault.New(http.StatusConflict, "events.categories.error.exists", "events: the category exists")

// checkCategoryNames cleans a category's names, noting problems in errs.
func checkCategoryNames(errs FieldErrors, english, russian string) (string, string) {
	return errs.Check("english", englishCategoryRule, english, "events.categories.error.name"),
		errs.Check("russian", russianCategoryRule, russian, "events.categories.error.name")
}

// AddCategory adds an active category. slug is lower-case letters and
// digits joined by hyphens; the English name is required, the Russian
// one falls back to it. Bad input is FieldErrors; nothing is written.
func (c *Catalog) AddCategory(ctx context.Context, slug, english, russian string) error {
	errs := FieldErrors{}
	slug = errs.CheckSlug("slug", slug, maxCategorySlug, "events.categories.error.slug")
	if english, russian = checkCategoryNames(errs, english, russian); len(errs) > 0 {
		return errs
	}
	if slices.Contains(Categories, slug) {
		return ErrCategoryExists
	}
	_, err := storage.Insert(ctx, c.categories, CategoryRow{PartitionKey: categoriesPart, RowKey: slug, English: english, Russian: russian, Active: true, CreatedAt: c.now().UTC()})
	if errors.Is(err, storage.ErrExists) {
		return ErrCategoryExists
	}
	c.forgetCategories()
	return err
}

// UpdateCategory renames a managed category and sets whether it is
// offered.
func (c *Catalog) UpdateCategory(ctx context.Context, slug, english, russian string, active bool) error {
	errs := FieldErrors{}
	if english, russian = checkCategoryNames(errs, english, russian); len(errs) > 0 {
		return errs
	}
	if !formrule.IsSlug(slug, 0) {
		return ErrNoCategory
	}
	_, err := storage.Change(ctx, c.categories, categoriesPart, slug, ErrNoCategory, func(r *CategoryRow) error {
		r.English, r.Russian, r.Active = english, russian, active
		return nil
	})
	c.forgetCategories()
	return err
}

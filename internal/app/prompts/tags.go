package prompts

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"sort"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/storage"
)

// DefaultTag is one tag of the catalog seeded on first start.
type DefaultTag struct {
	Tag, English, Russian string
}

// DefaultTags seed an empty TagCatalog on first start unless PROMPT_TAGS
// gives another list (Service.UseSeedTags); admins manage it later.
var DefaultTags = []DefaultTag{
	{"writing", "Writing", "Тексты"},
	{"coding", "Coding", "Программирование"},
	{"marketing", "Marketing", "Маркетинг"},
	{"education", "Education", "Обучение"},
	{"research", "Research", "Исследования"},
	{"productivity", "Productivity", "Продуктивность"},
	{"creative", "Creative", "Творчество"},
	{"business", "Business", "Бизнес"},
	{"translation", "Translation", "Перевод"},
	{"data", "Data", "Данные"},
	{"design", "Design", "Дизайн"},
	{"fun", "Fun", "Развлечения"},
}

func sortTags(tags []TagRow) {
	sort.SliceStable(tags, func(i, j int) bool { return tags[i].SortOrder < tags[j].SortOrder })
}

// AllTags are every tag of the catalog, active or not, in display order
// (the admin page, and display names of deactivated tags).
func (s *Service) AllTags(ctx context.Context) ([]TagRow, error) {
	tags, err := storage.All[TagRow](ctx, s.tagCatalog, storage.Query{PartitionKey: tagCatalogPartition})
	sortTags(tags)
	return tags, err
}

// ErrTagExists is an added tag that the catalog already has.
var ErrTagExists = fault.New(http.StatusConflict, "admin.tags.error.exists", "prompts: the tag exists")

// ErrNoTag is a tag the catalog does not have.
var ErrNoTag = fmt.Errorf("prompts: no such tag: %w", storage.ErrNotFound)

const maxTagLength, maxTagNameLength = 32, 40

// Rules of a tag's display names; the Russian one falls back to the
// English one when blank.
var (
	englishTagRule = formrule.Text{Max: maxTagNameLength, Required: true}
	russianTagRule = formrule.Text{Max: maxTagNameLength}
)

// checkTagNames cleans a tag's display names, noting problems in errs.
func checkTagNames(errs formrule.FieldErrors, english, russian string) (string, string) {
	return errs.Check("english", englishTagRule, english, "admin.tags.error.name"),
		errs.Check("russian", russianTagRule, russian, "admin.tags.error.name")
}

// AddTag adds an active tag at the end of the order. tag must be a slug
// (lower-case letters and digits joined by hyphens, at most 32); the
// English name is required, the Russian one falls back to it. Bad input
// is formrule.FieldErrors, and nothing is written.
func (s *Service) AddTag(ctx context.Context, tag, english, russian string) error {
	errs := formrule.FieldErrors{}
	tag = errs.CheckSlug("tag", tag, maxTagLength, "admin.tags.error.slug")
	if english, russian = checkTagNames(errs, english, russian); len(errs) > 0 {
		return errs
	}
	all, err := s.AllTags(ctx)
	if err != nil {
		return err
	}
	order := int64(0)
	for _, t := range all {
		order = max(order, t.SortOrder+1)
	}
	pk, rk := tagCatalogKey(tag)
	e, err := storage.Marshal(TagRow{PartitionKey: pk, RowKey: rk, Tag: tag, IsActive: true, DisplayName: english, DisplayNameR: russian, SortOrder: order})
	if err != nil {
		return err
	}
	_, err = s.tagCatalog.Insert(ctx, e)
	if errors.Is(err, storage.ErrExists) {
		return ErrTagExists
	}
	return err
}

// UpdateTag renames a tag's display names and sets whether it is active.
// A deactivated tag leaves the choices; prompts keep it and still show it.
func (s *Service) UpdateTag(ctx context.Context, tag, english, russian string, active bool) error {
	errs := formrule.FieldErrors{}
	if english, russian = checkTagNames(errs, english, russian); len(errs) > 0 {
		return errs
	}
	return s.editTag(ctx, tag, func(t *TagRow) {
		t.DisplayName, t.DisplayNameR, t.IsActive = english, russian, active
	})
}

// editTag applies change to one tag at its ETag.
func (s *Service) editTag(ctx context.Context, tag string, change func(*TagRow)) error {
	pk, rk := tagCatalogKey(tag)
	_, err := storage.Change(ctx, s.tagCatalog, pk, rk, ErrNoTag, func(t *TagRow) error {
		change(t)
		return nil
	})
	return err
}

// MoveTag moves a tag one place up (delta -1) or down (+1) in the order.
// Orders are renumbered 0..n-1 in one transaction (the catalog is one
// partition), so concurrent moves cannot leave two tags on one place.
func (s *Service) MoveTag(ctx context.Context, tag string, delta int) error {
	if delta != -1 && delta != 1 {
		return fmt.Errorf("prompts: move by %d", delta)
	}
	return storage.Optimistic(ctx, storage.DefaultAttempts, func(ctx context.Context) error {
		all, err := s.AllTags(ctx)
		if err != nil {
			return err
		}
		i := slices.IndexFunc(all, func(t TagRow) bool { return t.Tag == tag })
		if i < 0 {
			return ErrNoTag
		}
		j := i + delta
		if j < 0 || j >= len(all) {
			return nil
		}
		all[i], all[j] = all[j], all[i]
		var ops []storage.TxOp
		for n, t := range all {
			if t.SortOrder == int64(n) {
				continue
			}
			etag := t.ETag
			t.SortOrder = int64(n)
			e, err := storage.Marshal(t)
			if err != nil {
				return err
			}
			ops = append(ops, storage.TxOp{Kind: storage.TxUpdate, Entity: e, Mode: storage.Replace, IfMatch: etag})
		}
		if len(ops) == 0 {
			return nil
		}
		return s.tagCatalog.Transact(ctx, ops)
	})
}

package forum

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/formrule"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/storage"
)

// Sections: PK "forum", RK the slug, in the order admins set. Their
// counters (topics, last activity) are written after each topic's
// change by a conditional write of the section's row, so they stay exact
// under concurrency; `web reindex forum` recounts them from the topics.

var (
	sectionNameRule        = formrule.Text{Max: 60, Required: true}
	sectionRussianNameRule = formrule.Text{Max: 60}
	sectionDescRule        = formrule.Text{Max: 300}
)

// Label is the section's name in ctx's language: the Russian name on a
// Russian page when it has one, else the English.
func (r SectionRow) Label(ctx context.Context) string { return i18n.Pick(ctx, r.Name, r.RussianName) }

// About is the section's description in ctx's language, as Label.
func (r SectionRow) About(ctx context.Context) string {
	return i18n.Pick(ctx, r.Description, r.RussianDescription)
}

// reservedSlugs are paths under /forum that are not sections.
var reservedSlugs = []string{"t", "new", "unread", "search", "feed", "read-all", "preview", "bookmarks"}

// ErrSectionExists is a new section whose slug is taken (409).
var ErrSectionExists = fault.New(http.StatusConflict, "forum.error.slug_taken", "forum: the section exists")

// Section reads an open section; missing or archived is ErrNoSection.
func (s *Service) Section(ctx context.Context, slug string) (SectionRow, error) {
	if !formrule.IsSlug(slug, 0) {
		return SectionRow{}, ErrNoSection
	}
	pk, rk := sectionKey(slug)
	r, err := storage.Get[SectionRow](ctx, s.sections, pk, rk)
	if errors.Is(err, storage.ErrNotFound) || err == nil && r.Archived {
		return SectionRow{}, ErrNoSection
	}
	return r, err
}

// Sections are the sections in their order (archived ones too when all):
// one query.
func (s *Service) Sections(ctx context.Context, all bool) ([]SectionRow, error) {
	rows, err := storage.All[SectionRow](ctx, s.sections, storage.Query{PartitionKey: sectionsPart})
	if err != nil {
		return nil, err
	}
	if !all {
		rows = slices.DeleteFunc(rows, func(r SectionRow) bool { return r.Archived })
	}
	slices.SortStableFunc(rows, func(a, b SectionRow) int {
		if a.Order != b.Order {
			return a.Order - b.Order
		}
		return strings.Compare(a.Name, b.Name)
	})
	return rows, nil
}

// SectionInput is the section form as typed.
type SectionInput struct {
	Slug, Name, Description, Order string
	// RussianName and RussianDescription are optional: Russian pages
	// show the English ones without them.
	RussianName, RussianDescription string
	Archived                        bool
	// Moderators are the moderators' email addresses, one per line or
	// comma-separated; each must belong to an account.
	Moderators string
}

// checkSection cleans and checks a section form.
func checkSection(in SectionInput, isNew bool) (SectionRow, FormErrors) {
	errs := FormErrors{}
	var r SectionRow
	if isNew {
		r.RowKey = strings.TrimSpace(in.Slug)
		if !formrule.IsSlug(r.RowKey, 40) || slices.Contains(reservedSlugs, r.RowKey) {
			errs["slug"] = "forum.error.slug"
		}
	}
	r.Name = errs.Check("name", sectionNameRule, in.Name, "forum.error.section_name")
	r.Description = errs.Check("description", sectionDescRule, in.Description, "forum.error.description")
	r.RussianName = errs.Check("russian_name", sectionRussianNameRule, in.RussianName, "forum.error.section_name")
	r.RussianDescription = errs.Check("russian_description", sectionDescRule, in.RussianDescription, "forum.error.description")
	if v := strings.TrimSpace(in.Order); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 9999 {
			errs["order"] = "forum.error.order"
		}
		r.Order = n
	}
	r.Archived = in.Archived
	if len(errs) > 0 {
		return SectionRow{}, errs
	}
	return r, nil
}

// moderators resolves the moderators' addresses to accounts.
func (s *Service) moderators(ctx context.Context, typed string, r *SectionRow, errs FormErrors) error {
	var keys, emails []string
	for _, e := range strings.FieldsFunc(typed, func(r rune) bool { return r == ',' || r == '\n' || r == ' ' || r == '\r' }) {
		if s.directory == nil {
			errs["moderators"] = "forum.error.moderator"
			break
		}
		k, err := s.directory.MemberByEmail(ctx, e)
		if errors.Is(err, storage.ErrNotFound) {
			errs["moderators"] = "forum.error.moderator"
			continue
		}
		if err != nil {
			return err
		}
		if !slices.Contains(keys, k) {
			keys, emails = append(keys, k), append(emails, strings.ToLower(e))
		}
	}
	r.Moderators, r.ModeratorEmails = strings.Join(keys, ","), strings.Join(emails, ", ")
	return nil
}

// checkSectionInput checks a section form, its moderators included.
func (s *Service) checkSectionInput(ctx context.Context, in SectionInput, isNew bool) (SectionRow, error) {
	r, errs := checkSection(in, isNew)
	if errs == nil {
		errs = FormErrors{}
	}
	if err := s.moderators(ctx, in.Moderators, &r, errs); err != nil {
		return SectionRow{}, err
	}
	if len(errs) > 0 {
		return SectionRow{}, errs
	}
	return r, nil
}

// CreateSection adds a section.
func (s *Service) CreateSection(ctx context.Context, in SectionInput) (SectionRow, error) {
	r, err := s.checkSectionInput(ctx, in, true)
	if err != nil {
		return SectionRow{}, err
	}
	r.PartitionKey, r.CreatedAt = sectionsPart, s.now().UTC()
	if _, err := storage.Insert(ctx, s.sections, r); errors.Is(err, storage.ErrExists) {
		return SectionRow{}, ErrSectionExists
	} else if err != nil {
		return SectionRow{}, err
	}
	return r, nil
}

// UpdateSection renames, describes (in English and Russian), orders, archives a section or sets
// its moderators; its counters stay as they are.
func (s *Service) UpdateSection(ctx context.Context, slug string, in SectionInput) (SectionRow, error) {
	r, err := s.checkSectionInput(ctx, in, false)
	if err != nil {
		return SectionRow{}, err
	}
	if !formrule.IsSlug(slug, 0) {
		return SectionRow{}, ErrNoSection
	}
	pk, rk := sectionKey(slug)
	return storage.Change(ctx, s.sections, pk, rk, ErrNoSection, func(c *SectionRow) error {
		c.Name, c.Description, c.RussianName, c.RussianDescription = r.Name, r.Description, r.RussianName, r.RussianDescription
		c.Order, c.Archived, c.Moderators, c.ModeratorEmails = r.Order, r.Archived, r.Moderators, r.ModeratorEmails
		return nil
	})
}

// countSection moves a section's counters after a change of topic t (as
// it is now): topics by delta, and the last activity forward to t's. When
// the section's last topic was deleted or moved out, the next most
// recently active one takes its place (read from the section's index,
// which the change has already moved), so the forum's home never shows a
// deleted title; when it was retitled, its new title shows.
func (s *Service) countSection(ctx context.Context, slug string, delta int, t TopicRow) {
	ctx = context.WithoutCancel(ctx)
	pk, rk := sectionKey(slug)
	_, err := storage.Change(ctx, s.sections, pk, rk, storage.ErrNoChange, func(r *SectionRow) error {
		changed := delta != 0
		r.Topics += delta
		gone := t.Deleted || t.Section != slug
		switch {
		case !gone && (r.LastActivityAt == nil || t.LastActivityAt.After(*r.LastActivityAt)):
			r.setLast(t.Summary, t.PartitionKey)
			changed = true
		case r.LastTopicID != t.PartitionKey:
		case gone:
			last, err := s.lastOfSection(ctx, slug)
			if err != nil {
				return err
			}
			r.setLast(last.Summary, last.TopicID)
			changed = true
		case r.LastTopicTitle != t.Title:
			r.LastTopicTitle, changed = t.Title, true
		}
		if !changed {
			return storage.ErrNoChange
		}
		return nil
	})
	if err != nil {
		s.log.ErrorContext(ctx, "forum: section counters not moved; web reindex forum recounts them", "section", slug, "err", err)
	}
}

// setLast makes the topic id (its summary a) the section's last active
// one; an empty id clears it.
func (r *SectionRow) setLast(a Summary, id string) {
	if id == "" {
		r.LastActivityAt, r.LastTopicID, r.LastTopicTitle = nil, "", ""
		return
	}
	at := a.LastActivityAt
	r.LastActivityAt, r.LastTopicID, r.LastTopicTitle = &at, id, a.Title
}

// lastOfSection is the section's most recently active topic, pinned or
// not (a zero row for none): the newest of its pins and the newest of
// the rest, two queries of one row.
func (s *Service) lastOfSection(ctx context.Context, slug string) (ActivityRow, error) {
	pk := sectionPart(slug)
	var last ActivityRow
	for _, q := range []storage.Query{{PartitionKey: pk, RowKeyTo: "1"}, {PartitionKey: pk, RowKeyFrom: "1|", RowKeyTo: "2"}} {
		rows, _, err := storage.Take[ActivityRow](ctx, s.activity, q, 1)
		if err != nil {
			return ActivityRow{}, err
		}
		if len(rows) == 1 && rows[0].LastActivityAt.After(last.LastActivityAt) {
			last = rows[0]
		}
	}
	return last, nil
}

// IsStaff reports whether by moderates section: an admin, or one of its
// moderators.
func (s *Service) IsStaff(ctx context.Context, by Person, section string) (bool, error) {
	if by.Admin {
		return true, nil
	}
	if by.MemberKey == "" {
		return false, nil
	}
	r, err := s.Section(ctx, section)
	if err != nil {
		return false, err
	}
	return isStaffOf(by, r), nil
}

// isStaffOf reports whether by moderates sec, which the caller read.
func isStaffOf(by Person, sec SectionRow) bool {
	return by.Admin || by.MemberKey != "" && slices.Contains(sec.ModeratorKeys(), by.MemberKey)
}

// Package prompts owns the prompt catalog (documents 001 and 002): the
// Prompts table with its lookup and title-claim rows, PromptVotes, and the
// index tables TagIndex, PublicPromptsNewestIndex,
// PublicPromptsMostLikedIndex, TitleSearchIndex and TagCatalog. Commands
// write the canonical Prompts row first and then bring every index in step
// in the same request (indexes.go).
//
// Deleting an account (memberdata.go): the member's public prompts stay
// in the catalog by "Deleted member", moved to the Forgotten author's
// partition; their private and deleted prompts, votes (counts adjusted),
// saves and cooldown go.
package prompts

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/harmony/harmony/internal/app/account"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/metrics"
	"github.com/harmony/harmony/internal/moderation"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
	"github.com/harmony/harmony/internal/storage/quota"
)

// Profiles is what the prompt page needs from the account module.
type Profiles interface {
	Profile(ctx context.Context, memberKey string) (account.ProfileRow, error)
}

// Service is the prompts module.
type Service struct {
	store       *storage.Store
	prompts     *storage.Table
	votes       *storage.Table
	tagIndex    *storage.Table
	newestIndex *storage.Table
	likedIndex  *storage.Table
	titleSearch *storage.Table
	tagCatalog  *storage.Table
	saves       *storage.Table
	// saveCap bounds one person's saved prompts (maxSaved; tests lower it).
	saveCap  int
	creates  quota.Cooldown
	profiles Profiles
	// reports takes members' reports, modlog the admins' take-downs
	// (moderation.go).
	moderation.Reporting
	modlog  ModerationLog
	cursors *storage.Cursors
	log     *slog.Logger
	// counts counts new prompts and votes.
	counts metrics.Counting
	now    func() time.Time
	// pageSize is how many prompts a catalog page shows.
	pageSize int

	locks stripedLocks
	// indexer follows each prompt's row into the index tables
	// (indexes.go).
	indexer *projection.Recorder[PromptRow]
	// seedTags fill an empty TagCatalog (Seed).
	seedTags []DefaultTag

	mu sync.Mutex
	// firstMonth caches the catalog's first month, read at firstMonthRead.
	// Another process (web seed prompts, another instance's reindex) may
	// move it back, so the cache lives firstMonthTTL.
	firstMonth     string
	firstMonthRead time.Time
}

// firstMonthTTL is how long an instance trusts its cached first month: one
// point read per instance every few seconds keeps every instance right
// within that time after a seed moved the month back.
const firstMonthTTL = 5 * time.Second

// Limits of a prompt (document 001).
const (
	MaxTitleLength = 200
	MaxTextLength  = 3000
	MaxTags        = 10
)

// New builds the module. Call Seed once the tables exist.
func New(store *storage.Store, profiles Profiles, cursors *storage.Cursors, log *slog.Logger, now func() time.Time) *Service {
	s := &Service{
		store:       store,
		prompts:     store.Table(promptsTable),
		votes:       store.Table(votesTable),
		tagIndex:    store.Table(tagIndexTable),
		newestIndex: store.Table(newestIndexTable),
		likedIndex:  store.Table(likedIndexTable),
		titleSearch: store.Table(titleSearchTable),
		tagCatalog:  store.Table(tagCatalogTable),
		saves:       store.Table(savesTable),
		saveCap:     maxSaved,
		creates:     quota.Cooldown{Table: store.Table(quotaTable), Interval: CreateInterval},
		profiles:    profiles,
		cursors:     cursors,
		log:         log,
		now:         now,
		pageSize:    30,
		seedTags:    DefaultTags,
	}
	s.indexer = s.newIndexer()
	return s
}

// Tables are the tables this module needs provisioned.
func (s *Service) Tables() []string {
	return []string{promptsTable, votesTable, tagIndexTable, newestIndexTable, likedIndexTable, titleSearchTable, tagCatalogTable, quotaTable, savesTable}
}

// Slug is the module's section.
func (s *Service) Slug() string { return "prompts" }

// The daily counters the module increments.
const (
	NewPrompts  metrics.Counter = "newPrompts"
	PromptVotes metrics.Counter = "promptVotes"
)

// CountWith registers the module's counters with d and counts new prompts
// and votes from now on (platform.Counted).
func (s *Service) CountWith(d *metrics.Daily) {
	s.counts = d.Counting(s.log, "prompts", NewPrompts, PromptVotes)
}

// Errors callers act on.
var (
	// ErrNoPrompt is a prompt that does not exist, is deleted, or is
	// private to someone else: all three answer 404, so nothing leaks.
	ErrNoPrompt = fault.NotFound("prompts: no such prompt", storage.ErrNotFound)
	// ErrDuplicateTitle is a second prompt of one author with the same
	// normalised title.
	ErrDuplicateTitle = errors.New("prompts: you already have a prompt with this title")
	// ErrStale is an edit made on a version someone else has changed since.
	ErrStale = errors.New("prompts: the prompt changed since you opened it")
)

// Input is what the create and edit forms submit.
type Input struct {
	Title      string
	Text       string
	Tags       []string
	Visibility string
}

// FieldErrors are i18n keys per form field; "" means the field is fine.
type FieldErrors struct {
	Title, Text, Tags, Visibility string
}

// InvalidError is input that fails validation; nothing was written.
type InvalidError struct{ Fields FieldErrors }

func (e *InvalidError) Error() string { return "prompts: invalid input" }

// UseSeedTags replaces DefaultTags as the list Seed writes into an empty
// catalog (PROMPT_TAGS). Call it before Seed.
func (s *Service) UseSeedTags(tags []DefaultTag) {
	if len(tags) > 0 {
		s.seedTags = tags
	}
}

// Seed writes the seed tag list when the catalog is empty (the first
// start) and the catalog's first month. Once the catalog has a tag, admins
// own it: a later start, or a changed PROMPT_TAGS, adds nothing back.
// Concurrent first starts insert the same rows; ErrExists is fine.
func (s *Service) Seed(ctx context.Context) error {
	page, err := s.tagCatalog.Query(ctx, storage.Query{PartitionKey: tagCatalogPartition, Limit: 1})
	if err != nil {
		return err
	}
	if len(page.Entities) == 0 && page.Next == nil {
		for i, t := range s.seedTags {
			pk, rk := tagCatalogKey(t.Tag)
			row := TagRow{PartitionKey: pk, RowKey: rk, Tag: t.Tag, IsActive: true, DisplayName: t.English, DisplayNameR: t.Russian, SortOrder: int64(i)}
			if _, err := s.tagCatalog.Insert(ctx, mustMarshal(row)); err != nil && !errors.Is(err, storage.ErrExists) {
				return fmt.Errorf("seed tag %s: %w", t.Tag, err)
			}
		}
	}
	// A new catalog (no first-month row yet) also starts the most-liked
	// walk's top bucket at 0, raised as prompts climb. An older catalog
	// without the row walks every bucket until "web reindex prompts"
	// sets it, so no prompt is ever above the top.
	mpk, mrk := catalogMetaKey()
	if _, err := s.newestIndex.Get(ctx, mpk, mrk); errors.Is(err, storage.ErrNotFound) {
		pk, rk := likedMetaKey()
		if _, err := s.likedIndex.Insert(ctx, mustMarshal(LikedMetaRow{PartitionKey: pk, RowKey: rk})); err != nil && !errors.Is(err, storage.ErrExists) {
			return err
		}
	} else if err != nil {
		return err
	}
	_, err = s.catalogFirstMonth(ctx)
	return err
}

// catalogFirstMonth is the oldest month bucket of the newest index: the
// month of the first start, kept on a meta row (CatalogMetaRow), cached for
// firstMonthTTL.
func (s *Service) catalogFirstMonth(ctx context.Context) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.firstMonth != "" && now.Sub(s.firstMonthRead) < firstMonthTTL {
		return s.firstMonth, nil
	}
	pk, rk := catalogMetaKey()
	got, err := s.newestIndex.Get(ctx, pk, rk)
	if errors.Is(err, storage.ErrNotFound) {
		e, merr := storage.Marshal(CatalogMetaRow{PartitionKey: pk, RowKey: rk, FirstMonth: storage.MonthBucket(now)})
		if merr != nil {
			return "", merr
		}
		if _, err := s.newestIndex.Insert(ctx, e); err != nil && !errors.Is(err, storage.ErrExists) {
			return "", err
		}
		got, err = s.newestIndex.Get(ctx, pk, rk)
	}
	if err != nil {
		return "", err
	}
	var meta CatalogMetaRow
	if err := storage.Unmarshal(got, &meta); err != nil {
		return "", err
	}
	s.firstMonth, s.firstMonthRead = meta.FirstMonth, now
	return s.firstMonth, nil
}

// ActiveTags are the catalog's tags offered for choice, in display order.
func (s *Service) ActiveTags(ctx context.Context) ([]TagRow, error) {
	all, err := s.AllTags(ctx)
	return slices.DeleteFunc(all, func(t TagRow) bool { return !t.IsActive }), err
}

// splitTags turns the stored "a;b" form into a list.
func splitTags(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ";")
}

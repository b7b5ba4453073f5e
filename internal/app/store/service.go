package store

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"time"

	"github.com/harmony/harmony/internal/app/inbox"
	"github.com/harmony/harmony/internal/fault"
	"github.com/harmony/harmony/internal/media"
	"github.com/harmony/harmony/internal/media/gallery"
	"github.com/harmony/harmony/internal/media/pictures"
	"github.com/harmony/harmony/internal/storage"
	"github.com/harmony/harmony/internal/storage/projection"
	"github.com/harmony/harmony/internal/tasks"
	"github.com/harmony/harmony/internal/taxonomy"
	"github.com/harmony/harmony/internal/web"
)

// Categories are the store's built-in departments, in the order the
// store shows them (document 000's "clothing, music, etc."); admins add
// more on /admin/store-departments (Service.Departments).
var Categories = []string{"clothing", "music", "accessories", "posters"}

// DepartmentsTable holds the departments admins add.
const DepartmentsTable = "StoreDepartments"

// Refusals of departments.
var (
	// ErrNoDepartment is a department nobody made (404).
	ErrNoDepartment = fault.NotFound("store: no such department", storage.ErrNotFound)
	// ErrDepartmentExists is an added department that is there already
	// (a built-in one included; 409).
	ErrDepartmentExists = fault.New(http.StatusConflict, "store.departments.error.exists", "store: the department exists")
)

// Notifier tells people an item is back (the inbox).
type Notifier = inbox.Poster

// Service is the store: its items, their cards, pictures and alerts.
type Service struct {
	items    *storage.Table
	index    *storage.Table
	alerts   *storage.Table
	pictures pictures.Public
	// more are the items' more pictures (pictures.go), uploads their
	// uploads' pace.
	more    gallery.Gallery
	uploads *web.UploadPace
	// cards keeps StoreIndex in step with the items.
	cards *projection.Projection[ItemRow]
	// Departments are the built-in departments and the ones admins add
	// (the taxonomy kit).
	Departments *taxonomy.List
	cursors     *storage.Cursors
	notifier    Notifier
	// burials finish the deletions of items (Delete); nil: the delete's
	// own try, deleting again and the rebuild finish them.
	burials *tasks.Kind[burial]
	// backs finish the notices of restocks (tellItIsBack).
	backs *tasks.Kind[backTask]
	log   *slog.Logger
	now   func() time.Time
}

// Picture sizes (the longer side, in pixels) and the item form's body
// limit, which carries a picture.
const (
	largeImageSide = 1400
	smallImageSide = 600
	formBodyLimit  = media.DefaultMaxBytes + 1<<20
)

// New keeps the store in store.
func New(store *storage.Store, cursors *storage.Cursors, log *slog.Logger, now func() time.Time) *Service {
	s := &Service{
		items:    store.Table(ItemsTable),
		index:    store.Table(IndexTable),
		alerts:   store.Table(AlertsTable),
		pictures: pictures.Public{Store: pictures.Store{Container: store.Container(ImagesContainer), Large: largeImageSide, Small: smallImageSide, Log: log}, Prefix: mediaPrefix},
		cursors:  cursors,
		log:      log,
		now:      now,
		Departments: &taxonomy.List{
			Table: store.Table(DepartmentsTable), Part: "department", BuiltIn: Categories, Labels: "store.category.",
			SlugMessage: "store.departments.error.slug", NameMessage: "store.departments.error.name",
			Exists: ErrDepartmentExists, Missing: ErrNoDepartment, Now: now,
		},
	}
	s.uploads = web.NewUploadPace(now)
	s.more = gallery.Gallery{Table: store.Table(PicturesTable), Pictures: s.pictures.Store, Max: MaxMorePictures, Full: ErrPicturesFull, Missing: ErrNoPicture, Now: now}
	s.cards = &projection.Projection[ItemRow]{
		Canonical: s.items,
		Derived:   []*storage.Table{s.index},
		Recorded:  "listed",
		Rows:      s.cardRows,
	}
	return s
}

// UseNotifier has restocks told through n. Call it while wiring; without
// it nobody is told.
func (s *Service) UseNotifier(n Notifier) { s.notifier = n }

// cardRows are the cards an item implies: while shown, one among all
// items and one in its category's, newest first; while hidden, one among
// the hidden; none while being deleted.
func (s *Service) cardRows(it ItemRow) ([]projection.Row, error) {
	if it.Deleted {
		return nil, nil
	}
	rk := storage.ReverseTicks(it.CreatedAt) + "|" + it.RowKey
	parts := []string{hiddenPart}
	if it.Shown {
		parts = []string{allPart, catPrefix + it.Category}
	}
	rows := make([]projection.Row, 0, len(parts))
	for _, pk := range parts {
		r, err := projection.RowOf(s.index, CardRow{PartitionKey: pk, RowKey: rk, ItemID: it.RowKey, Card: it.Card})
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// Slug is the module's section.
func (s *Service) Slug() string { return "store" }

// Tables are the tables this module needs provisioned.
func (s *Service) Tables() []string {
	return []string{ItemsTable, IndexTable, AlertsTable, PicturesTable, DepartmentsTable}
}

// Containers are the blob containers this module needs provisioned.
func (s *Service) Containers() []string { return []string{ImagesContainer} }

// BodyLimits lets the item form carry a picture (web.BodyLimiter).
func (s *Service) BodyLimits() map[string]int64 {
	return map[string]int64{homeURL: formBodyLimit, "/store/:id/edit": formBodyLimit, "/store/:id/pictures": formBodyLimit}
}

// RebuildSubject names the rebuild: web reindex store.
func (s *Service) RebuildSubject() string { return "store" }

// Rebuild recomputes StoreIndex from the items, finishes the deletions
// cut short (finishDeletions), records again each item's more pictures
// from the pictures, then tells those still waiting for an item one can
// buy (a restock whose notice was not posted: a crash between the item's
// write and the notice) (platform.Rebuilder).
func (s *Service) Rebuild(ctx context.Context) (fmt.Stringer, error) {
	cards, err := s.cards.Rebuild(ctx)
	if err != nil {
		return cards, err
	}
	r := RebuildReport{Report: cards}
	if r.Removed, err = s.finishDeletions(ctx); err != nil {
		return r, err
	}
	if r.Pictures, err = s.recordAllMore(ctx); err != nil {
		return r, err
	}
	r.Told, err = s.tellTheMissed(ctx)
	return r, err
}

// RebuildReport is what Rebuild fixed.
type RebuildReport struct {
	projection.Report
	// Removed is how many deleted items' leftovers were removed.
	Removed int
	// Pictures is how many items' records of their more pictures were
	// corrected.
	Pictures int
	// Told is how many items' waiting people were told they are back.
	Told int
}

func (r RebuildReport) String() string {
	return fmt.Sprintf("%s; %d deleted items' pictures removed; %d items' pictures recorded again; %d items' waiting people told they are back", r.Report, r.Removed, r.Pictures, r.Told)
}

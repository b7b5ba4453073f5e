package groups

import (
	"context"
	"encoding/json"
	"slices"
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// The dashboard shows each group's next appointments. So that it costs
// the same few storage calls however many groups a person has, each
// group's row keeps a summary of what comes next (Upcoming): refreshed
// after every change to its appointments, read with the rows themselves
// (groupsByID). Time passing only shortens a summary; when one runs short
// (fewer left than the card shows, and more may follow), the dashboard
// reads that group live and refreshes it. A summary is a cache: the
// appointments are the truth, and `web reindex groups` rebuilds it.

// summaryItems is how many appointments a summary keeps.
const summaryItems = 6

// seriesLookahead is how far a summary expands a group's series when its
// single appointments do not fill it.
const seriesLookahead = 365 * 24 * time.Hour

// upcomingItem is one appointment (or occurrence) of a summary.
type upcomingItem struct {
	ID       string    `json:"i"`
	Title    string    `json:"t"`
	Location string    `json:"l,omitempty"`
	Start    time.Time `json:"s"`
	End      time.Time `json:"e"`
	AllDay   bool      `json:"a,omitempty"`
	Who      string    `json:"w,omitempty"`
	// Occurrence is set for an occurrence of a series.
	Occurrence time.Time `json:"o,omitzero"`
}

// upcomingSummary is a group's next appointments from Computed on: every
// appointment starting up to Until is in Items (up to summaryItems).
type upcomingSummary struct {
	Items    []upcomingItem `json:"items"`
	Until    time.Time      `json:"until"`
	Computed time.Time      `json:"at"`
}

// forever is a summary's Until when nothing follows its items.
var forever = time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)

// emptySummary is a new group's: nothing comes.
var emptySummary = `{"items":[],"until":"9999-01-01T00:00:00Z"}`

// batchKey marks a context whose saves leave the summary alone: an
// import refreshes it once at the end.
type batchKey struct{}

// nextRows reads the group's next n appointments from from on, cancelled
// ones left out, series expanded: one bounded query of its single
// appointments, and one of its series when it has any. until says how
// far the list is complete.
func (s *Service) nextRows(ctx context.Context, g GroupRow, from time.Time, n int) (rows []AppointmentIndexRow, until time.Time, err error) {
	page, err := s.appointments.Query(ctx, storage.Query{
		PartitionKey: g.GroupID, RowKeyFrom: appointmentTimeKey(from),
		// A cancelled plan is not coming up: the dashboard leaves it out
		// (the group's own pages still show it, marked).
		Filters: []storage.Filter{notDeleted, notCanceled}, Limit: n,
	})
	if err != nil {
		return nil, time.Time{}, err
	}
	for _, e := range page.Entities {
		var row AppointmentIndexRow
		if err := storage.Unmarshal(e, &row); err != nil {
			return nil, time.Time{}, err
		}
		rows = append(rows, row)
	}
	full := page.Next != nil || len(rows) == n
	end := forever
	if full {
		end = rows[len(rows)-1].StartTime
	}
	if g.HasSeries {
		if !full {
			end = from.Add(seriesLookahead)
		}
		series, err := s.seriesRunning(ctx, g.GroupID, from, end.Add(time.Second))
		if err != nil {
			return nil, time.Time{}, err
		}
		for _, row := range series {
			if row.Status == AppointmentCanceled {
				continue
			}
			for _, occ := range Occurrences(row, from, end.Add(time.Second)) {
				if !occ.StartTime.Before(from) {
					rows = append(rows, occ)
				}
			}
		}
		slices.SortFunc(rows, func(a, b AppointmentIndexRow) int { return a.StartTime.Compare(b.StartTime) })
	}
	if len(rows) >= n {
		rows, end = rows[:n], rows[n-1].StartTime
	}
	return rows, end, nil
}

// refreshUpcoming recomputes the group's summary and stores it on its
// row. The computation runs inside the row's conditional update, so a
// summary written after a concurrent change is recomputed, not lost.
func (s *Service) refreshUpcoming(ctx context.Context, groupID string) {
	if ctx.Value(batchKey{}) != nil {
		return
	}
	s.refreshGroup(ctx, groupID, "groups: upcoming summary not refreshed", s.summarize)
}

// summarize sets g's summary of its next appointments, from now.
func (s *Service) summarize(ctx context.Context, g *GroupRow) error {
	now := s.now().UTC()
	rows, until, err := s.nextRows(ctx, *g, now, summaryItems)
	if err != nil {
		return err
	}
	sum := upcomingSummary{Until: until, Computed: now}
	for _, r := range rows {
		sum.Items = append(sum.Items, upcomingItem{
			ID: r.AppointmentID, Title: r.Title, Location: r.Location, Start: r.StartTime, End: r.EndTime,
			AllDay: r.AllDay, Who: r.Who, Occurrence: r.Occurrence,
		})
	}
	b, err := json.Marshal(sum)
	if err != nil {
		return err
	}
	g.Upcoming = string(b)
	return nil
}

// fromSummary is the next n appointments from the group's summary as of
// now, and whether the summary holds them all.
func fromSummary(g GroupRow, now time.Time, n int) ([]AppointmentIndexRow, bool) {
	if g.Upcoming == "" {
		return nil, false
	}
	var sum upcomingSummary
	if err := json.Unmarshal([]byte(g.Upcoming), &sum); err != nil {
		return nil, false
	}
	var rows []AppointmentIndexRow
	for _, it := range sum.Items {
		if it.Start.Before(now) {
			continue
		}
		rows = append(rows, AppointmentIndexRow{
			AppointmentID: it.ID, Title: it.Title, Location: it.Location, StartTime: it.Start, EndTime: it.End,
			AllDay: it.AllDay, Who: it.Who, Occurrence: it.Occurrence, Status: AppointmentActive,
		})
	}
	if len(rows) >= n {
		return rows[:n], true
	}
	// Short: right only if nothing follows the summary's items.
	return rows, sum.Until.Equal(forever)
}

// NextAppointments is the next n appointments of each active group in
// groups, from the rows' summaries: no storage call for a group whose
// summary holds them. A group whose summary ran short is read live (one
// or two queries, at most metaReads groups at a time) and its summary
// refreshed. Invitations get none.
func (s *Service) NextAppointments(ctx context.Context, groups []MyGroup, n int) (map[string][]AppointmentIndexRow, error) {
	now := s.now()
	byGroup := make(map[string][]AppointmentIndexRow, len(groups))
	var stale []GroupRow
	for _, g := range groups {
		if g.Status != StatusActive {
			continue
		}
		rows, ok := fromSummary(g.Group, now, n)
		if !ok {
			stale = append(stale, g.Group)
			continue
		}
		if len(rows) > 0 {
			byGroup[g.Group.GroupID] = rows
		}
	}
	live := make([][]AppointmentIndexRow, len(stale))
	err := storage.Each(ctx, len(stale), metaReads, func(ctx context.Context, i int) error {
		var err error
		live[i], _, err = s.nextRows(ctx, stale[i], now, n)
		return err
	})
	if err != nil {
		return nil, err
	}
	for i, g := range stale {
		if len(live[i]) > 0 {
			byGroup[g.GroupID] = live[i]
		}
		s.refreshUpcoming(ctx, g.GroupID)
	}
	return byGroup, nil
}

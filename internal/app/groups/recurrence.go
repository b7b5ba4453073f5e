package groups

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teambition/rrule-go"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/lru"
)

// Recurring appointments are series: one appointment (blob and index
// row) with a rule, RFC 5545's RRULE subset the form offers, expanded
// when read. Nothing is stored per occurrence, so a month costs the same
// whatever its series hold. An occurrence edited on its own becomes an
// override: a single appointment with SeriesID and RecurrenceID (the
// start it replaces), its start listed in the series' Moved. A removed
// occurrence is listed in ExDates.

// Repeat frequencies the form offers.
const (
	RepeatNone    = ""
	RepeatDaily   = "daily"
	RepeatWeekly  = "weekly"
	RepeatMonthly = "monthly"
	RepeatYearly  = "yearly"
)

// Monthly modes: on the start's date, or on its weekday in the month
// ("the 2nd Tuesday", "the last Friday").
const (
	MonthlyByDate    = "date"
	MonthlyByWeekday = "weekday"
)

// Series limits.
const (
	maxRepeatInterval = 99
	maxRepeatCount    = 730
	// maxExpanded bounds the occurrences one read expands.
	maxExpanded = 2000
)

// RepeatInput is the form's repeat fields as typed.
type RepeatInput struct {
	Freq     string `form:"repeat"`
	Interval string `form:"repeatInterval"`
	// Weekdays are "MO".."SU" (weekly).
	Weekdays []string `form:"repeatWeekday"`
	Monthly  string   `form:"repeatMonthly"`
	// Ends is "never", "until" or "count".
	Ends  string `form:"repeatEnds"`
	Until string `form:"repeatUntil"` // YYYY-MM-DD, the last day included
	Count string `form:"repeatCount"`
}

// weekdayCodes are RRULE's weekday codes, Monday first.
var weekdayCodes = []string{"MO", "TU", "WE", "TH", "FR", "SA", "SU"}

var rruleWeekdays = map[string]rrule.Weekday{"MO": rrule.MO, "TU": rrule.TU, "WE": rrule.WE, "TH": rrule.TH, "FR": rrule.FR, "SA": rrule.SA, "SU": rrule.SU}

// codeOf is a Go weekday's RRULE code.
func codeOf(d time.Weekday) string { return weekdayCodes[(int(d)+6)%7] }

// parseRepeat turns the repeat fields into an RRULE (without DTSTART;
// "" when it does not repeat) for a series starting at start (in its
// zone). Problems go into errs by field.
func parseRepeat(in RepeatInput, start time.Time, errs FieldErrors) string {
	freq := map[string]rrule.Frequency{RepeatDaily: rrule.DAILY, RepeatWeekly: rrule.WEEKLY, RepeatMonthly: rrule.MONTHLY, RepeatYearly: rrule.YEARLY}
	f, ok := freq[in.Freq]
	if in.Freq == RepeatNone {
		return ""
	}
	if !ok {
		errs["repeat"] = "groups.repeat.error.freq"
		return ""
	}
	opt := rrule.ROption{Freq: f, Interval: 1}
	if v := strings.TrimSpace(in.Interval); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxRepeatInterval {
			errs["repeatInterval"] = "groups.repeat.error.interval"
			return ""
		}
		opt.Interval = n
	}
	switch f {
	case rrule.WEEKLY:
		days := in.Weekdays
		if len(days) == 0 {
			days = []string{codeOf(start.Weekday())}
		}
		for _, code := range weekdayCodes { // Monday first, no repeats
			if slices.Contains(days, code) {
				opt.Byweekday = append(opt.Byweekday, rruleWeekdays[code])
			}
		}
		for _, d := range days {
			if _, ok := rruleWeekdays[d]; !ok {
				errs["repeatWeekdays"] = "groups.repeat.error.weekdays"
				return ""
			}
		}
	case rrule.MONTHLY:
		if in.Monthly == MonthlyByWeekday {
			wd := rruleWeekdays[codeOf(start.Weekday())]
			opt.Byweekday = []rrule.Weekday{wd.Nth(nthWeekday(start))}
		}
	}
	switch in.Ends {
	case "", "never":
	case "until":
		until, err := time.ParseInLocation(time.DateOnly, strings.TrimSpace(in.Until), start.Location())
		if err != nil || until.Year() > 9998 {
			errs["repeatUntil"] = "groups.repeat.error.until"
			return ""
		}
		if until.Before(midnight(start)) {
			errs["repeatUntil"] = "groups.repeat.error.until_before"
			return ""
		}
		// The last day counts whole: UNTIL is its last second, in UTC.
		opt.Until = until.AddDate(0, 0, 1).Add(-time.Second).UTC()
	case "count":
		n, err := strconv.Atoi(strings.TrimSpace(in.Count))
		if err != nil || n < 1 || n > maxRepeatCount {
			errs["repeatCount"] = "groups.repeat.error.count"
			return ""
		}
		opt.Count = n
	default:
		errs["repeatEnds"] = "groups.repeat.error.ends"
		return ""
	}
	return opt.RRuleString()
}

// ruleOf parses a stored RRULE for a series starting at start.
func ruleOf(text string, start time.Time) (*rrule.RRule, error) {
	opt, err := rrule.StrToROptionInLocation(text, start.Location())
	if err != nil {
		return nil, fmt.Errorf("groups: rule %q: %w", text, err)
	}
	opt.Dtstart = start
	return rrule.NewRRule(*opt)
}

// seriesZone is where a series' wall clock lives: all-day series on
// dates (UTC), others in the zone they were entered in, so 17:00
// training stays at 17:00 across a DST change.
func seriesZone(row AppointmentIndexRow) *time.Location {
	if row.AllDay {
		return time.UTC
	}
	return auth.Zone(row.Timezone)
}

// cycleStart is the first year of the last whole 400-year cycle of the
// Gregorian calendar before the rule library's last year: a rule started
// there meets every date pattern a rule can name before the library stops.
const cycleStart = rrule.MAXYEAR - 2*400 + 1

// verdicts remembers what everOccurs found for each rule and start, so a
// series costs its check once per process, not on every read; it holds
// the verdictsMax used most recently.
var verdicts = lru.New[string, bool](verdictsMax)

const verdictsMax = 100000

// everOccurs reports whether the rule text, for a series starting at
// start, ever yields a date. A rule can name none ("the 30th of February,
// daily"), and the rule library then looks for one until the year 9999,
// tens of milliseconds a read. The calendar repeats every 400 years,
// weekdays and leap days included, so the rule is tried from the same
// point of a late cycle instead: the library stops at 9999, after at most
// two cycles.
func everOccurs(text string, start time.Time) bool {
	key := text + "|" + start.Format(time.RFC3339) + "|" + start.Location().String()
	if occurs, known := verdicts.Get(key); known {
		return occurs
	}
	occurs := firstOccurrence(text, start)
	verdicts.Put(key, occurs)
	return occurs
}

// firstOccurrence is everOccurs without the memory.
func firstOccurrence(text string, start time.Time) bool {
	opt, err := rrule.StrToROptionInLocation(text, start.Location())
	if err != nil {
		return false
	}
	y := start.Year()
	if y < cycleStart {
		y += (cycleStart - y) / 400 * 400
	}
	opt.Dtstart = time.Date(y, start.Month(), start.Day(), start.Hour(), start.Minute(), start.Second(), 0, start.Location())
	opt.Count, opt.Until = 0, time.Time{}
	r, err := rrule.NewRRule(*opt)
	if err != nil {
		return false
	}
	_, ok := r.Iterator()()
	return ok
}

// Occurrences expands a series index row into the occurrences that
// overlap [from, to): copies of the row with each occurrence's start and
// end, and Occurrence set to its start. Removed and moved occurrences
// are left out (their overrides are rows of their own), and so is a
// series whose rule names no date (everOccurs).
func Occurrences(row AppointmentIndexRow, from, to time.Time) []AppointmentIndexRow {
	return occurrences(row, from, to, maxExpanded)
}

// skippedKeys is a series' Skipped: the occurrences removed from it or
// moved out of it.
func skippedKeys(doc Appointment) string {
	var skipped []string
	for _, t := range append(slices.Clone(doc.ExDates), doc.Moved...) {
		skipped = append(skipped, appointmentTimeKey(t))
	}
	return strings.Join(skipped, ",")
}

// announcedStart is the time a notice about doc names: its start, or a
// series' next occurrence, so a weekly series begun in spring is
// announced with next week's date rather than its first, long past.
func announcedStart(doc Appointment, now time.Time) time.Time {
	if doc.Repeat == "" || doc.Start.After(now) {
		return doc.Start
	}
	row := AppointmentIndexRow{StartTime: doc.Start, EndTime: doc.End, AllDay: doc.AllDay,
		Repeat: doc.Repeat, Timezone: doc.Timezone, Skipped: skippedKeys(doc)}
	if next, ok := nextOccurrence(row, now); ok {
		return next.StartTime
	}
	return doc.Start
}

// nextOccurrence is the series' first occurrence that has not ended by
// from (removed ones left out), and false when none is left.
func nextOccurrence(row AppointmentIndexRow, from time.Time) (AppointmentIndexRow, bool) {
	next := occurrences(row, from, time.Date(rrule.MAXYEAR, 1, 1, 0, 0, 0, 0, time.UTC), 1)
	if len(next) == 0 {
		return AppointmentIndexRow{}, false
	}
	return next[0], true
}

// occurrences is Occurrences, stopping after at most limit of them.
func occurrences(row AppointmentIndexRow, from, to time.Time, limit int) []AppointmentIndexRow {
	if !everOccurs(row.Repeat, row.StartTime.In(seriesZone(row))) {
		return nil
	}
	length := row.EndTime.Sub(row.StartTime)
	r, err := seriesRule(row, from.Add(-length))
	if err != nil {
		return nil
	}
	skip := map[string]bool{}
	for _, k := range strings.Split(row.Skipped, ",") {
		skip[k] = true
	}
	var out []AppointmentIndexRow
	next := r.Iterator()
	for n := 0; n < maxExpanded; n++ {
		t, ok := next()
		if !ok || !t.Before(to) {
			break
		}
		if !t.Add(length).After(from) || skip[appointmentTimeKey(t)] {
			continue
		}
		if len(out) == limit {
			break
		}
		occ := row
		occ.StartTime, occ.EndTime = t.UTC(), t.Add(length).UTC()
		if row.AllDay { // a day is a day, even across DST
			occ.EndTime = t.AddDate(0, 0, int(length.Hours()/24+0.5)).UTC()
		}
		occ.Occurrence = occ.StartTime
		out = append(out, occ)
	}
	return out
}

// seriesRule is a series' rule in its zone, started from its last period
// beginning before from (fastForward), so that expanding it from there
// walks no more than one period of what went before.
func seriesRule(row AppointmentIndexRow, from time.Time) (*rrule.RRule, error) {
	zone := seriesZone(row)
	opt, err := rrule.StrToROptionInLocation(row.Repeat, zone)
	if err != nil {
		return nil, err
	}
	opt.Dtstart = fastForward(*opt, row.StartTime.In(zone), from)
	return rrule.NewRRule(*opt)
}

// fastForward moves a rule's start from start to its last period
// beginning before from, so expanding a series that began years ago
// does not walk every occurrence since: whole intervals of days, weeks,
// months or years keep the rule's alignment. A rule with a COUNT counts
// from its real start, and a monthly or yearly one on a day some months
// lack (the 29th and later) would drift, so those stay.
func fastForward(opt rrule.ROption, start, from time.Time) time.Time {
	if opt.Count > 0 || !from.After(start) {
		return start
	}
	k := max(1, opt.Interval)
	days := daysBetween(midnight(start), midnight(from.In(start.Location())))
	var t time.Time
	switch opt.Freq {
	case rrule.DAILY:
		t = start.AddDate(0, 0, days/k*k)
	case rrule.WEEKLY:
		// Whole weeks from start's week, so BYDAY days before start's
		// weekday in that week still come.
		weeks := days / 7 / k * k
		t = start.AddDate(0, 0, 7*max(0, weeks-k))
	case rrule.MONTHLY, rrule.YEARLY:
		if start.Day() > 28 {
			return start
		}
		months := (from.Year()-start.Year())*12 + int(from.Month()) - int(start.Month())
		step := k
		if opt.Freq == rrule.YEARLY {
			step = 12 * k
		}
		t = start.AddDate(0, max(0, months/step*step-step), 0)
	default:
		return start
	}
	if t.Before(start) {
		return start
	}
	return t
}

// isOccurrence reports whether at is an occurrence's start of the series
// (removed ones included: they can still be named).
// The rule starts from its last period before at (seriesRule), so
// naming an occurrence centuries on walks no more than one period.
func isOccurrence(row AppointmentIndexRow, at time.Time) bool {
	if !everOccurs(row.Repeat, row.StartTime.In(seriesZone(row))) {
		return false
	}
	r, err := seriesRule(row, at.Add(-time.Second))
	if err != nil {
		return false
	}
	got := r.Between(at.Add(-time.Second), at.Add(time.Second), true)
	return len(got) == 1 && got[0].Equal(at)
}

// docZone is the zone appointment doc's dates are in: UTC for all-day
// ones (dates), else its Timezone.
func docZone(doc Appointment) *time.Location {
	return seriesZone(AppointmentIndexRow{AllDay: doc.AllDay, Timezone: doc.Timezone})
}

// wallClock is t's date and time of day in zone, as if in UTC: two of
// them differ by what the clock on the wall shows.
func wallClock(t time.Time, zone *time.Location) time.Time {
	w := t.In(zone)
	return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), time.UTC)
}

// wallShift moves t, a time of a series in zone from, by delta on the
// wall clock, into zone to (the series' zone after the change): a week
// later is the same time of day a week on, across a change of the
// clocks, as the series' own dates are.
func wallShift(t time.Time, from, to *time.Location, delta time.Duration) time.Time {
	n := wallClock(t, from).Add(delta)
	return time.Date(n.Year(), n.Month(), n.Day(), n.Hour(), n.Minute(), n.Second(), n.Nanosecond(), to).UTC()
}

// seriesEnd is when a series' last occurrence ends: far in the future
// for one without an end.
func seriesEnd(doc Appointment) time.Time {
	forever := time.Date(9999, 1, 1, 0, 0, 0, 0, time.UTC)
	zone := docZone(doc)
	if !everOccurs(doc.Repeat, doc.Start.In(zone)) {
		return doc.End.UTC()
	}
	r, err := ruleOf(doc.Repeat, doc.Start.In(zone))
	if err != nil {
		return forever
	}
	if r.OrigOptions.Count == 0 && r.OrigOptions.Until.IsZero() {
		return forever
	}
	var last time.Time
	next := r.Iterator()
	for n := 0; n < maxRepeatCount*7; n++ { // weekly on seven days
		t, ok := next()
		if !ok {
			break
		}
		last = t
	}
	if last.IsZero() {
		return doc.End.UTC()
	}
	return last.Add(doc.End.Sub(doc.Start)).UTC()
}

// untilBefore ends a series' rule before at (for "this and following"):
// UNTIL the last second of the day before at's, in the series' zone, a
// COUNT dropped. A series has one date a day at most, and the edit form
// shows an end as the last day (repeatInputOf): at's own day would bring
// at back when the form is saved again.
func untilBefore(text string, start, at time.Time) (string, error) {
	opt, err := rrule.StrToROptionInLocation(text, start.Location())
	if err != nil {
		return "", err
	}
	y, m, d := at.In(start.Location()).Date()
	opt.Count, opt.Until = 0, time.Date(y, m, d, 0, 0, 0, 0, start.Location()).Add(-time.Second).UTC()
	return opt.RRuleString(), nil
}

// repeatInputOf fills the form's repeat fields from a stored rule.
func repeatInputOf(text string, start time.Time) RepeatInput {
	if text == "" {
		return RepeatInput{Freq: RepeatNone, Ends: "never", Monthly: MonthlyByDate}
	}
	opt, err := rrule.StrToROptionInLocation(text, start.Location())
	if err != nil {
		return RepeatInput{Freq: RepeatNone}
	}
	in := RepeatInput{Interval: strconv.Itoa(max(1, opt.Interval)), Ends: "never", Monthly: MonthlyByDate}
	in.Freq = map[rrule.Frequency]string{rrule.DAILY: RepeatDaily, rrule.WEEKLY: RepeatWeekly, rrule.MONTHLY: RepeatMonthly, rrule.YEARLY: RepeatYearly}[opt.Freq]
	for _, d := range opt.Byweekday {
		if opt.Freq == rrule.MONTHLY {
			in.Monthly = MonthlyByWeekday
			continue
		}
		in.Weekdays = append(in.Weekdays, weekdayCodes[d.Day()])
	}
	switch {
	case opt.Count > 0:
		in.Ends, in.Count = "count", strconv.Itoa(opt.Count)
	case !opt.Until.IsZero():
		in.Ends, in.Until = "until", opt.Until.In(start.Location()).Format(time.DateOnly)
	}
	return in
}

// nthWeekday is which of its weekday in the month start falls on, 1 to
// 4, or -1 for the last one (a fifth is always the last).
func nthWeekday(start time.Time) int {
	if start.AddDate(0, 0, 7).Month() != start.Month() {
		return -1
	}
	return (start.Day()-1)/7 + 1
}

// monthlyDays says the two monthly choices for a series starting at
// start: "on day 28" and "on the fourth Fri".
func monthlyDays(ctx context.Context, start time.Time) (byDate, byWeekday string) {
	return i18n.T(ctx, "groups.repeat.on_date", "day", start.Day()),
		i18n.T(ctx, "groups.repeat.on_nth."+strconv.Itoa(nthWeekday(start)), "day", i18n.Weekday(ctx, start.Weekday()))
}

// describeRepeat says a rule in words: "Every week on Tue, Thu, until
// 3 Jun 2031".
func describeRepeat(ctx context.Context, text string, start time.Time) string {
	in := repeatInputOf(text, start)
	if in.Freq == RepeatNone {
		return ""
	}
	n, _ := strconv.Atoi(in.Interval)
	out := i18n.T(ctx, "groups.repeat.every_"+in.Freq+"_one")
	if n > 1 {
		out = i18n.N(ctx, "groups.repeat.every_"+in.Freq, n)
	}
	switch {
	case in.Freq == RepeatWeekly && len(in.Weekdays) > 0:
		var days []string
		for _, code := range in.Weekdays {
			days = append(days, i18n.Weekday(ctx, time.Weekday((slices.Index(weekdayCodes, code)+1)%7)))
		}
		out += " " + i18n.T(ctx, "groups.repeat.on_days", "days", strings.Join(days, ", "))
	case in.Freq == RepeatMonthly:
		on, byWeekday := monthlyDays(ctx, start)
		if in.Monthly == MonthlyByWeekday {
			on = byWeekday
		}
		out += " " + on
	}
	switch in.Ends {
	case "until":
		t, _ := time.Parse(time.DateOnly, in.Until)
		out += ", " + i18n.T(ctx, "groups.repeat.until", "date", i18n.Date(ctx, t))
	case "count":
		c, _ := strconv.Atoi(in.Count)
		out += ", " + i18n.N(ctx, "groups.repeat.times", c)
	}
	return out
}

package i18n

import (
	"context"
	"strconv"
	"strings"
	"time"
)

// Dates in the reader's language: Russian pages say "2 июня 2030" and
// "пн, 2 июн. 2030, 10:00", English ones "2 June 2030" and
// "Mon 2 Jun 2030, 10:00". Go's time.Format knows English names only.
// Callers convert to the viewer's zone first.

var (
	monthsFull = map[Lang][12]string{
		EN: {"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"},
		// Genitive: a date says "2 июня", not "2 июнь".
		RU: {"января", "февраля", "марта", "апреля", "мая", "июня", "июля", "августа", "сентября", "октября", "ноября", "декабря"},
	}
	monthsShort = map[Lang][12]string{
		EN: {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"},
		RU: {"янв.", "февр.", "мар.", "апр.", "мая", "июн.", "июл.", "авг.", "сент.", "окт.", "нояб.", "дек."},
	}
	weekdaysShort = map[Lang][7]string{
		EN: {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"},
		RU: {"вс", "пн", "вт", "ср", "чт", "пт", "сб"},
	}
)

func langFor(ctx context.Context) Lang {
	if l := LangOf(ctx); l == RU {
		return RU
	}
	return EN
}

// Date is a calendar date: "2 June 2030", "2 июня 2030".
func Date(ctx context.Context, t time.Time) string {
	l := langFor(ctx)
	return strconv.Itoa(t.Day()) + " " + monthsFull[l][t.Month()-1] + " " + strconv.Itoa(t.Year())
}

// DateTime is a weekday, date and time: "Mon 2 Jun 2030, 10:00",
// "пн, 2 июн. 2030, 10:00".
func DateTime(ctx context.Context, t time.Time) string {
	l := langFor(ctx)
	wd := weekdaysShort[l][t.Weekday()]
	if l == RU {
		wd += ","
	}
	return wd + " " + strconv.Itoa(t.Day()) + " " + monthsShort[l][t.Month()-1] + " " + strconv.Itoa(t.Year()) + ", " + t.Format("15:04")
}

// Recent is a time as a list of what happened says it, seen at now (both
// in the reader's zone): "Today, 10:00", "Yesterday, 18:30", a weekday
// and date this year ("Mon 2 Jun, 10:00"), else with the year
// (DateTime). Russian: "Сегодня, 10:00", "Вчера, 18:30",
// "пн, 2 июн., 10:00".
func Recent(ctx context.Context, t, now time.Time) string {
	l := langFor(ctx)
	day := func(t time.Time) time.Time { return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC) }
	switch day(now).Sub(day(t)) {
	case 0:
		return recentDays[l][0] + ", " + t.Format("15:04")
	case 24 * time.Hour:
		return recentDays[l][1] + ", " + t.Format("15:04")
	}
	if t.Year() != now.Year() {
		return DateTime(ctx, t)
	}
	return Day(ctx, t) + ", " + t.Format("15:04")
}

// recentDays are Recent's words for today and yesterday.
var recentDays = map[Lang][2]string{EN: {"Today", "Yesterday"}, RU: {"Сегодня", "Вчера"}}

// Day is a weekday and date without the year: "Mon 2 Jun", "пн, 2 июн.".
func Day(ctx context.Context, t time.Time) string {
	l := langFor(ctx)
	wd := weekdaysShort[l][t.Weekday()]
	if l == RU {
		wd += ","
	}
	return wd + " " + strconv.Itoa(t.Day()) + " " + monthsShort[l][t.Month()-1]
}

// DayMonth is a date's day and short month, for a chart's axis: "2 Jun",
// "2 июн.".
func DayMonth(ctx context.Context, t time.Time) string {
	return strconv.Itoa(t.Day()) + " " + monthsShort[langFor(ctx)][t.Month()-1]
}

// MonthAbbr is a month's short name without its dot, for a date tile:
// "Jun", "июн".
func MonthAbbr(ctx context.Context, t time.Time) string {
	return strings.TrimSuffix(monthsShort[langFor(ctx)][t.Month()-1], ".")
}

// Weekday is a day's short name: "Mon", "пн".
func Weekday(ctx context.Context, d time.Weekday) string { return weekdaysShort[langFor(ctx)][d] }

// MonthYear is a month's caption: "June 2030", "Июнь 2030".
func MonthYear(ctx context.Context, t time.Time) string {
	l := langFor(ctx)
	name := monthsFull[l][t.Month()-1]
	if l == RU {
		name = monthsNominative[t.Month()-1]
	}
	return name + " " + strconv.Itoa(t.Year())
}

// SinceMonth is a month and year as they follow "since": "November
// 2026"; in Russian the genitive, lower case, "ноября 2026" ("с ноября
// 2026").
func SinceMonth(ctx context.Context, t time.Time) string {
	return monthsFull[langFor(ctx)][t.Month()-1] + " " + strconv.Itoa(t.Year())
}

// monthsNominative name a Russian month on its own ("Июнь"), where a
// date takes the genitive.
var monthsNominative = [12]string{"Январь", "Февраль", "Март", "Апрель", "Май", "Июнь", "Июль", "Август", "Сентябрь", "Октябрь", "Ноябрь", "Декабрь"}

// Span is a start and end: "Mon 2 Jun 2030, 10:00–11:00" within a day,
// both in full otherwise. Callers convert to the viewer's zone first.
func Span(ctx context.Context, start, end time.Time) string {
	if start.Format(time.DateOnly) == end.Format(time.DateOnly) {
		return DateTime(ctx, start) + "–" + end.Format("15:04")
	}
	return DateTime(ctx, start) + " – " + DateTime(ctx, end)
}

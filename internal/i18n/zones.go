package i18n

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Time zones as people name them: "Moscow, UTC+3", "Москва, UTC+3",
// "New York, UTC−5", rather than the IANA names ("Europe/Moscow",
// "America/New_York") that pages once showed, in English, on Russian
// pages too. The offset is the one in force at the time the page is
// about, so a zone with summer time says which it is.

// zoneNames are the names of the zones the pickers offer
// (account/timezones.txt) and of a few more people pick; another zone is
// called by the city in its IANA name.
var zoneNames = map[string][2]string{ // EN, RU
	"Europe/London": {"London", "Лондон"}, "Europe/Dublin": {"Dublin", "Дублин"},
	"Europe/Lisbon": {"Lisbon", "Лиссабон"}, "Europe/Paris": {"Paris", "Париж"},
	"Europe/Berlin": {"Berlin", "Берлин"}, "Europe/Madrid": {"Madrid", "Мадрид"},
	"Europe/Rome": {"Rome", "Рим"}, "Europe/Amsterdam": {"Amsterdam", "Амстердам"},
	"Europe/Prague": {"Prague", "Прага"}, "Europe/Vienna": {"Vienna", "Вена"},
	"Europe/Warsaw": {"Warsaw", "Варшава"}, "Europe/Riga": {"Riga", "Рига"},
	"Europe/Vilnius": {"Vilnius", "Вильнюс"}, "Europe/Tallinn": {"Tallinn", "Таллин"},
	"Europe/Minsk": {"Minsk", "Минск"}, "Europe/Chisinau": {"Chișinău", "Кишинёв"},
	"Europe/Kyiv": {"Kyiv", "Киев"}, "Europe/Kiev": {"Kyiv", "Киев"},
	"Europe/Helsinki": {"Helsinki", "Хельсинки"}, "Europe/Athens": {"Athens", "Афины"},
	"Europe/Belgrade": {"Belgrade", "Белград"}, "Europe/Istanbul": {"Istanbul", "Стамбул"},
	"Europe/Kaliningrad": {"Kaliningrad", "Калининград"}, "Europe/Moscow": {"Moscow", "Москва"},
	"Europe/Volgograd": {"Volgograd", "Волгоград"}, "Europe/Samara": {"Samara", "Самара"},
	"Asia/Yekaterinburg": {"Yekaterinburg", "Екатеринбург"}, "Asia/Omsk": {"Omsk", "Омск"},
	"Asia/Novosibirsk": {"Novosibirsk", "Новосибирск"}, "Asia/Krasnoyarsk": {"Krasnoyarsk", "Красноярск"},
	"Asia/Irkutsk": {"Irkutsk", "Иркутск"}, "Asia/Yakutsk": {"Yakutsk", "Якутск"},
	"Asia/Vladivostok": {"Vladivostok", "Владивосток"}, "Asia/Magadan": {"Magadan", "Магадан"},
	"Asia/Kamchatka": {"Kamchatka", "Камчатка"}, "Asia/Tbilisi": {"Tbilisi", "Тбилиси"},
	"Asia/Yerevan": {"Yerevan", "Ереван"}, "Asia/Baku": {"Baku", "Баку"},
	"Asia/Almaty": {"Almaty", "Алматы"}, "Asia/Tashkent": {"Tashkent", "Ташкент"},
	"Asia/Bishkek": {"Bishkek", "Бишкек"}, "Asia/Dushanbe": {"Dushanbe", "Душанбе"},
	"Asia/Jerusalem": {"Jerusalem", "Иерусалим"}, "Asia/Dubai": {"Dubai", "Дубай"},
	"Asia/Kolkata": {"Kolkata", "Калькутта"}, "Asia/Bangkok": {"Bangkok", "Бангкок"},
	"Asia/Shanghai": {"Shanghai", "Шанхай"}, "Asia/Hong_Kong": {"Hong Kong", "Гонконг"},
	"Asia/Singapore": {"Singapore", "Сингапур"}, "Asia/Seoul": {"Seoul", "Сеул"},
	"Asia/Tokyo": {"Tokyo", "Токио"}, "Australia/Sydney": {"Sydney", "Сидней"},
	"Pacific/Auckland": {"Auckland", "Окленд"}, "America/Sao_Paulo": {"São Paulo", "Сан-Паулу"},
	"America/Toronto": {"Toronto", "Торонто"}, "America/New_York": {"New York", "Нью-Йорк"},
	"America/Chicago": {"Chicago", "Чикаго"}, "America/Mexico_City": {"Mexico City", "Мехико"},
	"America/Denver": {"Denver", "Денвер"}, "America/Los_Angeles": {"Los Angeles", "Лос-Анджелес"},
	"America/Anchorage": {"Anchorage", "Анкоридж"}, "Pacific/Honolulu": {"Honolulu", "Гонолулу"},
	"Africa/Cairo": {"Cairo", "Каир"}, "Africa/Lagos": {"Lagos", "Лагос"},
	"Africa/Johannesburg": {"Johannesburg", "Йоханнесбург"}, "Africa/Nairobi": {"Nairobi", "Найроби"},
}

// ZoneName is the zone called name ("Europe/Moscow") as the reader's
// language names it, with its offset at at: "Moscow, UTC+3",
// "Москва, UTC+3" (no brackets: labels put the zone in brackets). UTC
// is "UTC"; a name the zone database does not know is given back as it
// is.
func ZoneName(ctx context.Context, name string, at time.Time) string {
	loc, ok := LoadZone(name)
	if !ok {
		return name
	}
	if loc == time.UTC {
		return "UTC"
	}
	city := zoneCity(name)
	if n, ok := zoneNames[name]; ok {
		city = n[0]
		if langFor(ctx) == RU {
			city = n[1]
		}
	}
	_, offset := at.In(loc).Zone()
	return city + ", " + utcOffset(offset)
}

// zoneCity is the city in an IANA name: "America/Argentina/Buenos_Aires"
// is "Buenos Aires".
func zoneCity(name string) string {
	return strings.ReplaceAll(name[strings.LastIndex(name, "/")+1:], "_", " ")
}

// utcOffset writes an offset in seconds as "UTC+3", "UTC+5:30" or
// "UTC−8" (with a minus sign, as type is set).
func utcOffset(seconds int) string {
	sign := "+"
	if seconds < 0 {
		sign, seconds = "−", -seconds
	}
	out := "UTC" + sign + strconv.Itoa(seconds/3600)
	if m := seconds % 3600 / 60; m != 0 {
		out += ":" + strconv.Itoa(m/10) + strconv.Itoa(m%10)
	}
	return out
}

// LoadZone is the zone called name, and false when the zone database
// does not know it; "" and "UTC" are UTC. Zones are loaded once:
// time.LoadLocation reads the database on every call, and pages ask for
// the viewer's zone each time. Only valid names are kept, so the cache
// stays as small as the zones people use.
func LoadZone(name string) (*time.Location, bool) {
	if name == "" || name == "UTC" {
		return time.UTC, true
	}
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), true
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, false
	}
	zones.Store(name, loc)
	return loc, true
}

var zones sync.Map

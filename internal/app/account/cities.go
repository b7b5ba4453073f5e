package account

import (
	"cmp"
	"net/http"
	"slices"

	"github.com/harmony/harmony/internal/fault"
)

// Cities are the places someone may choose as where they are, for
// distances in People, when their browser does not give its location
// (no JavaScript, or the prompt refused): large cities where the app's
// people are, their centres to about 0.1°, which is as close as a
// distance between cities needs. A city chosen is kept as its point, like
// a shared location.
var Cities = []City{
	// Russia.
	{"moscow", "Moscow", "Москва", "RU", 55.76, 37.62},
	{"saint-petersburg", "Saint Petersburg", "Санкт-Петербург", "RU", 59.94, 30.31},
	{"novosibirsk", "Novosibirsk", "Новосибирск", "RU", 55.03, 82.92},
	{"yekaterinburg", "Yekaterinburg", "Екатеринбург", "RU", 56.84, 60.61},
	{"kazan", "Kazan", "Казань", "RU", 55.79, 49.12},
	{"nizhny-novgorod", "Nizhny Novgorod", "Нижний Новгород", "RU", 56.33, 44.00},
	{"chelyabinsk", "Chelyabinsk", "Челябинск", "RU", 55.16, 61.40},
	{"samara", "Samara", "Самара", "RU", 53.20, 50.15},
	{"omsk", "Omsk", "Омск", "RU", 54.99, 73.37},
	{"rostov-on-don", "Rostov-on-Don", "Ростов-на-Дону", "RU", 47.24, 39.71},
	{"ufa", "Ufa", "Уфа", "RU", 54.74, 55.97},
	{"krasnoyarsk", "Krasnoyarsk", "Красноярск", "RU", 56.01, 92.87},
	{"voronezh", "Voronezh", "Воронеж", "RU", 51.67, 39.18},
	{"perm", "Perm", "Пермь", "RU", 58.01, 56.25},
	{"volgograd", "Volgograd", "Волгоград", "RU", 48.71, 44.51},
	{"krasnodar", "Krasnodar", "Краснодар", "RU", 45.04, 38.98},
	{"saratov", "Saratov", "Саратов", "RU", 51.53, 46.03},
	{"tyumen", "Tyumen", "Тюмень", "RU", 57.15, 65.53},
	{"izhevsk", "Izhevsk", "Ижевск", "RU", 56.85, 53.21},
	{"barnaul", "Barnaul", "Барнаул", "RU", 53.35, 83.78},
	{"irkutsk", "Irkutsk", "Иркутск", "RU", 52.29, 104.28},
	{"khabarovsk", "Khabarovsk", "Хабаровск", "RU", 48.48, 135.08},
	{"vladivostok", "Vladivostok", "Владивосток", "RU", 43.12, 131.89},
	{"yaroslavl", "Yaroslavl", "Ярославль", "RU", 57.63, 39.87},
	{"tomsk", "Tomsk", "Томск", "RU", 56.48, 84.95},
	{"kaliningrad", "Kaliningrad", "Калининград", "RU", 54.71, 20.51},
	{"sochi", "Sochi", "Сочи", "RU", 43.59, 39.72},
	{"murmansk", "Murmansk", "Мурманск", "RU", 68.97, 33.09},
	{"arkhangelsk", "Arkhangelsk", "Архангельск", "RU", 64.54, 40.54},
	// Neighbours.
	{"minsk", "Minsk", "Минск", "BY", 53.90, 27.56},
	{"kyiv", "Kyiv", "Киев", "UA", 50.45, 30.52},
	{"almaty", "Almaty", "Алматы", "KZ", 43.24, 76.89},
	{"astana", "Astana", "Астана", "KZ", 51.17, 71.45},
	{"tashkent", "Tashkent", "Ташкент", "UZ", 41.30, 69.24},
	{"bishkek", "Bishkek", "Бишкек", "KG", 42.87, 74.59},
	{"tbilisi", "Tbilisi", "Тбилиси", "GE", 41.72, 44.79},
	{"yerevan", "Yerevan", "Ереван", "AM", 40.18, 44.51},
	{"baku", "Baku", "Баку", "AZ", 40.41, 49.87},
	{"chisinau", "Chișinău", "Кишинёв", "MD", 47.01, 28.86},
	{"riga", "Riga", "Рига", "LV", 56.95, 24.11},
	{"vilnius", "Vilnius", "Вильнюс", "LT", 54.69, 25.28},
	{"tallinn", "Tallinn", "Таллин", "EE", 59.44, 24.75},
	// Europe.
	{"london", "London", "Лондон", "GB", 51.51, -0.13},
	{"manchester", "Manchester", "Манчестер", "GB", 53.48, -2.24},
	{"birmingham", "Birmingham", "Бирмингем", "GB", 52.49, -1.89},
	{"edinburgh", "Edinburgh", "Эдинбург", "GB", 55.95, -3.19},
	{"dublin", "Dublin", "Дублин", "IE", 53.35, -6.26},
	{"paris", "Paris", "Париж", "FR", 48.86, 2.35},
	{"lyon", "Lyon", "Лион", "FR", 45.76, 4.84},
	{"berlin", "Berlin", "Берлин", "DE", 52.52, 13.40},
	{"munich", "Munich", "Мюнхен", "DE", 48.14, 11.58},
	{"hamburg", "Hamburg", "Гамбург", "DE", 53.55, 9.99},
	{"frankfurt", "Frankfurt", "Франкфурт-на-Майне", "DE", 50.11, 8.68},
	{"vienna", "Vienna", "Вена", "AT", 48.21, 16.37},
	{"zurich", "Zurich", "Цюрих", "CH", 47.37, 8.54},
	{"geneva", "Geneva", "Женева", "CH", 46.20, 6.14},
	{"amsterdam", "Amsterdam", "Амстердам", "NL", 52.37, 4.90},
	{"brussels", "Brussels", "Брюссель", "BE", 50.85, 4.35},
	{"copenhagen", "Copenhagen", "Копенгаген", "DK", 55.68, 12.57},
	{"stockholm", "Stockholm", "Стокгольм", "SE", 59.33, 18.07},
	{"oslo", "Oslo", "Осло", "NO", 59.91, 10.75},
	{"helsinki", "Helsinki", "Хельсинки", "FI", 60.17, 24.94},
	{"warsaw", "Warsaw", "Варшава", "PL", 52.23, 21.01},
	{"krakow", "Kraków", "Краков", "PL", 50.06, 19.94},
	{"prague", "Prague", "Прага", "CZ", 50.08, 14.44},
	{"budapest", "Budapest", "Будапешт", "HU", 47.50, 19.04},
	{"bucharest", "Bucharest", "Бухарест", "RO", 44.43, 26.10},
	{"sofia", "Sofia", "София", "BG", 42.70, 23.32},
	{"belgrade", "Belgrade", "Белград", "RS", 44.79, 20.45},
	{"athens", "Athens", "Афины", "GR", 37.98, 23.73},
	{"rome", "Rome", "Рим", "IT", 41.90, 12.50},
	{"milan", "Milan", "Милан", "IT", 45.46, 9.19},
	{"madrid", "Madrid", "Мадрид", "ES", 40.42, -3.70},
	{"barcelona", "Barcelona", "Барселона", "ES", 41.39, 2.17},
	{"lisbon", "Lisbon", "Лиссабон", "PT", 38.72, -9.14},
	{"istanbul", "Istanbul", "Стамбул", "TR", 41.01, 28.98},
	// The Americas.
	{"new-york", "New York", "Нью-Йорк", "US", 40.71, -74.01},
	{"boston", "Boston", "Бостон", "US", 42.36, -71.06},
	{"washington", "Washington", "Вашингтон", "US", 38.91, -77.04},
	{"miami", "Miami", "Майами", "US", 25.76, -80.19},
	{"chicago", "Chicago", "Чикаго", "US", 41.88, -87.63},
	{"los-angeles", "Los Angeles", "Лос-Анджелес", "US", 34.05, -118.24},
	{"san-francisco", "San Francisco", "Сан-Франциско", "US", 37.77, -122.42},
	{"seattle", "Seattle", "Сиэтл", "US", 47.61, -122.33},
	{"toronto", "Toronto", "Торонто", "CA", 43.65, -79.38},
	{"montreal", "Montreal", "Монреаль", "CA", 45.50, -73.57},
	{"vancouver", "Vancouver", "Ванкувер", "CA", 49.28, -123.12},
	{"mexico-city", "Mexico City", "Мехико", "MX", 19.43, -99.13},
	{"sao-paulo", "São Paulo", "Сан-Паулу", "BR", -23.55, -46.63},
	{"buenos-aires", "Buenos Aires", "Буэнос-Айрес", "AR", -34.60, -58.38},
	// Asia, Africa and Oceania.
	{"tel-aviv", "Tel Aviv", "Тель-Авив", "IL", 32.09, 34.78},
	{"dubai", "Dubai", "Дубай", "AE", 25.20, 55.27},
	{"delhi", "Delhi", "Дели", "IN", 28.61, 77.21},
	{"mumbai", "Mumbai", "Мумбаи", "IN", 19.08, 72.88},
	{"bangkok", "Bangkok", "Бангкок", "TH", 13.76, 100.50},
	{"singapore", "Singapore", "Сингапур", "SG", 1.35, 103.82},
	{"hong-kong", "Hong Kong", "Гонконг", "HK", 22.32, 114.17},
	{"beijing", "Beijing", "Пекин", "CN", 39.90, 116.41},
	{"shanghai", "Shanghai", "Шанхай", "CN", 31.23, 121.47},
	{"seoul", "Seoul", "Сеул", "KR", 37.57, 126.98},
	{"tokyo", "Tokyo", "Токио", "JP", 35.68, 139.69},
	{"sydney", "Sydney", "Сидней", "AU", -33.87, 151.21},
	{"melbourne", "Melbourne", "Мельбурн", "AU", -37.81, 144.96},
	{"auckland", "Auckland", "Окленд", "NZ", -36.85, 174.76},
	{"cairo", "Cairo", "Каир", "EG", 30.04, 31.24},
	{"lagos", "Lagos", "Лагос", "NG", 6.52, 3.38},
	{"nairobi", "Nairobi", "Найроби", "KE", -1.29, 36.82},
	{"cape-town", "Cape Town", "Кейптаун", "ZA", -33.92, 18.42},
}

// City is a place in Cities: its id (what a form sends), its name in
// English and in Russian, its country (ISO 3166 code) and its centre.
type City struct {
	ID, En, Ru, Country string
	Lat, Lon            float64
}

// Point is the city's centre.
func (c City) Point() Point { return Point{Lat: c.Lat, Lon: c.Lon} }

// Name is the city's name in lang ("ru", else English).
func (c City) Name(lang string) string {
	if lang == "ru" {
		return c.Ru
	}
	return c.En
}

// ErrNoCity is a city that is not in Cities (400).
var ErrNoCity = fault.New(http.StatusBadRequest, "people.error.city", "account: no such city")

// CityOf is the city with id, ErrNoCity when there is none.
func CityOf(id string) (City, error) {
	if i := slices.IndexFunc(Cities, func(c City) bool { return c.ID == id }); i >= 0 {
		return Cities[i], nil
	}
	return City{}, ErrNoCity
}

// CitiesIn are the cities in lang's alphabetical order of their names.
func CitiesIn(lang string) []City {
	out := slices.Clone(Cities)
	slices.SortFunc(out, func(a, b City) int { return cmp.Compare(a.Name(lang), b.Name(lang)) })
	return out
}

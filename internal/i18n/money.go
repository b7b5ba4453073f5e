package i18n

import (
	"context"
	"strconv"
	"strings"
)

// Prices in the reader's language, the way shops write them: "£18",
// "€12.50", "CHF 1,200" on English pages; "18 £", "12,50 €",
// "1 200 CHF" on Russian ones. A whole amount has no cents.

// currencySigns are the currencies people know by a sign; others show
// their ISO code.
var currencySigns = map[string]string{
	"GBP": "£", "EUR": "€", "USD": "$", "RUB": "₽", "JPY": "¥", "INR": "₹",
	"UAH": "₴", "KZT": "₸", "TRY": "₺", "ILS": "₪", "KRW": "₩", "GEL": "₾",
}

// Money is an amount in cents of currency (an ISO 4217 code) as the
// reader's language writes it.
func Money(ctx context.Context, cents int64, currency string) string {
	neg := cents < 0
	if neg {
		cents = -cents
	}
	l := langFor(ctx)
	group, point := ",", "."
	if l == RU {
		group, point = "\u00a0", ","
	}
	n := grouped(cents/100, group)
	if c := cents % 100; c != 0 {
		n += point + strconv.FormatInt(c/10, 10) + strconv.FormatInt(c%10, 10)
	}
	sign, known := currencySigns[strings.ToUpper(currency)]
	var out string
	switch {
	case l == RU && known:
		out = n + "\u00a0" + sign
	case l == RU:
		out = n + "\u00a0" + currency
	case known:
		out = sign + n
	default:
		out = currency + "\u00a0" + n
	}
	if neg {
		out = "−" + out
	}
	return out
}

// grouped writes n with sep between groups of three digits.
func grouped(n int64, sep string) string {
	s := strconv.FormatInt(n, 10)
	if len(s) <= 3 {
		return s
	}
	var b strings.Builder
	head := len(s) % 3
	if head > 0 {
		b.WriteString(s[:head])
	}
	for i := head; i < len(s); i += 3 {
		if b.Len() > 0 {
			b.WriteString(sep)
		}
		b.WriteString(s[i : i+3])
	}
	return b.String()
}

// Decimal is v with places decimals as the reader's language writes it:
// "4.3" on English pages, "4,3" on Russian ones.
func Decimal(ctx context.Context, v float64, places int) string {
	s := strconv.FormatFloat(v, 'f', places, 64)
	if langFor(ctx) == RU {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

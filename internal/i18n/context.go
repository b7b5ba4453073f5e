package i18n

import "context"

type localizerKey struct{}

// WithLocalizer returns ctx carrying z; the web layer does this once per
// request after choosing the language.
func WithLocalizer(ctx context.Context, z *Localizer) context.Context {
	return context.WithValue(ctx, localizerKey{}, z)
}

// From returns the context's Localizer, or nil.
func From(ctx context.Context) *Localizer {
	z, _ := ctx.Value(localizerKey{}).(*Localizer)
	return z
}

// LangOf returns the context's language, English when none was chosen.
func LangOf(ctx context.Context) Lang {
	if z := From(ctx); z != nil {
		return z.lang
	}
	return Default
}

// T translates key in the context's language (see Localizer.T). Without a
// Localizer it returns the key, which shows up in any test that forgets one.
func T(ctx context.Context, key string, args ...any) string {
	if z := From(ctx); z != nil {
		return z.T(key, args...)
	}
	return key
}

// N translates a counted message in the context's language (see
// Localizer.N).
func N(ctx context.Context, key string, n int, args ...any) string {
	if z := From(ctx); z != nil {
		return z.N(key, n, args...)
	}
	return key
}

// Pick is the Russian of a text people entered in both languages on a
// Russian page, when there is one; else the English.
func Pick(ctx context.Context, english, russian string) string {
	if LangOf(ctx) == RU && russian != "" {
		return russian
	}
	return english
}

package i18n

import (
	"context"
	"testing"
)

func TestMoneyInTheReadersLanguage(t *testing.T) {
	c := newCatalog(t)
	en := WithLocalizer(context.Background(), c.For(EN))
	ru := WithLocalizer(context.Background(), c.For(RU))
	for _, tc := range []struct {
		cents    int64
		currency string
		en, ru   string
	}{
		{1800, "GBP", "£18", "18\u00a0£"},
		{1250, "EUR", "€12.50", "12,50\u00a0€"},
		{1205, "usd", "$12.05", "12,05\u00a0$"},
		{120000, "RUB", "₽1,200", "1\u00a0200\u00a0₽"},
		{123456789, "CHF", "CHF\u00a01,234,567.89", "1\u00a0234\u00a0567,89\u00a0CHF"},
		{5, "EUR", "€0.05", "0,05\u00a0€"},
		{-1800, "GBP", "−£18", "−18\u00a0£"},
	} {
		if got := Money(en, tc.cents, tc.currency); got != tc.en {
			t.Errorf("Money(en, %d, %s) = %q, want %q", tc.cents, tc.currency, got, tc.en)
		}
		if got := Money(ru, tc.cents, tc.currency); got != tc.ru {
			t.Errorf("Money(ru, %d, %s) = %q, want %q", tc.cents, tc.currency, got, tc.ru)
		}
	}
}

func TestDecimalInTheReadersLanguage(t *testing.T) {
	c := newCatalog(t)
	en := WithLocalizer(context.Background(), c.For(EN))
	ru := WithLocalizer(context.Background(), c.For(RU))
	if got := Decimal(en, 13.0/3, 1); got != "4.3" {
		t.Errorf("en: %q", got)
	}
	if got := Decimal(ru, 13.0/3, 1); got != "4,3" {
		t.Errorf("ru: %q", got)
	}
	if got := Decimal(ru, 3, 1); got != "3,0" {
		t.Errorf("ru, whole: %q", got)
	}
}

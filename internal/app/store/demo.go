package store

import (
	"context"
	"fmt"

	"github.com/harmony/harmony/internal/platform"
)

// demoItems are the demo store: every department, one sold out (Tom
// waits for it), one with few left, one sold at concerts only, one
// hidden, and one with more pictures.
var demoItems = []struct {
	title, category, price, stock, buy, description string
	hue                                             int
	hidden                                          bool
}{
	{"Spring tour T-shirt", "clothing", "25", "40", "https://shop.demo.example/tour-tee", "Heavy cotton, printed on both sides: the tour's twelve cities on the back.\n\n- Sizes XS to 3XL\n- Washes at 30°", 260, false},
	{"«Ночной город» на виниле", "music", "32", "0", "https://shop.demo.example/night-city-lp", "Новый альбом на 180-граммовом виниле, с буклетом и текстами песен.", 210, false},
	{"Night City on CD", "music", "12.50", "3", "https://shop.demo.example/night-city-cd", "The new album in a card sleeve, signed by the band while stocks last.", 230, false},
	{"Logo hoodie", "clothing", "48", "", "https://shop.demo.example/hoodie", "Made to order, so it never sells out: allow two weeks.", 330, false},
	{"Enamel pin set", "accessories", "9", "120", "", "Three pins: the logo, the van and the moon. Sold at the merch stand at every concert.", 40, false},
	{"Tour poster, signed", "posters", "20", "15", "https://shop.demo.example/poster", "A2, printed on matte paper, signed by the whole band.", 170, false},
	{"Winter scarf", "accessories", "18", "25", "https://shop.demo.example/scarf", "Knitted, in the band's colours. Coming in time for the winter dates.", 0, true},
}

// SeedDemo fills the store (platform.DemoSeeder); Tom asks to hear when
// the sold-out vinyl is back.
func (s *Service) SeedDemo(ctx context.Context, cast platform.DemoCast) error {
	for _, d := range demoItems {
		art := platform.DemoArt{
			Top: platform.HSL(d.hue, 0.45, 0.85), Bottom: platform.HSL(d.hue+25, 0.55, 0.55), Accent: platform.HSL(d.hue+190, 0.6, 0.35),
			Discs: [][3]int{{400, 420, 230}}, Strength: 0.9,
		}
		in := Input{
			Title: d.title, Category: d.category, Price: d.price, Currency: "GBP", Stock: d.stock, BuyURL: d.buy,
			Description: d.description, Shown: !d.hidden, Image: art.PNG(800, 800),
		}
		it, err := s.Create(ctx, in)
		if err != nil {
			return fmt.Errorf("store: demo item %q: %w", d.title, err)
		}
		// The T-shirt shows its back and a detail too.
		if d.category == "clothing" && d.stock == "40" {
			for i, hue := range []int{d.hue + 40, d.hue + 80} {
				more := art
				more.Top, more.Discs = platform.HSL(hue, 0.45, 0.85), [][3]int{{250 + i*300, 380, 160}}
				_, rows, err := s.more.Add(ctx, it.RowKey, more.PNG(800, 800))
				if err == nil {
					err = s.setMore(ctx, it.RowKey, rows)
				}
				if err != nil {
					return fmt.Errorf("store: demo picture: %w", err)
				}
			}
		}
		if d.stock == "0" {
			if _, err := s.Watch(ctx, it.RowKey, cast.Person("tom").Key, true); err != nil {
				return fmt.Errorf("store: demo alert: %w", err)
			}
		}
	}
	return nil
}

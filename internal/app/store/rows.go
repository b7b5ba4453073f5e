package store

import "time"

// The module's tables and container.
const (
	ItemsTable  = "StoreItems"
	IndexTable  = "StoreIndex"
	AlertsTable = "StoreAlerts"
	// PicturesTable holds each item's more pictures (the gallery kit's
	// rows: PK the item's id).
	PicturesTable   = "StorePictures"
	ImagesContainer = "store-images"
)

// itemsPart is the one partition of StoreItems.
const itemsPart = "item"

// Partitions of StoreIndex: every item shown, a category's, and the
// hidden ones.
const (
	allPart    = "all"
	hiddenPart = "hidden"
	catPrefix  = "cat|"
)

// Card is what a listing shows of an item. The item holds it, and its
// StoreIndex rows copy it (CardRow), so a listing reads no item.
type Card struct {
	Title      string `table:"title"`
	Category   string `table:"category"`
	PriceCents int64  `table:"priceCents"`
	Currency   string `table:"currency"`
	// Stock is how many are left; Tracked says whether it is counted at
	// all (an item made to order is never sold out).
	Stock   int  `table:"stock"`
	Tracked bool `table:"tracked"`
	// Shown puts it in the store; a hidden item is the admins' alone.
	Shown bool `table:"shown"`
	// ImageKey is the picture's blob name in ImagesContainer, "" for none.
	ImageKey  string    `table:"imageKey"`
	CreatedAt time.Time `table:"createdAt"`
}

// SoldOut reports whether none is left.
func (c Card) SoldOut() bool { return c.Tracked && c.Stock <= 0 }

// ItemRow is an item (StoreItems).
type ItemRow struct {
	PartitionKey string `table:"PartitionKey"` // itemsPart
	RowKey       string `table:"RowKey"`       // the item's id (ULID)
	ETag         string `table:"ETag"`
	Card
	Description string `table:"description"` // Markdown
	// BuyURL is where it is bought (the official store), "" for nowhere
	// online.
	BuyURL string `table:"buyUrl"`
	// More are its more pictures' blob names, in their order, separated
	// by commas: the gallery's (PicturesTable), recorded here so the
	// item's page reads no more rows.
	More      string    `table:"more"`
	UpdatedAt time.Time `table:"updatedAt"`
	// Listed is the projection's record of the cards it wrote.
	Listed string `table:"listed"`
	// Deleted marks an item being deleted: gone for everyone, its row
	// stays until what it leaves (pictures, alerts) is gone too (bury).
	Deleted bool `table:"deleted"`
}

// CardRow is an item's card in StoreIndex.
type CardRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"` // reversed creation time|id
	ItemID       string `table:"itemId"`
	Card
}

// AlertRow is someone's "Tell me when it's back" (StoreAlerts, PK the
// item's id, RK their memberKey).
type AlertRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	At           time.Time `table:"at"`
}

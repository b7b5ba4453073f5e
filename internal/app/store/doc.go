// Package store is the community's shop window (document 000's
// StoreItems and store-images): merch and music that admins put up with
// a picture, a price, a category and the stock left, and that people buy
// at the official store the item links to. A sold-out item offers "Tell
// me when it's back", and its restock tells everyone who asked, through
// the inbox.
//
// An item's row (StoreItems, PK "item", RK its id) is the truth; the
// listing's cards (StoreIndex) are derived from it by a projection: one
// card in the "all" partition and one in its category's while it is
// shown, newest first, and one in "hidden" while it is not, for admins.
//
// Deleting an account (memberdata.go): a member's alerts go; the store
// keeps nothing else of them (no carts or orders: buying happens at the
// official store).
package store

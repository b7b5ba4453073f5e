package people

import (
	"time"
)

// Tables this module owns.
const (
	LikesTable   = "Likes"
	MatchesTable = "Matches"
)

// LikeRow is one like. The sent row (PK liker, RK liked) is the truth;
// the received row (PK receivedPK(liked), RK liker) is its copy for the
// liked person's "Likes you", with the same fields.
type LikeRow struct {
	PartitionKey string    `table:"PartitionKey"`
	RowKey       string    `table:"RowKey"`
	ETag         string    `table:"ETag"`
	CreatedAt    time.Time `table:"createdAt"`
	// Comment is what the liker said with it ("" for nothing).
	Comment string `table:"comment"`
	// Anonymous hides the liker from the liked person until they match
	// (the liker's AnonymousLikes setting when they liked).
	Anonymous bool `table:"anonymous"`
	// About is the question of the liked person's card the like answers,
	// or photoAbout and the id of the photo it likes ("" for the card as a
	// whole); AboutText is their answer as it was then, or the photo's
	// name, as Hinge's likes of one prompt or photo say what they liked.
	About     string `table:"about"`
	AboutText string `table:"aboutText"`
}

// receivedSuffix ends the partition of a person's received likes; a
// memberKey has no "|" of its own (storage.EscapeKey), so it cannot
// collide with anyone's sent likes.
const receivedSuffix = "|received"

// receivedPK is the partition of the likes memberKey received.
func receivedPK(memberKey string) string { return memberKey + receivedSuffix }

// MatchRow is one side of a match: PK member, RK the other. Both sides
// are written, so each member's matches are one partition (document 000
// keys a match under the smaller id only, which loses half of them).
type MatchRow struct {
	PartitionKey string    `table:"PartitionKey"` // member
	RowKey       string    `table:"RowKey"`       // the other member
	ETag         string    `table:"ETag"`
	CreatedAt    time.Time `table:"createdAt"`
	// Active is false once either unmatched: EndedAt then, by EndedBy.
	// The row stays, so neither can like the other again.
	Active  bool       `table:"active"`
	EndedAt *time.Time `table:"endedAt"`
	EndedBy string     `table:"endedBy"`
}

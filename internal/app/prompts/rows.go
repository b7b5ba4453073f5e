package prompts

import (
	"io"
	"math/bits"
	"time"

	"github.com/oklog/ulid/v2"

	"github.com/harmony/harmony/internal/storage"
)

// Table names this module owns (documents 001 and 002, TABLES.md "Prompts").
const (
	promptsTable     = "Prompts"
	votesTable       = "PromptVotes"
	tagIndexTable    = "TagIndex"
	newestIndexTable = "PublicPromptsNewestIndex"
	likedIndexTable  = "PublicPromptsMostLikedIndex"
	titleSearchTable = "TitleSearchIndex"
	tagCatalogTable  = "TagCatalog"
	// quotaTable holds each author's create cooldown (quota.Cooldown).
	quotaTable          = "PromptQuota"
	tagCatalogPartition = "tagcatalog"
)

// Visibility is who may see a prompt.
type Visibility = string

const (
	Public  Visibility = "public"
	Private Visibility = "private"
)

// PromptRow is the canonical prompt, the truth every index is rebuilt from.
type PromptRow struct {
	PartitionKey    string    `table:"PartitionKey"` // "u|{authorId}"
	RowKey          string    `table:"RowKey"`       // promptId (ULID)
	ETag            string    `table:"ETag"`
	PromptID        string    `table:"PromptId"`
	AuthorID        string    `table:"AuthorId"` // the author's memberKey
	Title           string    `table:"Title"`
	TitleNormalized string    `table:"TitleNormalized"`
	PromptText      string    `table:"PromptText"`
	Tags            string    `table:"Tags"` // "tag-a;tag-b"
	Visibility      string    `table:"Visibility"`
	CreatedAt       time.Time `table:"CreatedAt"`
	UpdatedAt       time.Time `table:"UpdatedAt"`
	IsDeleted       bool      `table:"IsDeleted"`
	Likes           int64     `table:"Likes"`
	Dislikes        int64     `table:"Dislikes"`
	// Revision counts the author's edits. The edit form carries it, so an
	// edit made on an older revision is refused (ErrStale) while votes,
	// which change only the counts, never make a form stale.
	Revision int64 `table:"Revision"`
	// IndexedState records what the index tables hold for this prompt
	// (indexes.go); reconcile compares it with the row to find the diff.
	IndexedState string `table:"IndexedState"`
	// HiddenAt is when an admin took it down (moderation.go): it is in no
	// index, and only its author and the admins open it. nil: not hidden.
	HiddenAt *time.Time `table:"HiddenAt"`
}

// promptKey is the Prompts key: PK "u|{authorId}", RK promptId.
func promptKey(authorID, promptID string) (pk, rk string) {
	return authorPartition(authorID), promptID
}

// authorPartition is an author's Prompts partition ("My prompts"). The
// authorId is a memberKey, key-safe as it is (auth.AuthMemberKey).
func authorPartition(authorID string) string { return "u|" + authorID }

// titleClaimPrefix starts the row keys of title claims. Lower-case letters
// sort after every ULID character, so "My prompts" reads promptIds below it.
const titleClaimPrefix = "title|"

// TitleClaimRow reserves a normalised title in its author's Prompts
// partition. It is written in the same transaction as the prompt, which
// makes "same author, same title" impossible even under concurrent creates.
type TitleClaimRow struct {
	PartitionKey string `table:"PartitionKey"` // "u|{authorId}"
	RowKey       string `table:"RowKey"`       // "title|{normalized title}"
	ETag         string `table:"ETag"`
	PromptID     string `table:"PromptId"`
}

// titleClaimKey is the title claim key: PK "u|{authorId}", RK "title|{normalized}".
func titleClaimKey(authorID, normalized string) (pk, rk string) {
	return authorPartition(authorID), titleClaimPrefix + storage.EscapeKey(normalized)
}

// PromptLookupRow finds a prompt's author from its id, so a shared link
// carries only the promptId. It lives in the Prompts table.
type PromptLookupRow struct {
	PartitionKey string `table:"PartitionKey"` // "id|{promptId}"
	RowKey       string `table:"RowKey"`       // "author"
	ETag         string `table:"ETag"`
	PromptID     string `table:"PromptId"`
	AuthorID     string `table:"AuthorId"`
}

// promptLookupKey is the lookup key: PK "id|{promptId}", RK "author".
func promptLookupKey(promptID string) (pk, rk string) { return "id|" + promptID, "author" }

// VoteRow is one person's vote on one prompt (a later slice writes it).
type VoteRow struct {
	PartitionKey string    `table:"PartitionKey"` // "p|{promptId}"
	RowKey       string    `table:"RowKey"`       // "u|{voterId}"
	ETag         string    `table:"ETag"`
	PromptID     string    `table:"PromptId"`
	VoterID      string    `table:"VoterId"`
	VoteValue    int64     `table:"VoteValue"` // -1, 0, 1
	UpdatedAt    time.Time `table:"UpdatedAt"`
}

// voteKey is the PromptVotes key: PK "p|{promptId}", RK "u|{voterId}"; the
// voterId is a memberKey, key-safe as it is.
func voteKey(promptID, voterID string) (pk, rk string) {
	return "p|" + promptID, "u|" + voterID
}

// Card is what a catalog list shows of a prompt. Every listing index row
// (newest, most liked, by tag) carries it, so a page reads no prompt row.
type Card struct {
	PromptID string `table:"PromptId"`
	AuthorID string `table:"AuthorId"`
	Title    string `table:"Title"`
	// Tags are all the prompt's tags, so an AND filter checks membership
	// in the other tags on the row itself, with no further read.
	Tags      string    `table:"Tags"`
	CreatedAt time.Time `table:"CreatedAt"`
	Likes     int64     `table:"Likes"`
	Dislikes  int64     `table:"Dislikes"`
}

// card is p's Card.
func (p PromptRow) card() Card {
	return Card{PromptID: p.PromptID, AuthorID: p.AuthorID, Title: p.Title, Tags: p.Tags, CreatedAt: p.CreatedAt, Likes: p.Likes, Dislikes: p.Dislikes}
}

// item is the card as a list shows it.
func (c Card) item() Item {
	return Item{PromptID: c.PromptID, AuthorID: c.AuthorID, Title: c.Title, Tags: splitTags(c.Tags), CreatedAt: c.CreatedAt, Likes: c.Likes, Dislikes: c.Dislikes, Counts: true}
}

// TagIndexRow lists a prompt under one of its tags.
type TagIndexRow struct {
	PartitionKey string `table:"PartitionKey"` // "t|{tag}"
	RowKey       string `table:"RowKey"`       // promptId
	ETag         string `table:"ETag"`
	Tag          string `table:"Tag"`
	Card
	Visibility string `table:"Visibility"`
	IsDeleted  bool   `table:"IsDeleted"`
}

// tagIndexKey is the TagIndex key: PK "t|{tag}", RK promptId.
func tagIndexKey(tag, promptID string) (pk, rk string) {
	return "t|" + storage.EscapeKey(tag), promptID
}

// NewestRow is a public prompt in the newest-first catalog.
type NewestRow struct {
	PartitionKey string `table:"PartitionKey"` // "pub|newest|{yyyyMM}"
	RowKey       string `table:"RowKey"`       // "{ReverseTicks(createdAt)}|{promptId}"
	ETag         string `table:"ETag"`
	Card
	TitleNormalized string    `table:"TitleNormalized"`
	UpdatedAt       time.Time `table:"UpdatedAt"`
}

// newestPartition is a month bucket of the newest index.
func newestPartition(month string) string { return "pub|newest|" + month }

// newestKey is the newest index key of a prompt created at createdAt.
func newestKey(createdAt time.Time, promptID string) (pk, rk string) {
	return newestPartition(storage.MonthBucket(createdAt)), storage.ReverseTicks(createdAt) + "|" + promptID
}

// catalogMetaKey holds the catalog's first month, the oldest bucket a
// newest walk visits. It sits in the newest index under a partition no
// month bucket can take, so walks never read it.
func catalogMetaKey() (pk, rk string) { return "pub|newest|meta", "first-month" }

// CatalogMetaRow is the newest index's meta row.
type CatalogMetaRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	ETag         string `table:"ETag"`
	FirstMonth   string `table:"FirstMonth"` // yyyyMM
}

// LikedRow is a public prompt in the most-liked catalog (a later slice
// maintains it).
type LikedRow struct {
	PartitionKey string `table:"PartitionKey"` // "pub|liked|{scoreBucket}"
	RowKey       string `table:"RowKey"`       // "{scoreDesc}|{createdAtTicksDesc}|{promptId}"
	ETag         string `table:"ETag"`
	Card
	Score int64 `table:"Score"`
}

// Score buckets of the most-liked index. A bucket holds a band of scores
// whose width doubles as scores grow: bucket 0 holds every score up to 0,
// bucket n ≥ 1 holds [2^(n-1), 2^n). So a catalog of any size has at most
// likedBuckets partitions, and walking from the top never crosses a long
// run of empty buckets (a linear band of 10 would leave thousands empty
// between a few very popular prompts and the rest).
const (
	likedBuckets     = 24
	likedBucketWidth = 2
	// scoreOffset shifts scores so negative ones still sort below zero.
	scoreOffset = 1 << 30
	scoreDigits = 10
)

// likedBucket is the bucket number of score.
func likedBucket(score int64) int {
	if score <= 0 {
		return 0
	}
	return min(bits.Len64(uint64(score)), likedBuckets-1)
}

// likedBucketKeys are the most-liked buckets, highest first.
var likedBucketKeys = storage.Scores{High: likedBuckets - 1, Low: 0, Width: likedBucketWidth}

// likedKey is the most-liked key: PK "pub|liked|{bucket}", RK
// "{scoreDesc}|{createdAtTicksDesc}|{promptId}", so ties go to the newest.
func likedKey(score int64, createdAt time.Time, promptID string) (pk, rk string) {
	shifted := min(max(score+scoreOffset, 0), 2*scoreOffset-1)
	return likedPartition(likedBucketKeys.Bucket(likedBucket(score))),
		storage.Pad(2*scoreOffset-1-shifted, scoreDigits) + "|" + storage.ReverseTicks(createdAt) + "|" + promptID
}

// likedMetaKey holds the highest bucket in use (LikedMetaRow). Its
// partition is no bucket's, so walks never read it as a prompt.
func likedMetaKey() (pk, rk string) { return "pub|liked|meta", "top" }

// LikedMetaRow is the most-liked index's meta row.
type LikedMetaRow struct {
	PartitionKey string `table:"PartitionKey"`
	RowKey       string `table:"RowKey"`
	ETag         string `table:"ETag"`
	Top          int64  `table:"Top"`
}

// likedPartition is a bucket of the most-liked index.
func likedPartition(bucket string) string { return "pub|liked|" + bucket }

// TitleTokenRow lists a public prompt under one title token or prefix.
type TitleTokenRow struct {
	PartitionKey string    `table:"PartitionKey"` // "q|{token}"
	RowKey       string    `table:"RowKey"`       // promptId
	ETag         string    `table:"ETag"`
	Token        string    `table:"Token"`
	PromptID     string    `table:"PromptId"`
	Title        string    `table:"Title"`
	Tags         string    `table:"Tags"`
	Visibility   string    `table:"Visibility"`
	AuthorID     string    `table:"AuthorId"`
	IsDeleted    bool      `table:"IsDeleted"`
	CreatedAt    time.Time `table:"CreatedAt"`
}

// titleTokenKey is the TitleSearchIndex key: PK "q|{token}", RK promptId.
func titleTokenKey(token, promptID string) (pk, rk string) {
	return "q|" + storage.EscapeKey(token), promptID
}

// TagRow is one tag of the catalog.
type TagRow struct {
	PartitionKey string `table:"PartitionKey"` // "tagcatalog"
	RowKey       string `table:"RowKey"`       // tag
	ETag         string `table:"ETag"`
	Tag          string `table:"Tag"`
	IsActive     bool   `table:"IsActive"`
	DisplayName  string `table:"DisplayName"`   // English
	DisplayNameR string `table:"DisplayNameRu"` // Russian
	SortOrder    int64  `table:"SortOrder"`
	// PromptCount is how many public prompts carry the tag. Reconcile keeps
	// it roughly in step and reindex makes it exact; the AND filter uses it
	// only to pick the smallest partition to drive, so a drift costs reads,
	// never results.
	PromptCount int64 `table:"PromptCount"`
}

// Name is the tag's display name in lang ("ru" or else English).
func (t TagRow) Name(lang string) string {
	if lang == "ru" && t.DisplayNameR != "" {
		return t.DisplayNameR
	}
	if t.DisplayName != "" {
		return t.DisplayName
	}
	return t.Tag
}

// tagCatalogKey is the TagCatalog key: PK "tagcatalog", RK tag.
func tagCatalogKey(tag string) (pk, rk string) { return tagCatalogPartition, tag }

// newPromptID mints a prompt id for a prompt created at t: a ULID whose
// time field counts down from the largest ULID time. Every partition keyed
// by promptId (an author's Prompts, TagIndex, TitleSearchIndex) therefore
// reads newest first, which is the order every one of their listings
// wants, with no second index and no reversed scan.
func newPromptID(t time.Time) string { return newPromptIDFrom(t, ulid.DefaultEntropy()) }

// newPromptIDFrom is newPromptID with its randomness read from entropy
// (a seeded source makes synthetic catalogs repeatable).
func newPromptIDFrom(t time.Time, entropy io.Reader) string {
	return ulid.MustNew(ulid.MaxTime()-ulid.Timestamp(t), entropy).String()
}

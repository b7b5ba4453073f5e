package inbox

import (
	"time"

	"github.com/harmony/harmony/internal/storage"
)

// Table holds every member's notifications and read state:
//
//	PK {memberKey}, RK {rt(at)}|{noticeId}   a notification, newest first
//	PK {memberKey}, RK "state"              readThrough: everything at or
//	                                        before it is read
//
// Notification keys start with a digit and "state" with a letter, so a
// range over digits lists notifications only.
const Table = "Notifications"

// QuotaTable counts each recipient's notification emails in the hour
// (MailsPerHour; the quota kit's rows, keyed by memberKey, or by the
// userKey of an address without an account).
const QuotaTable = "InboxQuota"

const (
	stateRowKey = "state"
	// noticeKeysEnd bounds a range of notification keys from above (':'
	// follows '9').
	noticeKeysEnd = ":"
)

// NoticeRow is one notification in a member's inbox. Its text is the
// message Kind+".title" filled with Args, rendered in the reader's
// language when shown, so a change of language changes the inbox too.
type NoticeRow struct {
	MemberKey string     `table:"PartitionKey"`
	RowKey    string     `table:"RowKey"`
	ETag      string     `table:"ETag"`
	Kind      string     `table:"kind"`
	Args      string     `table:"args"` // JSON object of message arguments
	When      *time.Time `table:"when"` // a time the text mentions; nil for none
	Link      string     `table:"link"` // site-relative
	At        time.Time  `table:"at"`
	Read      bool       `table:"read"`
	Ref       string     `table:"ref"` // what "preview" quotes (Notice.Ref)
	// QuoteUntil is Notice.QuoteUntil (nil: the quote stays).
	QuoteUntil *time.Time `table:"quoteUntil"`
	// Names is Notice.Names as JSON; "" in a notice that has none (and
	// in those of before): its names are renamed by name alone.
	Names string `table:"names"`
	// Gather is Notice.Gather; Actors the members whose notices it
	// gathered (its own From first), and Gathered their ids, newest
	// first (at most gatherKeep), comma-separated.
	Gather   string `table:"gather"`
	Actors   string `table:"actors"`
	Gathered string `table:"gathered"`
}

// noticeKey is a notification's key: newest first in the member's
// partition.
func noticeKey(memberKey string, at time.Time, id string) (pk, rk string) {
	return memberKey, storage.ReverseTicks(at) + "|" + id
}

// StateRow is a member's inbox state.
type StateRow struct {
	MemberKey   string    `table:"PartitionKey"`
	RowKey      string    `table:"RowKey"`
	ETag        string    `table:"ETag"`
	ReadThrough time.Time `table:"readThrough"`
}

func stateKey(memberKey string) (pk, rk string) { return memberKey, stateRowKey }

// validNoticeRowKey accepts what noticeKey makes and nothing else, so a
// URL cannot name the state row or another table's key shape.
func validNoticeRowKey(rk string) bool {
	if len(rk) < 21 || rk[19] != '|' {
		return false
	}
	for _, r := range rk[:19] {
		if r < '0' || r > '9' {
			return false
		}
	}
	for _, r := range rk[20:] {
		if !(r >= '0' && r <= '9' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

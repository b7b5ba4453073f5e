package groups

import (
	"fmt"

	"github.com/harmony/harmony/internal/storage"
)

// A roster row's GroupMembers key is a userKey, the unsalted SHA-256 of an
// email, or a guest's memberKey. Pages and URLs never show it: anyone in
// the group could hash guessed addresses and confirm who is a member.
// They carry memberRef instead, the key sealed under the server's cursor
// secret for this group (storage.Cursors.Seal), which only the server can
// open and which does not open for another group.

func memberRefPurpose(groupID string) string { return "groups/member|" + groupID }

// memberRef is the opaque reference to a GroupMembers row key in pages and
// URLs.
func (s *Service) memberRef(groupID, rowKey string) string {
	return s.cursors.Seal(memberRefPurpose(groupID), rowKey)
}

// memberKeyOfRef opens a memberRef; a forged, foreign or mangled one is
// ErrNoMember.
func (s *Service) memberKeyOfRef(groupID, ref string) (string, error) {
	key, err := s.cursors.Open(memberRefPurpose(groupID), ref)
	if err != nil {
		return "", fmt.Errorf("%w: %w", ErrNoMember, err)
	}
	if key == "" {
		return "", fmt.Errorf("%w: %w", ErrNoMember, storage.ErrBadCursor)
	}
	return key, nil
}

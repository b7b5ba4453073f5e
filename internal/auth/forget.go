package auth

import (
	"context"
	"errors"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// ForgetMember erases what auth keeps of m, whose account is being
// deleted: every session row, the sign-in and address codes of their
// userKey, and the AccountsByEmail links to the account (their email's,
// and an OIDC subject's that reached it by that email), so the address
// and the subject reach a new, empty account afterwards. Each step is
// content to find its rows gone: a rerun finishes a run cut short.
//
// The account module calls it after every module's ForgetMember and
// before it deletes the profile; platform.Build does not hand auth to it
// as one of the modules' Forgetters.
func (s *Service) ForgetMember(ctx context.Context, m memberdata.Member) error {
	if m.Key == "" {
		return errors.New("auth: forget a member without a key")
	}
	if err := storage.DeletePartition(ctx, s.sessions, m.Key); err != nil {
		return err
	}
	for _, uk := range []string{m.UserKey, MemberUserKey(m.Key)} {
		if uk == "" {
			continue
		}
		if err := storage.DeletePartition(ctx, s.codes, uk); err != nil {
			return err
		}
	}
	// A subject's link names the account only in a property; links are
	// few (one for each subject that reached an email account), so one
	// filtered scan finds them: a deletion is rare.
	var subjects []string
	err := s.accounts.QueryAll(ctx, storage.Query{Scan: true, Filters: []storage.Filter{
		{Name: "MemberKey", Op: storage.Eq, Value: m.Key},
	}}, func(e storage.Entity) error {
		if e.RowKey == subjectRowKey {
			subjects = append(subjects, e.PartitionKey)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, pk := range subjects {
		if err := storage.Forget(ctx, s.accounts, pk, subjectRowKey); err != nil {
			return err
		}
	}
	if m.Email == "" {
		return nil
	}
	// The email's link goes last of auth's rows: while it stands, a
	// sign-in with the address still reaches the closed account and is
	// refused, rather than making a new one beside the old.
	pk, rk := accountKey(UserKey(m.Email))
	row, err := storage.Get[accountRow](ctx, s.accounts, pk, rk)
	if errors.Is(err, storage.ErrNotFound) || err == nil && row.MemberKey != m.Key {
		return nil
	}
	if err != nil {
		return err
	}
	return storage.Forget(ctx, s.accounts, pk, rk)
}

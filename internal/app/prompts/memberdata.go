package prompts

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/harmony/harmony/internal/memberdata"
	"github.com/harmony/harmony/internal/storage"
)

// Deleting an account. A member's public prompts stay in the catalog,
// written by memberdata.Forgotten: each moves from their Prompts
// partition to "u|forgotten" (with a title claim there, its id lookup
// and every index row's AuthorId rewritten, and the others' saves of it
// pointed there). Their private and deleted prompts go, as a delete
// does, then wholly: the row, its title claim, its id lookup and the
// votes on it. Their votes are taken back as an unvote does (the counts
// and the most-liked index follow), their saves go, and so does their
// create cooldown. Every step rereads what is left, so a run cut short
// is finished by the next. A vote on a prompt while it moves counts on
// the moved prompt: one that counted on the old row is handed over as
// that row goes (retire), and one that finds the old row gone counts
// where the id lookup says the prompt is now (addCounts).

// exportedPrompt is a prompt as its author's archive holds it.
type exportedPrompt struct {
	ID         string    `json:"id"`
	Title      string    `json:"title"`
	Text       string    `json:"text"`
	Tags       []string  `json:"tags"`
	Visibility string    `json:"visibility"`
	Created    time.Time `json:"created"`
	Updated    time.Time `json:"updated"`
	Hidden     bool      `json:"taken_down_by_moderators,omitempty"`
}

// exportedVote is a vote as the voter's archive holds it.
type exportedVote struct {
	Prompt string `json:"prompt_id"`
	Vote   string `json:"vote"`
}

// exportedSave is a save as the saver's archive holds it.
type exportedSave struct {
	Prompt string    `json:"prompt_id"`
	Saved  time.Time `json:"saved"`
}

// votesBy is the query of voterID's votes, on every prompt: a scan.
func votesBy(voterID string) storage.Query {
	return storage.Query{Scan: true, Filters: []storage.Filter{{Name: "VoterId", Op: storage.Eq, Value: voterID}}}
}

// ownPrompts are authorID's prompt rows, deleted ones too (not the title
// claims their partition also holds).
func (s *Service) ownPrompts(ctx context.Context, authorID string) ([]PromptRow, error) {
	rows, err := storage.All[PromptRow](ctx, s.prompts, storage.Query{PartitionKey: authorPartition(authorID), RowKeyTo: titleClaimPrefix})
	return rows, err
}

// ExportMember writes m's prompts (not the deleted), votes and saves
// into prompts/.
func (s *Service) ExportMember(ctx context.Context, m memberdata.Member, to memberdata.Archive) error {
	own, err := s.ownPrompts(ctx, m.Key)
	if err != nil {
		return err
	}
	prompts := []exportedPrompt{}
	for _, p := range own {
		if !p.IsDeleted {
			prompts = append(prompts, exportedPrompt{ID: p.PromptID, Title: p.Title, Text: p.PromptText, Tags: splitTags(p.Tags), Visibility: p.Visibility, Created: p.CreatedAt, Updated: p.UpdatedAt, Hidden: p.HiddenAt != nil})
		}
	}
	if err := to.JSON("prompts/prompts.json", prompts); err != nil {
		return err
	}
	votes, err := storage.All[VoteRow](ctx, s.votes, votesBy(m.Key))
	if err != nil {
		return err
	}
	out := []exportedVote{}
	for _, v := range votes {
		switch v.VoteValue {
		case Like:
			out = append(out, exportedVote{Prompt: v.PromptID, Vote: "like"})
		case Dislike:
			out = append(out, exportedVote{Prompt: v.PromptID, Vote: "dislike"})
		}
	}
	if err := to.JSON("prompts/votes.json", out); err != nil {
		return err
	}
	saves, err := storage.All[SaveRow](ctx, s.saves, storage.Query{PartitionKey: m.Key, RowKeyPrefix: savedKeyPrefix})
	if err != nil {
		return err
	}
	saved := []exportedSave{}
	for _, r := range saves {
		saved = append(saved, exportedSave{Prompt: r.PromptID, Saved: r.SavedAt})
	}
	return to.JSON("prompts/saved.json", saved)
}

// ForgetMember forgets m in the prompts (see the top of this file).
func (s *Service) ForgetMember(ctx context.Context, m memberdata.Member) error {
	if m.Key == "" || memberdata.IsForgotten(m.Key) {
		return nil
	}
	if err := s.forgetVotes(ctx, m.Key); err != nil {
		return err
	}
	own, err := s.ownPrompts(ctx, m.Key)
	if err != nil {
		return err
	}
	for _, p := range own {
		if p.Visibility == Public && !p.IsDeleted {
			err = s.passToForgotten(ctx, p)
		} else {
			err = s.erase(ctx, p)
		}
		if err != nil {
			return err
		}
	}
	// Title claims left by a run cut short after its prompts went.
	if err := storage.DeletePartition(ctx, s.prompts, authorPartition(m.Key)); err != nil {
		return err
	}
	if err := s.forgetSaves(ctx, m.Key); err != nil {
		return err
	}
	return storage.Forget(ctx, s.creates.Table, m.Key, "c")
}

// forgetVotes takes back voterID's votes as an unvote does: the vote
// moves to none, the prompt's counts follow, then the row goes (a run cut
// short between the counts and the row finds the vote at none).
func (s *Service) forgetVotes(ctx context.Context, voterID string) error {
	return s.votes.QueryAll(ctx, votesBy(voterID), func(e storage.Entity) error {
		var v VoteRow
		if err := storage.Unmarshal(e, &v); err != nil {
			return err
		}
		if v.VoteValue != NoVote {
			old, err := s.setVote(ctx, voterID, v.PromptID, NoVote)
			if err != nil {
				return err
			}
			authorID, err := s.authorOf(ctx, v.PromptID)
			switch {
			case errors.Is(err, ErrNoPrompt):
			case err != nil:
				return err
			case old != NoVote:
				if _, err := s.addVote(ctx, authorID, v.PromptID, old, NoVote); err != nil && !errors.Is(err, storage.ErrNotFound) {
					return err
				}
				if err := s.reconcile(ctx, authorID, v.PromptID); err != nil {
					return err
				}
			}
		}
		return storage.Forget(ctx, s.votes, e.PartitionKey, e.RowKey)
	})
}

// passToForgotten moves public prompt p to memberdata.Forgotten: the row
// in its new partition (as indexed), its index rows with the new author,
// its title claim and id lookup, then the old row and claim. Until the
// last step the old row is there for the next run to start from.
func (s *Service) passToForgotten(ctx context.Context, p PromptRow) error {
	moved := p
	moved.ETag, moved.AuthorID = "", memberdata.Forgotten
	moved.PartitionKey, moved.RowKey = promptKey(memberdata.Forgotten, p.PromptID)
	if _, err := storage.Upsert(ctx, s.prompts, moved); err != nil {
		return err
	}
	for _, r := range s.indexRows(&moved) {
		if _, err := r.Table.Upsert(ctx, r.Entity, storage.Replace); err != nil {
			return err
		}
	}
	if _, err := storage.Insert(ctx, s.prompts, titleClaim(memberdata.Forgotten, moved.TitleNormalized, p.PromptID)); err != nil && !errors.Is(err, storage.ErrExists) {
		return err // taken: another forgotten author's prompt of that title keeps it
	}
	lpk, lrk := promptLookupKey(p.PromptID)
	if _, err := storage.Upsert(ctx, s.prompts, PromptLookupRow{PartitionKey: lpk, RowKey: lrk, PromptID: p.PromptID, AuthorID: memberdata.Forgotten}); err != nil {
		return err
	}
	if err := s.moveSavesOf(ctx, p.AuthorID, p.PromptID); err != nil {
		return err
	}
	cpk, crk := titleClaimKey(p.AuthorID, p.TitleNormalized)
	if err := storage.Forget(ctx, s.prompts, cpk, crk); err != nil {
		return err
	}
	return s.retire(ctx, p)
}

// retire deletes the old row of prompt p, moved to the Forgotten author
// from p as it was read, handing the moved row the votes the old row
// counted since (a vote that read the prompt before its lookup moved
// counts on the old row): each such difference goes on to the moved
// row, then the old row goes at the ETag it was read at, so a vote
// landing in between is handed over by the next turn. A vote after it
// finds the prompt where it moved (addCounts).
func (s *Service) retire(ctx context.Context, p PromptRow) error {
	base := p
	for range storage.DefaultAttempts {
		cur, err := s.load(ctx, p.AuthorID, p.PromptID)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if likes, dislikes := cur.Likes-base.Likes, cur.Dislikes-base.Dislikes; likes != 0 || dislikes != 0 {
			if _, err := s.addCounts(ctx, memberdata.Forgotten, p.PromptID, likes, dislikes); err != nil {
				return err
			}
			if err := s.reconcile(ctx, memberdata.Forgotten, p.PromptID); err != nil {
				return err
			}
			base = cur
		}
		err = s.prompts.Delete(ctx, cur.PartitionKey, cur.RowKey, cur.ETag)
		if errors.Is(err, storage.ErrNotFound) {
			return nil
		}
		if !errors.Is(err, storage.ErrPrecondition) {
			return err
		}
	}
	return fmt.Errorf("prompts: retiring %s: %w", p.PromptID, storage.ErrConflict)
}

// erase deletes prompt p as the module's Delete does (out of every
// index, its title freed), then wholly: the votes on it, its id lookup,
// and last its row.
func (s *Service) erase(ctx context.Context, p PromptRow) error {
	if !p.IsDeleted {
		if err := s.Delete(ctx, p.AuthorID, p.PromptID); err != nil && !errors.Is(err, ErrNoPrompt) {
			return err
		}
	} else if err := s.reconcile(ctx, p.AuthorID, p.PromptID); err != nil {
		return err
	}
	if err := storage.DeletePartition(ctx, s.votes, "p|"+p.PromptID); err != nil {
		return err
	}
	if err := s.moveSavesOf(ctx, p.AuthorID, p.PromptID); err != nil {
		return err
	}
	lpk, lrk := promptLookupKey(p.PromptID)
	if err := storage.Forget(ctx, s.prompts, lpk, lrk); err != nil {
		return err
	}
	return storage.Forget(ctx, s.prompts, p.PartitionKey, p.RowKey)
}

// moveSavesOf points the others' saves of authorID's prompt promptID at
// Forgotten (a prompt gone then reads as "no longer available").
func (s *Service) moveSavesOf(ctx context.Context, authorID, promptID string) error {
	q := storage.Query{Scan: true, Filters: []storage.Filter{{Name: "promptId", Op: storage.Eq, Value: promptID}, {Name: "authorId", Op: storage.Eq, Value: authorID}}}
	return s.saves.QueryAll(ctx, q, func(e storage.Entity) error {
		if e.PartitionKey == authorID {
			return nil // their own, which go
		}
		_, err := s.saves.Update(ctx, storage.Entity{PartitionKey: e.PartitionKey, RowKey: e.RowKey, Props: map[string]any{"authorId": memberdata.Forgotten}}, storage.Merge, e.ETag)
		if errors.Is(err, storage.ErrNotFound) || errors.Is(err, storage.ErrPrecondition) {
			return nil // taken back meanwhile
		}
		return err
	})
}

// forgetSaves deletes me's saves, and points at Forgotten any other's
// save of theirs a run cut short left behind.
func (s *Service) forgetSaves(ctx context.Context, me string) error {
	if err := storage.DeletePartition(ctx, s.saves, me); err != nil {
		return err
	}
	q := storage.Query{Scan: true, Filters: []storage.Filter{{Name: "authorId", Op: storage.Eq, Value: me}}}
	return s.saves.QueryAll(ctx, q, func(e storage.Entity) error {
		id, _ := e.Props["promptId"].(string)
		return s.moveSavesOf(ctx, me, id)
	})
}

// AuthorName is the display name of a prompt's author: "Deleted member"
// for memberdata.Forgotten, "" when unknown.
func (s *Service) AuthorName(ctx context.Context, authorID string) string {
	if memberdata.IsForgotten(authorID) || s.profiles == nil {
		return memberdata.Name(ctx, authorID, "")
	}
	p, err := s.profiles.Profile(ctx, authorID)
	if err != nil {
		s.log.DebugContext(ctx, "prompts: author profile", "err", err)
		return ""
	}
	return p.DisplayName
}

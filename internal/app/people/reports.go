package people

import (
	"context"
	"strings"

	"github.com/labstack/echo/v4"

	"github.com/harmony/harmony/internal/auth"
	"github.com/harmony/harmony/internal/i18n"
	"github.com/harmony/harmony/internal/moderation"
)

// Reports: a member reports someone's People card (a fake, a harassing
// or an inappropriate one) to the admins' moderation queue, as Hinge's
// "Report". The report quotes the card as it was (name, age, place,
// about); the link opens their page. Taking it down takes them out of
// People for good: nobody finds them in Discover or can like them, and
// they cannot show themselves again until an admin allows it (the users
// page's "Allow in People"); their matches stand (the admins can disable
// the account for worse).

// profileKind is a People card's kind in reports; its key the memberKey.
const profileKind = "people.profile"

// ReportKinds are what People takes down (moderation.Source).
func (s *Service) ReportKinds() []string { return []string{profileKind} }

// TakeDown takes the reported person out of People, barred from
// showing themselves again.
func (s *Service) TakeDown(ctx context.Context, t moderation.Target, _ moderation.Moderator, _ string) error {
	if !auth.IsAuthMemberKey(t.Key) {
		return ErrSelf
	}
	_, err := s.accounts.BarFromPeople(ctx, t.Key, true)
	return err
}

// reportURL is where someone's card is reported.
func reportURL(memberKey string) string { return auth.ProfileURL(memberKey) + "/report" }

// profileReport is the report of the request's person, and its page:
// someone else shown in People.
func (s *Service) profileReport(c echo.Context) (moderation.Report, moderation.Form, error) {
	ctx := c.Request().Context()
	id, member := auth.From(c), c.Param("member")
	if s.Reports == nil || member == id.MemberKey || !auth.IsAuthMemberKey(member) {
		return moderation.Report{}, moderation.Form{}, ErrSelf
	}
	row, err := s.accounts.InPeople(ctx, member)
	if err != nil {
		return moderation.Report{}, moderation.Form{}, err
	}
	p := Standing{}.person(row, s.now().UTC())
	r := moderation.Report{
		Target: moderation.Target{Kind: profileKind, Key: member}, Link: auth.ProfileURL(member),
		Excerpt: cardText(ctx, p), Author: member, AuthorName: row.DisplayName, By: id.MemberKey, ByName: id.DisplayName,
	}
	return r, moderation.Form{Heading: "people.report.heading", BackLabel: row.DisplayName, Action: reportURL(member)}, nil
}

// cardText is a person's card as words: name, age, place, about, and
// the questions it answers.
func cardText(ctx context.Context, p Person) string {
	parts := []string{p.DisplayName}
	if p.Age > 0 {
		parts = append(parts, i18n.N(ctx, "people.age", p.Age))
	}
	if p.Location != "" {
		parts = append(parts, p.Location)
	}
	text := strings.Join(parts, " · ")
	if p.Bio != "" {
		text += "\n" + p.Bio
	}
	for _, a := range cardAnswers(ctx, p.Answers) {
		text += "\n" + a.Question + " " + a.Text
	}
	return text
}

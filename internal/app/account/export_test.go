package account

import "context"

import "github.com/harmony/harmony/internal/media/mediatest"

// Fixtures the HTTP tests (package account_test) use; they live in
// mediatest with the pipeline's own tests.
var (
	JPEGWithEXIF = mediatest.JPEGWithEXIF
	PNGHeader    = mediatest.PNGHeader
	GPSSecret    = mediatest.GPSSecret
	EncodedPNG   = mediatest.EncodedPNG
	NoisyPNG     = mediatest.NoisyPNG
	DeepPNG      = mediatest.DeepPNG
)

// RefreshDisplayForTest exposes refreshDisplay to the package's tests.
func (s *Service) RefreshDisplayForTest(ctx context.Context, memberKey string, p ProfileRow) {
	s.refreshDisplay(ctx, memberKey, p)
}

// The People partition and its keys, for the tests that break it.
const (
	PeoplePartition       = peoplePartition
	LegacyPeoplePartition = legacyPeoplePartition
)

// PeopleRowKey exposes peopleRowKey to the package's tests.
func PeopleRowKey(memberKey string) string { return peopleRowKey(memberKey) }

package inbox

import (
	"context"
	"time"
)

// WriteAgain writes memberKey's inbox row of notice n as the delivery of
// the notice posted as id at at does, and as its retry does again.
func (s *Service) WriteAgain(ctx context.Context, memberKey string, n Notice, id string, at time.Time) error {
	return s.writeRow(ctx, memberKey, posted{Notice: n, ID: id, At: at})
}

package people

// CapSkips lowers how many people one person may skip, so a test reaches
// the bound without a thousand people.
func (s *Service) CapSkips(n int) { s.skipCap = n }

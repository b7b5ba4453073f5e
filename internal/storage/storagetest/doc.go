// Package storagetest is the conformance suite every storage backend must
// pass, and the shared backend benchmarks. Backends call Run from their own
// tests:
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, func(t *testing.T) storage.Backend { return openTestBackend(t) }, storagetest.Options{})
//	}
package storagetest

// Package storagetest is the conformance suite every storage backend must
// pass, and the shared backend benchmarks. Backends call Run from their own
// tests:
//
//	func TestConformance(t *testing.T) {
//		storagetest.Run(t, func(t *testing.T) storage.Backend { return openTestBackend(t) }, storagetest.Options{})
//	}
//
// and Bench from a benchmark. Every conformance point is a named subtest
// (RoundTrip/Int64, Transactions/RollbackOnFailure, ...), and expected query
// results come from an oracle over the data each test stores, using
// storage.CompareKeys for UTF-16 order. The short-page tests run only with
// Options.ShortPages (the embedded backend's test mode); elsewhere they skip
// and say why.
package storagetest

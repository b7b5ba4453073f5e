package storagetest

import (
	"os"
	"testing"
)

// AzuriteConnectionString returns the Azurite connection string in
// HARMONY_AZURITE for tests that need a live service. When it is unset the
// test is skipped, or fails if HARMONY_REQUIRE_AZURITE=1 (so the test
// script cannot silently skip the Azure backend).
func AzuriteConnectionString(t testing.TB) string {
	t.Helper()
	s := os.Getenv("HARMONY_AZURITE")
	if s == "" {
		if os.Getenv("HARMONY_REQUIRE_AZURITE") == "1" {
			t.Fatal("HARMONY_AZURITE not set but HARMONY_REQUIRE_AZURITE=1")
		}
		t.Skip("HARMONY_AZURITE not set: scripts/test sets it")
	}
	return s
}

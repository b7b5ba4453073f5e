package azure_test

import (
	"testing"

	"github.com/harmony/harmony/internal/storage/storagetest"
)

func BenchmarkAzure(b *testing.B) {
	storagetest.Bench(b, openShared)
}

package clientconn

import (
	"fmt"
	"testing"
)

func TestSizeLine(t *testing.T) {
	for _, n := range []int{0, 1, 15, 16, 255, 4096, 20626, 1<<31 - 1} {
		room := make([]byte, ChunkRoom)
		got := string(room[SizeLine(room, n):])
		if want := fmt.Sprintf("%x\r\n", n); got != want {
			t.Errorf("SizeLine(%d) = %q, want %q", n, got, want)
		}
	}
}

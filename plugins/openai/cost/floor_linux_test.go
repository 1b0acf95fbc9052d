package cost

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestContentLength: the floor client ends a reply at its Content-Length,
// and reads a head without one (or with a bad one) as chunked.
func TestContentLength(t *testing.T) {
	t.Parallel()
	for head, want := range map[string]int{
		"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 1234": 1234,
		"HTTP/1.1 200 OK\r\nContent-Length: 7\r\nX: y":                              7,
		"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked":                             -1,
		"HTTP/1.1 200 OK\r\nContent-Length: x":                                      -1,
	} {
		assert.Equal(t, want, contentLength([]byte(head)), head)
	}
}

package backend

import "testing"

// BenchmarkFrame is the client's cost of one SSE frame: scanning it and
// reading its content out of the JSON.
func BenchmarkFrame(b *testing.B) {
	frame := []byte("data: {\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":0,\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\" w31\",\"logprobs\":null,\"finish_reason\":null}]}\n\n")
	r := &reply{api: APICompletions, ids: IDsAuto}
	h := &wireHead
	b.ReportAllocs()
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		r.text = r.text[:0]
		r.hasFirst = true
		if err := r.feed(h, frame); err != nil {
			b.Fatal(err)
		}
	}
}

var wireHead = wireHeadSSE()

// BenchmarkInt32Bytes is a completion's ids made bytes, as Infer
// reports them: one allocation however many ids.
func BenchmarkInt32Bytes(b *testing.B) {
	ids := make([]int32, 256)
	for i := range ids {
		ids[i] = int32(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		if len(int32Bytes(nil, ids)) != 4*len(ids) {
			b.Fatal("short")
		}
	}
}

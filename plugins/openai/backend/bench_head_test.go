package backend

import "github.com/mlperf-host/mlperf-host/plugins/openai/wire"

func wireHeadSSE() wire.Head {
	return wire.Head{Status: 200, EventStream: true, Chunked: true, ContentLength: -1}
}

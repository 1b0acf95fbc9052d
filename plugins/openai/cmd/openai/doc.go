// Command openai serves the openai backend (package backend) to
// mlperf-host as a subprocess plugin: a client of OpenAI-compatible
// serving engines (vLLM, SGLang, TensorRT-LLM serve, Triton's OpenAI
// frontend, Dynamo, Ollama) over HTTP.
//
//	make build     # bin/plugins/openai/{openai,plugin.json}
//	mlperf-host run --plugin openai --plugin-dirs bin/plugins --benchmark llama3.1-8b \
//	    --dataset cnn_eval.json --set openai.endpoints=http://node1:8000,http://node2:8000 \
//	    --set openai.tokenizer=tokenizer.json
//
// docs/openai.md lists the options. The API key is read from the
// environment variable the option api_key_env names, never from an
// option.
//
// Package main imports only sdk and the plugin's own packages; it must
// not import host, loadgen, cmd or another plugin.
package main

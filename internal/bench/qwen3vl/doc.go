// Package qwen3vl is the Qwen3-VL benchmark (qwen3-vl-235b-a22b: product
// cataloguing by a vision-language model): the data set as the reference
// loads it ([Reader]: the Hugging Face data set Shopify/product-catalogue,
// or its 8000-sample Interactive subset nvidia/Shopify-product-catalogue-8k,
// in its on-disk form of Parquet files with embedded images, the train
// split then the test split), each sample the chat messages the
// reference's SUT sends an OpenAI-compatible server ([MessagesTensor]:
// a system prompt, then the product's title, description and candidate
// categories with its image as a data URL), the response the evaluation
// reads ([Response]: the reply's text, a JSON object of category, brand
// and is_secondhand), and its scorer ([Scorer]: evaluation.py's category
// hierarchical F1, brand and is_secondhand F1 and the random-selection
// baselines). [WriteCatalogue] writes fixtures in the reference form.
//
// Package qwen3vl imports only the standard library and the shared parts
// (dataset, accuracy, benchmarks, internal/benchlib); it must never
// import another benchmark's package, the registry (internal/bench),
// host, loadgen, sdk, plugins or cmd.
package qwen3vl

// Package parquet reads the Apache Parquet files that Hugging Face data
// sets are stored in on the Hub (data/train-00000-of-00009.parquet):
// their schema, and each leaf column as definition levels, repetition
// levels and values, which [Column.Scalars] and [Column.Lists] assemble
// into rows of a flat column or of a one-level list. It reads data pages
// of both versions, the PLAIN and dictionary encodings (RLE_DICTIONARY,
// PLAIN_DICTIONARY), the RLE/bit-packed hybrid of levels and booleans,
// and the UNCOMPRESSED, SNAPPY and GZIP codecs; other encodings and
// codecs (ZSTD, LZ4, BROTLI) are refused by name. [Write] writes the
// subset the fixtures need (strings, byte strings, booleans, int64s,
// lists of strings or int64s, and groups; uncompressed or snappy;
// optionally dictionary-encoded).
//
// Package parquet imports only the standard library; it must never
// import a benchmark's room (internal/bench/...), host, loadgen, sdk,
// plugins or cmd.
package parquet

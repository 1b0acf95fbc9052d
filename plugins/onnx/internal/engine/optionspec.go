package engine

// OptionSpec describes one engine-specific option (a key of
// [Options.Extra]), so that a plugin can declare it in its option schema.
type OptionSpec struct {
	// Name is the key.
	Name string
	// Type is how the value reads, in the ABI's words: "string", "int",
	// "uint", "bool" or "enum" (one of Allowed).
	Type string
	// Default is the value the engine assumes when the key is absent; ""
	// when that depends on the build (the plugin then sends no key).
	Default string
	// Allowed are an enum's values.
	Allowed []string
	// Doc is one line saying what the option does.
	Doc string
}

// Describer is an [Engine] that lists its engine-specific options.
type Describer interface {
	OptionSpecs() []OptionSpec
}

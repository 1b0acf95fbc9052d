package tokenizer

import (
	"encoding/json"
	"fmt"
)

// parseConfig reads the parts of tokenizer_config.json that [Config] has.
func parseConfig(data []byte) (Config, error) {
	var v struct {
		BOS            json.RawMessage `json:"bos_token"`
		EOS            json.RawMessage `json:"eos_token"`
		Pad            json.RawMessage `json:"pad_token"`
		Unk            json.RawMessage `json:"unk_token"`
		AddBOS         *bool           `json:"add_bos_token"`
		AddEOS         *bool           `json:"add_eos_token"`
		CleanUp        *bool           `json:"clean_up_tokenization_spaces"`
		TokenizerClass *string         `json:"tokenizer_class"`
	}
	if err := unmarshal("tokenizer_config.json", data, &v); err != nil {
		return Config{}, err
	}
	c := Config{AddBOSToken: v.AddBOS, AddEOSToken: v.AddEOS}
	if v.CleanUp != nil {
		c.CleanUpTokenizationSpaces = *v.CleanUp
	}
	if v.TokenizerClass != nil {
		c.TokenizerClass = *v.TokenizerClass
	}
	var err error
	for _, f := range []struct {
		name string
		raw  json.RawMessage
		dst  *string
	}{{"bos_token", v.BOS, &c.BOSToken}, {"eos_token", v.EOS, &c.EOSToken}, {"pad_token", v.Pad, &c.PadToken}, {"unk_token", v.Unk, &c.UnkToken}} {
		if *f.dst, err = configTokenText(f.name, f.raw); err != nil {
			return Config{}, err
		}
	}
	return c, nil
}

// configTokenText reads a special token given as a string, as an
// AddedToken object ({"content": ...}) or as null.
func configTokenText(field string, raw json.RawMessage) (string, error) {
	if isNull(raw) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var o struct {
		Content *string `json:"content"`
	}
	if err := json.Unmarshal(raw, &o); err != nil || o.Content == nil {
		return "", fmt.Errorf("%s: want a string or an object with content", field)
	}
	return *o.Content, nil
}

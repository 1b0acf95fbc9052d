package config

import (
	"fmt"
	"strconv"

	"github.com/knadh/koanf/v2"
)

// KeyHostPoolDepth is the most samples a pool member has in flight.
const KeyHostPoolDepth = "host.pool_depth"

func poolKeySpecs() []keySpec {
	return []keySpec{
		{key: KeyPool, help: "plugin instances run as one SUT: PLUGIN{KEY=VALUE,...}, comma-separated (docs/pool.md)",
			checker: checker{"members such as simdevice,simdevice{slots=4}", poolValue}},
		{key: KeyHostPoolDepth, def: "0", help: "most samples a pool member has in flight (0: twice what it runs at once, at least 64)",
			checker: intRange(0, 1<<20)},
	}
}

// buildPool sets the pool's fields from the checked keys.
func (c *Config) buildPool(get func(string) string) {
	c.Pool, _ = ParsePool(get(KeyPool))
	c.Host.PoolDepth, _ = strconv.Atoi(get(KeyHostPoolDepth))
}

// poolTables turns a file's pool list into the written form the other
// layers use.
func poolTables(k *koanf.Koanf) error {
	v := k.Get(KeyPool)
	if v == nil {
		return nil
	}
	if _, ok := v.([]any); !ok {
		return nil
	}
	s, err := poolFromFile(v)
	if err != nil {
		return fmt.Errorf("pool: %w", err)
	}
	k.Delete(KeyPool)
	return k.Set(KeyPool, s)
}

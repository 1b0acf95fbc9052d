package config

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// KeyPool lists the plugin instances a run uses as one SUT (a pool): on
// the command line and in the environment a comma-separated list of
// members, in a file also a list of tables (see [PoolMember]).
const KeyPool = "pool"

// PoolMember is one member of a pool: a plugin started for it alone (one
// process per card or per MIG instance, or another plugin), or a plugin
// an `mlperf-host serve` serves on another machine.
//
// Written as `PLUGIN` or `@HOST:PORT`, optionally followed by settings in
// braces: `simdevice{batch_per_sample=600us},simdevice{name=fast}`,
// `tensorrt{env.CUDA_VISIBLE_DEVICES=MIG-1a2b},@10.0.0.2:7000{name=node2}`.
// In the braces, `name=` names the member, `model=` gives it its own
// model file, `env.VAR=` sets a variable of its process's environment
// (its device or partition), `mig=all` (or `mig=PROFILE`) makes it one
// member per MIG instance its plugin lists (of that profile), and any
// other `KEY=` is a plugin option
// over the plugin's options.* keys. A value holding a comma, a brace or
// a quote is written as a Go string, "0,1". In a TOML or YAML file the
// pool may also be a list of tables with the keys plugin, remote, name,
// model, env and options. A remote member is reached over mutual TLS with
// the remote.* keys' files.
type PoolMember struct {
	// Name names the member in logs and errors; by default PLUGIN#N (N
	// its position from 0) or the remote address.
	Name string
	// Plugin is the plugin's name or path; empty for a remote member.
	Plugin string
	// Remote is the HOST:PORT of a remote member's `mlperf-host serve`.
	Remote string
	// Model replaces the run's model file for this member.
	Model string
	// Env is added to the member's process environment.
	Env map[string]string
	// MIG, "all" or a MIG profile ("1g.10gb"), stands for one member per
	// MIG instance the plugin lists (of that profile), each with
	// CUDA_VISIBLE_DEVICES set to its instance; empty for a plain member.
	MIG string
	// Options override the plugin's options for this member.
	Options map[string]string
}

// ParsePool reads a pool's members from their written form.
//
// # Errors
//
// A member without a plugin, an unknown or malformed setting,
// an unterminated quote or brace, two members of one name.
func ParsePool(s string) ([]PoolMember, error) {
	var out []PoolMember
	rest := strings.TrimSpace(s)
	for rest != "" {
		var m PoolMember
		var err error
		m, rest, err = parseMember(rest)
		if err != nil {
			return nil, fmt.Errorf("pool member %d: %w", len(out), err)
		}
		if m.Name == "" {
			m.Name = m.Remote
			if m.Plugin != "" {
				m.Name = fmt.Sprintf("%s#%d", m.Plugin, len(out))
			}
		}
		out = append(out, m)
		rest = strings.TrimSpace(rest)
		if rest == "" {
			break
		}
		if rest[0] != ',' {
			return nil, fmt.Errorf("pool member %d: want a comma before %q", len(out), rest)
		}
		rest = strings.TrimSpace(rest[1:])
		if rest == "" {
			return nil, fmt.Errorf("pool member %d: nothing after the last comma", len(out))
		}
	}
	seen := map[string]bool{}
	for i, m := range out {
		if err := m.checkMIG(); err != nil {
			return nil, fmt.Errorf("pool member %d: %w", i, err)
		}
		if seen[m.Name] {
			return nil, fmt.Errorf("two pool members are named %q: name them with {name=...}", m.Name)
		}
		seen[m.Name] = true
	}
	return out, nil
}

// parseMember reads one member from the start of s and returns the rest.
func parseMember(s string) (PoolMember, string, error) {
	var m PoolMember
	end := strings.IndexAny(s, ",{")
	if end < 0 {
		end = len(s)
	}
	target := strings.TrimSpace(s[:end])
	s = s[end:]
	if addr, ok := strings.CutPrefix(target, "@"); ok {
		if err := hostPort(addr); err != nil || addr == "" {
			return m, "", fmt.Errorf("remote member %q: want @HOST:PORT", target)
		}
		m.Remote = addr
	} else {
		m.Plugin = target
	}
	if target == "" {
		return m, "", fmt.Errorf("want a plugin name or @HOST:PORT before %q", s)
	}
	if !strings.HasPrefix(s, "{") {
		return m, s, nil
	}
	s = s[1:]
	for {
		s = strings.TrimLeft(s, " ")
		if strings.HasPrefix(s, "}") {
			return m, s[1:], nil
		}
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return m, "", fmt.Errorf("want KEY=VALUE in the braces, got %q", s)
		}
		key := strings.TrimSpace(s[:eq])
		s = strings.TrimLeft(s[eq+1:], " ")
		var val string
		if strings.HasPrefix(s, `"`) {
			q, err := strconv.QuotedPrefix(s)
			if err != nil {
				return m, "", fmt.Errorf("setting %s: unterminated quoted value %s", key, s)
			}
			val, _ = strconv.Unquote(q)
			s = s[len(q):]
		} else {
			stop := strings.IndexAny(s, ",}")
			if stop < 0 {
				return m, "", fmt.Errorf("setting %s: want } to close the braces", key)
			}
			val, s = strings.TrimSpace(s[:stop]), s[stop:]
		}
		if err := m.set(key, val); err != nil {
			return m, "", err
		}
		s = strings.TrimLeft(s, " ")
		switch {
		case strings.HasPrefix(s, ","):
			s = s[1:]
		case strings.HasPrefix(s, "}"):
		default:
			return m, "", fmt.Errorf("setting %s: want , or } after its value", key)
		}
	}
}

// set applies one setting of the braces.
func (m *PoolMember) set(key, val string) error {
	switch {
	case key == "":
		return fmt.Errorf("a setting without a name")
	case key == "name":
		if val == "" || strings.ContainsAny(val, `/\`) {
			return fmt.Errorf("name=%q: want a name without / or \\", val)
		}
		m.Name = val
	case key == "model":
		m.Model = val
	case key == "mig":
		if val == "" || strings.ContainsAny(val, " \t/") {
			return fmt.Errorf("mig=%q: want all or a MIG profile such as 1g.10gb", val)
		}
		m.MIG = val
	case strings.HasPrefix(key, "env.") && m.Remote != "":
		return fmt.Errorf("%s: a remote member's process environment is its server's", key)
	case strings.HasPrefix(key, "env."):
		v := strings.TrimPrefix(key, "env.")
		if v == "" || strings.ContainsAny(v, "= ") {
			return fmt.Errorf("%s: want env.VARIABLE", key)
		}
		if m.Env == nil {
			m.Env = map[string]string{}
		}
		m.Env[v] = val
	default:
		if m.Options == nil {
			m.Options = map[string]string{}
		}
		m.Options[strings.TrimPrefix(key, "options.")] = val
	}
	return nil
}

// String writes m as ParsePool reads it; values are quoted when needed.
func (m PoolMember) String() string {
	var b strings.Builder
	if m.Remote != "" {
		b.WriteString("@" + m.Remote)
	} else {
		b.WriteString(m.Plugin)
	}
	var kv []string
	add := func(k, v string) {
		if v == "" || strings.ContainsAny(v, `,{}" `) {
			v = strconv.Quote(v)
		}
		kv = append(kv, k+"="+v)
	}
	if m.Name != "" {
		add("name", m.Name)
	}
	if m.Model != "" {
		add("model", m.Model)
	}
	if m.MIG != "" {
		add("mig", m.MIG)
	}
	for _, k := range slices.Sorted(maps.Keys(m.Env)) {
		add("env."+k, m.Env[k])
	}
	for _, k := range slices.Sorted(maps.Keys(m.Options)) {
		add(k, m.Options[k])
	}
	if len(kv) > 0 {
		b.WriteString("{" + strings.Join(kv, ",") + "}")
	}
	return b.String()
}

// poolFromFile turns a file's pool, a list of tables or of written
// members, into the written form.
func poolFromFile(v any) (string, error) {
	list, ok := v.([]any)
	if !ok {
		return stringify(v), nil
	}
	var parts []string
	for i, e := range list {
		switch x := e.(type) {
		case string:
			parts = append(parts, x)
		case map[string]any:
			m, err := memberFromTable(x)
			if err != nil {
				return "", fmt.Errorf("pool member %d: %w", i, err)
			}
			parts = append(parts, m.String())
		default:
			return "", fmt.Errorf("pool member %d: want a table or a string, got %v", i, e)
		}
	}
	return strings.Join(parts, ","), nil
}

// memberFromTable reads one member of a file's pool list.
func memberFromTable(t map[string]any) (PoolMember, error) {
	var m PoolMember
	table := func(key string) (map[string]string, error) {
		v, ok := t[key]
		if !ok {
			return nil, nil
		}
		tv, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("%s: want a table, got %v", key, v)
		}
		out := map[string]string{}
		for k, x := range tv {
			out[k] = stringify(x)
		}
		return out, nil
	}
	for k, v := range t {
		switch k {
		case "plugin":
			m.Plugin = stringify(v)
		case "remote":
			m.Remote = stringify(v)
		case "name":
			m.Name = stringify(v)
		case "model":
			m.Model = stringify(v)
		case "mig":
			if err := m.set("mig", stringify(v)); err != nil {
				return m, err
			}
		case "env", "options":
		default:
			return m, fmt.Errorf("unknown key %q (known: plugin, remote, name, model, mig, env, options)", k)
		}
	}
	var err error
	if m.Env, err = table("env"); err != nil {
		return m, err
	}
	if m.Options, err = table("options"); err != nil {
		return m, err
	}
	switch {
	case m.Plugin == "" && m.Remote == "":
		return m, fmt.Errorf("want plugin or remote")
	case m.Plugin != "" && m.Remote != "":
		return m, fmt.Errorf("plugin %q and remote %q: a member is one or the other (a remote member's plugin is the one its server serves)", m.Plugin, m.Remote)
	case m.Remote != "" && len(m.Env) > 0:
		return m, fmt.Errorf("env: a remote member's process environment is its server's")
	case m.Remote != "":
		if err := hostPort(m.Remote); err != nil {
			return m, fmt.Errorf("remote %q: want HOST:PORT: %w", m.Remote, err)
		}
	}
	return m, nil
}

// checkMIG refuses mig= where it cannot expand: on a remote member (its
// instances are its server's) and beside a CUDA_VISIBLE_DEVICES of its
// own, which each instance's member sets.
func (m PoolMember) checkMIG() error {
	switch {
	case m.MIG == "":
		return nil
	case m.Remote != "":
		return fmt.Errorf("mig=%s: a remote member's MIG instances are its server's", m.MIG)
	case m.Env["CUDA_VISIBLE_DEVICES"] != "":
		return fmt.Errorf("mig=%s and env.CUDA_VISIBLE_DEVICES: each MIG instance's member sets CUDA_VISIBLE_DEVICES", m.MIG)
	}
	return nil
}

// poolValue validates the pool key.
func poolValue(v string) error {
	_, err := ParsePool(v)
	return err
}

package config

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParsePool(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		in   string
		want []PoolMember
	}{
		{name: "one plugin twice", in: "simdevice,simdevice", want: []PoolMember{
			{Name: "simdevice#0", Plugin: "simdevice"}, {Name: "simdevice#1", Plugin: "simdevice"}}},
		{name: "options, names and spaces", in: " simdevice{batch_per_sample=600us, name=slow} , simdevice { slots = 4 }", want: []PoolMember{
			{Name: "slow", Plugin: "simdevice", Options: map[string]string{"batch_per_sample": "600us"}},
			{Name: "simdevice#1", Plugin: "simdevice", Options: map[string]string{"slots": "4"}}}},
		{name: "devices through the environment, quoted values", in: `tensorrt{env.CUDA_VISIBLE_DEVICES="0,1",model=a.plan},qaic{env.QAIC_DEVICE=3,options.batch="{8}"}`,
			want: []PoolMember{
				{Name: "tensorrt#0", Plugin: "tensorrt", Model: "a.plan", Env: map[string]string{"CUDA_VISIBLE_DEVICES": "0,1"}},
				{Name: "qaic#1", Plugin: "qaic", Env: map[string]string{"QAIC_DEVICE": "3"}, Options: map[string]string{"batch": "{8}"}}}},
		{name: "remote members", in: "@10.0.0.2:7000,@[::1]:7001{name=six,batch=8}", want: []PoolMember{
			{Name: "10.0.0.2:7000", Remote: "10.0.0.2:7000"}, {Name: "six", Remote: "[::1]:7001", Options: map[string]string{"batch": "8"}}}},
		{name: "one member per MIG instance", in: "tensorrt{mig=all,streams=4},tensorrt{name=small,mig=1g.10gb}", want: []PoolMember{
			{Name: "tensorrt#0", Plugin: "tensorrt", MIG: "all", Options: map[string]string{"streams": "4"}},
			{Name: "small", Plugin: "tensorrt", MIG: "1g.10gb"}}},
		{name: "empty", in: "", want: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParsePool(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			// What String writes reads back the same.
			for _, m := range got {
				again, err := ParsePool(m.String())
				require.NoError(t, err, m.String())
				require.Len(t, again, 1)
				if m.Name == m.Plugin+"#0" || m.Name == m.Remote {
					again[0].Name = m.Name
				}
				assert.Equal(t, m, again[0], m.String())
			}
		})
	}
}

func TestParsePoolErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"same name", "a{name=x},b{name=x}", `two pool members are named "x": name them with {name=...}`},
		{"same default name", "a,a{name=a#0}", `two pool members are named "a#0": name them with {name=...}`},
		{"no target", "{slots=2}", `pool member 0: want a plugin name or @HOST:PORT before "{slots=2}"`},
		{"no value", "a{slots}", `pool member 0: want KEY=VALUE in the braces, got "slots}"`},
		{"unclosed", "a{slots=2", "pool member 0: setting slots: want } to close the braces"},
		{"unterminated quote", `a{env.X="0,1}`, `pool member 0: setting env.X: unterminated quoted value "0,1}`},
		{"trailing comma", "a,", "pool member 1: nothing after the last comma"},
		{"junk after braces", "a{x=1}b", `pool member 1: want a comma before "b"`},
		{"bad env", "a{env.=1}", "pool member 0: env.: want env.VARIABLE"},
		{"bad name", "a{name=x/y}", `pool member 0: name="x/y": want a name without / or \`},
		{"remote without port", "@host", `pool member 0: remote member "@host": want @HOST:PORT`},
		{"remote environment", "@h:1{env.X=1}", "pool member 0: env.X: a remote member's process environment is its server's"},
		{"same remote twice", "@h:1,@h:1", `two pool members are named "h:1": name them with {name=...}`},
		{"empty mig", "tensorrt{mig=}", `pool member 0: mig="": want all or a MIG profile such as 1g.10gb`},
		{"remote mig", "@h:1{mig=all}", "pool member 0: mig=all: a remote member's MIG instances are its server's"},
		{"mig and its own device", "tensorrt{mig=all,env.CUDA_VISIBLE_DEVICES=0}",
			"pool member 0: mig=all and env.CUDA_VISIBLE_DEVICES: each MIG instance's member sets CUDA_VISIBLE_DEVICES"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParsePool(tc.in)
			require.EqualError(t, err, tc.want)
		})
	}
}

func TestPoolFromFiles(t *testing.T) {
	t.Parallel()
	want := []PoolMember{
		{Name: "slow", Plugin: "simdevice", Options: map[string]string{"batch_per_sample": "600us", "slots": "2"}},
		{Name: "mig1", Plugin: "tensorrt", Env: map[string]string{"CUDA_VISIBLE_DEVICES": "MIG-1"}, Model: "x.plan"},
		{Name: "node2", Remote: "10.0.0.2:7000"},
		{Name: "simdevice#3", Plugin: "simdevice"},
		{Name: "migs", Plugin: "tensorrt", MIG: "all"},
	}
	for _, tc := range []struct{ name, file string }{
		{"run.yaml", `
pool:
  - plugin: simdevice
    name: slow
    options: {batch_per_sample: 600us, slots: 2}
  - {plugin: tensorrt, name: mig1, model: x.plan, env: {CUDA_VISIBLE_DEVICES: MIG-1}}
  - {remote: "10.0.0.2:7000", name: node2}
  - simdevice
  - {plugin: tensorrt, name: migs, mig: all}
host:
  pool_depth: 512
`},
		{"run.toml", `
pool = [
  {plugin = "simdevice", name = "slow", options = {batch_per_sample = "600us", slots = 2}},
  {plugin = "tensorrt", name = "mig1", model = "x.plan", env = {CUDA_VISIBLE_DEVICES = "MIG-1"}},
  {remote = "10.0.0.2:7000", name = "node2"},
  "simdevice",
  {plugin = "tensorrt", name = "migs", mig = "all"},
]
[host]
pool_depth = 512
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := Load(Inputs{ConfigFile: write(t, tc.name, tc.file), ReadConf: fakeConf})
			require.NoError(t, err)
			assert.Equal(t, want, c.Pool)
			assert.Equal(t, 512, c.Host.PoolDepth)
		})
	}
}

func TestPoolKeyErrors(t *testing.T) {
	t.Parallel()
	_, err := Load(Inputs{ConfigFile: write(t, "run.yaml", "pool:\n  - {plugin: a, devices: 2}\n"), ReadConf: fakeConf})
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), `pool: pool member 0: unknown key "devices" (known: plugin, remote, name, model, mig, env, options)`)
	_, err = Load(Inputs{ConfigFile: write(t, "run.yaml", "pool:\n  - {name: x}\n"), ReadConf: fakeConf})
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), `pool: pool member 0: want plugin or remote`)
	_, err = Load(Inputs{ConfigFile: write(t, "run.yaml", "pool:\n  - {plugin: a, remote: 'h:1'}\n"), ReadConf: fakeConf})
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), `pool: pool member 0: plugin "a" and remote "h:1": a member is one or the other`)
	_, err = Load(Inputs{Flags: []FlagValue{{Key: KeyPool, Value: "a,", Flag: "--pool"}}, ReadConf: fakeConf})
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), `pool = "a," (flag --pool): pool member 1: nothing after the last comma: want members such as`)
	_, err = Load(Inputs{Environ: []string{"MLPERF_HOST_HOST__POOL_DEPTH=-1"}, ReadConf: fakeConf})
	require.ErrorIs(t, err, ErrConfig)
	assert.Contains(t, err.Error(), `host.pool_depth = "-1"`)
}

func TestRemoteKeys(t *testing.T) {
	t.Parallel()
	c, err := Load(Inputs{ConfigFile: write(t, "run.yaml", "remote:\n  address: 10.0.0.2:7000\n  ca: ca.pem\n  cert: me.pem\n  key: me.key\n"), ReadConf: fakeConf})
	require.NoError(t, err)
	assert.Equal(t, RemoteConfig{Address: "10.0.0.2:7000", CA: "ca.pem", Cert: "me.pem", Key: "me.key", DialTimeout: 10 * time.Second}, c.Remote)
	c, err = Load(Inputs{ConfigFile: write(t, "nd.yaml", "remote:\n  network_division: 1\n  dial_timeout: 2s\n"), ReadConf: fakeConf})
	require.NoError(t, err)
	assert.True(t, c.Remote.NetworkDivision)
	assert.Equal(t, 2*time.Second, c.Remote.DialTimeout)
	for _, tc := range []struct{ key, bad, flag string }{
		{KeyRemoteAddress, "nohost", "--remote"}, {KeyRemoteAddress, "h:port", "--remote"}, {KeyRemoteAddress, "h:70000", "--remote"},
		{KeyRemoteDialTimeout, "0s", "--set"}, {KeyRemoteDialTimeout, "-1s", "--set"}, {KeyRemoteDialTimeout, "soon", "--set"},
		{KeyRemoteNetworkDivision, "yes", "--set"},
	} {
		_, err = Load(Inputs{Flags: []FlagValue{{Key: tc.key, Value: tc.bad, Flag: tc.flag}}, ReadConf: fakeConf})
		require.ErrorIs(t, err, ErrConfig, tc.bad)
		assert.Contains(t, err.Error(), tc.key+` = "`+tc.bad+`" (flag `+tc.flag+`): `, tc.bad)
	}
}

# need_debian_packages TOOL PKG...: installs the Debian packages not yet
# installed when run as root, else fails naming them. Sourced by the
# verify scripts of tools/accuracyref and tools/prepareref.
need_debian_packages() {
	local tool=$1 pkg need=()
	shift
	for pkg in "$@"; do
		dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
	done
	((${#need[@]})) || return 0
	if [[ $(id -u) == 0 ]]; then
		apt-get install -y -qq "${need[@]}" >/dev/null
	else
		echo "$tool: install ${need[*]} (apt-get) first" >&2
		exit 1
	fi
}

# mbxp_debian_packages: the Debian packages of the toolchains MBXP's
# languages run in (internal/bench/mixtral: C++, Python, PHP, JavaScript,
# Ruby, TypeScript), for its tests and the official evaluate_mbxp.py.
mbxp_debian_packages() {
	echo g++ python3 php-cli nodejs ruby node-typescript
}

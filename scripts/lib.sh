# Shared by the scripts: install what gocoll needs when it is missing, and the
# mpirun command line every script uses. Source it; it defines functions only.

# ensure_mpi installs Open MPI (and pkg-config) from Debian when mpirun or
# the ompi-c pkg-config entry is missing.
ensure_mpi() {
	if command -v mpirun >/dev/null 2>&1 && pkg-config --exists ompi-c 2>/dev/null; then
		return 0
	fi
	echo "== installing Open MPI (libopenmpi-dev openmpi-bin) with apt-get"
	local sudo=""
	[ "$(id -u)" -ne 0 ] && sudo="sudo"
	$sudo apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libopenmpi-dev openmpi-bin pkg-config >/dev/null ||
		{ echo "could not install Open MPI" >&2; return 1; }
}

# ensure_go checks for the Go toolchain (the machine image provides it).
ensure_go() {
	if ! command -v go >/dev/null 2>&1; then
		[ -x /usr/local/go/bin/go ] && export PATH="$PATH:/usr/local/go/bin"
	fi
	command -v go >/dev/null 2>&1 || { echo "Go 1.26 is required (https://go.dev/dl)" >&2; return 1; }
	export PATH="$PATH:$(go env GOPATH)/bin"
}

# mpirun_cmd NP prints the mpirun command line for NP ranks: oversubscribed
# (ranks may exceed cores), unbound (so the Go runtime sees every core for its
# progress goroutines) and allowed as root.
mpirun_cmd() {
	local root=""
	[ "$(id -u)" -eq 0 ] && root="--allow-run-as-root"
	echo "mpirun $root --oversubscribe --bind-to none -np $1"
}

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

# ensure_fortran installs gfortran and OpenCoarrays (Open MPI flavour: the
# commands caf and cafrun) from Debian when missing: the Fortran coarray
# tests and scripts/coarray.sh need them.
ensure_fortran() {
	if command -v gfortran >/dev/null 2>&1 && command -v caf >/dev/null 2>&1 && command -v cafrun >/dev/null 2>&1; then
		return 0
	fi
	echo "== installing gfortran and OpenCoarrays (gfortran libcoarrays-openmpi-dev) with apt-get"
	local sudo=""
	[ "$(id -u)" -ne 0 ] && sudo="sudo"
	$sudo apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq gfortran libcoarrays-openmpi-dev >/dev/null ||
		{ echo "could not install gfortran and OpenCoarrays" >&2; return 1; }
}

# build_caf DIR builds gocoll's gfortran coarray runtime into
# DIR/libcaf_gocoll.so.
build_caf() {
	mkdir -p "$1" && go build -buildmode=c-shared -o "$1/libcaf_gocoll.so" ./coarray/gfortran
}

# caf_gocoll DIR SRC OUT compiles the Fortran program SRC against the
# runtime in DIR into OUT (extra gfortran flags in GOCOLL_FFLAGS).
caf_gocoll() {
	local dir
	dir=$(cd "$1" && pwd)
	# -J: module files go beside the binary, not into the work tree
	gfortran ${GOCOLL_FFLAGS:--O2} -fcoarray=lib -J "$(dirname "$3")" "$2" -o "$3" -L"$dir" -lcaf_gocoll -Wl,-rpath,"$dir"
}

# cafrun_cmd NP prints OpenCoarrays' launcher command for NP images, with
# the same mpirun settings as mpirun_cmd (cafrun takes none of mpirun's
# flags: they go through Open MPI's environment variables).
cafrun_cmd() {
	local env="OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none"
	[ "$(id -u)" -eq 0 ] && env="$env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
	echo "env $env cafrun -np $1"
}

# Shared by the scripts: install what gocoll needs when it is missing, and the
# mpirun command line every script uses, and the test scripts' step runner.
# Source it; it defines functions and the step counters only.

# GOCOLL_MPI picks the MPI library every script builds against and runs
# under: openmpi (the default) or mpich. gocoll_mpi prints it, or fails on
# another value.
gocoll_mpi() {
	case ${GOCOLL_MPI:-openmpi} in
	openmpi | mpich) echo "${GOCOLL_MPI:-openmpi}" ;;
	*) echo "GOCOLL_MPI=$GOCOLL_MPI: want openmpi or mpich" >&2; return 1 ;;
	esac
}

# ensure_mpi installs the MPI library GOCOLL_MPI names (and pkg-config)
# from Debian when its launcher or its pkg-config entry is missing, and
# exports GOFLAGS with the build tag that makes the binding link it (mpich;
# Open MPI needs none), so that every go command after it builds for it.
ensure_mpi() {
	local mpi pc launcher pkgs name
	mpi=$(gocoll_mpi) || return 1
	case $mpi in
	openmpi) pc=ompi-c launcher=mpirun.openmpi pkgs="libopenmpi-dev openmpi-bin" name="Open MPI" ;;
	mpich) pc=mpich launcher=mpirun.mpich pkgs="libmpich-dev mpich" name=MPICH ;;
	esac
	if [ "$mpi" = mpich ]; then
		case " ${GOFLAGS:-} " in
		*" -tags=mpich "*) ;;
		*) export GOFLAGS="${GOFLAGS:+$GOFLAGS }-tags=mpich" ;;
		esac
	fi
	if command -v "$launcher" >/dev/null 2>&1 && pkg-config --exists "$pc" 2>/dev/null; then
		return 0
	fi
	echo "== installing $name ($pkgs) with apt-get"
	local sudo=""
	[ "$(id -u)" -ne 0 ] && sudo="sudo"
	$sudo apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $pkgs pkg-config >/dev/null ||
		{ echo "could not install $name" >&2; return 1; }
}

# mpi_launcher prints the launcher of the MPI GOCOLL_MPI names: Debian
# installs both side by side, so the plain mpirun may be the other one's.
mpi_launcher() {
	case $(gocoll_mpi) in
	openmpi) command -v mpirun.openmpi || echo mpirun ;;
	mpich) command -v mpirun.mpich || command -v mpiexec.hydra || echo mpiexec ;;
	*) return 1 ;;
	esac
}

# ensure_go checks for the Go toolchain (the machine image provides it).
ensure_go() {
	if ! command -v go >/dev/null 2>&1; then
		[ -x /usr/local/go/bin/go ] && export PATH="$PATH:/usr/local/go/bin"
	fi
	command -v go >/dev/null 2>&1 || { echo "Go 1.26 is required (https://go.dev/dl)" >&2; return 1; }
	export PATH="$PATH:$(go env GOPATH)/bin"
}

# build_collbench builds cmd/collbench into bin/ (after ensure_go and
# ensure_mpi): the main job and scripts/images-bench.sh run it from there.
build_collbench() {
	mkdir -p bin && go build -o bin/collbench ./cmd/collbench
}

# mpi_cc prints the C compiler wrapper of the MPI GOCOLL_MPI names (for
# the C twins and baselines), for the same reason.
mpi_cc() {
	case $(gocoll_mpi) in
	openmpi) command -v mpicc.openmpi || echo mpicc ;;
	mpich) command -v mpicc.mpich || echo mpicc ;;
	*) return 1 ;;
	esac
}

# mpi_launch_cmd prints the launch command line of the MPI GOCOLL_MPI
# names, without the process count: oversubscribed (ranks may exceed
# cores), unbound (so the Go runtime sees every core for its progress
# goroutines) and, for Open MPI, allowed as root. MPICH's launcher (Hydra)
# oversubscribes and runs as root unasked.
mpi_launch_cmd() {
	local launcher
	launcher=$(mpi_launcher) || return 1
	case $(gocoll_mpi) in
	openmpi)
		local root=""
		[ "$(id -u)" -eq 0 ] && root=" --allow-run-as-root"
		echo "$launcher$root --oversubscribe --bind-to none"
		;;
	mpich) echo "$launcher -bind-to none" ;;
	esac
}

# mpirun_cmd NP prints mpi_launch_cmd's line for NP ranks.
mpirun_cmd() {
	local l
	l=$(mpi_launch_cmd) || return 1
	echo "$l -np $1"
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

# ensure_flang installs LLVM flang 22 (flang-22) from Debian when missing:
# the runtime's PRIF face and the flang test programs need it.
ensure_flang() {
	command -v flang-22 >/dev/null 2>&1 && return 0
	echo "== installing LLVM flang 22 (flang-22) with apt-get"
	local sudo=""
	[ "$(id -u)" -ne 0 ] && sudo="sudo"
	$sudo apt-get update -qq &&
		DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq flang-22 >/dev/null ||
		{ echo "could not install flang-22" >&2; return 1; }
}

# build_caf PREFIX installs gocoll's coarray runtime for gfortran and flang
# into PREFIX: PREFIX/lib/libcaf_gocoll.so, the compile wrappers
# PREFIX/bin/gocaf (gfortran) and PREFIX/bin/gocaf-flang (flang-22), and the
# launcher PREFIX/bin/gocafrun, which runs the MPI launcher of GOCOLL_MPI
# (its command line in PREFIX/lib/gocaf-launcher).
build_caf() {
	mkdir -p "$1/lib" "$1/bin" &&
		go build -buildmode=c-shared -o "$1/lib/libcaf_gocoll.so" ./coarray/runtime &&
		rm -f "$1/lib/libcaf_gocoll.h" &&
		mpi_launch_cmd >"$1/lib/gocaf-launcher" &&
		cp coarray/caf/gocaf coarray/caf/gocafrun "$1/bin/" &&
		ln -sf gocaf "$1/bin/gocaf-flang"
}

# caf_gocoll PREFIX SRC OUT [flang] compiles the Fortran program SRC with
# the runtime's wrapper in PREFIX (build_caf) into OUT: gfortran, or
# flang-22 when the fourth argument is flang (extra flags in GOCOLL_FFLAGS).
caf_gocoll() {
	local wrapper=gocaf
	[ "${4:-}" = flang ] && wrapper=gocaf-flang
	# -J: module files go beside the binary, not into the work tree
	"$1/bin/$wrapper" ${GOCOLL_FFLAGS:--O2} -J "$(dirname "$3")" "$2" -o "$3"
}

# build_coarray_bench DIR builds the coarray timing programs into DIR:
# coarray/fortran/bench/bench.f90 on gocoll's runtime (bench.gocoll) and on
# OpenCoarrays (bench.opencoarrays), and the MPI baseline in C (mpi_bench),
# for scripts/coarray-bench.sh and scripts/cosum-rounds.sh.
build_coarray_bench() {
	local bench=coarray/fortran/bench
	build_caf "$1" &&
		GOCOLL_FFLAGS="-O2 -cpp" caf_gocoll "$1" $bench/bench.f90 "$1/bench.gocoll" 2>/dev/null &&
		caf -O2 -cpp -J "$1" $bench/bench.f90 -o "$1/bench.opencoarrays" 2>/dev/null &&
		mpicc -O2 $bench/mpi_bench.c -o "$1/mpi_bench"
}

# build_coarray_more DIR builds, beside build_coarray_bench's programs, the
# collectives bench with flang (bench.flang) and the coindexed access
# timings coarray/fortran/bench/rma.f90 on both runtimes (rma.gocoll,
# rma.opencoarrays) with their MPI baseline (mpi_rma), for
# scripts/coarray-bench.sh.
build_coarray_more() {
	local bench=coarray/fortran/bench
	GOCOLL_FFLAGS="-O2 -cpp" caf_gocoll "$1" $bench/bench.f90 "$1/bench.flang" flang 2>/dev/null &&
		GOCOLL_FFLAGS=-O2 caf_gocoll "$1" $bench/rma.f90 "$1/rma.gocoll" 2>/dev/null &&
		caf -O2 -J "$1" $bench/rma.f90 -o "$1/rma.opencoarrays" 2>/dev/null &&
		mpicc -O2 $bench/mpi_rma.c -o "$1/mpi_rma"
}

# spread prints the median, least and greatest of the numbers on stdin
# (one per line) as "median (least..greatest)".
spread() {
	sort -g | awk '{ v[NR] = $1 }
		END { if (NR == 0) exit 1
			printf "%.2f (%.2f..%.2f)\n", NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2, v[1], v[NR] }'
}

# cafrun_cmd NP prints OpenCoarrays' launcher command for NP images, with
# the same mpirun settings as mpirun_cmd (cafrun takes none of mpirun's
# flags: they go through Open MPI's environment variables).
cafrun_cmd() {
	local env="OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_hwloc_base_binding_policy=none"
	[ "$(id -u)" -eq 0 ] && env="$env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
	echo "env $env cafrun -np $1"
}

# step NAME CMD...: runs one check with its output in $out/NAME.log, prints
# ok or FAIL (with the log's tail) and counts it. The test scripts set out;
# step_summary ends them.
passed=0
failed=0
failures=()
step() {
	local name=$1 log
	shift
	log="$out/$(echo "$name" | tr ' /' '__').log"
	local t0=$SECONDS
	if "$@" >"$log" 2>&1; then
		passed=$((passed + 1))
		printf 'ok    %-44s %4ds\n' "$name" $((SECONDS - t0))
	else
		failed=$((failed + 1))
		failures+=("$name")
		printf 'FAIL  %-44s %4ds  (log: %s)\n' "$name" $((SECONDS - t0)) "$log"
		tail -40 "$log" | sed 's/^/      /'
	fi
}

# step_summary prints "N passed, N failed" (and the failed steps' names)
# and returns non-zero on any failure.
step_summary() {
	if [ ${#failures[@]} -gt 0 ]; then
		echo "failed: ${failures[*]}"
	fi
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

# mpi_test_packages prints the packages whose tests use MPI: they depend on
# the binding, mpiconduit/mpi (or are it), directly or through the conduit.
mpi_test_packages() {
	go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}} {{join .Deps " "}} {{join .TestImports " "}} {{join .XTestImports " "}}{{end}}' ./... |
		awk '/github.com\/gocoll\/gocoll\/mpiconduit\/mpi( |$)/ {print $1}'
}

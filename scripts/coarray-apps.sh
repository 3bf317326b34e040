#!/usr/bin/env bash
# Runs published coarray programs that no one here wrote on gocoll's gfortran
# runtime and on OpenCoarrays, side by side: the heat and Burgers equation
# solvers of OpenCoarrays' repository (src/tests/integration/pde_solvers),
# which check their own results and print "Test passed.":
#
#   scripts/coarray-apps.sh OPENCOARRAYS_CHECKOUT
#
# For each program and image count (2 and 4) it prints whether each runtime
# passed, and whether their outputs are identical (as sets of lines: the images print at once). (The Burgers solver reads
# its periodic neighbour without synchronizing with it, so from 3 images on
# its digits vary from run to run on either runtime.) Builds into
# out/coarray-apps; installs what it needs with apt-get when missing.
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh
case ${1:-} in -h | --help | "") sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;; esac
pde=$(cd "$1" && pwd)/src/tests/integration/pde_solvers
[ -d "$pde" ] || { echo "no src/tests/integration/pde_solvers in $1" >&2; exit 2; }
ensure_go && ensure_mpi && ensure_fortran || exit 1
out=$(pwd)/out/coarray-apps
rm -rf "$out" && mkdir -p "$out"
build_caf "$out/caf" || exit 1

# build RUNTIME NAME SOURCES...: compiles the sources in order into
# $out/RUNTIME/NAME/prog.
build() {
	local rt=$1 name=$2 d fc=("$out/caf/bin/gocaf")
	shift 2
	[ "$rt" = opencoarrays ] && fc=(caf)
	d=$out/$rt/$name
	mkdir -p "$d"
	cp "$pde/coarrayBurgers/include-files/gfortran_capabilities.txt" "$d/compiler_capabilities.txt"
	(cd "$d" && for f in "$@"; do "${fc[@]}" -O2 -I. -c "$f" -o "$(basename "${f%.*}").o" || exit 1; done &&
		"${fc[@]}" -O2 *.o -o prog) >"$d/build.log" 2>&1
}

run() {
	local rt=$1 name=$2 np=$3 log=$out/$1/$2/np$3.out
	if [ "$rt" = opencoarrays ]; then
		timeout 300 $(cafrun_cmd "$np") "$out/$rt/$name/prog" </dev/null 2>&1 | grep -v '^\[warn\] Epoll' >"$log"
	else
		timeout 300 $(mpirun_cmd "$np") "$out/$rt/$name/prog" </dev/null >"$log" 2>&1
	fi
	grep -q 'Test passed' "$log" && echo pass || echo fail
}

heat=$pde/coarrayHeatSimplified
burgers=$pde/coarrayBurgers
echo "| program | images | gocoll | OpenCoarrays | outputs |"
echo "| --- | --- | --- | --- | --- |"
for rt in gocoll opencoarrays; do
	build $rt heat "$heat/local_field.f90" "$heat/global_field.f90" "$heat/main.f90"
	build $rt burgers "$burgers"/library/{object_interface,ForTrilinos_error,ForTrilinos_assertion_utility,co_object_interface}.F90 \
		"$burgers"/{local_field,global_field,main}.F90
done
for name in heat burgers; do
	for np in 2 4; do
		g=$(run gocoll $name $np) o=$(run opencoarrays $name $np)
		same=differ
		cmp -s <(sort "$out/gocoll/$name/np$np.out") <(sort "$out/opencoarrays/$name/np$np.out") && same=identical
		echo "| $name | $np | $g | $o | $same |"
	done
done

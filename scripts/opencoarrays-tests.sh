#!/usr/bin/env bash
# Runs OpenCoarrays' own unit tests of collectives, teams and sync on
# gocoll's gfortran runtime and on OpenCoarrays, side by side, and prints a
# table (a test passes when its output says "Test passed.", as OpenCoarrays'
# CMake file checks):
#
#   scripts/opencoarrays-tests.sh OPENCOARRAYS_CHECKOUT
#
# OPENCOARRAYS_CHECKOUT is a checkout of its repository
# (https://github.com/sourceryinstitute/OpenCoarrays); nothing of it is
# copied here. The image counts are those of its CMakeLists.txt. Each run
# has GOCOAF_TIMEOUT seconds (default 60). Builds into out/opencoarrays-tests.
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh
case ${1:-} in -h | --help | "") sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;; esac
src=$(cd "$1" && pwd)/src/tests/unit
[ -d "$src" ] || { echo "no src/tests/unit in $1" >&2; exit 2; }
ensure_go && ensure_mpi && ensure_fortran || exit 1
out=out/opencoarrays-tests
rm -rf "$out" && mkdir -p "$out"
build_caf "$out/caf" || exit 1
timeout=${GOCOAF_TIMEOUT:-60}

# name images source (as OpenCoarrays' CMakeLists.txt lists them)
tests="
collectives co_sum 4 collectives/co_sum.F90
collectives co_broadcast 4 collectives/co_broadcast.F90
collectives co_broadcast_derived_type 4 collectives/co_broadcast_derived_type.f90
collectives co_broadcast_allocatable_components 4 collectives/co_broadcast_allocatable_components.f90
collectives co_broadcast_alloc_mixed 2 collectives/co_broadcast_alloc_mixed.f90
collectives co_min 4 collectives/co_min.F90
collectives co_max 4 collectives/co_max.F90
collectives co_reduce 4 collectives/co_reduce.F90
collectives co_reduce_res_im 4 collectives/co_reduce_res_im.F90
collectives co_reduce_string 4 collectives/co_reduce_string.f90
teams team_number 8 teams/team-number.f90
teams teams_subset 3 teams/teams_subset.f90
teams teams_coarray_get 5 teams/teams_coarray_get.f90
teams teams_coarray_get_by_ref 5 teams/teams_coarray_get_by_ref.f90
teams teams_coarray_send 5 teams/teams_coarray_send.f90
teams teams_coarray_send_by_ref 5 teams/teams_coarray_send_by_ref.f90
teams teams_coarray_sendget 5 teams/teams_coarray_sendget.f90
teams sync_team 8 teams/sync-team.f90
teams teams_send 5 teams/teams_send.f90
teams get_communicator 2 teams/get-communicator.F90
sync syncimages_status 8 sync/syncimages_status.f90
sync sync_ring_abort_np3 3 sync/sync_image_ring_abort_on_stopped_image.f90
sync sync_ring_abort_np7 7 sync/sync_image_ring_abort_on_stopped_image.f90
sync syncall 8 sync/syncall.f90
sync syncimages 8 sync/syncimages.f90
sync syncimages2 8 sync/syncimages2.f90
sync duplicate_syncimages 8 sync/duplicate_syncimages.f90
"

# verdict RUN...: "pass" when the run says "Test passed." in time, else
# why not (the log keeps the rest).
verdict() {
	local log=$1
	shift
	timeout "$timeout" "$@" >"$log" 2>&1 </dev/null
	local rc=$?
	if grep -q 'Test passed\.' "$log"; then echo pass
	elif [ $rc -eq 124 ]; then echo "fail (timeout)"
	else echo "fail (exit $rc)"
	fi
}

# The tests' assertion module (src/tests/utilities), built once for each.
util=$(cd "$1" && pwd)/src/tests/utilities
for rt in gocoll opencoarrays; do
	mkdir -p "$out/util-$rt"
	fc=("$out/caf/bin/gocaf")
	[ $rt = opencoarrays ] && fc=(caf)
	for f in opencoarrays_object_interface.f90 oc_assertions_interface.F90 oc_assertions_implementation.F90; do
		"${fc[@]}" -O2 -DHAVE_ERROR_STOP_IN_PURE -DHAVE_VARIABLE_STOP_CODE -J "$out/util-$rt" -c "$util/$f" \
			-o "$out/util-$rt/${f%.*}.o" || exit 1
	done
done

echo "| group | test | images | gocoll | OpenCoarrays |"
echo "| --- | --- | --- | --- | --- |"
while read -r group name np file; do
	[ -n "$group" ] || continue
	d=$out/$name
	mkdir -p "$d"
	g="build fails" o="build fails"
	if "$out/caf/bin/gocaf" -O2 -J "$d" -I "$out/util-gocoll" "$src/$file" "$out"/util-gocoll/*.o -o "$d/gocoll" >"$d/build-gocoll.log" 2>&1; then
		g=$(verdict "$d/run-gocoll.log" $(mpirun_cmd "$np") "$d/gocoll")
	fi
	if caf -O2 -J "$d" -I "$out/util-opencoarrays" "$src/$file" "$out"/util-opencoarrays/*.o -o "$d/opencoarrays" >"$d/build-opencoarrays.log" 2>&1; then
		o=$(verdict "$d/run-opencoarrays.log" $(cafrun_cmd "$np") "$d/opencoarrays")
	fi
	echo "| $group | $name | $np | $g | $o |"
done <<<"$tests"

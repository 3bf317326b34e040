#!/usr/bin/env bash
# Runs gocoll's MPI test binaries across three simulated hosts on this
# machine, 2 ranks per host (np 6), as a cluster run would: each host is a
# network + UTS namespace with its own hostname and address on a bridge
# that exists only inside a fourth namespace (the "switch"). mpirun runs on
# the first host and starts Open MPI's daemons on the others through its
# remote-launch (rsh) agent, here a script that enters the named host's
# namespaces instead of ssh. MPI traffic (TCP BTL) and the runtime's (oob)
# are restricted to the namespaces' interface, so nothing leaves them.
# gocoll's segments need MPI windows between hosts: btl/tcp has no RDMA for
# osc/rdma and osc/pt2pt refuses MPI_THREAD_MULTIPLE, so windows go through
# osc/ucx over UCX's TCP transport (Debian's Open MPI excludes ucx by
# default; it is selected here, on the same interface), osc/sm within a host.
#
#   scripts/multihost-tests.sh                  the MPI test binaries at np 6
#                                               (GOCOLL_MH_ONLY=REGEXP: the
#                                               packages matching it;
#                                               GOCOLL_MH_TESTFLAGS: flags
#                                               for the test binaries)
#   scripts/multihost-tests.sh --bench [ARGS]   cmd/collbench there instead
#                                               (ARGS go to collbench)
#
# Ranks on one host pass data through shared memory (gocoll's rings, Open
# MPI's vader), ranks on different hosts over TCP: mpiconduit's
# TestConduitHosts checks both (GOCOLL_MULTIHOST_IF names the interface
# whose byte counters it reads). Needs root (namespaces). Everything it
# creates (namespaces, links, the state directory) is removed on exit, also
# on failure or Ctrl-C. Ends with "N passed, N failed" and exits non-zero on
# any failure. Run it under `flock -s /tmp/gocoll-cpu.lock` (tests) or
# `flock /tmp/gocoll-cpu.lock` (--bench) on a shared machine.
set -u
cd "$(dirname "$0")/.."
. scripts/lib.sh

HOSTS=3
PER_HOST=${GOCOLL_MH_PER_HOST:-2}
IFACE=mh0                  # each host's interface to the switch
SUBNET=10.77.77            # host i has $SUBNET.i/24
TAG=gocoll-mh$$            # namespace prefix, unique per run
STATE=/run/gocoll-multihost.$$
out=out/multihost

if [ "$(id -u)" -ne 0 ]; then
	echo "multihost-tests.sh: needs root to create network and UTS namespaces" >&2
	exit 1
fi
for tool in ip unshare nsenter; do
	command -v $tool >/dev/null 2>&1 || { echo "multihost-tests.sh: $tool is missing (iproute2, util-linux)" >&2; exit 1; }
done
# The remote launch (the rsh agent, the MCA parameters) is Open MPI's.
if [ "$(gocoll_mpi)" != openmpi ]; then
	echo "multihost-tests.sh: runs on Open MPI only (GOCOLL_MPI=${GOCOLL_MPI:-})" >&2
	exit 1
fi
ensure_go || exit 1
ensure_mpi || exit 1

hostname_of() { echo "gocoll-h$1"; }

# onhost I CMD...: runs CMD on host I (in its network and UTS namespaces).
# `ip netns exec` mounts the host's own /sys, where UCX looks for network
# devices: under nsenter alone UCX saw only the machine's lo ("network
# device 'mh0' is not available"), so it could reach the other hosts' windows
# only through shared memory, not over TCP.
onhost() {
	local i=$1
	shift
	ip netns exec "$TAG-h$i" nsenter --uts="$STATE/uts-h$i" -- "$@"
}

cleanup() {
	trap - EXIT INT TERM
	local ns pid
	# Processes left in the namespaces (an interrupted run's daemons and
	# ranks) are ours: end them before the namespaces go.
	for ns in $(ip netns list 2>/dev/null | awk -v t="$TAG-" 'index($1, t) == 1 {print $1}'); do
		for pid in $(ip netns pids "$ns" 2>/dev/null); do
			kill -KILL "$pid" 2>/dev/null
		done
		ip netns del "$ns" 2>/dev/null || echo "multihost-tests.sh: could not delete namespace $ns" >&2
	done
	if [ -d "$STATE" ]; then
		for f in "$STATE"/uts-h*; do
			[ -e "$f" ] && { umount "$f" 2>/dev/null; rm -f "$f"; }
		done
		rm -rf "$STATE"
	fi
}
trap cleanup EXIT
trap 'echo "multihost-tests.sh: interrupted" >&2; exit 130' INT TERM

# setup makes the switch (a bridge in a namespace of its own) and the hosts,
# each joined to it by a veth pair, with its hostname and address.
setup() {
	mkdir -p "$STATE" &&
		ip netns add "$TAG-sw" &&
		ip -n "$TAG-sw" link add br0 type bridge &&
		ip -n "$TAG-sw" link set br0 up || return 1
	local i h
	for i in $(seq 1 $HOSTS); do
		h=$(hostname_of "$i")
		ip netns add "$TAG-h$i" &&
			ip -n "$TAG-sw" link add "p$i" type veth peer name "$IFACE" netns "$TAG-h$i" &&
			ip -n "$TAG-sw" link set "p$i" master br0 up &&
			ip -n "$TAG-h$i" addr add "$SUBNET.$i/24" dev "$IFACE" &&
			ip -n "$TAG-h$i" link set "$IFACE" up &&
			ip -n "$TAG-h$i" link set lo up && # the runtime's local connections (PMIx)
			touch "$STATE/uts-h$i" &&
			unshare --uts="$STATE/uts-h$i" hostname "$h" &&
			echo "$h slots=$PER_HOST" >>"$STATE/hostfile" || return 1
	done
	# mpirun's rsh agent: called as `agent [options] HOST COMMAND...` (as
	# ssh), it runs COMMAND through a shell on HOST's namespaces.
	cat >"$STATE/agent" <<-EOF
		#!/bin/sh
		while [ \$# -gt 0 ]; do case \$1 in -*) shift ;; *) break ;; esac; done
		case \$1 in
		$(for i in $(seq 1 $HOSTS); do printf '%s) i=%s ;; ' "$(hostname_of "$i")" "$i"; done)
		*) echo "agent: unknown host \$1" >&2; exit 255 ;;
		esac
		shift
		exec ip netns exec $TAG-h\$i nsenter --uts=$STATE/uts-h\$i -- /bin/sh -c "\$*"
	EOF
	chmod +x "$STATE/agent"
}

# mh_mpirun SECONDS CMD...: CMD on np = HOSTS * PER_HOST ranks, PER_HOST
# per host, launched from host 1, ended after SECONDS. The hosts share this
# machine's processors, which their ranks together may outnumber: Open MPI
# sees PER_HOST ranks in a host's slots and would spin in its waits, so it
# is told to yield, as it does by itself when one host is oversubscribed
# (gocoll's conduit finds it out: mpiconduit's machineProcs).
mh_mpirun() {
	local limit=$1
	shift
	onhost 1 timeout "$limit" "$(mpi_launcher)" --allow-run-as-root --bind-to none --map-by slot \
		-np $((HOSTS * PER_HOST)) --hostfile "$STATE/hostfile" \
		--mca plm_rsh_agent "$STATE/agent" \
		--mca btl self,vader,tcp --mca btl_tcp_if_include "$IFACE" --mca oob_tcp_if_include "$IFACE" \
		--mca osc sm,ucx -x UCX_TLS=tcp,sm,self -x UCX_NET_DEVICES="$IFACE" \
		--mca mpi_yield_when_idle "$( [ $((HOSTS * PER_HOST)) -gt "$(nproc)" ] && echo 1 || echo 0)" \
		-x GOCOLL_MULTIHOST_IF="$IFACE" ${GOCOLL_MH_MPIRUN_ARGS:-} \
		"$@"
}

# hosts_check: every host answers with its own hostname, and ranks land
# PER_HOST to a host.
hosts_check() {
	local got want=""
	got=$(mh_mpirun 120 hostname | sort | uniq -c | awk '{print $2 "=" $1}' | tr '\n' ' ')
	for i in $(seq 1 $HOSTS); do want="$want$(hostname_of "$i")=$PER_HOST "; done
	echo "ranks per host: $got"
	[ "$got" = "$want" ] || { echo "want: $want"; return 1; }
}

# One run at a time uses $out (a second would remove the first's binaries).
mkdir -p out
exec 9>out/multihost.lock
flock -n 9 || { echo "multihost-tests.sh: another run is using $out" >&2; exit 1; }
rm -rf "$out" && mkdir -p "$out/bin"
step "set up $HOSTS hosts" setup || true
[ "$failed" -eq 0 ] || { step_summary; exit 1; }
step "ranks on every host" hosts_check

if [ "${1:-}" = "--bench" ]; then
	shift
	go build -o "$out/bin/collbench" ./cmd/collbench || exit 1
	# Not a step: the table goes to the terminal as it comes.
	mh_mpirun 3600 "$out/bin/collbench" "$@"
	rc=$?
	[ $rc -eq 0 ] && passed=$((passed + 1)) || { failed=$((failed + 1)); failures+=("collbench (exit $rc)"); }
	step_summary
	exit
fi

for pkg in $(mpi_test_packages | grep -E -- "${GOCOLL_MH_ONLY:-.}"); do
	name=${pkg#github.com/gocoll/gocoll/}
	bin="$out/bin/$(echo "$name" | tr '/' '_').test"
	step "build $name" go test -c -o "$bin" "$pkg"
	[ -x "$bin" ] || continue
	step "np $((HOSTS * PER_HOST)) on $HOSTS hosts $name" mh_mpirun 1800 "$bin" -test.timeout 28m ${GOCOLL_MH_TESTFLAGS:-}
done
step_summary

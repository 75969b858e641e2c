#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# board-dts.sh NCPUS NCLUSTERS [global|raw] [stm]
#
# Prints the device tree source of a simulated CoreSight board, to append
# to the source of QEMU's own virt device tree: NCPUS simulated ETMs
# ("csboard,sim-etm"), split into NCLUSTERS clusters of consecutive CPUs;
# each cluster's ETMs feed a static funnel into the cluster's own sink
# ("csboard,sim-sink"). With "global", each cluster funnel goes through a
# static replicator that also feeds a global funnel and a global sink,
# which every CPU can reach but none uses by default (it is farther away).
# With "raw", NCLUSTERS must equal NCPUS: each ETM feeds its own per-CPU
# sink of unformatted trace ("csboard,sim-raw-sink", like a TRBE), named
# simraw0 .. simraw<NCPUS-1> in CPU order. With "stm", a simulated system
# source ("csboard,sim-stm", simstm0) feeds the funnel of the last
# cluster too, so that with "global" its trace reaches the last cluster's
# sink and the global sink through a static replicator.
#
# Sinks are named in this order by the driver: simsink0 .. simsink<N-1>
# for the clusters, then simsink<N> for the global sink.
set -euo pipefail

usage="usage: board-dts.sh NCPUS NCLUSTERS [global|raw] [stm]"
ncpus=${1:-}
nclusters=${2:-}
global=${3:-}
stm=${4:-}
if [ "$global" = stm ]; then
	global='' stm=stm
fi
if ! [[ $ncpus =~ ^[1-9][0-9]*$ && $nclusters =~ ^[1-9][0-9]*$ ]] ||
   [[ -n $global && $global != global && $global != raw ]] ||
   [[ -n $stm && ( $stm != stm || $global = raw ) ]]; then
	echo "$usage" >&2
	exit 1
fi
if [ $((ncpus % nclusters)) -ne 0 ]; then
	echo "board-dts.sh: $ncpus CPUs do not split into $nclusters clusters" >&2
	exit 1
fi
per=$((ncpus / nclusters))
if [ "$global" = raw ] && [ "$per" -ne 1 ]; then
	echo "board-dts.sh: raw sinks are per CPU: NCLUSTERS must be NCPUS" >&2
	exit 1
fi

# endpoint LABEL REMOTE: one endpoint of a graph port
endpoint() {
	printf '\t\t\t\t%s: endpoint { remote-endpoint = <&%s>; };\n' "$1" "$2"
}

# one_port in-ports|out-ports LABEL REMOTE: ports with a single port
one_port() {
	printf '\t\t%s {\n\t\t\tport {\n' "$1"
	endpoint "$2" "$3"
	printf '\t\t\t};\n\t\t};\n'
}

# ports in-ports|out-ports PREFIX REMOTE...: port n, labelled PREFIX<n>,
# connects to the n-th REMOTE
ports() {
	local dir=$1 prefix=$2 n=0 remote
	shift 2
	printf '\t\t%s {\n\t\t\t#address-cells = <1>;\n\t\t\t#size-cells = <0>;\n' "$dir"
	for remote in "$@"; do
		printf '\t\t\tport@%x {\n\t\t\t\treg = <%d>;\n' "$n" "$n"
		endpoint "$prefix$n" "$remote"
		printf '\t\t\t};\n'
		n=$((n + 1))
	done
	printf '\t\t};\n'
}

# node NAME COMPATIBLE: open a node, closed by "};"
node() {
	printf '\t%s {\n\t\tcompatible = "%s";\n' "$1" "$2"
}

echo '/ {'
if [ "$global" = raw ]; then
	for ((c = 0; c < ncpus; c++)); do
		node "sim-etm-$c" csboard,sim-etm
		printf '\t\tcpu = <&{/cpus/cpu@%d}>;\n' "$c"
		one_port out-ports "etm${c}_out" "raw${c}_in"
		echo '	};'
		node "sim-raw-sink-$c" csboard,sim-raw-sink
		one_port in-ports "raw${c}_in" "etm${c}_out"
		echo '	};'
	done
	echo '};'
	exit 0
fi
for ((c = 0; c < ncpus; c++)); do
	k=$((c / per))
	node "sim-etm-$c" csboard,sim-etm
	printf '\t\tcpu = <&{/cpus/cpu@%d}>;\n' "$c"
	one_port out-ports "etm${c}_out" "fun${k}_in$((c % per))"
	echo '	};'
done

for ((k = 0; k < nclusters; k++)); do
	etms=()
	for ((c = k * per; c < (k + 1) * per; c++)); do
		etms+=("etm${c}_out")
	done
	[ -n "$stm" ] && [ $k -eq $((nclusters - 1)) ] && etms+=(stm_out)
	node "sim-funnel-$k" arm,coresight-static-funnel
	ports in-ports "fun${k}_in" "${etms[@]}"
	if [ -n "$global" ]; then
		one_port out-ports "fun${k}_out" "rep${k}_in"
		echo '	};'
		node "sim-replicator-$k" arm,coresight-static-replicator
		one_port in-ports "rep${k}_in" "fun${k}_out"
		ports out-ports "rep${k}_out" "sink${k}_in" "gfun_in$k"
	else
		one_port out-ports "fun${k}_out" "sink${k}_in"
	fi
	echo '	};'
done

for ((k = 0; k < nclusters; k++)); do
	from=fun${k}_out
	[ -n "$global" ] && from=rep${k}_out0
	node "sim-sink-$k" csboard,sim-sink
	one_port in-ports "sink${k}_in" "$from"
	echo '	};'
done

if [ -n "$stm" ]; then
	node sim-stm-0 csboard,sim-stm
	one_port out-ports stm_out "fun$((nclusters - 1))_in$per"
	echo '	};'
fi

if [ -n "$global" ]; then
	reps=()
	for ((k = 0; k < nclusters; k++)); do
		reps+=("rep${k}_out1")
	done
	node sim-funnel-global arm,coresight-static-funnel
	ports in-ports gfun_in "${reps[@]}"
	one_port out-ports gfun_out gsink_in
	echo '	};'
	node sim-sink-global csboard,sim-sink
	one_port in-ports gsink_in gfun_out
	echo '	};'
fi
echo '};'

#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# board-dts.sh NCPUS NCLUSTERS [global]
#
# Prints the device tree source of a simulated CoreSight board, to append
# to the source of QEMU's own virt device tree: NCPUS simulated ETMs
# ("csboard,sim-etm"), split into NCLUSTERS clusters of consecutive CPUs;
# each cluster's ETMs feed a static funnel into the cluster's own sink
# ("csboard,sim-sink"). With "global", each cluster funnel goes through a
# static replicator that also feeds a global funnel and a global sink,
# which every CPU can reach but none uses by default (it is farther away).
#
# Sinks are named in this order by the driver: simsink0 .. simsink<N-1>
# for the clusters, then simsink<N> for the global sink.
set -euo pipefail

usage="usage: board-dts.sh NCPUS NCLUSTERS [global]"
ncpus=${1:-}
nclusters=${2:-}
global=${3:-}
if ! [[ $ncpus =~ ^[1-9][0-9]*$ && $nclusters =~ ^[1-9][0-9]*$ ]] ||
   [[ -n $global && $global != global ]]; then
	echo "$usage" >&2
	exit 1
fi
if [ $((ncpus % nclusters)) -ne 0 ]; then
	echo "board-dts.sh: $ncpus CPUs do not split into $nclusters clusters" >&2
	exit 1
fi
per=$((ncpus / nclusters))

# endpoint LABEL REMOTE: one endpoint of a graph port
endpoint() {
	printf '\t\t\t\t%s: endpoint { remote-endpoint = <&%s>; };\n' "$1" "$2"
}

echo '/ {'
for ((c = 0; c < ncpus; c++)); do
	k=$((c / per))
	cat <<EOF
	sim-etm-$c {
		compatible = "csboard,sim-etm";
		cpu = <&{/cpus/cpu@$c}>;
		out-ports {
			port {
$(endpoint "etm${c}_out" "fun${k}_in$((c % per))")
			};
		};
	};
EOF
done

for ((k = 0; k < nclusters; k++)); do
	out=sink${k}_in
	[ -n "$global" ] && out=rep${k}_in
	echo "	sim-funnel-$k {"
	echo '		compatible = "arm,coresight-static-funnel";'
	echo '		in-ports {'
	echo '			#address-cells = <1>;'
	echo '			#size-cells = <0>;'
	for ((j = 0; j < per; j++)); do
		echo "			port@$(printf '%x' $j) {"
		echo "				reg = <$j>;"
		endpoint "fun${k}_in$j" "etm$((k * per + j))_out"
		echo '			};'
	done
	echo '		};'
	echo '		out-ports {'
	echo '			port {'
	endpoint "fun${k}_out" "$out"
	echo '			};'
	echo '		};'
	echo '	};'
	if [ -n "$global" ]; then
		cat <<EOF
	sim-replicator-$k {
		compatible = "arm,coresight-static-replicator";
		in-ports {
			port {
$(endpoint "rep${k}_in" "fun${k}_out")
			};
		};
		out-ports {
			#address-cells = <1>;
			#size-cells = <0>;
			port@0 {
				reg = <0>;
$(endpoint "rep${k}_out0" "sink${k}_in")
			};
			port@1 {
				reg = <1>;
$(endpoint "rep${k}_out1" "gfun_in$k")
			};
		};
	};
EOF
	fi
done

for ((k = 0; k < nclusters; k++)); do
	from=fun${k}_out
	[ -n "$global" ] && from=rep${k}_out0
	cat <<EOF
	sim-sink-$k {
		compatible = "csboard,sim-sink";
		in-ports {
			port {
$(endpoint "sink${k}_in" "$from")
			};
		};
	};
EOF
done

if [ -n "$global" ]; then
	echo '	sim-funnel-global {'
	echo '		compatible = "arm,coresight-static-funnel";'
	echo '		in-ports {'
	echo '			#address-cells = <1>;'
	echo '			#size-cells = <0>;'
	for ((k = 0; k < nclusters; k++)); do
		echo "			port@$(printf '%x' $k) {"
		echo "				reg = <$k>;"
		endpoint "gfun_in$k" "rep${k}_out1"
		echo '			};'
	done
	echo '		};'
	echo '		out-ports {'
	echo '			port {'
	endpoint gfun_out gsink_in
	echo '			};'
	echo '		};'
	echo '	};'
	cat <<EOF
	sim-sink-global {
		compatible = "csboard,sim-sink";
		in-ports {
			port {
$(endpoint gsink_in gfun_out)
			};
		};
	};
EOF
fi
echo '};'

#!/bin/sh
# mkelf.sh OUT NR: build a small arm64 ELF with functions func_cpu0..func_cpu<NR-1>,
# each a loop of two adds and a branch back (the trace csgen writes runs it).
set -e
out=$1
nr=${2:-256}
src=$out.S
{
	echo '	.text'
	echo '	.globl _start'
	echo '_start:'
	echo '	b func_cpu0'
	i=0
	while [ $i -lt $nr ]; do
		echo "	.globl func_cpu$i"
		echo "	.type func_cpu$i, %function"
		echo '	.balign 16'
		echo "func_cpu$i:"
		echo '1:	add x0, x0, #1'
		echo '	add x0, x0, #1'
		echo '	b 1b'
		echo "	.size func_cpu$i, .-func_cpu$i"
		i=$((i + 1))
	done
} > "$src"
${CROSS_CC:-aarch64-linux-gnu-gcc} -nostdlib -static -o "$out" "$src"

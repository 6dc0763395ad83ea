#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests/tc_plugin_tc615.sh - every case of tc_plugin.sh again, with the
# tc of iproute2 6.15 from bookworm-backports instead of bookworm's 6.1:
# the same options, the same output, the same expectations (the one real
# difference, class JSON, is handled inside the cases).  make testdeps unpacks
# that tc with dpkg -x beside the system's, at $AICLASS_TC615 (default
# /var/cache/aiclass-tc615/root/sbin/tc); without it this file skips.
#
# Usage: selftests/tc_plugin_tc615.sh [-v] [ID|NAME-REGEX ...]

tc615=${AICLASS_TC615:-/var/cache/aiclass-tc615/root/sbin/tc}
if [ ! -x "$tc615" ]; then
	echo "TAP version 13"
	echo "1..0 # SKIP no tc 6.15 at $tc615 (make testdeps)"
	exit 4
fi
AICLASS_TC=$tc615 exec "$(dirname "$0")/tc_plugin.sh" "$@"

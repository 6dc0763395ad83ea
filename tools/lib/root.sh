# shellcheck shell=bash
# tools/lib/root.sh - sourced by tools/check-deb and tools/check-fresh: a
# throwaway Debian bookworm root, made with mmdebstrap from the host's own
# apt source files (read at run time: no mirror's address is written
# anywhere), and the host's /proc, /sys and /dev bound into it.
#
#   root_create ROOT CACHE LOG [PKG,PKG...]
#       minbase bookworm in ROOT (a directory; root mode, no Recommends)
#       with PKG...; the downloaded .deb files are kept in CACHE (bound over
#       the root's /var/cache/apt/archives while mmdebstrap runs, so apt
#       takes what is there and adds what it fetches) for the next run;
#       mmdebstrap's output in LOG, its tail printed when it fails.
#   root_mount ROOT, root_umount ROOT
#       /proc, /sys, /dev in and out of ROOT (root_umount also undoes any
#       archive cache still bound there, after a failed mmdebstrap).

# The host's apt source files that have an entry.
root_sources() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list \
		/etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && grep -qv '^\s*\(#\|$\)' "$f" && echo "$f"
	done
	return 0
}

root_create() {
	local root=$1 cache=$2 log=$3 include=${4:-} sources
	mapfile -t sources < <(root_sources)
	if [ ${#sources[@]} -eq 0 ]; then
		echo "no apt sources on this host" >&2
		return 1
	fi
	mkdir -p "$cache"
	# essential/unlink and cleanup/apt skipped: both would delete the
	# cache's files through the bind mount.
	mmdebstrap --quiet --variant=minbase --mode=root --format=directory \
		--aptopt='APT::Install-Recommends "false"' \
		${include:+--include="$include"} \
		--skip=essential/unlink,cleanup/apt \
		--setup-hook="mkdir -p \"\$1/var/cache/apt/archives\" && mount --bind $(printf %q "$cache") \"\$1/var/cache/apt/archives\"" \
		--customize-hook="umount \"\$1/var/cache/apt/archives\"" \
		bookworm "$root" "${sources[@]}" >"$log" 2>&1 ||
		{ tail -n 30 "$log"; return 1; }
}

root_mount() {
	[ -n "$1" ] || return 1
	mount -t proc proc "$1/proc"
	mount --rbind /sys "$1/sys"
	mount --rbind /dev "$1/dev"
}

root_umount() {
	local m
	[ -n "$1" ] || return 1
	for m in dev sys proc var/cache/apt/archives; do
		umount -R "$1/$m" 2>/dev/null || true
	done
}

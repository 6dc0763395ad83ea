# SPDX-License-Identifier: GPL-2.0
# aiclass: the sch_aiclass qdisc module (Kbuild), the tc plugin (tc/), the
# aiclassctl tool (tools/aiclassctl/) and the targets that install, check and
# demo them.
#
#   make                 module, tc plugin, tool
#   make deps            (as root) the Debian packages that building and
#                        installing on the running kernel need, and nothing
#                        else: gcc, make, kmod, libnl-3, pkg-config, dkms and
#                        linux-headers-$(uname -r) when Debian has it
#                        (KVER=VERSION: linux-headers-VERSION instead)
#   make testdeps        (as root) what check, demo and bench need, and the
#                        test bed's guest kernels and tc 6.15 unpacked into
#                        caches under /var/cache (no kernel installed); the
#                        targets below call it themselves
#   make check           testdeps, build, check-static, check-dkms, vmcheck,
#                        each on every kernel of CHECK_KVERS (6.1 and 6.12 LTS)
#   make demo            training vs inference through pfifo_fast and aiclass
#   make bench           aiclass vs pfifo_fast, fq_codel, cake, ets, prio into
#                        results/ (BENCH_QUICK=1: a smoke run, results/quick)
#   make install         module + depmod, tc plugin, tool, man pages, unit
#   make install-tools   userspace only (a packager's): the tc plugin,
#                        aiclassctl, both man pages, the unit; no module
#   make uninstall       all of that removed again (uninstall-tools: the
#                        userspace part)
#   make dkms            register with DKMS, build and install for $(KVER)
#   make deb             Debian packages aiclass-dkms and aiclass (debian/),
#                        built in a copy of the tree under build/deb/ and
#                        checked with lintian; the .deb files land there
#   make check-deb       (as root) those packages installed with apt into a
#                        throwaway root, DKMS, a guest drives them, purged
#   make check-fresh     (as root) the README on a fresh bookworm root: the
#                        install path (make deps, make, make install) for
#                        the test bed's kernel, and make demo (CI runs it)
#   make dkms-remove     every aiclass version registered with DKMS removed
#
# Which kernel.  Building (make, make module, check, demo, bench): KVER=
# and KDIR= as given, else the running kernel when its headers exist, else
# the kernel the test bed boots (tools/vm/kver: $AICLASS_KERNEL or the
# newest cached 6.1) with its headers from the test bed's cache, so that a
# developer builds on any machine.  Installing (install, install-module,
# uninstall, dkms, dkms-remove): KVER= as given, else `uname -r`, with the
# headers in /lib/modules/KVER/build (or KDIR= as given); the test bed's
# cache (/var/cache/aiclass-kernels) is never an install target, and
# without headers the install stops and says for which kernel.

UNAME_R := $(shell uname -r)
INSTALL_GOALS := install install-module uninstall uninstall-module dkms \
	dkms-remove
ifneq ($(filter $(INSTALL_GOALS),$(MAKECMDGOALS)),)
KVER ?= $(UNAME_R)
KDIR ?= /lib/modules/$(KVER)/build
else
ifneq ($(AICLASS_KERNEL),)
KVER ?= $(AICLASS_KERNEL)
else ifneq ($(wildcard /lib/modules/$(UNAME_R)/build),)
KVER ?= $(UNAME_R)
else
# no headers for the running kernel: the test bed's, or (no cache either)
# the running kernel again, so that the message below names it
KVER ?= $(or $(shell tools/vm/kver 2>/dev/null),$(UNAME_R))
endif
ifeq ($(origin KDIR),undefined)
KDIR := $(shell tools/vm/kver -b $(KVER) 2>/dev/null || echo /lib/modules/$(KVER)/build)
endif
endif

# The kernels make check builds for and runs the selftests on: the newest
# cached kernel of each CHECK_SERIES, Debian's 6.1 LTS and the 6.12 LTS
# from bookworm-backports (make testdeps unpacks both into
# /var/cache/aiclass-kernels); AICLASS_KERNEL=V or CHECK_KVERS="V..."
# narrows it.  Each gets its own build in build/KVER/, a copy of the module
# sources (M= has no separate output directory before 6.13), so that the
# modules never overwrite each other.
CHECK_SERIES ?= 6.1 6.12
ifneq ($(AICLASS_KERNEL),)
CHECK_KVERS ?= $(AICLASS_KERNEL)
else
CHECK_KVERS ?= $(foreach s,$(CHECK_SERIES),$(shell tools/vm/kver $(s) 2>/dev/null || echo missing-$(s)))
endif
kdir_of = $(shell tools/vm/kver -b $(1) 2>/dev/null || echo /lib/modules/$(1)/build)
MODULE_SRCS := Kbuild VERSION $(filter-out %.mod.c,$(wildcard *.c)) $(wildcard *.h)

# The project's version, one place: the VERSION file (Kbuild reads it too,
# for MODULE_VERSION; debian/changelog and the tag vVERSION follow it).
VERSION := $(strip $(shell cat $(CURDIR)/VERSION 2>/dev/null))
ifeq ($(VERSION),)
$(error no VERSION file in $(CURDIR): the version of the module, DKMS and the packages comes from there)
endif
# Install layout.  The module goes to /lib/modules/KVER/updates/, where DKMS
# puts it too (dkms.conf; Debian's DKMS adds a dkms/ below it); everything
# else follows PREFIX, and DESTDIR stages the whole tree.
DESTDIR ?=
PREFIX ?= /usr/local
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
MODDIR = /lib/modules/$(KVER)/updates
INSTALL_VARS = DESTDIR=$(DESTDIR) PREFIX=$(PREFIX) SBINDIR=$(SBINDIR) \
	MANDIR=$(MANDIR)

SUBDIRS := $(patsubst %/Makefile,%,$(wildcard tc/Makefile tools/aiclassctl/Makefile))
TESTS ?=
BENCH_QUICK ?=
# A guard against a hung guest, per kernel; every test file has its own
# limit (AICLASS_TEST_TIMEOUT, 600 s).
VM_TIMEOUT ?= 1800

all: module $(SUBDIRS)

module: headers
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

headers:
	@test -f $(KDIR)/Makefile || { \
		echo "no kernel headers for $(KVER)$(if $(filter $(UNAME_R),$(KVER)), (the running kernel),) in $(KDIR):" \
		"install linux-headers-$(KVER)$(if $(filter $(UNAME_R),$(KVER)), (make deps),)," \
		"or say KVER=VERSION [KDIR=DIR] of a kernel that has them" >&2; exit 1; }

$(SUBDIRS):
	$(MAKE) -C $@

modules-check:
	@set -e; for k in $(CHECK_KVERS); do \
		kdir=$$(tools/vm/kver -b $$k) || exit 1; \
		mkdir -p build/$$k; \
		cp -p $(MODULE_SRCS) build/$$k/; \
		$(MAKE) -C $$kdir M=$(CURDIR)/build/$$k modules; \
	done

# KVER only when the user gave it: the headers of the kernel make install
# KVER= is for.
deps:
	tools/deps build $(if $(filter command line environment,$(origin KVER)),$(KVER))

testdeps:
	tools/deps test

# check-static and check-dkms (about 40 s of compiling, serial) run in the
# background, niced, while the guests run (vmcheck): the guests leave host
# CPU idle whenever they sleep or wait.  Their output follows the guests',
# and the selftests' closing line is repeated last.
check:
	$(MAKE) testdeps
	$(MAKE) all
	@set -u; log=$$(mktemp); vlog=$$(mktemp); \
	( s=0; nice -n 10 $(MAKE) check-static || s=1; \
	  nice -n 10 $(MAKE) check-dkms || s=1; exit $$s ) >$$log 2>&1 & bg=$$!; \
	{ $(MAKE) vmcheck; echo $$? >$$vlog.rc; } 2>&1 | tee $$vlog; \
	vm=$$(cat $$vlog.rc); wait $$bg; st=$$?; \
	echo "== check-static and check-dkms, run alongside the guests:"; \
	cat $$log; \
	[ $$st -eq 0 ] || echo "check: check-static or check-dkms FAILED (above)"; \
	grep -aE '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$$' $$vlog | tail -n 1; \
	rm -f $$log $$vlog $$vlog.rc; \
	[ $$vm -eq 0 ] && [ $$st -eq 0 ]

check-static:
	tools/check-static $(foreach k,$(CHECK_KVERS),$(call kdir_of,$(k)))

check-dkms:
	set -e; $(foreach k,$(CHECK_KVERS),tools/check-dkms $(VERSION) $(k);)

vmcheck: modules-check
	AICLASS_VM_TIMEOUT=$(VM_TIMEOUT) selftests/run \
		$(foreach k,$(CHECK_KVERS),-k $(k)) $(TESTS)

# The selftests on a debug kernel (KASAN, lockdep, kmemleak, UBSAN) built
# from Debian's linux-source-6.1 and cached by its config fragment
# (tools/debug-kernel/): about 20 minutes to build, once.
check-debug:
	$(MAKE) testdeps
	tools/debug-kernel/check $(TESTS)

# demo and bench boot the test bed's kernel (tools/vm/kver, known only once
# testdeps has filled the cache) with the module built for it.
demo:
	$(MAKE) testdeps
	k=$$(tools/vm/kver) && $(MAKE) all KVER=$$k && \
		AICLASS_KERNEL=$$k tools/demo.sh

# bench boots 6.12 by default: fq has its priority bands from 6.7.
BENCH_SERIES ?= 6.12
bench:
	$(MAKE) testdeps
	k=$$(tools/vm/kver $(BENCH_SERIES)) && $(MAKE) all KVER=$$k && \
		AICLASS_KERNEL=$$k AICLASS_BENCH_QUICK=$(BENCH_QUICK) tools/bench/bench.sh

install: install-module install-tools

# The module built for KVER, checked by its vermagic (a module built for
# another kernel is not installed: make -o module would allow one).
install-module: module
	@v=$$(modinfo -F vermagic sch_aiclass.ko 2>/dev/null | cut -d' ' -f1); \
	if [ -n "$$v" ] && [ "$$v" != "$(KVER)" ]; then \
		echo "sch_aiclass.ko is built for $$v, not for $(KVER): make clean," \
			"then make install [KVER=VERSION]" >&2; exit 1; fi
	install -D -m 0644 sch_aiclass.ko $(DESTDIR)$(MODDIR)/sch_aiclass.ko
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi

install-tools: $(SUBDIRS)
	$(foreach d,$(SUBDIRS),$(MAKE) -C $(d) install $(INSTALL_VARS) &&) true

uninstall: uninstall-module uninstall-tools

# Also the extra/ copy that make install wrote before it used updates/.
uninstall-module:
	rm -f $(DESTDIR)$(MODDIR)/sch_aiclass.ko \
		$(DESTDIR)/lib/modules/$(KVER)/extra/sch_aiclass.ko
	if [ -z "$(DESTDIR)" ] && [ -d /lib/modules/$(KVER) ]; then depmod -a $(KVER); fi

uninstall-tools:
	$(foreach d,$(SUBDIRS),$(MAKE) -C $(d) uninstall $(INSTALL_VARS) &&) true

# DKMS on a real machine: rebuilt for every kernel the machine installs.
# Any aiclass version registered before (an older make dkms, or this one
# again) is removed first (tools/dkms-remove says which); so is every one
# by dkms-remove.  A version the aiclass-dkms package registered is left
# to apt.
dkms: headers
	@if dpkg-query -S /usr/src/aiclass-$(VERSION) >/dev/null 2>&1; then \
		echo "aiclass $(VERSION) is installed here by the aiclass-dkms package:" \
			"use it, or apt purge aiclass-dkms first" >&2; exit 1; fi
	tools/dkms-remove
	tools/dkms-src $(VERSION)
	dkms add -m aiclass -v $(VERSION)
	dkms install -m aiclass -v $(VERSION) -k $(KVER)

dkms-remove:
	tools/dkms-remove

# Debian packages: dpkg-buildpackage in a copy of the tree (the files git
# knows, committed or not), so that the checkout's own builds and objects
# are left alone; the version is VERSION's, which debian/changelog must
# have too.  lintian fails the build on an error.
DEB_DIR ?= build/deb
DEB_SRC = $(DEB_DIR)/aiclass-$(VERSION)
deb:
	@v=$$(dpkg-parsechangelog -S Version) && [ "$$v" = "$(VERSION)" ] || { \
		echo "debian/changelog is at $$v, VERSION at $(VERSION):" \
			"add a changelog entry (dch -v $(VERSION))" >&2; exit 1; }
	rm -rf $(DEB_SRC)
	mkdir -p $(DEB_SRC)
	git ls-files -z --cached --others --exclude-standard -- . ':!:build' | \
		tar --null -T - --ignore-failed-read -cf - | tar -xf - -C $(DEB_SRC)
	cd $(DEB_SRC) && dpkg-buildpackage -us -uc -b
	lintian --fail-on error $(DEB_DIR)/aiclass_$(VERSION)_$$(dpkg-architecture -qDEB_HOST_ARCH).changes
	@ls -1 $(DEB_DIR)/*_$(VERSION)_*.deb

# The packages end to end (tools/check-deb): make deb, apt-get install into
# a throwaway bookworm root with the test bed's kernel and headers, DKMS
# builds the module, a guest loads it and drives it with the packaged tc
# plugin and aiclassctl, apt-get purge leaves the root as it was.  Not in
# make check (docs/testing.md says when it runs).
check-deb:
	$(MAKE) testdeps
	tools/check-deb $(AICLASS_KERNEL)

# The README on a root that has nothing (tools/check-fresh): a minbase
# bookworm root with git and make, a clean clone of HEAD in it, then the
# install path and make demo inside, as a new user runs them.
check-fresh:
	$(MAKE) testdeps
	tools/check-fresh

clean:
	if [ -d $(KDIR) ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -rf build
	$(foreach d,$(SUBDIRS),$(MAKE) -C $(d) clean &&) true

.PHONY: all module headers modules-check $(SUBDIRS) deps testdeps check \
	check-static check-dkms vmcheck check-debug demo bench install \
	install-module install-tools uninstall uninstall-module \
	uninstall-tools dkms dkms-remove deb check-deb check-fresh clean

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
#   make uninstall       all of that removed again
#   make dkms            register with DKMS, build and install for $(KVER)
#
# KVER/KDIR: the running kernel when its headers exist, else the kernel the
# test bed boots (tools/vm/kver: $AICLASS_KERNEL or the newest cached 6.1),
# with its headers from the test bed's kernel cache.

UNAME_R := $(shell uname -r)
ifneq ($(AICLASS_KERNEL),)
KVER ?= $(AICLASS_KERNEL)
else ifneq ($(wildcard /lib/modules/$(UNAME_R)/build),)
KVER ?= $(UNAME_R)
else
KVER ?= $(shell tools/vm/kver 2>/dev/null)
endif
ifeq ($(origin KDIR),undefined)
KDIR := $(shell tools/vm/kver -b $(KVER) 2>/dev/null || echo /lib/modules/$(KVER)/build)
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
MODULE_SRCS := Kbuild $(filter-out %.mod.c,$(wildcard *.c)) $(wildcard *.h)

VERSION := $(shell cat VERSION 2>/dev/null || \
	git describe --always --dirty 2>/dev/null || echo 0)
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

module:
	@test -f $(KDIR)/Makefile || { echo "no kernel headers for '$(KVER)' in $(KDIR):" \
		"install them (make deps), or say KVER=VERSION [KDIR=DIR]" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

$(SUBDIRS):
	$(MAKE) -C $@

modules-check:
	@set -e; for k in $(CHECK_KVERS); do \
		kdir=$$(tools/vm/kver -b $$k) || exit 1; \
		mkdir -p build/$$k; \
		cp -p $(MODULE_SRCS) build/$$k/; \
		$(MAKE) -C $$kdir M=$(CURDIR)/build/$$k modules; \
	done

deps:
	tools/deps build

testdeps:
	tools/deps test

check:
	$(MAKE) testdeps
	$(MAKE) all
	$(MAKE) check-static
	$(MAKE) check-dkms
	$(MAKE) vmcheck

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
		AICLASS_KERNEL=$$k tools/vm/run -t 400 -- tools/demo.sh

# bench boots 6.12 by default: fq has its priority bands from 6.7.
BENCH_SERIES ?= 6.12
bench:
	$(MAKE) testdeps
	k=$$(tools/vm/kver $(BENCH_SERIES)) && $(MAKE) all KVER=$$k && \
		AICLASS_KERNEL=$$k AICLASS_BENCH_QUICK=$(BENCH_QUICK) tools/bench/bench.sh

install: all
	install -D -m 0644 sch_aiclass.ko $(DESTDIR)$(MODDIR)/sch_aiclass.ko
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi
	$(foreach d,$(SUBDIRS),$(MAKE) -C $(d) install $(INSTALL_VARS) &&) true

# Also the extra/ copy that make install wrote before it used updates/.
uninstall:
	rm -f $(DESTDIR)$(MODDIR)/sch_aiclass.ko \
		$(DESTDIR)/lib/modules/$(KVER)/extra/sch_aiclass.ko
	if [ -z "$(DESTDIR)" ] && [ -d /lib/modules/$(KVER) ]; then depmod -a $(KVER); fi
	$(foreach d,$(SUBDIRS),$(MAKE) -C $(d) uninstall $(INSTALL_VARS) &&) true

# DKMS on a real machine: rebuilt for every kernel the machine installs.
dkms:
	tools/dkms-src $(VERSION)
	dkms add -m aiclass -v $(VERSION)
	dkms install -m aiclass -v $(VERSION) -k $(KVER)

dkms-remove:
	dkms remove -m aiclass -v $(VERSION) --all
	rm -rf /usr/src/aiclass-$(VERSION)

clean:
	if [ -d $(KDIR) ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -rf build
	$(foreach d,$(SUBDIRS),$(MAKE) -C $(d) clean &&) true

.PHONY: all module modules-check $(SUBDIRS) deps testdeps check \
	check-static check-dkms vmcheck check-debug demo bench install \
	uninstall dkms dkms-remove clean

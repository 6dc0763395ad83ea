# SPDX-License-Identifier: GPL-2.0
# aiclass: the sch_aiclass qdisc module (Kbuild), the tc plugin (tc/), the
# aiclassctl tool (tools/) and the targets that install, check and demo them.
#
#   make                 module, tc plugin, tool
#   make deps            Debian packages for everything below (as root)
#   make check           deps, build, check-static, check-dkms, vmcheck, each
#                        on every kernel of CHECK_KVERS (6.1 and 6.12 LTS)
#   make demo            training vs inference through pfifo_fast and aiclass
#   make bench           aiclass vs pfifo_fast, fq_codel, cake, ets, prio into
#                        results/ (BENCH_QUICK=1: a smoke run, results/quick)
#   make install         module + depmod, tc plugin, tool, man pages
#   make dkms            register with DKMS, build and install for $(KVER)
#
# KVER/KDIR: the running kernel when its headers exist, else the kernel the
# test bed boots (tools/vm/kver: $AICLASS_KERNEL or the newest packaged 6.1).

UNAME_R := $(shell uname -r)
ifneq ($(AICLASS_KERNEL),)
KVER ?= $(AICLASS_KERNEL)
else ifneq ($(wildcard /lib/modules/$(UNAME_R)/build),)
KVER ?= $(UNAME_R)
else
KVER ?= $(shell tools/vm/kver 2>/dev/null || \
	ls -d /usr/src/linux-headers-*-amd64 2>/dev/null | \
	sed 's|.*/linux-headers-||' | sort -V | tail -n 1)
endif
KDIR ?= /lib/modules/$(KVER)/build

# The kernels make check builds for and runs the selftests on: the newest
# packaged kernel of each CHECK_SERIES, Debian's 6.1 LTS and the 6.12 LTS
# from bookworm-backports (make deps installs both); AICLASS_KERNEL=V or
# CHECK_KVERS="V..." narrows it.  Each gets its own build in build/KVER/, a
# copy of the module sources (M= has no separate output directory before
# 6.13), so that the modules never overwrite each other.
CHECK_SERIES ?= 6.1 6.12
ifneq ($(AICLASS_KERNEL),)
CHECK_KVERS ?= $(AICLASS_KERNEL)
else
CHECK_KVERS ?= $(foreach s,$(CHECK_SERIES),$(shell tools/vm/kver $(s) || echo missing-$(s)))
endif
MODULE_SRCS := Kbuild $(filter-out %.mod.c,$(wildcard *.c)) $(wildcard *.h)

VERSION := $(shell cat VERSION 2>/dev/null || \
	git describe --always --dirty 2>/dev/null || echo 0)
DESTDIR ?=
SBINDIR ?= /usr/local/sbin

SUBDIRS := $(patsubst %/Makefile,%,$(wildcard tc/Makefile tools/aiclassctl/Makefile))
TESTS ?=
BENCH_QUICK ?=
# A guard against a hung guest, per kernel; every test file has its own
# limit (AICLASS_TEST_TIMEOUT, 600 s).
VM_TIMEOUT ?= 1800

all: module $(SUBDIRS)

module:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

$(SUBDIRS):
	$(MAKE) -C $@

modules-check:
	@set -e; for k in $(CHECK_KVERS); do \
		if [ ! -f /lib/modules/$$k/build/Makefile ]; then \
			echo "no kernel headers for $$k (make deps)" >&2; exit 1; \
		fi; \
		mkdir -p build/$$k; \
		cp -p $(MODULE_SRCS) build/$$k/; \
		$(MAKE) -C /lib/modules/$$k/build M=$(CURDIR)/build/$$k modules; \
	done

deps:
	tools/deps

check:
	$(MAKE) deps
	$(MAKE) all
	$(MAKE) check-static
	$(MAKE) check-dkms
	$(MAKE) vmcheck

check-static:
	tools/check-static $(foreach k,$(CHECK_KVERS),/lib/modules/$(k)/build)

check-dkms:
	set -e; $(foreach k,$(CHECK_KVERS),tools/check-dkms $(VERSION) $(k);)

vmcheck: modules-check
	AICLASS_VM_TIMEOUT=$(VM_TIMEOUT) selftests/run \
		$(foreach k,$(CHECK_KVERS),-k $(k)) $(TESTS)

# The selftests on a debug kernel (KASAN, lockdep, kmemleak, UBSAN) built
# from Debian's linux-source-6.1 and cached by its config fragment
# (tools/debug-kernel/): about 20 minutes to build, once.
check-debug:
	$(MAKE) deps
	tools/debug-kernel/check $(TESTS)

demo:
	$(MAKE) deps
	$(MAKE) all
	AICLASS_KERNEL=$(KVER) tools/vm/run -t 400 -- tools/demo.sh

bench:
	$(MAKE) deps
	$(MAKE) all
	AICLASS_KERNEL=$(KVER) AICLASS_BENCH_QUICK=$(BENCH_QUICK) tools/bench/bench.sh

install: all
	install -D -m 0644 sch_aiclass.ko \
		$(DESTDIR)/lib/modules/$(KVER)/extra/sch_aiclass.ko
	if [ -z "$(DESTDIR)" ]; then depmod -a $(KVER); fi
	$(foreach d,$(SUBDIRS),$(MAKE) -C $(d) install DESTDIR=$(DESTDIR) SBINDIR=$(SBINDIR) &&) true

# DKMS on a real machine: rebuilt for every kernel the machine installs.
dkms:
	tools/dkms-src $(VERSION)
	dkms add -m aiclass -v $(VERSION)
	dkms install -m aiclass -v $(VERSION) -k $(KVER)

clean:
	if [ -d $(KDIR) ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	rm -rf build
	$(foreach d,$(SUBDIRS),$(MAKE) -C $(d) clean &&) true

.PHONY: all module modules-check $(SUBDIRS) deps check check-static \
	check-dkms vmcheck check-debug \
	demo bench install dkms clean

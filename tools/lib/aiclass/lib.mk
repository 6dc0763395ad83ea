# SPDX-License-Identifier: GPL-2.0
# tools/lib/aiclass/lib.mk: included by the makefiles of the programs that
# share this code (tc/Makefile, tools/aiclassctl/Makefile), which set
# AICLASS_LIB_DIR to this folder first.  The sources are compiled into each
# program (a plugin loaded by tc cannot depend on a shared library of ours).
AICLASS_LIB_SRCS := $(addprefix $(AICLASS_LIB_DIR)/,units.c opts.c stats.c json.c)
AICLASS_LIB_HDRS := $(addprefix $(AICLASS_LIB_DIR)/,aiclass.h nla.h) \
		    $(AICLASS_LIB_DIR)/../../../sch_aiclass.h
